"""Data for the browser benchmark: one incident, 60 series over 24 h at 1 s resolution.

Written straight through the series service into a migrated SQLite file (parsing 5 million
values is not what the browser benchmark measures; `make bench` measures ingest separately).
The names are the parsers' own, so every series falls into one of the timeline's lanes:
the application's latency, errors and throughput, TCP states, queues, per-connection cwnd/RTT/delivery rate, listen queues and overflows,
retransmissions, CPU, run queue, network, memory, thread pools, rejections, GC, JVM threads.
The shapes are plausible (diurnal load, noise, a saturation episode around 14:00), not random
walks, so the downsampled lines look like an incident.

    python -m bench.browser_data DIR   # prints the incident id; reuses DIR/rootline.db if built
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import uuid
from array import array
from collections.abc import Callable
from pathlib import Path

import numpy as np

SECONDS = 24 * 3600
T0_MS = 1_763_683_200_000  # 2025-11-21T00:00:00Z
VERSION = 2

Shape = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def _diurnal(t: np.ndarray) -> np.ndarray:
    """0..1 load curve: quiet at night, busy in the afternoon."""
    hours = t / 3600.0
    return 0.5 - 0.5 * np.cos((hours - 2.0) / 24.0 * 2 * np.pi)


def _episode(t: np.ndarray, start_h: float = 14.0, length_h: float = 0.75) -> np.ndarray:
    """1 during the incident (a saturation episode in the afternoon), smooth edges."""
    hours = t / 3600.0
    rise = 1 / (1 + np.exp(-(hours - start_h) * 40))
    fall = 1 / (1 + np.exp((hours - start_h - length_h) * 40))
    return np.asarray(rise * fall)


def _level(base: float, swing: float, noise: float, spike: float = 0.0) -> Shape:
    def shape(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        values = base + swing * _diurnal(t) + spike * _episode(t)
        return np.asarray(np.maximum(values + rng.normal(0, noise, t.size), 0.0))

    return shape


def _counter_rate(base: float, spike: float) -> Shape:
    """A per-second rate that is mostly a few, with bursts during the episode."""

    def shape(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        lam = base * (0.2 + _diurnal(t)) + spike * _episode(t)
        return rng.poisson(lam).astype(np.float64)

    return shape


def _constant(value: float) -> Shape:
    return lambda t, _rng: np.full(t.size, value)


def _pauses(t: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    young = rng.gamma(2.0, 6.0, t.size)
    full = rng.random(t.size) < 0.002 + 0.05 * _episode(t)
    return np.asarray(np.where(full, young + rng.gamma(4.0, 60.0, t.size), young))


def plan() -> list[tuple[str, dict[str, str], str, Shape]]:
    conns = [
        ("10.0.0.5:20880", "10.0.1.21:51514"),
        ("10.0.0.5:20880", "10.0.1.22:40112"),
        ("10.0.0.5:20880", "10.0.1.23:38820"),
        ("10.0.0.5:20880", "10.0.1.24:60218"),
    ]
    series: list[tuple[str, dict[str, str], str, Shape]] = []
    # The application's own numbers (app_metrics, app_log): its three lanes.
    series.append(("app.checkout.p99_ms", {}, "ms", _level(8, 6, 1, 450)))
    series.append(("app.checkout.rps", {}, "per_s", _level(50, 900, 20, -300)))
    series.append(("app.log.errors", {"kind": "socket_timeout"}, "per_s", _counter_rate(0.01, 12)))
    for state, base, swing, spike in [
        ("established", 300, 900, 400),
        ("time_wait", 200, 2000, 6000),
        ("close_wait", 2, 5, 120),
        ("syn_recv", 0, 2, 40),
        ("fin_wait1", 0, 3, 10),
        ("fin_wait2", 1, 6, 20),
        ("listen", 12, 0, 0),
    ]:
        series.append(
            (f"tcp.state.{state}", {}, "sockets", _level(base, swing, max(swing / 40, 0.3), spike))
        )
    series.append(("tcp.connections.sendq.bytes", {}, "bytes", _level(2e3, 4e4, 2e3, 9e5)))
    series.append(("tcp.connections.recvq.bytes", {}, "bytes", _level(5e2, 8e3, 5e2, 6e4)))
    series.append(
        (
            "tcp.conn.sendq.bytes",
            dict(zip(("local", "peer"), conns[0], strict=True)),
            "bytes",
            _level(0, 2e4, 1e3, 3e5),
        )
    )
    for local, peer in conns:
        labels = {"local": local, "peer": peer}
        series.append(("tcp.conn.cwnd", labels, "segments", _level(10, 60, 4, -40)))
        series.append(("tcp.conn.rtt_ms", labels, "ms", _level(0.4, 2.0, 0.2, 30.0)))
    for local, peer in conns[:2]:
        labels = {"local": local, "peer": peer}
        series.append(("tcp.conn.delivery_rate_bps", labels, "bits/s", _level(1e6, 4e7, 2e6, -3e7)))
    series.append(
        (
            "tcp.listen.recvq",
            {"local": "0.0.0.0:20880", "port": "20880"},
            "connections",
            _level(0, 3, 0.5, 120),
        )
    )
    series.append(
        (
            "tcp.listen.backlog",
            {"local": "0.0.0.0:20880", "port": "20880"},
            "connections",
            _constant(128),
        )
    )
    series.append(("netstat.TcpExtListenOverflows", {}, "per_s", _counter_rate(0.01, 30)))
    series.append(("netstat.TcpExtListenDrops", {}, "per_s", _counter_rate(0.01, 30)))
    series.append(("netstat.TcpRetransSegs", {}, "per_s", _counter_rate(3, 80)))
    series.append(("netstat.TcpExtTCPTimeouts", {}, "per_s", _counter_rate(0.2, 6)))
    series.append(("netstat.TcpExtTCPLostRetransmit", {}, "per_s", _counter_rate(0.05, 3)))
    series.append(("cpu.user_pct", {}, "%", _level(8, 40, 3, 30)))
    series.append(("cpu.sys_pct", {}, "%", _level(2, 10, 1, 12)))
    series.append(("cpu.wait_pct", {}, "%", _level(0.5, 2, 0.4, 1)))
    series.append(("proc.runqueue", {}, "", _level(1, 6, 1, 20)))
    series.append(("proc.blocked", {}, "", _level(0, 1, 0.3, 2)))
    for interface in ("eth0", "eth1"):
        series.append(("net.read_kbs", {"if": interface}, "KB/s", _level(200, 9000, 300, 4000)))
        series.append(("net.write_kbs", {"if": interface}, "KB/s", _level(300, 12000, 300, 6000)))
    series.append(("net.packets_in", {"if": "eth0"}, "/s", _level(500, 20000, 400, 9000)))
    series.append(("net.packets_out", {"if": "eth0"}, "/s", _level(600, 24000, 400, 9000)))
    series.append(("netstat.TcpInSegs", {}, "per_s", _level(800, 30000, 500, 10000)))
    series.append(("netstat.TcpOutSegs", {}, "per_s", _level(900, 32000, 500, 10000)))
    series.append(("mem.free_mb", {}, "MB", _level(6000, -3000, 50, -1500)))
    series.append(("mem.cached_mb", {}, "MB", _level(4000, 1500, 30, 0)))
    series.append(("mem.swap_free_mb", {}, "MB", _constant(2048)))
    pool = {"pool": "order-service"}
    series.append(("threadpool.active", pool, "threads", _level(2, 40, 2, 200)))
    series.append(("threadpool.max", pool, "threads", _constant(200)))
    series.append(("threadpool.pool_size", pool, "threads", _level(20, 60, 1, 120)))
    series.append(("threadpool.queue", pool, "tasks", _level(0, 5, 1, 1000)))
    series.append(("threadpool.queue_capacity", pool, "tasks", _constant(1000)))
    series.append(("threadpool.rejected_per_s", pool, "per_s", _counter_rate(0.0, 40)))
    series.append(("gc.pause_ms", {}, "ms", _pauses))
    series.append(("gc.heap_before_mb", {}, "MB", _level(1500, 1500, 80, 900)))
    series.append(("gc.heap_after_mb", {}, "MB", _level(600, 600, 40, 1500)))
    series.append(("gc.heap_total_mb", {}, "MB", _constant(4096)))
    for state, base in (("runnable", 40), ("waiting", 120), ("timed_waiting", 60), ("blocked", 1)):
        series.append(("jvm.threads", {"state": state}, "threads", _level(base, base / 2, 2, base)))
    return series


def fingerprint() -> str:
    """What the stored database depends on: this file, the series storage code, the migrations."""
    backend = Path(__file__).resolve().parents[1]
    parts = [Path(__file__), *sorted((backend / "rootline" / "series").glob("*.py"))]
    digest = hashlib.sha256(str(VERSION).encode())
    for part in parts:
        digest.update(part.read_bytes())
    for migration in sorted((backend.parent / "migrations").rglob("*.py")):
        digest.update(migration.name.encode())
    return digest.hexdigest()[:16]


def build(directory: Path) -> dict[str, object]:
    """Create DIR/rootline.db with the incident (once per fingerprint); return its description."""
    from rootline.artifacts.models import Artifact
    from rootline.db import make_engine, make_sessionmaker, upgrade
    from rootline.incidents import service as incidents_service
    from rootline.incidents.schemas import IncidentCreate
    from rootline.parsers.base import SeriesData
    from rootline.series import service as series_service

    marker = directory / "browser-bench.json"
    if marker.exists():
        described: dict[str, object] = json.loads(marker.read_text())
        if described.get("fingerprint") == fingerprint() and (directory / "rootline.db").exists():
            return described
    directory.mkdir(parents=True, exist_ok=True)
    for stale in (*(directory / f"rootline.db{end}" for end in ("", "-wal", "-shm")), marker):
        stale.unlink(missing_ok=True)

    url = f"sqlite:///{(directory / 'rootline.db').resolve()}"
    started = time.perf_counter()
    upgrade(url)
    engine = make_engine(url)
    rng = np.random.default_rng(20251121)
    seconds = np.arange(SECONDS, dtype=np.int64)
    times = array("q", (T0_MS + seconds * 1000).tobytes())
    t = seconds.astype(np.float64)
    specs = plan()
    with make_sessionmaker(engine)() as session:
        incident = incidents_service.create(
            session,
            data=IncidentCreate(
                title="Browser benchmark: 60 series, 24 h at 1 s",
                summary="Synthetic day of one provider host with a saturation episode at 14:00.",
            ),
        )
        artifact = Artifact(
            incident_id=incident.id,
            sha256=uuid.uuid4().hex * 2,
            size_bytes=0,
            filename="synthetic-24h-1s",
            host="provider-1",
            kind="synthetic",
            status="parsed",
            time_start_ms=T0_MS,
            time_end_ms=T0_MS + (SECONDS - 1) * 1000,
            series_count=len(specs),
            point_count=len(specs) * SECONDS,
        )
        session.add(artifact)
        session.flush()
        for name, labels, unit, shape in specs:
            values = np.ascontiguousarray(shape(t, rng), dtype=np.float64)
            series_service.store(
                session,
                incident_id=incident.id,
                artifact_id=artifact.id,
                host="provider-1",
                series=[SeriesData(name, labels, unit, times, array("d", values.tobytes()))],
            )
        session.commit()
        incident_id = str(incident.id)
    engine.dispose()
    described = {
        "fingerprint": fingerprint(),
        "incident_id": incident_id,
        "database_url": url,
        "series": len(specs),
        "points_per_series": SECONDS,
        "from_ms": T0_MS,
        "to_ms": T0_MS + (SECONDS - 1) * 1000,
        "build_seconds": round(time.perf_counter() - started, 1),
    }
    marker.write_text(json.dumps(described, indent=2))
    return described


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    described = build(args.directory)
    json.dump(described, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
