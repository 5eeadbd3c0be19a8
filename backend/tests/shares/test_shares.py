"""Share links: managed by signed-in users, read-only for whoever holds the token."""

from __future__ import annotations

from fastapi.testclient import TestClient

from rootline.settings import Settings
from rootline.timeutil import now_ms
from tests.conftest import FIXTURES_DIR, add_token, add_user, db_session, sign_in

SHARED_READS = (
    "",
    "/series",
    "/timeline",
    "/events",
    "/facts",
    "/checklist",
    "/annotations",
    "/artifacts",
)


def upload(client: TestClient, incident_id: str) -> str:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": "ss-tan.txt", "host": "web-1", "wait": 60},
        content=(FIXTURES_DIR / "ss" / "ss-tan.txt").read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    return str(response.json()["artifacts"][0]["id"])


def share(client: TestClient, incident_id: str, **body: object) -> dict[str, object]:
    response = client.post(f"/api/incidents/{incident_id}/shares", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, object] = response.json()
    return created


def test_create_list_revoke(client: TestClient, anon_client: TestClient, incident_id: str) -> None:
    created = share(client, incident_id, label="for the vendor")
    token = str(created["token"])
    assert created["url"] == f"/share/{token}"
    assert len(token) >= 43 and created["prefix"] == token[:8]
    assert created["created_by"] == "admin"
    assert (created["allow_raw"], created["revoked"], created["expired"]) == (False, False, False)
    listed = client.get(f"/api/incidents/{incident_id}/shares").json()
    assert [s["id"] for s in listed] == [created["id"]]
    assert "token" not in listed[0] and listed[0]["label"] == "for the vendor"

    shared = anon_client.get(f"/api/shared/{token}")
    assert shared.status_code == 200
    assert shared.json()["incident"]["id"] == incident_id
    assert shared.json()["allow_raw"] is False

    url = f"/api/incidents/{incident_id}/shares/{created['id']}"
    assert client.delete(url).status_code == 204
    assert client.get(f"/api/incidents/{incident_id}/shares").json()[0]["revoked"] is True
    gone = anon_client.get(f"/api/shared/{token}")
    assert gone.status_code == 404 and gone.json()["code"] == "share_not_found"
    assert client.delete(f"/api/incidents/{incident_id}/shares/999999").status_code == 404


def test_expired_share_stops_working(
    client: TestClient, anon_client: TestClient, incident_id: str, database_url: str
) -> None:
    from sqlalchemy import update

    from rootline.shares.models import Share

    assert (
        client.post(
            f"/api/incidents/{incident_id}/shares", json={"expires_at_ms": now_ms() - 1}
        ).status_code
        == 400
    )
    created = share(client, incident_id, expires_at_ms=now_ms() + 60_000)
    assert anon_client.get(f"/api/shared/{created['token']}").status_code == 200
    with db_session(database_url) as session:
        session.execute(update(Share).values(expires_at_ms=now_ms() - 1))
    assert anon_client.get(f"/api/shared/{created['token']}").status_code == 404
    assert client.get(f"/api/incidents/{incident_id}/shares").json()[0]["expired"] is True


def test_shared_routes_read_like_the_private_ones(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    artifact_id = upload(client, incident_id)
    client.post(f"/api/incidents/{incident_id}/annotations", json={"from_ms": 1, "text": "x"})
    token = share(client, incident_id)["token"]
    for path in SHARED_READS:
        private = client.get(f"/api/incidents/{incident_id}{path}")
        shared = anon_client.get(f"/api/shared/{token}{path}")
        assert shared.status_code == 200, (path, shared.text)
        if path:
            assert shared.json() == private.json(), path
    params = {"name": "tcp.*", "limit": 5}
    assert (
        anon_client.get(f"/api/shared/{token}/series", params=params).json()
        == client.get(f"/api/incidents/{incident_id}/series", params=params).json()
    )
    one = anon_client.get(f"/api/shared/{token}/artifacts/{artifact_id}")
    assert one.status_code == 200 and one.json()["id"] == artifact_id
    raw = anon_client.get(f"/api/shared/{token}/artifacts/{artifact_id}/raw")
    assert raw.status_code == 403 and raw.json()["code"] == "raw_not_allowed"


def test_raw_download_only_when_allowed(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    artifact_id = upload(client, incident_id)
    token = share(client, incident_id, allow_raw=True)["token"]
    raw = anon_client.get(f"/api/shared/{token}/artifacts/{artifact_id}/raw")
    assert raw.status_code == 200
    assert raw.content == (FIXTURES_DIR / "ss" / "ss-tan.txt").read_bytes()


def test_shared_token_reaches_nothing_else(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    other = client.post("/api/incidents", json={"title": "other"}).json()["id"]
    other_artifact = upload(client, other)
    token = share(client, incident_id, allow_raw=True)["token"]
    base = f"/api/shared/{token}"
    assert anon_client.get(f"{base}/artifacts/{other_artifact}").status_code == 404
    assert anon_client.get(f"{base}/artifacts/{other_artifact}/raw").status_code == 404
    # No writes under /api/shared, and the token opens no private route.
    assert (
        anon_client.post(f"{base}/annotations", json={"from_ms": 1, "text": "x"}).status_code == 405
    )
    assert anon_client.patch(f"{base}/checklist/gc_pauses", json={}).status_code in {404, 405}
    assert anon_client.post(f"{base}/artifacts", content=b"x").status_code == 405
    assert anon_client.delete(base).status_code == 405
    for headers in ({"Authorization": f"Bearer {token}"}, {"Cookie": f"rootline_session={token}"}):
        assert anon_client.get(f"/api/incidents/{incident_id}", headers=headers).status_code == 401


def test_a_disabled_users_share_links_stop_working(
    client: TestClient, anon_client: TestClient, incident_id: str, database_url: str
) -> None:
    from rootline.accounts import service as accounts_service
    from rootline.accounts.models import User

    colleague = add_user(database_url, "colleague")
    with TestClient(client.app) as theirs:
        sign_in(theirs, "colleague")
        token = share(theirs, incident_id)["token"]
    kept = share(client, incident_id)["token"]
    assert anon_client.get(f"/api/shared/{token}").status_code == 200

    def set_disabled(disabled: bool) -> None:
        with db_session(database_url) as session:
            user = session.get(User, colleague)
            assert user is not None
            accounts_service.set_disabled(session, user, disabled)

    set_disabled(True)
    gone = anon_client.get(f"/api/shared/{token}")
    assert gone.status_code == 404 and gone.json()["code"] == "share_not_found"
    assert anon_client.get(f"/api/shared/{token}/series").status_code == 404
    assert anon_client.get(f"/api/shared/{kept}").status_code == 200  # another user's link
    set_disabled(False)  # like API tokens: they work again once the user is enabled again
    assert anon_client.get(f"/api/shared/{token}").status_code == 200


def test_only_signed_in_users_manage_shares(
    client: TestClient, anon_client: TestClient, incident_id: str, database_url: str
) -> None:
    token = add_token(database_url, add_user(database_url, "ci"))
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/incidents/{incident_id}/shares"
    assert anon_client.post(url, json={}, headers=headers).status_code == 403
    assert anon_client.get(url, headers=headers).status_code == 403
    assert anon_client.get(url).status_code == 401


def test_failed_share_lookups_are_rate_limited(
    client: TestClient, settings: Settings, incident_id: str
) -> None:
    from rootline.app import create_app

    token = share(client, incident_id)["token"]
    app = create_app(settings.model_copy(update={"share_rate_limit": 3}))
    with TestClient(app) as anon:
        failed = [anon.get(f"/api/shared/guess-{i}") for i in range(5)]
        assert [r.status_code for r in failed] == [404] * 3 + [429] * 2
        assert "Retry-After" in failed[-1].headers
        # Failures behind this address slow guessers down; a viewer with the link still sees it.
        assert anon.get(f"/api/shared/{token}").status_code == 200
        assert anon.get(f"/api/shared/{token}/checklist").status_code == 200
    app.state.engine.dispose()
