"""Field report C's provider (issue 16): 7 000 consumer connections, `ss -tinm` every 5 s for
10 minutes (bench.gen_ss_c10k, ~450 MB), through the real parse worker into a database.

    cd backend && .venv/bin/python -m bench.c10k            # SQLite and PostgreSQL, numbers
    cd backend && .venv/bin/python -m bench.c10k --into DIR # add the incident to DIR/rootline.db
                                                           # (the browser benchmark's database)

Prints, per database: upload to checklisted (store the bytes, parse, write, recompute the
checklist) in CPU and wall seconds against the 30 s target, the parse process's peak memory
against the file, the bytes stored (SQLite database and WAL, after the transaction), and the
latency of finding one connection by address (``GET /connections?q=``, target 200 ms) and of
the series listing the timeline loads first.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.run import MB, PG_ADMIN, _rss_mb, _stored_mb, bench_file
from rootline.db import create_scratch_database

SIZE_MB = 450
TARGET_INGEST_S = 30.0
TARGET_PICKER_MS = 200.0
TITLE = "C10K provider: 7,000 consumers, ss -tinm every 5 s for 10 min"


def capture() -> Path:
    path = bench_file("bench.gen_ss_c10k", "generate", SIZE_MB)
    assert path is not None, "bench.gen_ss_c10k missing"
    return path


def ingest(url: str, store_dir: Path) -> dict[str, Any]:
    """Upload, parse, store and checklist the capture (in this process); what it cost."""
    from sqlalchemy import select

    from rootline.artifacts import service as artifacts_service
    from rootline.artifacts import worker
    from rootline.artifacts.models import Artifact
    from rootline.checklist import service as checklist_service
    from rootline.db import make_engine, make_sessionmaker, upgrade
    from rootline.incidents import service as incidents_service
    from rootline.incidents.schemas import IncidentCreate
    from rootline.series.models import ConnEndpoint
    from rootline.storage import LocalArtifactStore

    path = capture()
    upgrade(url)
    engine = make_engine(url)
    store = LocalArtifactStore(store_dir)
    stored_before = _stored_mb(url) or 0.0
    base_rss = _rss_mb()
    with make_sessionmaker(engine)() as session:
        incident = incidents_service.create(session, data=IncidentCreate(title=TITLE))
        session.commit()
        wall, cpu = time.perf_counter(), time.process_time()
        with path.open("rb") as handle:
            blob = store.put_file(handle, limit=4 * 1024**3)
        ingested = artifacts_service.record(
            session,
            incident=incident,
            blob=blob,
            options=artifacts_service.UploadOptions(filename=path.name, host="provider-1"),
        )
        session.commit()
        worker.drain(worker.sessions_for(engine), store)
        checklist = checklist_service.get(session, incident=incident)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        quiet = session.scalar(
            select(ConnEndpoint.peer)
            .where(ConnEndpoint.incident_id == incident.id)
            .order_by(ConnEndpoint.volume, ConnEndpoint.points)
            .limit(1)
        )
        artifact = session.get(Artifact, ingested.artifact.id, populate_existing=True)
        assert artifact is not None and artifact.status == "parsed", artifact and artifact.status
        described = {
            "incident_id": str(incident.id),
            "wall_s": wall,
            "cpu_s": cpu,
            "file_mb": path.stat().st_size / MB,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base_rss,
            "series": artifact.series_count,
            "points": artifact.point_count,
            "findings": {f.id: f.verdict for f in checklist.findings},
            "quiet_peer": quiet,
        }
    engine.dispose()
    stored = _stored_mb(url)
    described["stored_mb"] = None if stored is None else stored - stored_before
    return described


def _ingest_in_child(url: str, store_dir: Path) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(ingest, (url, store_dir))


def latencies(url: str, incident_id: str, rounds: int = 20) -> dict[str, list[float]]:
    """ms of: finding a connection by (part of) its address; the first series page."""
    from fastapi.testclient import TestClient

    from rootline.app import create_app
    from rootline.settings import Settings

    with tempfile.TemporaryDirectory(prefix="rootline-c10k-app-") as tmp:
        app = create_app(Settings(data_dir=Path(tmp), database_url=url, load_demo=False))
        app.state.parse_workers.stop()
        base = f"/api/incidents/{incident_id}"
        rng = random.Random(7)
        out: dict[str, list[float]] = {"picker": [], "listing": []}
        with TestClient(app) as client:
            as_admin(app, client)
            peers = [
                c["peer"]
                for c in client.get(f"{base}/connections", params={"limit": 200}).json()["items"]
            ]
            assert peers
            for _ in range(rounds):
                host_part = rng.choice(peers).rsplit(":", 1)
                text = f"{host_part[0]}:{host_part[1][:3]}"
                begun = time.perf_counter()
                found = client.get(f"{base}/connections", params={"q": text})
                out["picker"].append((time.perf_counter() - begun) * 1000)
                assert found.status_code == 200 and found.json()["items"], found.text
                begun = time.perf_counter()
                page = client.get(f"{base}/series", params={"limit": 5000})
                out["listing"].append((time.perf_counter() - begun) * 1000)
                assert page.status_code == 200
        app.state.engine.dispose()
    return out


def as_admin(app: Any, client: Any) -> None:
    from rootline.accounts import service

    with app.state.sessionmaker.begin() as session:
        user = service.create_user(session, f"bench-{uuid.uuid4().hex[:6]}")
        token = service.create_token(session, user, name="bench", scope="read-write").token
    client.headers["Authorization"] = f"Bearer {token}"


def report(database: str, d: dict[str, Any], lat: dict[str, list[float]]) -> None:
    verdict = "ok" if d["wall_s"] <= TARGET_INGEST_S else f"OVER target {TARGET_INGEST_S:.0f} s"
    print(
        f"  {database:<10} upload to checklisted: {d['file_mb']:.0f} MB in {d['cpu_s']:.1f} CPU s"
        f" = {d['file_mb'] / d['cpu_s']:.1f} MB/s (wall {d['wall_s']:.1f} s)  [{verdict}]"
    )
    stored = "" if d["stored_mb"] is None else f"; stored {d['stored_mb']:.0f} MB (db+wal)"
    print(
        f"  {'':<10} peak memory +{d['peak_mb']:.0f} MB = {d['peak_mb'] / d['file_mb']:.2f}x"
        f" the file{stored}; {d['series']:,} series, {d['points']:,} points"
    )
    for label, values, target in (
        ("find a connection by address", lat["picker"], TARGET_PICKER_MS),
        ("series listing (first page)", lat["listing"], None),
    ):
        values = sorted(values)
        p95 = values[int(len(values) * 0.95) - 1]
        mark = (
            ""
            if target is None
            else f"  [{'ok' if p95 <= target else 'OVER'} target {target:.0f} ms]"
        )
        print(
            f"  {'':<10} {label:<30} p50 {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms{mark}"
        )
    judged = ", ".join(
        f"{k} {v}" for k, v in sorted(d["findings"].items()) if v != "insufficient_data"
    )
    print(f"  {'':<10} verdicts: {judged}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--into", type=Path, help="add the incident to DIR/rootline.db, print its id"
    )
    args = parser.parse_args()
    if args.into:
        marker = args.into / "c10k.json"
        url = f"sqlite:///{(args.into / 'rootline.db').resolve()}"
        if marker.exists():
            described = json.loads(marker.read_text())
            if _has_incident(url, described["incident_id"]):
                print(json.dumps(described))
                return
        described = _ingest_in_child(url, args.into / "c10k-store")
        marker.write_text(json.dumps(described))
        print(json.dumps(described))
        return
    bench()


def bench() -> None:
    """The numbers, on SQLite and PostgreSQL (part of ``make bench-backend``)."""
    print(f"\n== C10K provider: {SIZE_MB} MB ss -tinm, 7,000 connections x 120 snapshots ==")
    with tempfile.TemporaryDirectory(prefix="rootline-c10k-") as tmp:
        url = f"sqlite:///{tmp}/c10k.db"
        described = _ingest_in_child(url, Path(tmp) / "store")
        report("SQLite", described, latencies(url, described["incident_id"]))
        scratch = create_scratch_database(PG_ADMIN, "rootline_c10k")
        if scratch is None:
            print("  PostgreSQL not reachable: PostgreSQL numbers SKIPPED")
            return
        try:
            described = _ingest_in_child(scratch.url, Path(tmp) / "store-pg")
            report("PostgreSQL", described, latencies(scratch.url, described["incident_id"]))
        finally:
            scratch.drop()


def _has_incident(url: str, incident_id: str) -> bool:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return (
                connection.execute(
                    text("SELECT 1 FROM incidents WHERE id = :id"),
                    {"id": uuid.UUID(incident_id).hex},
                ).first()
                is not None
            )
    except Exception:
        return False
    finally:
        engine.dispose()


if __name__ == "__main__":
    main()
