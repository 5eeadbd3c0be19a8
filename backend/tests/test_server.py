"""`rootline serve` as a client meets it: slow clients time out, the access log holds no
secret, a client hanging up is one line in the log."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rootline.server import redact_path
from tests.conftest import LiveServer, add_token, add_user, run_server

TIMEOUT_S = 1.0


@pytest.fixture()
def impatient(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    """A server with 1 s header and body timeouts."""
    token = add_token(database_url, add_user(database_url, "tester"))
    timeouts = {
        "ROOTLINE_HEADER_TIMEOUT_S": str(TIMEOUT_S),
        "ROOTLINE_BODY_TIMEOUT_S": str(TIMEOUT_S),
    }
    with run_server(database_url, tmp_path, token, settings=timeouts) as live:
        yield live


def connect(server: LiveServer) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)), timeout=10)
    connection.settimeout(0.1)
    return connection


def trickle_until_closed(
    connection: socket.socket, pieces: Iterator[bytes], every_s: float, limit_s: float
) -> tuple[float, bytes]:
    """Send a piece every ``every_s`` until the server closes the connection; the seconds
    that took and what the server sent."""
    start = time.monotonic()
    received = b""
    next_send = start
    while time.monotonic() - start < limit_s:
        if time.monotonic() >= next_send:
            try:
                connection.sendall(next(pieces))
            except (BrokenPipeError, ConnectionResetError):
                return time.monotonic() - start, received
            next_send += every_s
        try:
            block = connection.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - start, received
        if not block:
            return time.monotonic() - start, received
        received += block
    pytest.fail(f"still open after {limit_s} s; received {received!r}")


def forever(piece: bytes) -> Iterator[bytes]:
    while True:
        yield piece


def upload_head(server: LiveServer, incident: str, length: int) -> bytes:
    return (
        f"POST /api/incidents/{incident}/artifacts?filename=slow.txt HTTP/1.1\r\n"
        f"Host: x\r\nAuthorization: Bearer {server.token}\r\n"
        f"Content-Type: application/octet-stream\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def test_headers_sent_a_line_at_a_time_are_cut_off(impatient: LiveServer) -> None:
    with connect(impatient) as connection:
        connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
        # One header line every 0.2 s: the connection never idles, the headers never end.
        took, answer = trickle_until_closed(connection, forever(b"X-Slow: 1\r\n"), 0.2, 10)
    assert TIMEOUT_S <= took < TIMEOUT_S + 2
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_a_connection_that_never_sends_a_request_is_closed(impatient: LiveServer) -> None:
    with connect(impatient) as connection:
        took, answer = trickle_until_closed(connection, forever(b""), 0.5, 10)
    assert took < TIMEOUT_S + 2
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_a_body_that_stops_arriving_is_cut_off(impatient: LiveServer) -> None:
    incident = impatient.http.post("/api/incidents", json={"title": "slow"}).json()["id"]
    with connect(impatient) as connection:
        connection.sendall(upload_head(impatient, incident, 1000) + b"State Recv-Q")
        took, answer = trickle_until_closed(connection, forever(b""), 0.5, 10)
    assert took < TIMEOUT_S + 2
    assert b"201" not in answer and b"202" not in answer
    assert impatient.http.get(f"/api/incidents/{incident}/artifacts").json() == []
    assert impatient.http.get("/api/health").status_code == 200


def test_a_slow_but_steady_body_is_accepted(impatient: LiveServer) -> None:
    incident = impatient.http.post("/api/incidents", json={"title": "steady"}).json()["id"]
    body = b"State Recv-Q Send-Q Local Address:Port Peer Address:Port\n" + b"x" * 42
    pieces = [body[i : i + 20] for i in range(0, len(body), 20)]
    with connect(impatient) as connection:
        connection.sendall(upload_head(impatient, incident, len(body)))
        start = time.monotonic()
        for piece in pieces:  # 0.6 s apart, 3 s in all: each gap under the 1 s timeout
            time.sleep(0.6)
            connection.sendall(piece)
        connection.settimeout(10)
        answer = connection.recv(65536)
    assert time.monotonic() - start > 2 * TIMEOUT_S
    assert answer.startswith(b"HTTP/1.1 202 "), answer[:200]


def stop(server: LiveServer) -> str:
    """Stop the server; everything it wrote."""
    server.process.terminate()
    output, _ = server.process.communicate(timeout=15)
    return output


def test_share_and_one_time_tokens_never_reach_the_access_log(server: LiveServer) -> None:
    secrets = {
        "/api/shared/{}": "ShareTokenAbcdefghijklmnopqrstuvwxyz0123456",
        "/api/shared/{}/series?name=tcp.*": "ShareTokenBbcdefghijklmnopqrstuvwxyz0123456",
        "/share/{}": "PageTokenCbcdefghijklmnopqrstuvwxyz01234567",
        "/api/auth/one-time/{}": "OneTimeDbcdefghijklmnopqrstuvwxyz0123456789",
    }
    for route, secret in secrets.items():
        server.http.get(route.format(secret), follow_redirects=False)
    log = stop(server)
    assert '"GET /api/shared/Shar...[redacted] HTTP/1.1" 404' in log
    assert "/api/shared/Shar...[redacted]/series?name=tcp.* HTTP/1.1" in log
    assert "/api/auth/one-time/OneT...[redacted] HTTP/1.1" in log
    for secret in secrets.values():
        assert secret not in log


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        ("/api/shared/abcdefgh", "/api/shared/abcd...[redacted]"),
        ("/api/shared/abcdefgh/raw?x=1", "/api/shared/abcd...[redacted]/raw?x=1"),
        ("/share/abcdefgh#frag", "/share/abcd...[redacted]#frag"),
        ("/api/incidents/abcdefgh", "/api/incidents/abcdefgh"),
    ],
)
def test_redact_path(path: str, logged: str) -> None:
    assert redact_path(path) == logged


def test_a_client_hanging_up_is_one_line_in_the_log(server: LiveServer) -> None:
    incident = server.http.post("/api/incidents", json={"title": "gone"}).json()["id"]
    with connect(server) as connection:  # hangs up a third of the way through an upload
        connection.sendall(upload_head(server, incident, 300_000) + b"State Recv-Q\n" * 7_000)
        time.sleep(0.5)
    multipart = (
        b'--b\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n"
    )
    with connect(server) as connection:  # and through a multipart one
        connection.sendall(
            (
                f"POST /api/incidents/{incident}/artifacts HTTP/1.1\r\nHost: x\r\n"
                f"Authorization: Bearer {server.token}\r\n"
                "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 300000\r\n\r\n"
            ).encode()
            + multipart
            + b"x" * 90_000
        )
        time.sleep(0.5)
    assert server.http.get("/api/health").status_code == 200
    log = stop(server)
    assert "Traceback" not in log, log
    hung_up = [line for line in log.splitlines() if "disconnected" in line]
    assert len(hung_up) == 2, log
    assert f'POST /api/incidents/{incident}/artifacts": client disconnected' in hung_up[0]


# Imported by every Python process started with the PYTHONPATH below: a server worker
# process (uvicorn spawns them: `--multiprocessing-fork` in their argv) takes 7 s to start,
# as one does on a loaded machine (kill -9 and restart under load in the load-and-kill bench).
SLOW_WORKER_START = """
import sys, time
if "--multiprocessing-fork" in sys.argv:
    time.sleep(7)
"""


def test_worker_processes_slow_to_start_are_waited_for(tmp_path: Path) -> None:
    """uvicorn kills a worker process that has not answered its health check within
    ``timeout_worker_healthcheck`` (5 s by default), starting included: a restart on a busy
    machine killed its own new workers, one after another, and never served."""
    import os
    import subprocess

    import httpx

    from tests.conftest import BACKEND_DIR, ROOTLINE, free_port

    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "sitecustomize.py").write_text(SLOW_WORKER_START)
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "slow"),
        "ROOTLINE_DATABASE_URL": f"sqlite:///{tmp_path / 'rootline.db'}",
        "ROOTLINE_DATA_DIR": str(tmp_path / "data"),
        "ROOTLINE_LOAD_DEMO": "false",
        "ROOTLINE_PARSE_THREADS": "0",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [ROOTLINE, "serve", "--port", str(port), "--workers", "2"],
            env=env,
            cwd=BACKEND_DIR,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        healthy = False
        while time.monotonic() < deadline and not healthy:
            try:
                healthy = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).is_success
            except httpx.HTTPError:
                time.sleep(0.5)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    text = log.read_text(errors="replace")
    assert healthy, text[-2000:]
    assert "died" not in text, text[-2000:]
