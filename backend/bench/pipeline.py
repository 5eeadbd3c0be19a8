"""Upload to verdicts: a 100 MB three-host collector bundle through a real server.

    cd backend && .venv/bin/python -m bench.pipeline

Builds (once, into bench-data) a collector bundle as ``rootline-collect.sh`` writes it: one
``rootline-<host>-<stamp>/`` folder per host holding an ``ss -tinm`` loop (20 MB), ``nstat``
series (5 MB) and a unified GC log (8 MB), tar.gz'd: ~100 MB of text in 9 files. Then, per
setup, starts ``rootline serve`` on a scratch database, uploads the bundle over HTTP and
times until every member is parsed and the checklist answers (the parse worker recomputes it
once the last member is in): "upload to verdicts".

Setups: the default server (one parse thread in the server process) on SQLite and on
PostgreSQL; then on PostgreSQL a server with no parse thread (``ROOTLINE_PARSE_THREADS=0``)
and 1, 2 and 4 ``rootline worker`` processes beside it, to show how parsing scales with
worker processes (each started, and done importing, before the upload). Each server takes
one untimed upload first (a running server has compiled its queries; that first upload's
time is printed apart), then ``--uploads`` timed ones, each into a new incident: the median
is reported. Wall time is what a user waits; beside it the CPU seconds spent during that wait by the server, the workers and
the database server's backends for this database (this machine is shared and noisy).

Then the split that does not depend on the machine's load: the same bundle through the parse
worker's own code in one thread (``worker.drain``) on PostgreSQL, each step's CPU seconds
(this process's and the database backends') counted apart: what must run one after another
(the bundle unpacked up to its first member, the final checklist recompute) against what
workers can share (the other members' parsing and storing, the rest of the unpacking). From
it the speed-up N workers on N free cores can give at most (Amdahl, and no faster than the
longest member), for this 2-core machine and bigger ones.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.engine import Engine

from bench import machine
from bench.load import BACKEND, ROOTLINE, prepare_database, start_server
from bench.run import BENCH_DATA, MB, PG_ADMIN, bench_file
from rootline.db import create_scratch_database

HOSTS = ("provider-1", "provider-2", "consumer-1")
PLAN = (
    ("bench.gen_ss", "generate", 20, "ss-tinm.txt"),
    ("bench.gen_nstat", "generate", 5, "nstat.txt"),
    ("bench.gen_gc", "generate_unified", 8, "gc.log"),
)
TARGET_S = 10.0


def bundle() -> Path:
    path = BENCH_DATA / "collector-3-hosts-100mb.tar.gz"
    if path.exists():
        return path
    partial = path.with_suffix(".partial")
    BENCH_DATA.mkdir(parents=True, exist_ok=True)
    with tarfile.open(partial, "w:gz", compresslevel=6) as tar:
        for host in HOSTS:
            for module, function, size_mb, name in PLAN:
                source = bench_file(module, function, size_mb)
                assert source is not None, module
                tar.add(source, arcname=f"rootline-{host}-20261121T072900/{name}")
    partial.rename(path)
    return path


def text_mb() -> float:
    with tarfile.open(bundle()) as tar:
        return sum(m.size for m in tar.getmembers()) / MB


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- CPU seconds of running processes -------------------------------------------------------

TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a running process (its threads included); None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * TICK_S


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (uvicorn may fork)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with suppress(OSError):
                todo += [int(c) for c in (task / "children").read_text().split()]
    return found


class DatabaseBackends:
    """The database server's backend processes serving one database (PostgreSQL on this
    machine), found through ``pg_stat_activity``; None of it on SQLite."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.name = parsed.database if parsed.get_backend_name() == "postgresql" else None
        self.admin: Engine | None = (
            create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT") if self.name else None
        )

    def pids(self) -> list[int]:
        if self.admin is None:
            return []
        with self.admin.connect() as connection:
            rows = connection.execute(
                text("SELECT pid FROM pg_stat_activity WHERE datname = :n"), {"n": self.name}
            )
            return [int(r[0]) for r in rows]

    def close(self) -> None:
        if self.admin is not None:
            self.admin.dispose()


class CpuMeter:
    """CPU seconds that processes spend from ``start()`` on: those given, and the database
    backends (a backend that appears later counts from its start, one gone is lost)."""

    def __init__(self, backends: DatabaseBackends) -> None:
        self.backends = backends
        self.base: dict[int, float] = {}

    def _now(self, pids: list[int]) -> dict[int, float]:
        found = {pid: process_cpu_s(pid) for pid in {*pids, *self.backends.pids()}}
        return {pid: cpu for pid, cpu in found.items() if cpu is not None}

    def start(self, pids: list[int]) -> None:
        self.base = self._now(pids)

    def spent(self, pids: list[int]) -> float:
        return sum(cpu - self.base.get(pid, 0.0) for pid, cpu in self._now(pids).items())


@contextmanager
def server(url: str, workers: int, parse_threads: int) -> Iterator[tuple[str, str, list[int]]]:
    token = prepare_database(url)
    with tempfile.TemporaryDirectory(prefix="rootline-pipeline-") as tmp:
        data_dir = Path(tmp)
        env = {
            **os.environ,
            "ROOTLINE_DATABASE_URL": url,
            "ROOTLINE_DATA_DIR": str(data_dir),
            "ROOTLINE_LOAD_DEMO": "false",
            "PYTHONUNBUFFERED": "1",  # its "parse worker: ..." line says it is ready
        }
        os.environ["ROOTLINE_PARSE_THREADS"] = str(parse_threads)
        process, base = start_server(url, data_dir, 1, data_dir / "server.log")
        os.environ.pop("ROOTLINE_PARSE_THREADS")
        parsers = [
            subprocess.Popen(
                [ROOTLINE, "worker", "--threads", "1"],
                env=env,
                cwd=BACKEND,
                stdout=(data_dir / f"worker-{i}.log").open("wb"),
                stderr=subprocess.STDOUT,
            )
            for i in range(workers)
        ]
        try:
            # Each worker imports for about 1.5 CPU s: done before the clock starts, so that
            # the wait measures the parsing, not the workers' start-up.
            deadline = time.monotonic() + 120
            for i, worker in enumerate(parsers):
                log = data_dir / f"worker-{i}.log"
                while "parse worker:" not in log.read_text(errors="replace"):
                    if worker.poll() is not None or time.monotonic() > deadline:
                        raise SystemExit(f"worker {i} did not start: {log.read_text()[-2000:]}")
                    time.sleep(0.05)
            pids = [*process_tree(process.pid), *(p.pid for p in parsers)]
            yield base, token, pids
        finally:
            for p in [*parsers, process]:
                p.terminate()
            for p in [*parsers, process]:
                p.wait(30)


def timeline(
    started_ms: float, artifacts: list[dict[str, Any]], checklist: dict[str, Any], seen_s: float
) -> str:
    """When each step happened, in seconds after the upload began (the server's clock is
    this machine's): where the wait goes."""

    def at(ms: float) -> str:
        return f"{(ms - started_ms) / 1000:.1f}"

    (bundle,) = [a for a in artifacts if a["kind"] == "bundle"]
    members = [a for a in artifacts if a["kind"] != "bundle"]
    recorded = sorted(a["uploaded_at_ms"] for a in members)
    began = min(a["parsed_at_ms"] - 1000 * (a["parse_seconds"] or 0) for a in members)
    ended = sorted(a["parsed_at_ms"] for a in members)
    computed = max(f["computed_at_ms"] for f in checklist["findings"])
    return (
        f"bundle stored {at(bundle['uploaded_at_ms'])}, members claimable {at(recorded[0])}-"
        f"{at(recorded[-1])}, bundle done {at(bundle['parsed_at_ms'])}, members parsed "
        f"{at(began)}-{at(ended[-1])}, checklist {at(computed)}, seen {seen_s:.1f}"
    )


def upload_to_verdicts(
    base: str, token: str, path: Path, on_start: Callable[[], None], timeout_s: float = 600
) -> tuple[float, str]:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=base, headers=headers, timeout=120) as client:
        incident = client.post("/api/incidents", json={"title": "pipeline"}).json()["id"]
        on_start()
        started_ms = time.time() * 1000
        started = time.perf_counter()
        response = client.post(
            f"/api/incidents/{incident}/artifacts",
            params={"filename": path.name},
            content=path.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )
        assert response.status_code in (201, 202), response.text
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            artifacts = client.get(f"/api/incidents/{incident}/artifacts").json()
            members = [a for a in artifacts if a["kind"] != "bundle"]
            waiting = [a for a in artifacts if a["status"] in ("pending", "parsing")]
            if len(members) >= len(HOSTS) * len(PLAN) and not waiting:
                checklist = client.get(f"/api/incidents/{incident}/checklist")
                assert checklist.status_code == 200, checklist.text
                elapsed = time.perf_counter() - started
                bad = [a["filename"] for a in members if a["status"] != "parsed"]
                assert not bad, f"not parsed: {bad}"
                findings = checklist.json()["findings"]
                assert findings
                # The verdicts answer for every member (computed once the last was in).
                last = max(a["parsed_at_ms"] for a in members)
                assert max(f["computed_at_ms"] for f in findings) >= last, "stale checklist"
                return elapsed, timeline(started_ms, artifacts, checklist.json(), elapsed)
            time.sleep(0.05)
    raise SystemExit(f"not parsed within {timeout_s} s")


def run(
    label: str, url: str, workers: int, parse_threads: int, path: Path, size: float, uploads: int
) -> float:
    """The median wall time of ``uploads`` uploads to one server, each into a new incident,
    after a first one that warms it (a running server has compiled its queries and touched
    its code paths; the first upload after a start is printed apart)."""
    backends = DatabaseBackends(url)
    meter = CpuMeter(backends)
    runs: list[tuple[float, float, str]] = []
    try:
        with server(url, workers, parse_threads) as (base, token, pids):
            first, _ = upload_to_verdicts(base, token, path, on_start=lambda: None)
            for _ in range(uploads):
                elapsed, steps = upload_to_verdicts(
                    base, token, path, on_start=lambda: meter.start(pids)
                )
                runs.append((elapsed, meter.spent(pids), steps))
    finally:
        backends.close()
    runs.sort()
    elapsed, cpu, steps = runs[len(runs) // 2]
    verdict = "ok" if elapsed <= TARGET_S else f"OVER target {TARGET_S:.0f} s"
    walls = ", ".join(f"{r[0]:.2f}" for r in runs)
    print(
        f"  {label:<44} {elapsed:6.2f} s wall = {size / elapsed:5.1f} MB/s, "
        f"{cpu:5.1f} CPU s meanwhile (load {os.getloadavg()[0]:.1f})  [{verdict}]\n"
        f"  {'':<44} median of {len(runs)} ({walls} s); the first upload after the start"
        f" {first:.2f} s\n"
        f"  {'':<44} s after the upload began: {steps}",
        flush=True,
    )
    return elapsed


# --- The serial and the parallel part -------------------------------------------------------


@dataclass
class Split:
    """CPU seconds of each step of one bundle's parse, this process's and the database's."""

    cpu: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    db: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    # CPU s of each member, the database's too (without a checklist recompute at its end)
    members: list[float] = field(default_factory=list)
    first_member_cpu: float | None = None  # unpacking until the first member was recorded

    def total(self, step: str) -> float:
        return self.cpu.get(step, 0.0) + self.db.get(step, 0.0)

    @property
    def serial(self) -> float:
        """Runs before any other worker can start, or after all have ended."""
        head = self.total("unpack") if self.first_member_cpu is None else self.first_member_cpu
        return head + self.total("bundle record") + self.total("checklist")

    @property
    def whole(self) -> float:
        return self.total("all")

    @property
    def parallel(self) -> float:
        return self.whole - self.serial

    def time_on(self, workers: int) -> float:
        """The shortest CPU-bound run N workers on N free cores allow: the serial part, then
        the parallel part shared (a member is not split)."""
        return self.serial + max(self.parallel / workers, max(self.members, default=0.0))


_STEPS = {
    # step: (module attribute path, function name)
    "unpack": ("rootline.bundles", "open_nested"),
    "bundle record": ("rootline.artifacts.worker", "_store_bundle"),
    "decode": ("rootline.parsers.registry", "decode_pieces"),
    "parse": ("rootline.parsers.registry", "_parse"),
    # A kind read as its text is decoded (registry.PIECE_PARSERS): decode and parse in one.
    "decode+parse": ("rootline.parsers.registry", "_parse_pieces"),
    "store": ("rootline.artifacts.worker", "_persist"),
    "clear": ("rootline.artifacts.worker", "_clear_parsed"),
    "checklist": ("rootline.checklist.service", "recompute"),
    "all": ("rootline.artifacts.worker", "process"),
}


def measure_split(url: str, path: Path) -> Split:
    """The split, in a fresh process (its CPU time its own)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(_split_in_child, (url, path))


def _split_in_child(url: str, path: Path) -> Split:
    import importlib

    from rootline import bundles
    from rootline.artifacts import service as artifacts_service
    from rootline.artifacts import worker
    from rootline.db import make_engine, make_sessionmaker, upgrade
    from rootline.incidents import service as incidents_service
    from rootline.incidents.schemas import IncidentCreate
    from rootline.storage import LocalArtifactStore

    split = Split()
    backends = DatabaseBackends(url)

    pids: list[int] = []
    in_member = [0.0]  # CPU s of the checklist recompute within the current artifact's

    def db_cpu() -> float:
        # The backends are looked up once per artifact (a query costs CPU here too); the
        # pool opens its connections at the start.
        return sum(filter(None, (process_cpu_s(p) for p in pids)))

    def timed(step: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if step == "all":
                pids[:] = backends.pids()
            db = db_cpu()
            cpu = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                cpu = time.thread_time() - cpu
                if step == "all":
                    pids[:] = sorted({*pids, *backends.pids()})
                db = db_cpu() - db
                split.cpu[step] += cpu
                split.db[step] += db
                if step == "checklist":
                    in_member[0] += cpu + db
                if step == "all":
                    # A member's own work: without the checklist recompute it may end with.
                    split.members.append(cpu + db - in_member[0])
                    in_member[0] = 0.0

        return run

    upgrade(url)
    engine = make_engine(url)
    worker.load_rules()  # as a started worker has (ParseWorkers load them first)
    tmp = tempfile.TemporaryDirectory(prefix="rootline-split-")
    store = LocalArtifactStore(Path(tmp.name))

    def ingest(title: str) -> None:
        with make_sessionmaker(engine).begin() as session:
            incident = incidents_service.create(session, data=IncidentCreate(title=title))
            with path.open("rb") as handle:
                blob = store.put_file(handle, limit=4 * 1024**3)
            artifacts_service.record(
                session,
                incident=incident,
                blob=blob,
                options=artifacts_service.UploadOptions(filename=path.name),
            )
        worker.drain(worker.sessions_for(engine), store)

    # Once untimed first, as a running worker has: its queries compiled, its code paths
    # touched (the first bundle after a start costs ~0.2 CPU s more, most in the checklist).
    ingest("warm-up")

    # The parse worker's own code, each step timed where it is called from.
    for step, (module_name, name) in _STEPS.items():
        module = importlib.import_module(module_name)
        setattr(module, name, timed(step, getattr(module, name)))
    early = getattr(worker, "_EarlyMembers", None)
    if early is not None:
        record_early = early.__call__

        def first_recorded(self: Any, bundle: Any, member: Any) -> None:
            record_early(self, bundle, member)
            if split.first_member_cpu is None:
                split.first_member_cpu = (
                    time.thread_time() - unpack_started[0] + (db_cpu() - unpack_started[1])
                )

        early.__call__ = first_recorded
    unpack_started = [0.0, 0.0]
    open_nested = bundles.open_nested

    def mark_unpack(*args: Any, **kwargs: Any) -> Any:
        unpack_started[:] = [time.thread_time(), db_cpu()]
        return open_nested(*args, **kwargs)

    bundles.open_nested = mark_unpack

    try:
        ingest("split")
    finally:
        tmp.cleanup()
    engine.dispose()
    backends.close()
    split.members = split.members[1:]  # the first process() was the bundle's
    return split


def print_split(splits: list[Split]) -> None:
    def spread(values: list[float]) -> str:
        return f"{min(values):5.2f}-{max(values):5.2f}" if len(values) > 1 else f"{values[0]:5.2f}"

    print(
        f"\nSerial and parallel CPU seconds (the parse worker's code in one thread on PostgreSQL,"
        f" worker + database; {len(splits)} run(s), min-max):"
    )
    steps = [
        "unpack",
        "bundle record",
        "decode",
        "parse",
        "decode+parse",
        "clear",
        "store",
        "checklist",
        "all",
    ]
    for step in steps:
        print(
            f"  {step:<16} {spread([s.total(step) for s in splits])} s"
            f"  (database {spread([s.db.get(step, 0.0) for s in splits])} s)"
        )
    firsts = [s.first_member_cpu for s in splits if s.first_member_cpu is not None]
    if firsts:
        print(f"  unpacked until the first member was claimable: {spread(firsts)} s")
    print(f"  longest member (parse + store): {spread([max(s.members) for s in splits])} s")
    print(
        f"  serial (first member unpacked + bundle recorded + final checklist): "
        f"{spread([s.serial for s in splits])} s of {spread([s.whole for s in splits])} s"
        f" = {spread([100 * s.serial / s.whole for s in splits])} %;"
        f" parallel {spread([s.parallel for s in splits])} s"
    )
    best = min(splits, key=lambda s: s.whole)
    cores = os.cpu_count() or 1
    print("  at most, with N workers on N free cores (Amdahl; no faster than the longest member):")
    for n in (1, 2, 4, 8, 16):
        t = best.time_on(n)
        note = f"  <- this machine has {cores} cores" if n == cores else ""
        print(f"    N = {n:>2}: {t:5.2f} CPU-bound s, speed-up {best.whole / t:4.2f}x{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", default="1,2,4", help="worker process counts on PostgreSQL")
    parser.add_argument(
        "--split-runs", type=int, default=3, help="runs of the serial/parallel split (0: none)"
    )
    parser.add_argument(
        "--split-only", action="store_true", help="only the serial/parallel split, no servers"
    )
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite server run")
    parser.add_argument(
        "--uploads", type=int, default=3, help="timed uploads per server (after a warm-up one)"
    )
    args = parser.parse_args()
    print(machine.describe())
    path = bundle()
    size = text_mb()
    print(
        f"Upload to verdicts: {path.name} ({path.stat().st_size / MB:.0f} MB gzipped, "
        f"{size:.0f} MB of text in {len(HOSTS) * len(PLAN)} files, {len(HOSTS)} hosts;"
        f" {os.cpu_count()} CPUs)"
    )
    if not args.no_sqlite and not args.split_only:
        with tempfile.TemporaryDirectory(prefix="rootline-pipeline-db-") as tmp:
            url = f"sqlite:///{tmp}/p.db"
            run("SQLite, default server (1 parse thread)", url, 0, 1, path, size, args.uploads)
    scratch = create_scratch_database(PG_ADMIN, "rootline_pipeline")
    if scratch is None:
        print("  PostgreSQL not reachable: PostgreSQL numbers SKIPPED")
        return
    scratch.drop()
    splits = []
    for _ in range(args.split_runs):
        db = create_scratch_database(PG_ADMIN, "rootline_split")
        assert db is not None
        try:
            splits.append(measure_split(db.url, path))
        finally:
            db.drop()
    if args.split_only:
        print_split(splits)
        return
    by_workers: dict[int, float] = {}
    for label, workers, threads in [
        ("PostgreSQL, default server (1 parse thread)", 0, 1),
        *[
            (f"PostgreSQL, {n} rootline worker process(es)", n, 0)
            for n in (int(x) for x in args.workers.split(","))
        ],
    ]:
        db = create_scratch_database(PG_ADMIN, "rootline_pipeline")
        assert db is not None
        try:
            by_workers[workers] = run(label, db.url, workers, threads, path, size, args.uploads)
        finally:
            db.drop()
    if 1 in by_workers:
        print("  speed-up over 1 rootline worker process (medians):")
        for n, elapsed in sorted(by_workers.items()):
            if n:
                print(f"    {n} worker(s): {by_workers[1] / elapsed:4.2f}x")
    if splits:
        print_split(splits)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
