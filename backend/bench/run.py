"""`make bench`: ingest throughput and timeline latency, numbers printed.

Big inputs are generated once from real captures (see gen_*.py) into ``<repo>/bench-data``.
Ingest is measured end to end through the service layer: store the bytes, parse, write
series/events/facts, commit, on SQLite and (when reachable) PostgreSQL, in one process on
one core. Timeline latency goes through the HTTP API in-process (routing, SQL, decoding,
downsampling and JSON), for 10 series of 1 million points each.
"""

from __future__ import annotations

import argparse
import importlib
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
import uuid
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench import machine
from rootline.db import create_scratch_database

REPO = Path(__file__).resolve().parents[2]
BENCH_DATA = Path(os.environ.get("ROOTLINE_BENCH_DATA", REPO / "bench-data"))
PG_ADMIN = os.environ.get(
    "ROOTLINE_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
MB = 1024 * 1024

# (label, generator module, generator function, size in MB, target MB/s or None)
INGEST_CASES: list[tuple[str, str, str, int, float | None]] = [
    ("ss -tinm multi-snapshot", "bench.gen_ss", "generate", 200, 50.0),
    ("ss C10K 7000 conns x 120", "bench.gen_ss_c10k", "generate", 450, 50.0),
    ("nstat -az series", "bench.gen_nstat", "generate", 50, 50.0),
    ("unified GC log (JDK 17 G1)", "bench.gen_gc", "generate_unified", 200, 50.0),
    ("JDK 8 G1 GC log", "bench.gen_gc", "generate_legacy_g1", 200, 50.0),
    ("nmon capture", "bench.gen_nmon", "generate", 100, 80.0),
    ("thread-pool CSV", "bench.gen_threadpool_metrics", "generate", 20, None),
    ("Prometheus scrapes", "bench.gen_prometheus", "generate", 20, None),
    ("app log (all rejections)", "bench.gen_app_log", "generate", 20, None),
    ("jstack dumps", "bench.gen_thread_dump", "generate", 20, None),
]


def bench_file(module: str, function: str, size_mb: int) -> Path | None:
    try:
        generator: Callable[[Path, int], None] = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError):
        return None
    path = BENCH_DATA / f"{module.rsplit('.', 1)[-1]}-{function}-{size_mb}mb.txt"
    if not path.exists():
        BENCH_DATA.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        generator(partial, size_mb * MB)
        partial.rename(path)
    return path


def databases(workdir: Path) -> list[tuple[str, str, Callable[[], None]]]:
    found = [("SQLite", f"sqlite:///{workdir / 'bench.db'}", lambda: None)]
    scratch = create_scratch_database(PG_ADMIN, "rootline_bench")
    if scratch is None:
        print("PostgreSQL not reachable: PostgreSQL numbers SKIPPED")
    else:
        found.append(("PostgreSQL", scratch.url, scratch.drop))
    return found


@dataclass(frozen=True)
class IngestMeasure:
    wall_s: float
    cpu_s: float
    checklist_cpu_s: float
    peak_rss_mb: float
    base_rss_mb: float
    libraries_mb: float
    stored_mb: float | None
    detail: str


def measure_ingest(url: str, workdir: Path, path: Path) -> IngestMeasure:
    """One ingest in a fresh process, so that its CPU time and its peak memory are its own."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(_ingest_in_child, (url, workdir, path))


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _stored_mb(url: str) -> float | None:
    """Database and WAL bytes on disk (SQLite only)."""
    if not url.startswith("sqlite:///"):
        return None
    db = Path(url.removeprefix("sqlite:///"))
    files = [db, db.with_name(db.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists()) / MB


def _ingest_in_child(url: str, workdir: Path, path: Path) -> IngestMeasure:
    from rootline.artifacts import service as artifacts_service
    from rootline.artifacts import worker
    from rootline.artifacts.models import Artifact
    from rootline.db import make_engine, make_sessionmaker, upgrade
    from rootline.incidents import service as incidents_service
    from rootline.incidents.schemas import IncidentCreate
    from rootline.storage import LocalArtifactStore

    upgrade(url)
    engine = make_engine(url)
    factory = make_sessionmaker(engine)
    store = LocalArtifactStore(workdir / f"artifacts-{uuid.uuid4().hex[:6]}")
    stored_before = _stored_mb(url) or 0.0
    # The libraries some parsers import on first use (pyarrow, ~35 MB) are loaded once per
    # server process, not per parse: in the base, their size printed apart.
    before_libraries = _rss_mb()
    import pyarrow.compute
    import pyarrow.csv  # noqa: F401

    libraries_mb = _rss_mb() - before_libraries
    base_rss = _rss_mb()
    checklist_cpu = _time_checklist()
    with factory() as session:
        incident = incidents_service.create(session, data=IncidentCreate(title="bench"))
        session.commit()
        started = time.perf_counter()
        cpu_started = time.process_time()
        with path.open("rb") as handle:
            blob = store.put_file(handle, limit=4 * 1024**3)
        ingested = artifacts_service.record(
            session,
            incident=incident,
            blob=blob,
            options=artifacts_service.UploadOptions(filename=path.name),
        )
        session.commit()
        worker.drain(worker.sessions_for(engine), store)
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu_started
        artifact = session.get(Artifact, ingested.artifact.id, populate_existing=True)
        assert artifact is not None
        parse_s = artifact.parse_seconds or 0.0
        detail = (
            f"{artifact.kind} {artifact.status}, {artifact.series_count} series, {artifact.point_count} points, "
            f"{artifact.event_count} events (parse+write {parse_s:.1f} s of {elapsed:.1f} s)"
        )
    engine.dispose()
    stored = _stored_mb(url)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return IngestMeasure(
        elapsed,
        cpu,
        checklist_cpu[0],
        peak,
        base_rss,
        libraries_mb,
        None if stored is None else stored - stored_before,
        detail,
    )


def _time_checklist() -> list[float]:
    """CPU seconds the parse worker spends recomputing the checklist (after the parse and the
    write), summed into the returned list's one element as it runs."""
    from rootline.artifacts import worker

    spent = [0.0]
    recompute = worker.checklist_service.recompute

    def timed(*args: Any, **kwargs: Any) -> None:
        started = time.process_time()
        try:
            recompute(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - started

    worker.checklist_service.recompute = timed  # type: ignore[assignment]
    return spent


def bench_ingest(workdir: Path, only: str | None, repeat: int = 3) -> None:
    print(
        "\n== Ingest throughput (store + parse + write, one process per case; MB per CPU second;"
        " the checklist recompute after it apart) =="
    )
    if repeat > 1:
        print(
            f"  (each case {repeat} times in a fresh process: the run that took the least CPU is"
            " shown, the median beside it; CPU time on this shared machine drifts with its"
            " neighbours, the least is the code's own cost)"
        )
    cases = [c for c in INGEST_CASES if only is None or only in c[0]]
    for name, url, cleanup in databases(workdir):
        try:
            for label, module, function, size_mb, target in cases:
                path = bench_file(module, function, size_mb)
                if path is None:
                    print(
                        f"  {name:<10} {label:<28} generator {module}.{function} missing: SKIPPED"
                    )
                    continue
                size = path.stat().st_size / MB
                runs = [measure_ingest(url, workdir, path) for _ in range(max(1, repeat))]
                m = min(runs, key=lambda r: r.cpu_s - r.checklist_cpu_s)
                rate = size / (m.cpu_s - m.checklist_cpu_s)
                median_rate = statistics.median(size / (r.cpu_s - r.checklist_cpu_s) for r in runs)
                if target is None:
                    verdict = "no target"
                else:
                    verdict = "ok" if rate >= target else f"BELOW target {target:.0f} MB/s"
                memory = max(r.peak_rss_mb - r.base_rss_mb for r in runs)  # the worst run's
                spread = f" (median of {len(runs)}: {median_rate:.1f})" if len(runs) > 1 else ""
                print(
                    f"  {name:<10} {label:<28} {size:6.0f} MB in {m.cpu_s - m.checklist_cpu_s:6.2f}"
                    f" CPU s = {rate:6.1f} MB/s{spread}  [{verdict}]"
                )
                print(
                    f"  {'':<10} {'':<28} + checklist {m.checklist_cpu_s:.2f} CPU s ="
                    f" {size / m.cpu_s:.1f} MB/s upload to verdicts (wall {m.wall_s:.2f} s)"
                )
                first = runs[0]  # into an empty database (the later runs add to it)
                stored = (
                    "" if first.stored_mb is None else f", stored {first.stored_mb:.0f} MB (db+wal)"
                )
                print(
                    f"  {'':<10} {'':<28} peak memory +{memory:.0f} MB = {memory / size:.2f}x the file"
                    f"{stored} (pyarrow, loaded once per process, apart: {m.libraries_mb:.0f} MB)"
                )
                print(f"  {'':<10} {'':<28} {m.detail}")
        finally:
            cleanup()


def bench_timeline(
    workdir: Path, series_count: int = 10, points: int = 1_000_000, queries: int = 40
) -> None:
    from fastapi.testclient import TestClient

    from bench.c10k import as_admin
    from rootline.app import create_app
    from rootline.artifacts.models import Artifact
    from rootline.db import upgrade
    from rootline.parsers.base import SeriesData
    from rootline.series import service as series_service
    from rootline.settings import Settings

    print(f"\n== Timeline latency: {series_count} series x {points:,} points, max_points=2000 ==")
    rng = np.random.default_rng(7)
    t0 = 1_763_700_000_000
    times = array("q", (t0 + np.arange(points, dtype=np.int64) * 1000).tobytes())
    for name, url, cleanup in databases(workdir):
        try:
            upgrade(url)
            settings = Settings(data_dir=workdir / "tl", database_url=url, load_demo=False)
            app = create_app(settings)
            with app.state.sessionmaker() as session:
                from rootline.incidents import service as incidents_service
                from rootline.incidents.schemas import IncidentCreate

                incident = incidents_service.create(
                    session, data=IncidentCreate(title="timeline bench")
                )
                artifact = Artifact(
                    incident_id=incident.id, sha256="0" * 64, size_bytes=0, filename="synthetic"
                )
                session.add(artifact)
                session.flush()
                started = time.perf_counter()
                for i in range(series_count):
                    walk = np.cumsum(rng.normal(size=points)).astype(np.float64)
                    walk[rng.integers(points)] += 500.0
                    series_service.store(
                        session,
                        incident_id=incident.id,
                        artifact_id=artifact.id,
                        host="bench",
                        series=[
                            SeriesData(f"bench.s{i}", {}, "x", times, array("d", walk.tobytes()))
                        ],
                    )
                session.commit()
                load_s = time.perf_counter() - started
                incident_id = incident.id
            print(f"  {name}: stored {series_count * points:,} points in {load_s:.1f} s")
            names = ",".join(f"bench.s{i}" for i in range(series_count))
            span = (points - 1) * 1000
            client = TestClient(app)
            as_admin(app, client)  # before the app's workers start and take SQLite's write lock
            with client:
                url = f"/api/incidents/{incident_id}/timeline"
                full = full_range(t0, span)
                report(name, "full range", measure_queries(client, url, names, full, queries))
                zooms = random_windows(rng, t0, span)
                report(
                    name,
                    "random zooms (0.1-30 %)",
                    measure_queries(client, url, names, zooms, queries),
                )
            app.state.engine.dispose()
        finally:
            cleanup()


def full_range(t0: int, span: int) -> Callable[[], tuple[int, int]]:
    return lambda: (t0, t0 + span)


def random_windows(rng: np.random.Generator, t0: int, span: int) -> Callable[[], tuple[int, int]]:
    """Windows of 0.1 % to 30 % of the span at random places."""

    def window() -> tuple[int, int]:
        width = int(span * rng.uniform(0.001, 0.3))
        start = t0 + int(rng.integers(0, span - width))
        return start, start + width

    return window


def measure_queries(
    client: Any, url: str, names: str, window: Callable[[], tuple[int, int]], queries: int
) -> list[float]:
    """Latencies in ms of ``queries`` timeline requests over windows drawn from ``window``."""
    latencies = []
    for _ in range(queries):
        start, end = window()
        begun = time.perf_counter()
        response = client.get(
            url, params={"series": names, "from": start, "to": end, "max_points": 2000}
        )
        latencies.append((time.perf_counter() - begun) * 1000)
        assert response.status_code == 200, response.text
        assert all(len(s["t"]) <= 2000 for s in response.json()["series"])
    return sorted(latencies)


def report(database: str, label: str, latencies: list[float]) -> None:
    p50 = statistics.median(latencies)
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    verdict = "ok" if p95 <= 150 else "BELOW target p95 <= 150 ms"
    print(f"  {database:<10} {label:<26} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  [{verdict}]")


def bench_analyze(workdir: Path) -> None:
    """`rootline analyze --json` over 100 MB of captures from three hosts (target < 5 s)."""
    print("\n== Offline checklist: rootline analyze --json on 100 MB from 3 hosts ==")
    folder = workdir / "analyze"
    plan = [
        ("bench.gen_ss", "generate", 20),
        ("bench.gen_nstat", "generate", 5),
        ("bench.gen_gc", "generate_unified", 8),
    ]
    for host in ("provider-1", "provider-2", "consumer-1"):
        for module, function, size_mb in plan:
            source = bench_file(module, function, size_mb)
            if source is None:
                print(f"  generator {module}.{function} missing: SKIPPED")
                return
            target = folder / host / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / MB
    rootline = Path(sys.executable).with_name("rootline")
    import subprocess

    started = time.perf_counter()
    done = subprocess.run(
        [str(rootline), "analyze", "--json", str(folder)], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    verdict = "ok" if elapsed < 5 else "OVER target 5 s"
    print(f"  {size:.0f} MB in {elapsed:.2f} s = {size / elapsed:.1f} MB/s  [{verdict}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", help="run only ingest cases whose label contains this")
    parser.add_argument("--skip-timeline", action="store_true")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-analyze", action="store_true")
    parser.add_argument("--skip-c10k", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of each ingest case (least CPU shown)"
    )
    args = parser.parse_args()
    print(f"Rootline benchmarks (python {sys.version.split()[0]}, bench data in {BENCH_DATA})")
    print(machine.describe())
    with tempfile.TemporaryDirectory(prefix="rootline-bench-") as tmp:
        workdir = Path(tmp)
        if not args.skip_ingest:
            bench_ingest(workdir, args.only, args.repeat)
        if not args.skip_timeline:
            bench_timeline(workdir)
        if not args.skip_analyze:
            bench_analyze(workdir)
    if not args.skip_c10k:
        from bench import c10k

        c10k.bench()


if __name__ == "__main__":
    main()
