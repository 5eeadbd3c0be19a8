"""Two `rootline serve` processes on one PostgreSQL database behave as one server.

Every piece of state that matters for security lives in the database (sessions, CSRF
tokens, API tokens, share links, rate-limit counters), and raw artifacts in the shared
store, so requests may alternate between workers or replicas freely. The two servers here
listen on different ports and share the database and the data directory, as replicas
behind a load balancer do.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import (
    FIXTURES_DIR,
    TEST_PASSWORD,
    LiveServer,
    add_user,
    run_server,
    wait_until_parsed,
)

LOGIN_LIMIT = 4
CAPTURE = FIXTURES_DIR / "ss" / "ss-tinm-loop.txt"


@pytest.fixture()
def pair(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[LiveServer, LiveServer]]:
    if not database_url.startswith("postgresql"):
        pytest.skip(
            "two servers on one database need PostgreSQL "
            "(run with ROOTLINE_TEST_DATABASE=postgresql)"
        )
    add_user(database_url, "li.wei")
    # Both processes read it from the environment `run_server` passes on.
    monkeypatch.setenv("ROOTLINE_LOGIN_RATE_LIMIT", str(LOGIN_LIMIT))
    monkeypatch.setenv("ROOTLINE_PARSE_THREADS", "1")
    with run_server(database_url, tmp_path) as a:
        # B parses nothing: what is uploaded to B must be parsed by A's worker.
        monkeypatch.setenv("ROOTLINE_PARSE_THREADS", "0")
        with run_server(database_url, tmp_path) as b:
            assert a.url != b.url
            yield a, b


def _cookie_client(server: LiveServer, session: str, csrf: str) -> httpx.Client:
    """A browser-like client of ``server`` holding the session cookie and the CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=60, headers={"X-CSRF-Token": csrf})
    client.cookies.set("rootline_session", session)
    return client


def test_two_servers_share_sessions_tokens_shares_and_limits(
    pair: tuple[LiveServer, LiveServer],
) -> None:
    a, b = pair

    # 1. Sign in on A; the cookie and CSRF token work on B, writes included.
    login = a.http.post("/api/auth/login", json={"username": "li.wei", "password": TEST_PASSWORD})
    assert login.status_code == 200, login.text
    csrf = login.json()["csrf_token"]
    session = login.cookies["rootline_session"]
    on_a, on_b = _cookie_client(a, session, csrf), _cookie_client(b, session, csrf)
    with on_a, on_b:
        me = on_b.get("/api/auth/me")
        assert me.status_code == 200 and me.json()["user"]["username"] == "li.wei"
        assert me.json()["csrf_token"] == csrf

        # 2. Create an incident on A, upload to it on B, A's parse worker parses it, read its
        # timeline on A.
        created = on_a.post("/api/incidents", json={"title": "two workers"})
        assert created.status_code == 201, created.text
        incident = created.json()["id"]
        uploaded = on_b.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": CAPTURE.name, "host": "web-1"},
            content=CAPTURE.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert uploaded.status_code == 202, uploaded.text
        (artifact,) = wait_until_parsed(on_b, incident)
        assert artifact["status"] == "parsed", artifact
        series = on_a.get(f"/api/incidents/{incident}/series", params={"name": "tcp.*"}).json()
        assert series["total"] > 0
        name = series["items"][0]["name"]
        timeline = on_a.get(f"/api/incidents/{incident}/timeline", params={"series": name})
        assert timeline.status_code == 200
        assert len(timeline.json()["series"][0]["t"]) > 0
        raw = on_a.get(f"/api/incidents/{incident}/artifacts/{artifact['id']}/raw")
        assert raw.content == CAPTURE.read_bytes()  # stored by B, served by A

        # 3. A share made on A opens on B; revoked on B, it stops working on A.
        share = on_a.post(f"/api/incidents/{incident}/shares", json={"label": "vendor"}).json()
        assert httpx.get(f"{b.url}/api/shared/{share['token']}").status_code == 200
        revoked = on_b.delete(f"/api/incidents/{incident}/shares/{share['id']}")
        assert revoked.status_code == 204
        gone = httpx.get(f"{a.url}/api/shared/{share['token']}")
        assert gone.status_code == 404 and gone.json()["code"] == "share_not_found"

        # 4. An API token made on A works on B; revoked on A, B refuses it.
        token = on_a.post("/api/tokens", json={"name": "ci", "scope": "read-write"}).json()
        bearer = {"Authorization": f"Bearer {token['token']}"}
        assert httpx.get(f"{b.url}/api/incidents/{incident}", headers=bearer).status_code == 200
        assert on_a.delete(f"/api/tokens/{token['id']}").status_code == 204
        refused = httpx.get(f"{b.url}/api/incidents/{incident}", headers=bearer)
        assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"

        # 5. Sign out on B: the session is over on A too.
        assert on_b.post("/api/auth/logout").status_code == 204
        assert on_a.get("/api/auth/me").status_code == 401
        assert on_a.get("/api/incidents").status_code == 401

    # 6. Failed sign-ins alternated between A and B count together: the limit is reached
    #    after LOGIN_LIMIT failures in all, whichever server saw them (last: it locks the
    #    address out for the rest of the window).
    servers = [a, b]

    def wrong(i: int) -> httpx.Response:
        return servers[i % 2].http.post(
            "/api/auth/login", json={"username": "li.wei", "password": f"wrong-{i}"}
        )

    assert [wrong(i).status_code for i in range(LOGIN_LIMIT)] == [401] * LOGIN_LIMIT
    for server in servers:
        limited = server.http.post(
            "/api/auth/login", json={"username": "li.wei", "password": TEST_PASSWORD}
        )
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) >= 1
