"""Load and kill: uploads, timeline reads and a share-token flood while processes are killed.

    cd backend && .venv/bin/python -m bench.kill            # full size (about 75 s + the drain)
    cd backend && .venv/bin/python -m bench.kill --quick    # a 30 s smoke run

On a scratch PostgreSQL database (it says SKIPPED when PostgreSQL is not reachable, and drops
the database afterwards) it starts ``rootline serve --workers 2`` (one parse thread in each
server process) and one ``rootline worker`` process (one parse thread), then for
``--duration`` seconds runs, at once:

- ``--uploaders`` uploaders, each to an incident of its own, one ``ss -tinm`` capture after
  another (1 to 5 MB, every one different), with a pause of about ``--think`` seconds
  between two; an upload that gets no answer (a connection refused or cut by a kill, a 5xx)
  is sent again, the same bytes to the same incident, as a user would, until it is
  acknowledged (201/202); one upload in ten is sent twice at once (a double click), and both
  must be answered with the same artifact;
- ``--readers`` timeline readers of a stored incident (random series and ranges, as the web
  app asks);
- a flood of made-up share tokens from ``--flood`` concurrent clients (in a process of its
  own; the share rate limit is lifted, so every lookup reaches the database, as from many
  addresses);
- a legitimate reader of a real share link, 5 times a second (in a process of its own, so
  that the load generator's own work does not time it).

During the window it kills with SIGKILL: the ``rootline worker`` process (restarted), one
server worker process (uvicorn starts another), and the whole server, supervisor and workers
at once (restarted). Each kill opens a window from 1 s before it to 2 s after the killed part
is serving again ("Application startup complete" in the server log, the worker's start line);
latencies are given overall and outside those windows.

Then it waits for the parse queue to drain (a parse cut off by a kill is taken again when its
lease runs out, 2 minutes) and checks in the database that every acknowledged sha256 has
exactly one artifact in its incident and that it is ``parsed`` (lost and duplicated, both
counted), and that 10 raw downloads are byte-identical. It prints uploads acknowledged and
retried, reads done, read latencies, the legitimate share read's latency under the flood, and
the CPU seconds of the server, the worker, this database's PostgreSQL backends and the load
generator beside wall time (sampled from /proc every second: a killed process's last second
is not counted).

It exits 1 if an acknowledged upload is lost, duplicated or not parsed, the queue does not
drain, a raw download differs, or a legitimate share read outside the kill windows failed or
took 1 s or more.

Knobs: ``--duration``, ``--uploaders``, ``--readers``, ``--flood``, ``--think``,
``--twins``, ``--drain-timeout`` (or ROOTLINE_KILL_DURATION, _UPLOADERS, _READERS, _FLOOD,
_THINK, _DRAIN_TIMEOUT).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime as dt
import hashlib
import json
import os
import random
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

from bench.gen_ss import INTERVAL, START, timestamp_line
from bench.load import (
    BACKEND,
    ROOTLINE,
    Captures,
    prepare_database,
    series_list,
    sha256_hex,
)
from bench.run import MB, PG_ADMIN
from rootline.db import create_scratch_database

ADMIN_PASSWORD = "kill bench admin password"
SERVER_WORKERS = 2
STARTED_LINE = b"Application startup complete"
WORKER_STARTED_LINE = b"parse worker:"
TICK = os.sysconf("SC_CLK_TCK")
HOST_LABEL = "kill-bench"


def now() -> float:
    """CLOCK_MONOTONIC: one clock for this process and the reader processes it starts."""
    return time.monotonic()


# --- Inputs ---------------------------------------------------------------------------------


class SizedCaptures(Captures):
    """Distinct ``ss -tinm`` captures of any size: the upload number shifts the timestamps."""

    def __init__(self) -> None:
        super().__init__(MB)
        self.average = sum(map(len, self.bodies)) / len(self.bodies)

    def make_sized(self, number: int, size_bytes: int) -> bytes:
        start = START + dt.timedelta(seconds=number)
        parts: list[bytes] = []
        for i in range(max(1, int(size_bytes / self.average) + 1)):
            parts.append(timestamp_line(start + i * INTERVAL, i).encode())
            parts.append(self.bodies[i % len(self.bodies)])
        return b"".join(parts)


# --- Processes ------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, pgrp, utime + stime in ticks, start time) of a process, None when gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rindex(b")") + 2 :].split()
    return int(fields[1]), int(fields[2]), int(fields[11]) + int(fields[12]), int(fields[19])


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _lines(path: Path, marker: bytes) -> int:
    try:
        return path.read_bytes().count(marker)
    except OSError:
        return 0


@dataclass
class Managed:
    """A process started in a session of its own, so that a kill can take its whole group."""

    argv: list[str]
    env: dict[str, str]
    log: Path
    started_marker: bytes
    process: subprocess.Popen[bytes] | None = None
    groups: list[int] = field(default_factory=list)

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=BACKEND,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.groups.append(self.process.pid)

    def started(self) -> int:
        return _lines(self.log, self.started_marker)

    def kill_group(self, signum: int = signal.SIGKILL) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)

    def stop(self) -> None:
        if self.process is None:
            return
        self.kill_group(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=30)
        self.kill_group(signal.SIGKILL)
        self.process.wait()

    def children(self) -> list[int]:
        """The server's worker processes (uvicorn's spawned children, not its helpers)."""
        assert self.process is not None
        parent = self.process.pid
        found = []
        for pid in _pids():
            stat = _stat(pid)
            if stat is not None and stat[0] == parent:
                line = _cmdline(pid)
                if "spawn_main" in line and "resource_tracker" not in line:
                    found.append(pid)
        return found


async def wait_for_lines(managed: Managed, count: int, timeout_s: float = 120) -> float:
    """Wait until ``managed``'s log holds ``count`` start lines; the time it happened."""
    deadline = now() + timeout_s
    while managed.started() < count:
        if now() > deadline:
            raise RuntimeError(f"{managed.argv[1]} did not start: see {managed.log}")
        await asyncio.sleep(0.1)
    return now()


Role = Callable[[int, int], bool]  # (pid, process group) -> whether the process plays it


class CpuSampler(threading.Thread):
    """CPU seconds per role, from /proc every second; a process is counted by its last sample."""

    def __init__(self, roles: dict[str, Role], pg_url: str) -> None:
        super().__init__(name="cpu-sampler", daemon=True)
        self.load_pids = {os.getpid()}
        self.roles: dict[str, Role] = {**roles, "load generator": self._is_load}
        self.pg_url = pg_url
        self.last: dict[tuple[int, int], tuple[str, int]] = {}
        self.pg_pids: set[int] = set()
        self.halt = threading.Event()
        self.lock = threading.Lock()

    def _is_load(self, pid: int, _group: int) -> bool:
        return pid in self.load_pids

    def run(self) -> None:
        from sqlalchemy import create_engine, text

        engine = create_engine(self.pg_url, pool_size=1)
        try:
            while not self.halt.wait(1.0):
                try:
                    with engine.connect() as connection:
                        self.pg_pids = set(
                            connection.scalars(
                                text(
                                    "SELECT pid FROM pg_stat_activity "
                                    "WHERE datname = current_database() "
                                    "AND pid <> pg_backend_pid()"
                                )
                            )
                        )
                except Exception:  # PostgreSQL busy: keep the last list
                    pass
                self.sample()
        finally:
            engine.dispose()

    def sample(self) -> None:
        for pid in _pids():
            stat = _stat(pid)
            if stat is None:
                continue
            _, group, ticks, started = stat
            role = "postgres" if pid in self.pg_pids else None
            for name, matches in self.roles.items():
                if role is None and matches(pid, group):
                    role = name
            if role is not None:
                with self.lock:
                    self.last[(pid, started)] = (role, ticks)

    def totals(self) -> dict[str, float]:
        self.sample()
        out: dict[str, float] = {}
        with self.lock:
            for role, ticks in self.last.values():
                out[role] = out.get(role, 0.0) + ticks / TICK
        return out


# --- The reader processes (flood and legitimate share reads) --------------------------------


def flood_main(url: str, clients: int, seconds: float) -> None:
    """Made-up share tokens from ``clients`` concurrent clients; prints the answers as JSON."""
    answers: Counter[str] = Counter()

    async def flood(http: httpx.AsyncClient, deadline: float) -> None:
        while now() < deadline:
            try:
                status = (await http.get(f"/api/shared/{secrets.token_urlsafe(24)}")).status_code
                answers[str(status)] += 1
            except httpx.HTTPError as exc:
                answers[type(exc).__name__] += 1
                await asyncio.sleep(0.1)  # a killed server: do not spin on refused connections

    async def run() -> None:
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(base_url=url, timeout=10, limits=limits) as http:
            deadline = now() + seconds
            await asyncio.gather(*(flood(http, deadline) for _ in range(clients)))

    asyncio.run(run())
    print(json.dumps(answers))


def share_reader_main(url: str, token: str, seconds: float) -> None:
    """GET /api/shared/<token> five times a second; prints [[started, seconds, status]]."""
    reads: list[tuple[float, float, int]] = []
    deadline = now() + seconds
    with httpx.Client(base_url=url, timeout=10) as http:
        while now() < deadline:
            started = now()
            try:
                status = http.get(f"/api/shared/{token}").status_code
            except httpx.HTTPError:
                status = 0
            reads.append((started, now() - started, status))
            time.sleep(max(0.0, 0.2 - (now() - started)))
    print(json.dumps(reads))


ROLES = {"_flood", "_share_reader"}


# --- Measurements ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Request:
    started: float
    seconds: float
    status: int  # 0: no answer (a connection refused or cut)


@dataclass(frozen=True, slots=True)
class Window:
    label: str
    start: float
    end: float


def outside(requests: list[Request], windows: list[Window]) -> list[Request]:
    return [
        r
        for r in requests
        if not any(r.started < w.end and r.started + r.seconds > w.start for w in windows)
    ]


def latency_line(requests: list[Request]) -> str:
    answered = [r.seconds * 1000 for r in requests if r.status]
    failed = len(requests) - len(answered)
    if not answered:
        return f"{len(requests)} requests, none answered"
    p50, p95, p99 = np.percentile(answered, [50, 95, 99])
    statuses = Counter(r.status for r in requests if r.status)
    return (
        f"{len(requests):6d} requests ({failed} unanswered, statuses {dict(sorted(statuses.items()))})"
        f"  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  p99 {p99:7.1f} ms  max {max(answered):7.1f} ms"
    )


@dataclass
class Upload:
    uploader: int
    incident: str
    sequence: int
    sha256: str
    size: int
    attempts: int = 0
    artifact: str | None = None  # set once acknowledged
    created: list[bool] = field(default_factory=list)  # per answered attempt
    errors: list[str] = field(default_factory=list)


@dataclass
class Run:
    base: str
    token: str
    args: argparse.Namespace
    server: Managed
    worker: Managed
    deadline: float = 0.0
    uploads: list[Upload] = field(default_factory=list)
    reads: list[Request] = field(default_factory=list)
    read_errors: list[str] = field(default_factory=list)
    windows: list[Window] = field(default_factory=list)
    twins: list[tuple[Upload, Upload]] = field(default_factory=list)
    kill_notes: list[str] = field(default_factory=list)


# --- The load -------------------------------------------------------------------------------


def _retryable(status: int) -> bool:
    return status >= 500 or status == 0


async def upload_once(client: httpx.AsyncClient, run: Run, item: Upload, body: bytes) -> None:
    """Send one capture until it is acknowledged (retrying what a kill cut off)."""
    give_up = run.deadline + run.args.retry_s
    delay = 0.25
    while item.artifact is None and now() < give_up:
        item.attempts += 1
        try:
            response = await client.post(
                f"/api/incidents/{item.incident}/artifacts",
                params={"filename": f"ss-{item.sequence}.txt", "host": HOST_LABEL},
                content=body,
                headers={"Content-Type": "application/octet-stream"},
            )
            status, text = response.status_code, response.text[:200]
        except httpx.HTTPError as error:
            status, text = 0, repr(error)
        if status in {201, 202}:
            artifact = response.json()["artifacts"][0]
            item.created.append(bool(response.json()["created"][0]))
            if artifact["sha256"] != item.sha256:
                item.errors.append(f"sha256 {artifact['sha256']} answered for {item.sha256}")
            item.artifact = artifact["id"]
            return
        item.errors.append(f"{status} {text}")
        if not _retryable(status):
            return
        await asyncio.sleep(delay)
        delay = min(2.0, delay * 2)


async def uploader(
    client: httpx.AsyncClient, run: Run, number: int, incident: str, captures: SizedCaptures
) -> None:
    rng = random.Random(number)
    round_ = 0
    while now() < run.deadline:
        sequence = 1 + number + round_ * run.args.uploaders
        round_ += 1
        size = int(rng.uniform(run.args.min_mb, run.args.max_mb) * MB)
        body = await asyncio.to_thread(captures.make_sized, sequence, size)
        item = Upload(
            number, incident, sequence, await asyncio.to_thread(sha256_hex, body), len(body)
        )
        run.uploads.append(item)
        if rng.random() < run.args.twins:
            # A double click: the same bytes sent twice at once; one artifact must answer both.
            twin = Upload(number, incident, sequence, item.sha256, item.size)
            run.twins.append((item, twin))
            await asyncio.gather(
                upload_once(client, run, item, body), upload_once(client, run, twin, body)
            )
        else:
            await upload_once(client, run, item, body)
        await asyncio.sleep(rng.uniform(0.5, 1.5) * run.args.think)


async def reader(
    client: httpx.AsyncClient,
    run: Run,
    incident: str,
    names: list[str],
    span: tuple[int, int],
    rng: random.Random,
) -> None:
    first, last = span
    width_all = last - first
    while now() < run.deadline:
        chosen = rng.sample(names, k=min(len(names), rng.randint(1, 8)))
        width = int(width_all * rng.uniform(0.001, 1.0))
        start = first + rng.randint(0, width_all - width)
        params: dict[str, str | int] = {
            "series": ",".join(chosen),
            "from": start,
            "to": start + width,
            "max_points": 2000,
        }
        started = now()
        try:
            response = await client.get(f"/api/incidents/{incident}/timeline", params=params)
            status = response.status_code
            if status != 200:
                run.read_errors.append(f"{status} {response.text[:200]}")
        except httpx.HTTPError as error:
            status = 0
            run.read_errors.append(repr(error))
        run.reads.append(Request(started, now() - started, status))
        if status != 200:
            await asyncio.sleep(0.2)  # a killed server: do not spin on refused connections


async def killer(run: Run) -> None:
    """The three kills, at 20 %, 40 % and 65 % of the window."""
    duration = run.args.duration
    begin = run.deadline - duration
    server, worker = run.server, run.worker

    async def at(fraction: float) -> None:
        await asyncio.sleep(max(0.0, begin + fraction * duration - now()))

    # 1. The `rootline worker` process, restarted 2 s later.
    await at(0.2)
    assert worker.process is not None
    lines = worker.started()
    killed = now()
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait()
    await asyncio.sleep(2)
    worker.start()
    back = await wait_for_lines(worker, lines + 1)
    run.windows.append(Window("rootline worker", killed - 1, back + 2))
    run.kill_notes.append(
        f"kill -9 rootline worker at {killed - begin:.1f} s: back in {back - killed:.1f} s"
    )

    # 2. One server worker process: uvicorn's supervisor starts another.
    await at(0.4)
    children = server.children()
    if not children:
        run.kill_notes.append("no server worker process found: not killed")
    else:
        lines = server.started()
        victim = children[0]
        killed = now()
        os.kill(victim, signal.SIGKILL)
        back = await wait_for_lines(server, lines + 1)
        run.windows.append(Window("server worker", killed - 1, back + 2))
        run.kill_notes.append(
            f"kill -9 server worker {victim} at {killed - begin:.1f} s: "
            f"replaced in {back - killed:.1f} s"
        )

    # 3. The whole server (supervisor and workers), restarted 1 s later.
    await at(0.65)
    assert server.process is not None
    lines = server.started()
    killed = now()
    server.kill_group()
    server.process.wait()
    await asyncio.sleep(1)
    server.start()
    back = await wait_for_lines(server, lines + SERVER_WORKERS)
    run.windows.append(Window("whole server", killed - 1, back + 2))
    run.kill_notes.append(
        f"kill -9 whole server at {killed - begin:.1f} s: both workers serving again in "
        f"{back - killed:.1f} s"
    )


# --- Setup ----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def add_admin(url: str) -> None:
    from rootline.accounts import service
    from rootline.db import make_engine, make_sessionmaker

    engine = make_engine(url)
    try:
        with make_sessionmaker(engine).begin() as session:
            service.create_user(session, "admin", password=ADMIN_PASSWORD, is_admin=True)
    finally:
        engine.dispose()


async def stored_incident(
    client: httpx.AsyncClient, captures: SizedCaptures
) -> tuple[str, list[str], tuple[int, int], str]:
    """The incident the readers read (a 4 MB ss capture, parsed) and a share link to it."""
    incident = (await client.post("/api/incidents", json={"title": "timeline"})).json()["id"]
    body = captures.make_sized(0, 4 * MB)
    response = await client.post(
        f"/api/incidents/{incident}/artifacts",
        params={"filename": "ss-readers.txt", "host": "provider-1", "wait": 300},
        content=body,
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    items = await series_list(client, incident)
    names = sorted({s["name"] for s in items if s["point_count"] >= 100})
    span = (min(s["first_ms"] for s in items), max(s["last_ms"] for s in items))
    async with httpx.AsyncClient(base_url=str(client.base_url), timeout=60) as browser:
        me = await browser.post(
            "/api/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
        )
        me.raise_for_status()
        share = await browser.post(
            f"/api/incidents/{incident}/shares",
            json={"label": "legitimate"},
            headers={"X-CSRF-Token": me.json()["csrf_token"]},
        )
        assert share.status_code == 201, share.text
    return incident, names, span, share.json()["token"]


def _reader_process(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench.kill", *argv],
        cwd=BACKEND,
        stdout=subprocess.PIPE,
        text=True,
    )


# --- Checking -------------------------------------------------------------------------------


def queued_count(url: str) -> int:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return int(
                connection.scalar(
                    text("SELECT count(*) FROM artifacts WHERE status IN ('pending', 'parsing')")
                )
                or 0
            )
    finally:
        engine.dispose()


async def drain(url: str, timeout_s: float) -> float | None:
    started = now()
    last_print = -1e9
    while True:
        queued = await asyncio.to_thread(queued_count, url)
        elapsed = now() - started
        if queued == 0:
            print(f"  parse queue drained {elapsed:.0f} s after the window", flush=True)
            return elapsed
        if elapsed > timeout_s:
            print(f"  parse queue NOT drained: {queued} still queued after {elapsed:.0f} s")
            return None
        if elapsed - last_print >= 15:
            print(f"  parse queue: {queued} queued after {elapsed:.0f} s", flush=True)
            last_print = elapsed
        await asyncio.sleep(2)


@dataclass
class Verdict:
    acknowledged: int = 0
    lost: int = 0
    duplicated: int = 0
    not_parsed: int = 0
    unacknowledged_stored: int = 0
    statuses: Counter[str] = field(default_factory=Counter)


def verify_database(url: str, uploads: list[Upload]) -> Verdict:
    """Every acknowledged (incident, sha256): exactly one top-level artifact, parsed."""
    from sqlalchemy import create_engine, text

    incidents = sorted({u.incident for u in uploads})
    engine = create_engine(url)
    rows: dict[tuple[str, str], list[str]] = collections.defaultdict(list)
    try:
        with engine.connect() as connection:
            for incident_id, sha256, status in connection.execute(
                text(
                    "SELECT incident_id, sha256, status FROM artifacts "
                    "WHERE parent_id IS NULL AND incident_id = ANY(:ids)"
                ),
                {"ids": [uuid.UUID(i) for i in incidents]},
            ):
                rows[(str(incident_id), sha256)].append(status)
    finally:
        engine.dispose()
    verdict = Verdict()
    acknowledged = {(u.incident, u.sha256): u for u in uploads if u.artifact is not None}
    verdict.acknowledged = len(acknowledged)
    for key, upload in acknowledged.items():
        statuses = rows.get(key, [])
        verdict.statuses.update(statuses)
        if not statuses:
            verdict.lost += 1
            print(
                f"  LOST: {upload.sha256} (incident {upload.incident}, artifact {upload.artifact})"
            )
        elif len(statuses) > 1:
            verdict.duplicated += 1
            print(f"  DUPLICATED: {upload.sha256} x {len(statuses)} (incident {upload.incident})")
        if statuses and any(s != "parsed" for s in statuses):
            verdict.not_parsed += 1
            print(f"  NOT PARSED: {upload.sha256}: {statuses} (incident {upload.incident})")
    verdict.unacknowledged_stored = sum(key not in acknowledged for key in rows)
    return verdict


async def check_downloads(client: httpx.AsyncClient, uploads: list[Upload], count: int) -> int:
    """Raw downloads of ``count`` acknowledged uploads; how many differ."""
    acknowledged = [u for u in uploads if u.artifact is not None]
    wrong = 0
    for item in random.Random(1).sample(acknowledged, k=min(count, len(acknowledged))):
        raw = await client.get(f"/api/incidents/{item.incident}/artifacts/{item.artifact}/raw")
        digest = hashlib.sha256(raw.content).hexdigest()
        if raw.status_code != 200 or digest != item.sha256 or len(raw.content) != item.size:
            wrong += 1
            print(f"  CORRUPT: raw of {item.artifact}: {raw.status_code}, sha256 {digest}")
    return wrong


# --- The run --------------------------------------------------------------------------------


async def run_bench(run: Run, cpu: CpuSampler, url: str) -> int:
    args = run.args
    limits = httpx.Limits(
        max_connections=args.uploaders + args.readers + 10,
        max_keepalive_connections=args.uploaders + args.readers + 10,
    )
    headers = {"Authorization": f"Bearer {run.token}"}
    timeout = httpx.Timeout(120.0, connect=10.0)
    async with httpx.AsyncClient(
        base_url=run.base, headers=headers, limits=limits, timeout=timeout
    ) as client:
        captures = SizedCaptures()
        print(
            "  preparing the readers' incident (4 MB ss capture) and its share link ...", flush=True
        )
        incident, names, span, share_token = await stored_incident(client, captures)
        incidents = [
            (await client.post("/api/incidents", json={"title": f"upload {n}"})).json()["id"]
            for n in range(args.uploaders)
        ]
        print(
            f"  running {args.uploaders} uploaders ({args.min_mb:g}-{args.max_mb:g} MB, "
            f"~{args.think:g} s apart) + {args.readers} timeline readers + a flood of "
            f"{args.flood} clients + 1 share-link reader for {args.duration:.0f} s, "
            "killing as it goes ...",
            flush=True,
        )
        flood = _reader_process("_flood", run.base, str(args.flood), str(args.duration))
        legit = _reader_process("_share_reader", run.base, share_token, str(args.duration))
        cpu.load_pids.update({flood.pid, legit.pid})
        cpu_before = cpu.totals()
        begin = now()
        run.deadline = begin + args.duration
        tasks = [
            uploader(client, run, n, incidents[n], captures) for n in range(args.uploaders)
        ] + [
            reader(client, run, incident, names, span, random.Random(n))
            for n in range(args.readers)
        ]
        kills = asyncio.ensure_future(killer(run))
        await asyncio.gather(*tasks)
        window_s = now() - begin
        cpu_window = cpu.totals()
        flood_answers = json.loads((await asyncio.to_thread(flood.communicate, None, 60))[0])
        legit_reads = [
            Request(s, d, st)
            for s, d, st in json.loads((await asyncio.to_thread(legit.communicate, None, 60))[0])
        ]
        await kills
        print("  window over; waiting for the parse queue to drain ...", flush=True)
        drained = await drain(url, args.drain_timeout)
        total_s = now() - begin
        cpu_total = cpu.totals()
        verdict = await asyncio.to_thread(verify_database, url, run.uploads)
        corrupt = await check_downloads(client, run.uploads, args.sample)

    # --- Report ---
    windows = run.windows
    print(
        f"\n== Load and kill: {args.uploaders} uploaders, {args.readers} timeline readers, "
        f"{args.flood} flooding clients, serve --workers {SERVER_WORKERS} + 1 rootline worker, "
        f"PostgreSQL, {args.duration:.0f} s (in flight finished after {window_s:.1f} s) =="
    )
    for note in run.kill_notes:
        print(f"  {note}")
    print(
        "  kill windows: "
        + ", ".join(f"{w.label} {w.start - begin:.1f}-{w.end - begin:.1f} s" for w in windows)
    )
    acked = [u for u in run.uploads if u.artifact is not None]
    retried = [u for u in acked if u.attempts > 1]
    twinned = {id(u) for pair in run.twins for u in pair}
    deduped = [u for u in retried if id(u) not in twinned and u.created and not u.created[-1]]
    split_twins = [
        (a, b) for a, b in run.twins if a.artifact and b.artifact and a.artifact != b.artifact
    ]
    unacked = [u for u in run.uploads if u.artifact is None]
    print(
        f"  uploads: {len(run.uploads)} sent, {len(acked)} acknowledged "
        f"({sum(u.size for u in acked) / MB:.0f} MB), {len(retried)} of them after a retry "
        f"({sum(u.attempts - 1 for u in retried)} retries; {len(deduped)} answered with the "
        f"artifact an earlier, cut-off attempt had stored), {len(unacked)} never acknowledged"
    )
    print(
        f"  double clicks (the same bytes sent twice at once): {len(run.twins)}, "
        f"{len(split_twins)} answered with two different artifacts"
    )
    for item in unacked[:5]:
        print(f"    not acknowledged: upload {item.sequence}: {item.errors[-3:]}")
    sha_errors = [e for u in run.uploads for e in u.errors if e.startswith("sha256")]
    for error in sha_errors[:5]:
        print(f"    WRONG sha256: {error}")
    print(f"  timeline reads done: {len(run.reads)} ({len(run.reads) / window_s:.1f}/s)")
    print(f"    overall:            {latency_line(run.reads)}")
    calm_reads = outside(run.reads, windows)
    print(f"    outside kill windows: {latency_line(calm_reads)}")
    calm_errors = len([r for r in calm_reads if r.status != 200])
    print(f"  share-token flood answers: {dict(sorted(flood_answers.items()))}")
    print("  legitimate share-link reads under the flood (GET /api/shared/<token>, 5/s):")
    print(f"    overall:            {latency_line(legit_reads)}")
    calm_legit = outside(legit_reads, windows)
    print(f"    outside kill windows: {latency_line(calm_legit)}")
    broken_legit = [r for r in calm_legit if r.status != 200 or r.seconds >= 1.0]
    for r in broken_legit[:10]:
        print(f"    BROKEN at {r.started - begin:.1f} s: status {r.status}, {r.seconds:.3f} s")
    print(
        f"  database: {verdict.acknowledged} acknowledged sha256s -> lost {verdict.lost}, "
        f"duplicated {verdict.duplicated}, not parsed {verdict.not_parsed} "
        f"(statuses {dict(verdict.statuses)}); {verdict.unacknowledged_stored} stored "
        f"without an acknowledgement"
    )
    print(f"  raw downloads: {min(args.sample, len(acked))} checked, {corrupt} differ")
    bench_cpu = resource.getrusage(resource.RUSAGE_SELF)
    for label, totals, base_totals, wall in (
        ("during the window", cpu_window, cpu_before, window_s),
        ("window + drain", cpu_total, cpu_before, total_s),
    ):
        spent = {k: totals.get(k, 0.0) - base_totals.get(k, 0.0) for k in totals}
        print(
            f"  CPU {label} ({wall:.0f} s wall, {os.cpu_count()} CPUs): "
            + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(spent.items()))
        )
    print(
        f"  (this process: {bench_cpu.ru_utime + bench_cpu.ru_stime:.0f} CPU s in all; "
        f"load average now {', '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    if calm_errors:
        print(f"  note: {calm_errors} timeline reads outside the kill windows were not 200")
    for error in run.read_errors[:5]:
        print(f"    read error: {error}")
    failures = {
        "lost": verdict.lost,
        "duplicated": verdict.duplicated,
        "not parsed": verdict.not_parsed,
        "queue not drained": drained is None,
        "raw downloads differing": corrupt,
        "wrong sha256 answered": len(sha_errors),
        "double clicks answered with two artifacts": len(split_twins),
        "legitimate share reads failed or >= 1 s outside kill windows": len(broken_legit),
        "nothing acknowledged": not acked,
    }
    failed = {k: v for k, v in failures.items() if v}
    print(
        f"  [{'ok' if not failed else 'FAILED: ' + ', '.join(f'{k} {int(v)}' for k, v in failed.items())}]"
    )
    return 1 if failed else 0


def server_log_summary(log: Path) -> None:
    text = log.read_text(errors="replace") if log.exists() else ""
    errors = len(re.findall(r'HTTP/1\.1" 5\d\d ', text))
    print(f"  server log ({log}): {text.count('Traceback')} tracebacks, {errors} 5xx answers")
    causes = Counter(
        line.strip()[:160]
        for line in text.splitlines()
        if re.match(r"^[\w.]+(Error|Exception|Timeout)\b", line.strip()) or "FATAL" in line
    )
    for cause, count in causes.most_common(5):
        print(f"    {count:5d} x {cause}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ROLES:
        role, *rest = sys.argv[1:]
        if role == "_flood":
            flood_main(rest[0], int(rest[1]), float(rest[2]))
        else:
            share_reader_main(rest[0], rest[1], float(rest[2]))
        return

    def env(name: str, default: float) -> float:
        return float(os.environ.get(f"ROOTLINE_KILL_{name}", default))

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=env("DURATION", 75))
    parser.add_argument("--uploaders", type=int, default=int(env("UPLOADERS", 20)))
    parser.add_argument("--readers", type=int, default=int(env("READERS", 20)))
    parser.add_argument("--flood", type=int, default=int(env("FLOOD", 60)))
    parser.add_argument("--think", type=float, default=env("THINK", 15))
    parser.add_argument(
        "--twins", type=float, default=0.1, help="share of uploads sent twice at once"
    )
    parser.add_argument("--min-mb", type=float, default=1)
    parser.add_argument("--max-mb", type=float, default=5)
    parser.add_argument("--sample", type=int, default=10, help="raw downloads to compare")
    parser.add_argument(
        "--retry-s", type=float, default=120, help="how long after the window uploads retry"
    )
    parser.add_argument(
        "--drain-timeout",
        type=float,
        default=env("DRAIN_TIMEOUT", 900),
        help="seconds to wait for the parse queue after the window",
    )
    parser.add_argument(
        "--quick", action="store_true", help="30 s, 5 uploaders, 5 readers (a smoke run)"
    )
    args = parser.parse_args()
    if args.quick:
        args.duration, args.uploaders, args.readers, args.max_mb, args.think = 30, 5, 5, 2, 6
    print(
        f"Rootline load-and-kill bench (python {sys.version.split()[0]}, {os.cpu_count()} CPUs "
        "shared by the server, its worker, PostgreSQL and the load generator; load average "
        f"before: {', '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    scratch = create_scratch_database(PG_ADMIN, "rootline_kill")
    if scratch is None:
        print(f"PostgreSQL not reachable at {PG_ADMIN}: SKIPPED")
        return
    failed = 1
    logs = Path(tempfile.gettempdir())
    server_log, worker_log = logs / "rootline-kill-server.log", logs / "rootline-kill-worker.log"
    for path in (server_log, worker_log):
        path.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="rootline-kill-") as tmp:
        port = _free_port()
        env_vars = {
            **os.environ,
            "ROOTLINE_DATABASE_URL": scratch.url,
            "ROOTLINE_DATA_DIR": str(Path(tmp) / "data"),
            "ROOTLINE_LOAD_DEMO": "false",
            "ROOTLINE_PARSE_THREADS": "1",
            # Every made-up token is looked up and counted, as from many addresses.
            "ROOTLINE_SHARE_RATE_LIMIT": "1000000",
        }
        server = Managed(
            [ROOTLINE, "serve", "--port", str(port), "--workers", str(SERVER_WORKERS)],
            env_vars,
            server_log,
            STARTED_LINE,
        )
        worker = Managed(
            [ROOTLINE, "worker", "--threads", "1"], env_vars, worker_log, WORKER_STARTED_LINE
        )
        cpu = CpuSampler(
            {
                "server": lambda _pid, group: group in server.groups,
                "rootline worker": lambda _pid, group: group in worker.groups,
            },
            scratch.url,
        )
        try:
            token = prepare_database(scratch.url)
            add_admin(scratch.url)
            server.start()
            asyncio.run(wait_for_lines(server, SERVER_WORKERS))
            worker.start()
            asyncio.run(wait_for_lines(worker, 1))
            cpu.start()
            base = f"http://127.0.0.1:{port}"
            print(
                f"  server: rootline serve --workers {SERVER_WORKERS} at {base}, plus rootline worker",
                flush=True,
            )
            run = Run(base, token, args, server, worker)
            failed = asyncio.run(run_bench(run, cpu, scratch.url))
        finally:
            cpu.halt.set()
            worker.stop()
            server.stop()
            server_log_summary(server_log)
            worker_text = worker_log.read_text(errors="replace") if worker_log.exists() else ""
            print(f"  worker log ({worker_log}): {worker_text.count('Traceback')} tracebacks")
            cpu.join(timeout=5)
            scratch.drop()
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
