"""A real `rootline serve` process: the CLI uploads to it, and oversized bodies are refused unread."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest

from tests.conftest import FIXTURES_DIR, LiveServer, add_token, add_user, run_server


def test_cli_ingest_then_read_back(server: LiveServer) -> None:
    incident = server.http.post("/api/incidents", json={"title": "cli"}).json()["id"]
    captures = [FIXTURES_DIR / "ss" / "ss-tinm-loop.txt", FIXTURES_DIR / "ss" / "ss-s.txt"]
    done = server.ingest(incident, "--host", "provider-1", *captures)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("-> ss parsed") == 2
    series = server.http.get(
        f"/api/incidents/{incident}/series", params={"name": "tcp.state.*"}
    ).json()
    assert series["total"] > 0
    assert {s["labels"]["host"] for s in series["items"]} == {"provider-1"}
    name = series["items"][0]["name"]
    timeline = server.http.get(
        f"/api/incidents/{incident}/timeline", params={"series": name}
    ).json()
    assert timeline["series"] and len(timeline["series"][0]["t"]) > 0


def test_cli_ingest_reports_failure(server: LiveServer) -> None:
    done = server.ingest(
        "00000000-0000-0000-0000-000000000000", FIXTURES_DIR / "ss" / "ss-s.txt", timeout=60
    )
    assert done.returncode == 1
    assert "HTTP 404" in done.stderr


def test_a_5_gb_declared_body_is_refused_before_it_is_read(server: LiveServer) -> None:
    incident = server.http.post("/api/incidents", json={"title": "limits"}).json()["id"]
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(
            (
                f"POST /api/incidents/{incident}/artifacts HTTP/1.1\r\n"
                f"Host: {host}\r\nContent-Type: application/octet-stream\r\n"
                f"Authorization: Bearer {server.token}\r\n"
                f"Content-Length: {5 * 1024**3}\r\n\r\n"
            ).encode()
            + b"only a few bytes of the promised five gigabytes"
        )
        # The answer arrives although the body never will: nothing waited to read it.
        reply = b""
        while b"}" not in reply:
            block = connection.recv(65536)
            if not block:
                break
            reply += block
        reply_text = reply.decode()
    assert reply_text.startswith("HTTP/1.1 413")
    assert '"code":"file_too_large"' in reply_text
    assert server.http.get(f"/api/incidents/{incident}/artifacts").json() == []


def test_openapi_documents_every_route(server: LiveServer) -> None:
    spec = server.http.get("/openapi.json").json()
    paths = spec["paths"]
    for route in (
        "/api/incidents",
        "/api/incidents/{incident_id}",
        "/api/incidents/{incident_id}/artifacts",
        "/api/incidents/{incident_id}/artifacts/{artifact_id}",
        "/api/incidents/{incident_id}/artifacts/{artifact_id}/raw",
        "/api/incidents/{incident_id}/artifacts/{artifact_id}/reparse",
        "/api/incidents/{incident_id}/series",
        "/api/incidents/{incident_id}/timeline",
        "/api/incidents/{incident_id}/events",
    ):
        assert route in paths, route
    upload = paths["/api/incidents/{incident_id}/artifacts"]["post"]["requestBody"]["content"]
    assert set(upload) == {"multipart/form-data", "application/octet-stream"}
    timeline = paths["/api/incidents/{incident_id}/timeline"]["get"]["responses"]["200"]
    assert json.dumps(timeline).count("Timeline") >= 1


def test_concurrent_uploads_all_land(server: LiveServer) -> None:
    """Writers queue for the database instead of failing with "database is locked"."""
    from concurrent.futures import ThreadPoolExecutor

    incident = server.http.post("/api/incidents", json={"title": "concurrent"}).json()["id"]
    files = sorted(p for p in (FIXTURES_DIR / "ss").glob("*.txt"))[:8]

    def upload(path: Path) -> int:
        response = server.http.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": path.name, "wait": 60},
            content=path.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
            timeout=120,
        )
        return response.status_code

    with ThreadPoolExecutor(max_workers=len(files)) as pool:
        statuses = list(pool.map(upload, files))
    assert statuses == [201] * len(files)
    stored = server.http.get(f"/api/incidents/{incident}/artifacts").json()
    assert len(stored) == len(files)


def test_a_burst_far_beyond_the_connection_pool_is_served_without_503(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests queue for a connection; none may hold a connection while waiting for a thread.

    With two connections and fewer request threads than requests in flight, this burst
    deadlocked until the pool's 60 s timeout and answered 503 (the load bench's failure).
    """
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("ROOTLINE_DB_POOL_SIZE", "2")
    monkeypatch.setenv("ROOTLINE_DB_MAX_OVERFLOW", "0")
    monkeypatch.setenv("ROOTLINE_PARSE_THREADS", "0")
    token = add_token(database_url, add_user(database_url, "burst"))
    with run_server(database_url, tmp_path, token) as live:
        incident = live.http.post("/api/incidents", json={"title": "burst"}).json()["id"]

        def read(_: int) -> int:
            with httpx.Client(base_url=live.url, headers=live.headers, timeout=120) as http:
                return http.get(f"/api/incidents/{incident}/checklist").status_code

        with ThreadPoolExecutor(max_workers=120) as pool:
            statuses = list(pool.map(read, range(240)))
    assert set(statuses) == {200}, sorted(set(statuses))
