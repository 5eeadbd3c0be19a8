"""A flood of made-up share tokens against a real server must not stall anyone else."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import add_token, add_user, run_server

FLOOD_CLIENTS = 60
FLOOD_S = 6.0

# Run in a process of its own, so that its 60 clients do not compete with the legitimate
# reader for this process's interpreter lock (which would time the test, not the server).
FLOODER = """
import asyncio, collections, json, secrets, sys, time
import httpx

url, clients, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
answers = collections.Counter()

async def flood(http, deadline):
    while time.monotonic() < deadline:
        try:
            status = (await http.get(f"/api/shared/{secrets.token_urlsafe(24)}")).status_code
            answers[str(status)] += 1
        except httpx.HTTPError as exc:
            answers[type(exc).__name__] += 1

async def main():
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=10, limits=limits) as http:
        deadline = time.monotonic() + seconds
        await asyncio.gather(*(flood(http, deadline) for _ in range(clients)))

asyncio.run(main())
print(json.dumps(answers))
"""


def test_a_share_token_flood_leaves_legitimate_reads_under_a_second(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """60 clients asking for made-up share tokens, without pause, for 6 s.

    A failed lookup used to keep its read connection while it waited for a second, writer
    connection from the same pool to count the failure: a dozen at once held every
    connection and waited for each other until the pool's 60 s timeout (every route and
    /api/health stalled, then answered 503).
    """
    # Every failed lookup is counted (none is refused early), as from many addresses.
    monkeypatch.setenv("ROOTLINE_SHARE_RATE_LIMIT", "1000000")
    token = add_token(database_url, add_user(database_url, "reader"))
    with run_server(database_url, tmp_path, token) as live:
        server_log = live.drain_output()
        incident = live.http.post("/api/incidents", json={"title": "flood"}).json()["id"]
        flooder = subprocess.Popen(
            [sys.executable, "-c", FLOODER, live.url, str(FLOOD_CLIENTS), str(FLOOD_S)],
            stdout=subprocess.PIPE,
            text=True,
        )
        reads: list[tuple[int, float]] = []  # (status, seconds)
        try:
            time.sleep(0.5)  # the flood under way
            deadline = time.monotonic() + FLOOD_S - 1
            with httpx.Client(base_url=live.url, headers=live.headers, timeout=5) as http:
                while time.monotonic() < deadline:
                    started = time.monotonic()
                    try:
                        status = http.get(f"/api/incidents/{incident}").status_code
                    except httpx.HTTPError:
                        status = 0
                    reads.append((status, time.monotonic() - started))
                    time.sleep(0.1)
            answers = json.loads(flooder.communicate(timeout=30)[0])
        finally:
            flooder.kill()
    read_s = sorted(seconds for _, seconds in reads)
    print(f"flood answers {answers}; legitimate reads {len(reads)}, slowest {read_s[-1]:.3f} s")
    assert set(answers) == {"404"}, (answers, list(server_log)[-20:])
    assert answers["404"] >= FLOOD_CLIENTS
    assert {status for status, _ in reads} == {200}, reads
    assert read_s[-1] < 1.0, read_s[-5:]


def _hold_the_counts(database_url: str, seconds: float) -> None:
    """Keep every rate-limit count waiting for ``seconds``: a lock on the counts' table
    (PostgreSQL), the write lock (SQLite). What a count contended by two processes, or a
    slow disk's commits, does for a moment under a real flood."""
    from sqlalchemy import text

    from rootline.db import make_engine, writer_engine

    engine = make_engine(database_url)
    try:
        # A writing transaction: on SQLite it takes the write lock as it begins.
        with writer_engine(engine).connect() as connection:
            if database_url.startswith("sqlite"):
                connection.execute(text("SELECT count(*) FROM rate_limits"))
            else:
                connection.execute(text("LOCK TABLE rate_limits IN EXCLUSIVE MODE"))
            time.sleep(seconds)
            connection.rollback()
    finally:
        engine.dispose()


def test_a_failed_lookup_waits_for_its_count_without_holding_a_connection(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the counts of failed lookups are slow (held here for 4 s), a flood's lookups
    queue for the rate limiter; legitimate reads must still be answered within a second.

    A failed lookup used to wait for its count while holding the connection it had looked
    the token up with: 60 of them held the whole pool (8 + 4) and every other request of
    the process waited for the counts (8.5 s for a share read in the load-and-kill bench).
    """
    monkeypatch.setenv("ROOTLINE_SHARE_RATE_LIMIT", "1000000")
    token = add_token(database_url, add_user(database_url, "reader"))
    hold_s = 4.0
    with run_server(database_url, tmp_path, token) as live:
        server_log = live.drain_output()
        incident = live.http.post("/api/incidents", json={"title": "flood"}).json()["id"]
        flooder = subprocess.Popen(
            [sys.executable, "-c", FLOODER, live.url, str(FLOOD_CLIENTS), str(hold_s + 3)],
            stdout=subprocess.PIPE,
            text=True,
        )
        reads: list[tuple[int, float]] = []
        try:
            time.sleep(0.5)  # the flood under way
            holder = threading.Thread(target=_hold_the_counts, args=(database_url, hold_s))
            holder.start()
            time.sleep(0.5)  # the lookups piling up behind the held counts
            with httpx.Client(base_url=live.url, headers=live.headers, timeout=10) as http:
                while holder.is_alive():
                    started = time.monotonic()
                    try:
                        status = http.get(f"/api/incidents/{incident}").status_code
                    except httpx.HTTPError:
                        status = 0
                    reads.append((status, time.monotonic() - started))
                    time.sleep(0.1)
            holder.join()
            answers = json.loads(flooder.communicate(timeout=60)[0])
        finally:
            flooder.kill()
    read_s = sorted(seconds for _, seconds in reads)
    print(f"flood answers {answers}; legitimate reads {len(reads)}, slowest {read_s[-1]:.3f} s")
    assert set(answers) == {"404"}, (answers, list(server_log)[-20:])
    assert {status for status, _ in reads} == {200}, reads
    assert read_s[-1] < 1.0, read_s[-5:]
