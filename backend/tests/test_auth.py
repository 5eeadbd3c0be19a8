"""Sign-in, sessions, CSRF, API tokens and who may call which route."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event, select
from sqlalchemy.orm import Session, sessionmaker

from rootline.accounts import service
from rootline.accounts.models import ApiToken, LoginSession, User
from rootline.auth import api_routes, route_access
from rootline.db import make_engine, make_sessionmaker
from rootline.settings import Settings
from tests.conftest import (
    ADMIN,
    FIXTURES_DIR,
    TEST_PASSWORD,
    add_link,
    add_token,
    add_user,
    run_server,
    sign_in,
)


@pytest.fixture()
def db(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upload(client: TestClient, incident_id: str, headers: dict[str, str] | None = None) -> int:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": "ss-s.txt", "wait": 60},
        content=(FIXTURES_DIR / "ss" / "ss-s.txt").read_bytes(),
        headers={"Content-Type": "application/octet-stream", **(headers or {})},
    )
    return response.status_code


# --- Passwords, sign-in, sessions ------------------------------------------------------


def test_passwords_are_stored_as_argon2_hashes(db: sessionmaker[Session]) -> None:
    with db.begin() as session:
        service.create_user(session, "li.wei", password="s3cret-enough")
    with db() as session:
        user = session.scalar(select(User).where(User.username == "li.wei"))
        assert user is not None and user.password_hash is not None
        assert user.password_hash.startswith("$argon2id$")
        assert "s3cret-enough" not in user.password_hash
        assert service.authenticate(session, "li.wei", "s3cret-enough") is not None
        assert service.authenticate(session, "li.wei", "wrong-password") is None
        assert service.authenticate(session, "nobody", "s3cret-enough") is None


def test_login_me_logout(
    anon_client: TestClient, database_url: str, db: sessionmaker[Session]
) -> None:
    add_user(database_url, "li.wei")
    assert anon_client.get("/api/auth/me").status_code == 401
    wrong = anon_client.post("/api/auth/login", json={"username": "li.wei", "password": "nope"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "invalid_credentials"
    unknown = anon_client.post("/api/auth/login", json={"username": "x", "password": "nope"})
    assert unknown.json()["code"] == "invalid_credentials"

    me = sign_in(anon_client, "li.wei")
    assert me["user"] == {
        "id": me["user"]["id"],
        "username": "li.wei",
        "is_admin": False,
        "has_password": True,
    }
    assert anon_client.cookies.get("rootline_csrf") == me["csrf_token"]
    assert anon_client.get("/api/auth/me").json() == me
    with db() as session:
        stored = session.scalars(select(LoginSession)).all()
        # The table holds the digest of the cookie, not the cookie.
        assert [s.id for s in stored] != [anon_client.cookies.get("rootline_session")]
        assert len(stored) == 1 and len(stored[0].id) == 64

    assert anon_client.post("/api/auth/logout").status_code == 204
    assert anon_client.get("/api/auth/me").status_code == 401
    with db() as session:
        assert session.scalars(select(LoginSession)).all() == []


def _set_cookies(response_headers: list[tuple[str, str]]) -> dict[str, str]:
    return {value.split("=", 1)[0]: value for key, value in response_headers if key == "set-cookie"}


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_cookie_flags(app: FastAPI, database_url: str, scheme: str) -> None:
    add_user(database_url, "li.wei")
    with TestClient(app, base_url=f"{scheme}://testserver") as client:
        response = client.post(
            "/api/auth/login", json={"username": "li.wei", "password": TEST_PASSWORD}
        )
    assert response.status_code == 200
    cookies = _set_cookies(response.headers.multi_items())
    session_cookie, csrf_cookie = cookies["rootline_session"], cookies["rootline_csrf"]
    assert "HttpOnly" in session_cookie and "HttpOnly" not in csrf_cookie
    for cookie in (session_cookie, csrf_cookie):
        assert re.search(r"SameSite=lax", cookie, re.IGNORECASE)
        assert "Path=/" in cookie
        assert ("Secure" in cookie) == (scheme == "https")


def test_forwarded_proto_counts_only_when_trusted(settings: Settings, database_url: str) -> None:
    from rootline.app import create_app

    add_user(database_url, "li.wei")
    for trusted in (False, True):
        app = create_app(settings.model_copy(update={"trust_proxy_headers": trusted}))
        with TestClient(app) as client:
            response = client.post(
                "/api/auth/login",
                json={"username": "li.wei", "password": TEST_PASSWORD},
                headers={"X-Forwarded-Proto": "https"},
            )
        cookie = _set_cookies(response.headers.multi_items())["rootline_session"]
        assert ("Secure" in cookie) == trusted
        app.state.engine.dispose()


def test_disabled_user_is_refused_with_its_sessions_and_tokens(
    client: TestClient,
    anon_client: TestClient,
    database_url: str,
    db: sessionmaker[Session],
) -> None:
    user_id = add_user(database_url, "li.wei")
    token = add_token(database_url, user_id)
    sign_in(anon_client, "li.wei")
    assert anon_client.get("/api/incidents").status_code == 200
    assert client.get("/api/incidents", headers=bearer(token)).status_code == 200
    with db.begin() as session:
        user = session.get(User, user_id)
        assert user is not None
        service.set_disabled(session, user, True)
    assert anon_client.get("/api/incidents").status_code == 401
    assert client.get("/api/incidents", headers=bearer(token)).status_code == 401
    refused = anon_client.post(
        "/api/auth/login", json={"username": "li.wei", "password": TEST_PASSWORD}
    )
    assert refused.status_code == 401


def test_password_change(anon_client: TestClient, database_url: str) -> None:
    link = add_link(database_url, add_user(database_url, "li.wei", password=None))
    anon_client.get(f"/api/auth/one-time/{link}", follow_redirects=False)
    me = anon_client.get("/api/auth/me").json()
    assert me["user"]["has_password"] is False
    anon_client.headers["X-CSRF-Token"] = me["csrf_token"]
    url = "/api/auth/password"
    assert anon_client.post(url, json={"new_password": "short"}).status_code == 422
    assert anon_client.post(url, json={"new_password": "first-password"}).status_code == 204
    assert anon_client.get("/api/auth/me").json()["user"]["has_password"] is True
    # Now the current password is needed.
    assert anon_client.post(url, json={"new_password": "second-password"}).status_code == 400
    wrong = anon_client.post(
        url, json={"current_password": "nope", "new_password": "second-password"}
    )
    assert wrong.json()["code"] == "wrong_password"
    ok = anon_client.post(
        url, json={"current_password": "first-password", "new_password": "second-password"}
    )
    assert ok.status_code == 204
    anon_client.post("/api/auth/logout")
    sign_in(anon_client, "li.wei", "second-password")


# --- CSRF --------------------------------------------------------------------------------


def test_cookie_writes_need_the_csrf_header(client: TestClient) -> None:
    csrf = client.headers.pop("X-CSRF-Token")
    assert client.get("/api/incidents").status_code == 200
    missing = client.post("/api/incidents", json={"title": "x"})
    assert missing.status_code == 403 and missing.json()["code"] == "csrf_failed"
    wrong = client.post("/api/incidents", json={"title": "x"}, headers={"X-CSRF-Token": "nope"})
    assert wrong.status_code == 403 and wrong.json()["code"] == "csrf_failed"
    foreign = client.post(
        "/api/incidents",
        json={"title": "x"},
        headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403 and foreign.json()["code"] == "csrf_failed"
    same = client.post(
        "/api/incidents",
        json={"title": "x"},
        headers={"X-CSRF-Token": csrf, "Origin": "http://testserver"},
    )
    assert same.status_code == 201


def test_login_from_a_foreign_origin_is_refused(anon_client: TestClient, database_url: str) -> None:
    add_user(database_url, "li.wei")
    response = anon_client.post(
        "/api/auth/login",
        json={"username": "li.wei", "password": TEST_PASSWORD},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403 and response.json()["code"] == "csrf_failed"


def test_with_a_public_url_only_its_origin_may_write(settings: Settings, database_url: str) -> None:
    from rootline.app import create_app

    add_user(database_url, "li.wei")
    public = settings.model_copy(update={"public_url": "https://Rootline.example.com:443/app/"})
    app = create_app(public)
    credentials = {"username": "li.wei", "password": TEST_PASSWORD}
    with TestClient(app) as browser:
        # A page on a name that resolves to this server (DNS rebinding) sends its own name as
        # both Host and Origin: they agree, which is all the check used to ask.
        rebound = {"Host": "attacker.example", "Origin": "http://attacker.example"}
        login = browser.post("/api/auth/login", json=credentials, headers=rebound)
        assert login.status_code == 403 and login.json()["code"] == "csrf_failed"
        # The server's own Host is not enough either once the public URL is known.
        own_host = browser.post(
            "/api/auth/login", json=credentials, headers={"Origin": "http://testserver"}
        )
        assert own_host.status_code == 403
        public_origin = {"Origin": "https://rootline.example.com"}
        signed_in = browser.post("/api/auth/login", json=credentials, headers=public_origin)
        assert signed_in.status_code == 200
        csrf = {"X-CSRF-Token": signed_in.json()["csrf_token"]}
        write = browser.post("/api/incidents", json={"title": "x"}, headers={**csrf, **rebound})
        assert write.status_code == 403
        write = browser.post(
            "/api/incidents", json={"title": "x"}, headers={**csrf, **public_origin}
        )
        assert write.status_code == 201
    app.state.engine.dispose()


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        (None, None),
        ("", None),
        ("https://rootline.example.com", "https://rootline.example.com"),
        ("HTTP://Host:80/path?q", "http://host"),
        ("http://10.0.0.5:8000/", "http://10.0.0.5:8000"),
        ("https://[::1]:8443", "https://[::1]:8443"),
    ],
)
def test_public_origin_is_written_as_browsers_send_it(url: str | None, origin: str | None) -> None:
    assert Settings(public_url=url).public_origin == origin


@pytest.mark.parametrize("url", ["rootline.example.com", "ftp://host", "https://"])
def test_a_public_url_that_is_no_web_origin_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="public_url"):
        Settings(public_url=url)


def test_bearer_requests_need_no_csrf(anon_client: TestClient, database_url: str) -> None:
    token = add_token(database_url, add_user(database_url, "ci"))
    created = anon_client.post("/api/incidents", json={"title": "ci"}, headers=bearer(token))
    assert created.status_code == 201
    assert created.json()["title"] == "ci"


# --- API tokens ----------------------------------------------------------------------------


def test_token_api_create_list_revoke(
    client: TestClient,
    anon_client: TestClient,
    db: sessionmaker[Session],
) -> None:
    created = client.post("/api/tokens", json={"name": "laptop", "scope": "read-write"})
    assert created.status_code == 201, created.text
    body = created.json()
    secret = body["token"]
    assert secret.startswith("rl_") and len(secret) > 40 and body["prefix"] == secret[:10]
    assert body["revoked"] is False and body["last_used_at_ms"] is None
    listed = client.get("/api/tokens").json()
    assert [t["id"] for t in listed] == [body["id"]]
    assert "token" not in listed[0]
    with db() as session:
        stored = session.scalars(select(ApiToken)).one()
        assert stored.token_hash != secret and secret not in stored.token_hash

    assert anon_client.get("/api/incidents", headers=bearer(secret)).status_code == 200
    assert client.get("/api/tokens").json()[0]["last_used_at_ms"] is not None
    # A token may not manage tokens.
    assert anon_client.get("/api/tokens", headers=bearer(secret)).status_code == 403
    assert anon_client.post("/api/tokens", json={}, headers=bearer(secret)).status_code == 403

    assert client.delete(f"/api/tokens/{body['id']}").status_code == 204
    assert client.get("/api/tokens").json()[0]["revoked"] is True
    revoked = anon_client.get("/api/incidents", headers=bearer(secret))
    assert revoked.status_code == 401 and revoked.json()["code"] == "unauthenticated"
    assert anon_client.get("/api/incidents", headers=bearer("rl_nope")).status_code == 401
    assert client.delete("/api/tokens/999999").status_code == 404


def test_the_principal_costs_no_transaction_of_its_own(
    app: FastAPI, client: TestClient, database_url: str, incident_id: str
) -> None:
    """The caller is looked up in the route's transaction; a token's use is recorded after
    the response in a short one of its own, at most once a minute."""
    token = bearer(add_token(database_url, add_user(database_url, "ci")))
    begins: list[object] = []
    event.listen(app.state.engine, "begin", begins.append)  # the app is this test's own
    for headers, transactions in (({}, 1), (token, 2), (token, 1)):
        begins.clear()
        response = client.get(f"/api/incidents/{incident_id}", headers=headers)
        assert response.status_code == 200
        assert len(begins) == transactions, headers


def test_token_for_an_unknown_incident_is_refused(client: TestClient) -> None:
    response = client.post(
        "/api/tokens", json={"scope": "ingest", "incident_id": str(uuid.uuid4())}
    )
    assert response.status_code == 404


def test_ingest_token_may_only_upload(
    client: TestClient, anon_client: TestClient, database_url: str, incident_id: str
) -> None:
    token = add_token(database_url, add_user(database_url, "collector"), scope="ingest")
    headers = bearer(token)
    assert upload(anon_client, incident_id, headers) == 201
    for path in ("", "/artifacts", "/series", "/checklist", "/annotations"):
        response = anon_client.get(f"/api/incidents/{incident_id}{path}", headers=headers)
        assert response.status_code == 403, path
        assert response.json()["code"] == "forbidden"
    assert anon_client.get("/api/incidents", headers=headers).status_code == 403
    assert (
        anon_client.post("/api/incidents", json={"title": "x"}, headers=headers).status_code == 403
    )
    assert anon_client.delete(f"/api/incidents/{incident_id}", headers=headers).status_code == 403


def test_scoped_token_stays_on_its_incident(
    client: TestClient, anon_client: TestClient, database_url: str, incident_id: str
) -> None:
    other = client.post("/api/incidents", json={"title": "other"}).json()["id"]
    user_id = add_user(database_url, "partner")
    scoped = bearer(add_token(database_url, user_id, incident_id=incident_id))
    assert anon_client.get(f"/api/incidents/{incident_id}", headers=scoped).status_code == 200
    assert upload(anon_client, incident_id, scoped) == 201
    note = anon_client.post(
        f"/api/incidents/{incident_id}/annotations",
        json={"from_ms": 1, "text": "from the partner", "author": "someone else"},
        headers=scoped,
    )
    assert note.status_code == 201 and note.json()["author"] == "partner"
    assert anon_client.get(f"/api/incidents/{other}", headers=scoped).status_code == 403
    assert upload(anon_client, other, scoped) == 403
    assert anon_client.get(f"/api/incidents/{uuid.uuid4()}", headers=scoped).status_code == 403
    assert anon_client.get("/api/incidents", headers=scoped).status_code == 403
    ingest_scoped = bearer(add_token(database_url, user_id, scope="ingest", incident_id=other))
    assert upload(anon_client, other, ingest_scoped) == 201
    assert upload(anon_client, incident_id, ingest_scoped) == 403


def test_author_is_the_signed_in_user(client: TestClient, incident_id: str) -> None:
    note = client.post(
        f"/api/incidents/{incident_id}/annotations",
        json={"from_ms": 1, "text": "x", "author": "someone else"},
    )
    assert note.json()["author"] == ADMIN


def test_users_list_is_for_administrators(
    client: TestClient, anon_client: TestClient, database_url: str
) -> None:
    add_user(database_url, "li.wei")
    users = client.get("/api/users").json()
    assert [u["username"] for u in users] == ["admin", "li.wei"]
    assert "password_hash" not in users[0]
    sign_in(anon_client, "li.wei")
    assert anon_client.get("/api/users").status_code == 403


# --- One-time links -------------------------------------------------------------------------


def test_one_time_link_signs_in_once(anon_client: TestClient, database_url: str) -> None:
    user_id = add_user(database_url, "li.wei", password=None)
    token = add_link(database_url, user_id)
    expired = add_link(database_url, user_id, ttl_ms=-1)
    first = anon_client.get(f"/api/auth/one-time/{token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert "rootline_session" in _set_cookies(first.headers.multi_items())
    me = anon_client.get("/api/auth/me").json()
    assert me["user"]["username"] == "li.wei" and me["user"]["has_password"] is False

    again = TestClient(anon_client.app).get(f"/api/auth/one-time/{token}", follow_redirects=False)
    assert again.status_code == 404 and again.json()["code"] == "link_not_found"
    stale = TestClient(anon_client.app).get(f"/api/auth/one-time/{expired}", follow_redirects=False)
    assert stale.status_code == 404


def test_a_browser_holding_a_spent_link_gets_a_page(
    anon_client: TestClient, database_url: str
) -> None:
    """Someone who clicks a used or expired link lands on the login page saying so, not JSON."""
    expired = add_link(database_url, add_user(database_url, "li.wei", password=None), ttl_ms=-1)
    clicked = anon_client.get(
        f"/api/auth/one-time/{expired}",
        headers={"Accept": "text/html,application/xhtml+xml"},
        follow_redirects=False,
    )
    assert clicked.status_code == 303 and clicked.headers["location"] == "/login?link=invalid"
    assert "rootline_session" not in _set_cookies(clicked.headers.multi_items())


def test_first_start_creates_admin_and_a_link_until_it_signs_in(
    db: sessionmaker[Session],
) -> None:
    with db.begin() as session:
        first = service.ensure_admin(session)
    with db.begin() as session:
        second = service.ensure_admin(session)
        admin = session.scalar(select(User).where(User.username == "admin"))
        assert admin is not None and admin.is_admin and admin.password_hash is None
    assert first and second and first != second
    with db.begin() as session:
        admin = service.redeem_link(session, second)
        assert admin is not None
        service.start_session(session, admin, lifetime_ms=60_000)
    with db.begin() as session:
        assert service.ensure_admin(session) is None


# --- Rate limits -------------------------------------------------------------------------------


def test_failed_logins_are_rate_limited(settings: Settings, database_url: str) -> None:
    from rootline.app import create_app

    add_user(database_url, "li.wei")
    app = create_app(settings.model_copy(update={"login_rate_limit": 3}))
    with TestClient(app) as client:

        def login(username: str, password: str) -> int:
            return client.post(
                "/api/auth/login", json={"username": username, "password": password}
            ).status_code

        assert [login("li.wei", "wrong") for _ in range(3)] == [401, 401, 401]
        limited = client.post("/api/auth/login", json={"username": "li.wei", "password": "x"})
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert 1 <= int(limited.headers["Retry-After"]) <= settings.rate_limit_window_s
        # Even the right password waits for the window to end, from this address.
        assert login("li.wei", TEST_PASSWORD) == 429
        # Other names from the same address have a budget of 5x the limit in all.
        assert [login(f"name-{i}", "y") for i in range(12)] == [401] * 12
        assert login("one-more", "y") == 429
    app.state.engine.dispose()


def test_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere(
    settings: Settings, database_url: str
) -> None:
    """The limit is per user name and address first: an attacker reaching it locks
    themselves out of the account, not its owner signing in from somewhere else."""
    from rootline.app import create_app

    add_user(database_url, "li.wei")
    trusting = settings.model_copy(update={"login_rate_limit": 10, "trust_proxy_headers": True})
    app = create_app(trusting)
    with TestClient(app) as client:

        def login(address: str, password: str) -> int:
            return client.post(
                "/api/auth/login",
                json={"username": "li.wei", "password": password},
                headers={"X-Forwarded-For": address},
            ).status_code

        attacker = [login("203.0.113.7", f"guess-{i}") for i in range(11)]
        assert attacker == [401] * 10 + [429]
        assert login("198.51.100.20", TEST_PASSWORD) == 200
        # Nine more addresses at their limit use up the account's budget (10x) everywhere.
        for i in range(9):
            assert {login(f"203.0.113.{100 + i}", "guess") for _ in range(10)} == {401}
        assert login("198.51.100.21", TEST_PASSWORD) == 429
    app.state.engine.dispose()


def test_concurrent_wrong_passwords_are_evaluated_at_most_the_limit(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Check and count are one statement: 60 wrong passwords at once, 10 evaluated.

    With a check before and a count after the password check, PostgreSQL let 23 of 60
    concurrent attempts through a limit of 10 (32 of 150).
    """
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("ROOTLINE_LOGIN_RATE_LIMIT", "10")
    add_user(database_url, "li.wei")
    with run_server(database_url, tmp_path) as live:

        def wrong(i: int) -> int:
            with httpx.Client(base_url=live.url, timeout=60) as http:
                body = {"username": "li.wei", "password": f"wrong-{i}"}
                return http.post("/api/auth/login", json=body).status_code

        with ThreadPoolExecutor(max_workers=60) as pool:
            statuses = list(pool.map(wrong, range(60)))
    assert sorted(statuses) == [401] * 10 + [429] * 50


def test_failed_links_and_password_checks_are_rate_limited(
    settings: Settings, database_url: str
) -> None:
    from rootline.app import create_app

    user_id = add_user(database_url, "li.wei")
    link = add_link(database_url, user_id)
    app = create_app(settings.model_copy(update={"share_rate_limit": 2, "login_rate_limit": 2}))
    with TestClient(app) as client:

        def follow(token: str) -> int:
            return client.get(f"/api/auth/one-time/{token}", follow_redirects=False).status_code

        # Failures are counted; a live link still works past the limit.
        assert [follow(f"guess-{i}") for i in range(3)] == [404, 404, 429]
        assert follow(link) == 303
        sign_in(client, "li.wei")
        url = "/api/auth/password"
        wrong = {"current_password": "nope", "new_password": "a new passphrase"}
        assert [client.post(url, json=wrong).status_code for _ in range(2)] == [400, 400]
        right = {**wrong, "current_password": TEST_PASSWORD}
        assert client.post(url, json=right).status_code == 429
    app.state.engine.dispose()


# --- Every route needs the right principal ------------------------------------------------------


def _concrete(path: str) -> str:
    values = {"incident_id": str(uuid.uuid4()), "artifact_id": str(uuid.uuid4())}
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "1"), path)


def test_every_private_route_refuses_anonymous_callers(
    app: FastAPI, anon_client: TestClient
) -> None:
    checked = 0
    for path, route in api_routes(app):
        access = route_access(route)
        if access in {"public", "shared"}:
            continue
        for method in route.methods or ():
            response = anon_client.request(method, _concrete(path))
            assert response.status_code == 401, (method, path, response.text)
            assert response.json()["code"] == "unauthenticated"
            checked += 1
    assert checked >= 25


def test_public_routes_are_only_the_contracts(app: FastAPI) -> None:
    public = {
        (path, method)
        for path, route in api_routes(app)
        if route_access(route) in {"public", "shared"}
        for method in route.methods or ()
    }
    allowed = re.compile(
        r"^/api/(health|auth/(login|logout|one-time/\{token\})|shared/\{token\}.*)$"
    )
    assert {p for p, _ in public if not allowed.match(p)} <= {"/{path}", "/"}
    assert all(m == "GET" for p, m in public if p.startswith("/api/shared"))
    assert (
        app.openapi()["paths"]["/api/incidents/{incident_id}/artifacts"]["post"][
            "x-rootline-access"
        ]
        == "ingest"
    )
