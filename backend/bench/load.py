"""Load: concurrent uploaders and timeline readers against a multi-worker server on PostgreSQL.

    cd backend && .venv/bin/python -m bench.load            # full size (the issue's numbers)
    cd backend && .venv/bin/python -m bench.load --quick    # a 10 s smoke run

Starts `rootline serve --workers N` on a scratch PostgreSQL database (dropped afterwards),
on loopback, then for ``--duration`` seconds runs ``--uploaders`` concurrent uploaders, each
uploading ``--file-mb`` MB ``ss -tinm`` captures to an incident of its own one after another
until the time is up (each file different: its snapshots are the real capture's, under
timestamps shifted by the upload's number, and a host label of its own, so nothing dedups),
and ``--readers`` concurrent timeline readers, each asking for 1 to 8 series of a stored
incident (a 20 MB ``ss`` capture and a 10 MB ``nstat`` series, parsed before the run) over
random ranges at ``max_points=2000``, as the web app does. Requests in flight when the time
is up are waited for and counted.

An upload is answered once the bytes are stored (202, status ``pending``); the server's
parse workers parse it afterwards. So after the window the bench waits (at most
``--drain-timeout`` seconds) for the queue to drain, printing its progress, and reports how
long parsing took to catch up. Then it checks that nothing was lost: every uploaded sha256
is listed by the API with status ``parsed``, and a sample of raw downloads is
byte-identical. It prints requests, errors, p50/p95/p99 latencies for uploads and timeline
reads, and throughput of uploads and of parsing.

The load generator (one asyncio process, httpx) runs on the same machine as the server
and PostgreSQL and competes with them for the same CPUs; the numbers are those of the
whole machine under that load, not of the server alone.

Every knob is also an environment variable: ROOTLINE_LOAD_DURATION, _UPLOADERS, _READERS,
_FILE_MB, _WORKERS, _DRAIN_TIMEOUT (e.g. ``ROOTLINE_LOAD_DURATION=60``).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.gen_ss import FIXTURE as SS_FIXTURE
from bench.gen_ss import INTERVAL, START, snapshot_bodies, timestamp_line
from bench.run import MB, PG_ADMIN, bench_file
from rootline.db import create_scratch_database

ROOTLINE = str(Path(sys.executable).with_name("rootline"))
BACKEND = Path(__file__).resolve().parents[1]


# --- Inputs ---------------------------------------------------------------------------------


class Captures:
    """Distinct ``ss -tinm`` captures of a given size, made fast enough to upload non-stop:
    the snapshot bodies are encoded once; a capture only re-renders its timestamp lines."""

    def __init__(self, size_bytes: int) -> None:
        self.bodies = [b.encode() for b in snapshot_bodies(SS_FIXTURE.read_text())]
        average = sum(map(len, self.bodies)) / len(self.bodies)
        self.snapshots = max(1, int(size_bytes / average) + 1)

    def make(self, number: int) -> bytes:
        # One second later per upload (and 5 s between snapshots): the same timestamps never
        # repeat, so neither do the bytes.
        start = START + dt.timedelta(seconds=number)
        parts: list[bytes] = []
        for i in range(self.snapshots):
            parts.append(timestamp_line(start + i * INTERVAL, i).encode())
            parts.append(self.bodies[i % len(self.bodies)])
        return b"".join(parts)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- Measurements ---------------------------------------------------------------------------


@dataclass
class Kind:
    name: str
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    bytes: int = 0

    def add(self, started: float, ok: bool, detail: str, size: int = 0) -> None:
        self.latencies_ms.append((time.perf_counter() - started) * 1000)
        if ok:
            self.bytes += size
        else:
            self.errors.append(detail)

    def line(self, elapsed_s: float) -> str:
        count = len(self.latencies_ms)
        if not count:
            return f"  {self.name:<15} no requests"
        p50, p95, p99 = np.percentile(self.latencies_ms, [50, 95, 99])
        return (
            f"  {self.name:<15} {count:6d} requests  {len(self.errors):4d} errors   "
            f"p50 {p50:8.1f} ms  p95 {p95:8.1f} ms  p99 {p99:8.1f} ms  max {max(self.latencies_ms):8.1f} ms"
            f"   {count / elapsed_s:7.1f} req/s"
        )


@dataclass
class Uploaded:
    incident: str
    artifact: str
    sha256: str
    size: int


# --- The server -----------------------------------------------------------------------------


def prepare_database(url: str) -> str:
    """Migrate, and make the read-write API token the load uses; its secret."""
    from rootline.accounts import service
    from rootline.db import make_engine, make_sessionmaker, upgrade

    upgrade(url)
    engine = make_engine(url)
    try:
        with make_sessionmaker(engine).begin() as session:
            user = service.create_user(session, "load")
            return service.create_token(session, user, name="load", scope="read-write").token
    finally:
        engine.dispose()


def start_server(
    url: str, data_dir: Path, workers: int, log: Path
) -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {
        **os.environ,
        "ROOTLINE_DATABASE_URL": url,
        "ROOTLINE_DATA_DIR": str(data_dir),
        "ROOTLINE_LOAD_DEMO": "false",
    }
    process = subprocess.Popen(
        [ROOTLINE, "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        cwd=BACKEND,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise SystemExit(f"server did not start: {log.read_text()[-2000:]}")


# --- The load -------------------------------------------------------------------------------


async def series_list(client: httpx.AsyncClient, incident: str) -> list[dict[str, Any]]:
    """Every series of ``incident``, read page by page as the series picker does."""
    items: list[dict[str, Any]] = []
    while True:
        page = (
            await client.get(
                f"/api/incidents/{incident}/series", params={"limit": 1000, "offset": len(items)}
            )
        ).json()
        items += page["items"]
        if len(items) >= page["total"] or not page["items"]:
            return items


async def stored_incident(client: httpx.AsyncClient) -> tuple[str, list[str], int, int]:
    """The incident the readers read: a 20 MB ss capture and a 10 MB nstat series."""
    incident = (await client.post("/api/incidents", json={"title": "timeline"})).json()["id"]
    for module, size_mb, host in (
        ("bench.gen_ss", 20, "provider-1"),
        ("bench.gen_nstat", 10, "provider-1"),
    ):
        path = bench_file(module, "generate", size_mb)
        assert path is not None, module
        response = await client.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": path.name, "host": host, "wait": 300},
            content=path.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert response.status_code == 201, response.text
        assert response.json()["artifacts"][0]["status"] == "parsed", response.text
    items = await series_list(client, incident)
    # Series with enough points to be worth drawing, the way the lanes draw them.
    names = sorted({s["name"] for s in items if s["point_count"] >= 100})
    first = min(s["first_ms"] for s in items)
    last = max(s["last_ms"] for s in items)
    return incident, names, first, last


async def uploader(
    client: httpx.AsyncClient,
    number: int,
    uploaders: int,
    captures: Captures,
    deadline: float,
    kind: Kind,
    done: list[Uploaded],
) -> None:
    incident = (await client.post("/api/incidents", json={"title": f"upload {number}"})).json()[
        "id"
    ]
    round_ = 0
    while time.monotonic() < deadline:
        sequence = round_ * uploaders + number
        round_ += 1
        body = await asyncio.to_thread(captures.make, sequence)
        digest = await asyncio.to_thread(sha256_hex, body)
        started = time.perf_counter()
        try:
            response = await client.post(
                f"/api/incidents/{incident}/artifacts",
                params={"filename": f"ss-{sequence}.txt", "host": f"host-{sequence % 97}"},
                content=body,
                headers={"Content-Type": "application/octet-stream"},
            )
        except httpx.HTTPError as error:
            kind.add(started, False, f"upload {sequence}: {error!r}")
            continue
        ok = response.status_code in {201, 202}
        detail = f"upload {sequence}: {response.status_code} {response.text[:200]}"
        if ok:
            artifact = response.json()["artifacts"][0]
            ok = artifact["sha256"] == digest
            detail = f"upload {sequence}: sha256 {artifact['sha256']} is not {digest}"
            done.append(Uploaded(incident, artifact["id"], digest, len(body)))
        kind.add(started, ok, detail, len(body))


async def reader(
    client: httpx.AsyncClient,
    incident: str,
    names: list[str],
    first: int,
    last: int,
    deadline: float,
    kind: Kind,
    rng: random.Random,
) -> None:
    span = last - first
    while time.monotonic() < deadline:
        chosen = rng.sample(names, k=min(len(names), rng.randint(1, 8)))
        width = int(span * rng.uniform(0.001, 1.0))
        start = first + rng.randint(0, span - width)
        params: dict[str, str | int] = {
            "series": ",".join(chosen),
            "from": start,
            "to": start + width,
            "max_points": 2000,
        }
        started = time.perf_counter()
        try:
            response = await client.get(f"/api/incidents/{incident}/timeline", params=params)
        except httpx.HTTPError as error:
            kind.add(started, False, f"timeline: {error!r}")
            continue
        ok = response.status_code == 200
        kind.add(
            started,
            ok,
            f"timeline: {response.status_code} {response.text[:200]}",
            len(response.content),
        )


async def drain(client: httpx.AsyncClient, done: list[Uploaded], timeout_s: float) -> float | None:
    """Wait until no uploaded artifact is queued; seconds it took, None on timeout."""
    incidents = sorted({item.incident for item in done})
    started = time.perf_counter()
    while True:
        queued = 0
        for incident in incidents:
            artifacts = (await client.get(f"/api/incidents/{incident}/artifacts")).json()
            queued += sum(a["status"] in {"pending", "parsing"} for a in artifacts)
        elapsed = time.perf_counter() - started
        print(
            f"  parse queue: {queued} of {len(done)} still queued after {elapsed:.0f} s", flush=True
        )
        if queued == 0:
            return elapsed
        if elapsed > timeout_s:
            return None
        await asyncio.sleep(5)


async def verify(
    client: httpx.AsyncClient, done: list[Uploaded], sample: int
) -> tuple[int, int, int]:
    """(listed, lost, downloads checked): every sha256 listed as parsed; a sample's bytes."""
    by_incident: dict[str, list[Uploaded]] = {}
    for item in done:
        by_incident.setdefault(item.incident, []).append(item)
    listed = lost = 0
    for incident, items in by_incident.items():
        artifacts = (await client.get(f"/api/incidents/{incident}/artifacts")).json()
        stored = {a["sha256"] for a in artifacts if a["status"] == "parsed"}
        for item in items:
            if item.sha256 in stored:
                listed += 1
            else:
                lost += 1
                print(f"  LOST: {item.sha256} (incident {incident}, artifact {item.artifact})")
    checked = 0
    for item in random.Random(1).sample(done, k=min(sample, len(done))):
        raw = await client.get(f"/api/incidents/{item.incident}/artifacts/{item.artifact}/raw")
        digest = hashlib.sha256(raw.content).hexdigest()
        if raw.status_code != 200 or digest != item.sha256:
            lost += 1
            print(f"  CORRUPT: raw of {item.artifact}: {raw.status_code}, sha256 {digest}")
        checked += 1
    return listed, lost, checked


async def run_load(base: str, token: str, args: argparse.Namespace) -> int:
    limits = httpx.Limits(
        max_connections=args.uploaders + args.readers + 10,
        max_keepalive_connections=args.uploaders + args.readers + 10,
    )
    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx.Timeout(600.0, connect=30.0)
    async with httpx.AsyncClient(
        base_url=base, headers=headers, limits=limits, timeout=timeout
    ) as client:
        print("  preparing the stored incident (20 MB ss + 10 MB nstat) ...", flush=True)
        incident, names, first, last = await stored_incident(client)
        print(
            f"  stored incident: {len(names)} series over {(last - first) / 1000:.0f} s; "
            f"generating {args.file_mb} MB captures per upload",
            flush=True,
        )
        captures = Captures(int(args.file_mb * MB))
        uploads, reads = Kind("uploads"), Kind("timeline reads")
        done: list[Uploaded] = []
        print(
            f"  running {args.uploaders} uploaders + {args.readers} readers for {args.duration:.0f} s ...",
            flush=True,
        )
        started = time.perf_counter()
        deadline = time.monotonic() + args.duration
        tasks = [
            uploader(client, n, args.uploaders, captures, deadline, uploads, done)
            for n in range(args.uploaders)
        ] + [
            reader(client, incident, names, first, last, deadline, reads, random.Random(n))
            for n in range(args.readers)
        ]
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
        print(
            f"\n== Load: {args.uploaders} uploaders x {args.file_mb:g} MB ss captures, "
            f"{args.readers} timeline readers, {args.workers} workers, PostgreSQL, "
            f"{args.duration:.0f} s (all in flight finished after {elapsed:.1f} s) =="
        )
        print(uploads.line(elapsed))
        print(reads.line(elapsed))
        print(
            f"  throughput: {uploads.bytes / MB / elapsed:.1f} MB/s ingested "
            f"({len(done)} files, {uploads.bytes / MB:.0f} MB), "
            f"{len(reads.latencies_ms) / elapsed:.1f} timeline reads/s "
            f"({reads.bytes / MB:.0f} MB of JSON)"
        )
        for error in (uploads.errors + reads.errors)[:10]:
            print(f"  error: {error}")
        print("  waiting for the parse workers to catch up ...", flush=True)
        caught_up = await drain(client, done, args.drain_timeout)
        if caught_up is None:
            print(f"  parse queue NOT drained within {args.drain_timeout:.0f} s")
        else:
            total = elapsed + caught_up
            print(
                f"  parsing caught up {caught_up:.0f} s after the window: "
                f"{uploads.bytes / MB / total:.1f} MB/s parsed and stored over {total:.0f} s"
            )
        listed, lost, checked = await verify(client, done, args.sample)
        print(
            f"  lost artifacts: {lost}  ({listed}/{len(done)} uploaded sha256 listed as parsed, "
            f"{checked} raw downloads byte-identical checked)"
        )
        failed = len(uploads.errors) + len(reads.errors) + lost + (caught_up is None)
        print(f"  [{'ok' if failed == 0 else 'FAILED: errors or lost artifacts'}]")
        return failed


def main() -> None:
    def env(name: str, default: float) -> float:
        return float(os.environ.get(f"ROOTLINE_LOAD_{name}", default))

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=env("DURATION", 60))
    parser.add_argument("--uploaders", type=int, default=int(env("UPLOADERS", 50)))
    parser.add_argument("--readers", type=int, default=int(env("READERS", 200)))
    parser.add_argument("--file-mb", type=float, default=env("FILE_MB", 10))
    parser.add_argument("--workers", type=int, default=int(env("WORKERS", 4)))
    parser.add_argument("--sample", type=int, default=25, help="raw downloads to compare")
    parser.add_argument(
        "--drain-timeout",
        type=float,
        default=env("DRAIN_TIMEOUT", 1800),
        help="seconds to wait for the parse queue after the window",
    )
    parser.add_argument(
        "--quick", action="store_true", help="10 s, 10 uploaders of 2 MB, 40 readers (a smoke run)"
    )
    args = parser.parse_args()
    if args.quick:
        args.duration, args.uploaders, args.readers, args.file_mb = 10, 10, 40, 2
    print(
        f"Rootline load bench (python {sys.version.split()[0]}, {os.cpu_count()} CPUs shared by "
        f"server, PostgreSQL and the load generator; load average before: "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    scratch = create_scratch_database(PG_ADMIN, "rootline_load")
    if scratch is None:
        print(f"PostgreSQL not reachable at {PG_ADMIN}: SKIPPED")
        return
    failed = 1
    log = Path(tempfile.gettempdir()) / "rootline-load-server.log"  # kept for a post-mortem
    with tempfile.TemporaryDirectory(prefix="rootline-load-") as tmp:
        process = None
        try:
            token = prepare_database(scratch.url)
            process, base = start_server(scratch.url, Path(tmp) / "data", args.workers, log)
            print(f"  server: rootline serve --workers {args.workers} at {base}", flush=True)
            failed = asyncio.run(run_load(base, token, args))
        finally:
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
            text = log.read_text(errors="replace") if log.exists() else ""
            print(f"  server log ({log}): {text.count('Traceback')} tracebacks")
            causes = Counter(
                line.strip()[:160]
                for line in text.splitlines()
                if re.match(r"^[\w.]+(Error|Exception|Timeout)\b", line.strip()) or "FATAL" in line
            )
            for cause, count in causes.most_common(5):
                print(f"    {count:5d} x {cause}")
            scratch.drop()
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
