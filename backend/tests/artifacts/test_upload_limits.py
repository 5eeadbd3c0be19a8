"""A chunked multipart upload (no Content-Length) is held to the request and per-file
limits as it streams: refused with 413 at the limit, never spooled beyond it.

Before, only a declared Content-Length was checked and ``request.form()`` spooled every
part to a temporary file before the per-file check: a body of many files under the file
limit was accepted far over the request limit, and one huge file was read and spooled
whole before its 413.
"""

from __future__ import annotations

import os
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import LiveServer, add_token, add_user, run_server

MiB = 1024 * 1024
FILE_LIMIT = 8 * MiB
REQUEST_LIMIT = 16 * MiB
BOUNDARY = "rootline-limits-boundary"
# Loopback socket buffers and the server's read-ahead let this much through past the limit.
SLACK = 24 * MiB


@pytest.fixture()
def limited(database_url: str, tmp_path: Path) -> Iterator[tuple[LiveServer, Path]]:
    token = add_token(database_url, add_user(database_url, "tester"))
    spool = tmp_path / "spool"
    spool.mkdir()
    limits = {
        "ROOTLINE_MAX_UPLOAD_BYTES": str(FILE_LIMIT),
        "ROOTLINE_MAX_REQUEST_BYTES": str(REQUEST_LIMIT),
        "TMPDIR": str(spool),
    }
    with run_server(database_url, tmp_path, token, settings=limits) as live:
        yield live, spool


def multipart_body(files: int, file_bytes: int) -> Iterator[bytes]:
    """A multipart body of ``files`` parts of ``file_bytes`` each, made as it is sent."""
    line = b"ESTAB 0 0 10.0.0.1:5000 10.0.0.2:40000\n"
    block = line * (MiB // len(line))
    for number in range(files):
        yield (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="part-{number}.txt"\r\nContent-Type: text/plain\r\n\r\n'
        ).encode()
        first = f"# part {number:06d}\n".encode()  # no two parts alike
        yield first
        left = file_bytes - len(first)
        while left > 0:
            yield block[:left]
            left -= len(block)
        yield b"\r\n"
    yield f"--{BOUNDARY}--\r\n".encode()


class SpoolWatch:
    """The most bytes the server held in files under ``folder`` at any look (its open
    file descriptors: spooled uploads are unnamed temporary files)."""

    def __init__(self, pid: int, folder: Path) -> None:
        self.pid = pid
        self.folder = str(folder)
        self.peak = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def held(self) -> int:
        total = 0
        fd_dir = Path(f"/proc/{self.pid}/fd")
        for fd in fd_dir.iterdir():
            try:
                if os.readlink(fd).startswith(self.folder):
                    total += os.stat(fd).st_size
            except OSError:
                continue
        return total

    def watch(self) -> None:
        while not self.done.wait(0.01):
            self.peak = max(self.peak, self.held())

    def __enter__(self) -> SpoolWatch:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.done.set()
        self.thread.join()


@dataclass
class Sent:
    bytes_sent: int
    reply: str


def send_chunked(server: LiveServer, incident: str, body: Iterator[bytes]) -> Sent:
    """POST ``body`` with chunked encoding, sending until the server answers or hangs up."""
    host, port = server.url.removeprefix("http://").split(":")
    sent = 0
    reply = b""
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(
            (
                f"POST /api/incidents/{incident}/artifacts HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Bearer {server.token}\r\nTransfer-Encoding: chunked\r\n"
                f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n\r\n"
            ).encode()
        )
        try:
            for piece in body:
                connection.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
                if select.select([connection], [], [], 0)[0]:
                    break  # the server answered before the body ended
            else:
                connection.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        deadline = time.monotonic() + 30
        while b"}" not in reply and time.monotonic() < deadline:
            try:
                block = connection.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not block:
                break
            reply += block
    return Sent(sent, reply.decode(errors="replace"))


def test_one_huge_file_in_a_chunked_body_is_refused_at_the_file_limit(
    limited: tuple[LiveServer, Path],
) -> None:
    server, spool = limited
    incident = server.http.post("/api/incidents", json={"title": "chunked"}).json()["id"]
    before = server.peak_rss_bytes()
    with SpoolWatch(server.process.pid, spool) as watch:
        sent = send_chunked(server, incident, multipart_body(1, 200 * MiB))
    assert sent.reply.startswith("HTTP/1.1 413"), sent.reply[:300]
    assert '"code":"file_too_large"' in sent.reply
    assert sent.bytes_sent < FILE_LIMIT + SLACK, f"{sent.bytes_sent / MiB:.0f} MiB read"
    assert watch.peak <= FILE_LIMIT, f"{watch.peak / MiB:.0f} MiB spooled"
    assert server.peak_rss_bytes() - before < 64 * MiB
    assert server.http.get(f"/api/incidents/{incident}/artifacts").json() == []


def test_many_files_in_a_chunked_body_are_refused_at_the_request_limit(
    limited: tuple[LiveServer, Path],
) -> None:
    server, spool = limited
    incident = server.http.post("/api/incidents", json={"title": "chunked"}).json()["id"]
    before = server.peak_rss_bytes()
    with SpoolWatch(server.process.pid, spool) as watch:
        # Each file is under the per-file limit; together they are 6 times the request limit.
        sent = send_chunked(server, incident, multipart_body(16, 6 * MiB))
    assert sent.reply.startswith("HTTP/1.1 413"), sent.reply[:300]
    assert '"code":"request_too_large"' in sent.reply
    assert sent.bytes_sent < REQUEST_LIMIT + SLACK, f"{sent.bytes_sent / MiB:.0f} MiB read"
    assert watch.peak <= REQUEST_LIMIT, f"{watch.peak / MiB:.0f} MiB spooled"
    assert server.peak_rss_bytes() - before < 64 * MiB
    assert server.http.get(f"/api/incidents/{incident}/artifacts").json() == []


def test_a_chunked_multipart_within_the_limits_is_stored(limited: tuple[LiveServer, Path]) -> None:
    server, _ = limited
    incident = server.http.post("/api/incidents", json={"title": "chunked"}).json()["id"]
    sent = send_chunked(server, incident, multipart_body(2, MiB))
    assert sent.reply.startswith("HTTP/1.1 20"), sent.reply[:300]
    stored = server.http.get(f"/api/incidents/{incident}/artifacts").json()
    assert sorted(a["filename"] for a in stored) == ["part-0.txt", "part-1.txt"]
    assert {a["size_bytes"] for a in stored} == {MiB}


def test_a_malformed_multipart_body_is_a_400(limited: tuple[LiveServer, Path]) -> None:
    server, _ = limited
    incident = server.http.post("/api/incidents", json={"title": "malformed"}).json()["id"]
    response = server.http.post(
        f"/api/incidents/{incident}/artifacts",
        content=b"no boundary here",
        headers={"Content-Type": "multipart/form-data"},
    )
    assert (response.status_code, response.json()["code"]) == (400, "invalid_multipart")
