"""The incident's data version: open pages poll it and read the rest again when it moves."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES_DIR

SS_TAN = FIXTURES_DIR / "ss" / "ss-tan.txt"


def version(client: TestClient, base: str) -> int:
    response = client.get(f"{base}/version")
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    return int(response.json()["version"])


def test_every_change_a_page_shows_moves_the_version(client: TestClient, incident_id: str) -> None:
    base = f"/api/incidents/{incident_id}"
    seen = [version(client, base)]

    def moved() -> bool:
        seen.append(version(client, base))
        return seen[-1] != seen[-2]

    assert not moved()  # reading moves nothing
    upload = client.post(
        f"{base}/artifacts",
        content=SS_TAN.read_bytes(),
        params={"filename": SS_TAN.name, "wait": "60"},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert upload.status_code == 201, upload.text
    assert moved()  # uploaded, parsed, findings recomputed
    artifact_id = upload.json()["artifacts"][0]["id"]
    assert (
        client.post(f"{base}/artifacts/{artifact_id}/reparse", params={"wait": 60}).status_code
        == 201
    )
    assert moved()
    review = {"verdict_override": "ruled_out", "note": "n", "author": "x"}
    assert client.patch(f"{base}/checklist/time_wait_storm", json=review).status_code == 200
    assert moved()
    note = client.post(f"{base}/annotations", json={"from_ms": 1, "text": "look"}).json()
    assert moved()
    assert client.delete(f"{base}/annotations/{note['id']}").status_code == 204
    assert moved()
    assert client.patch(base, json={"title": "renamed"}).status_code == 200
    assert moved()
    assert not moved()


def test_the_shared_view_polls_it_too(client: TestClient, incident_id: str) -> None:
    token = client.post(f"/api/incidents/{incident_id}/shares", json={"label": "x"}).json()["token"]
    assert version(client, f"/api/shared/{token}") == version(
        client, f"/api/incidents/{incident_id}"
    )
