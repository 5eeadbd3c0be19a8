"""Thread pool exhaustion: every worker busy, the queue full, tasks rejected.

Mechanism. A service hands each request to a bounded pool (Dubbo ``DubboServerHandler``,
Tomcat ``http-nio-*-exec``, a ``ThreadPoolExecutor``). When every thread is busy
(active == max) new tasks wait in the queue; when the queue is full too (Dubbo's default
``queues=0`` has no queue at all) the pool rejects them: Dubbo logs "Thread pool is
EXHAUSTED!" and answers with an error, a ``ThreadPoolExecutor`` with ``AbortPolicy`` throws
``RejectedExecutionException``, Tomcat logs "All threads are currently busy". *When* it
happens tells the cause (DOMAIN.md report A): a pool saturated under peak load is too small
for the load or waits on a slow downstream; a pool that fills *after* the traffic was cut
(report A: max 500, 300 busy during the jam, full only after the room was taken out of
service, minutes to drain) is draining requests that sat in socket buffers of a congested
connection, and the cause is the network path, not the pool.

Inputs (per host and pool): ``threadpool.active``, ``threadpool.max``, ``threadpool.queue``,
``threadpool.queue_capacity``, ``threadpool.rejected`` (cumulative) /
``threadpool.rejected_per_s``, ``threadpool.completed_per_s`` (CSV / JSON metrics,
Prometheus); events ``threadpool_rejected`` (app logs: Dubbo EXHAUSTED, executor rejections,
Tomcat); ``jvm.threads.pool_state{pool,state}`` and ``jvm.threads.pool{pool}`` (jstack).
The request-rate signal used to tell "under load" from "after load": ``netstat.TcpInSegs``
(per second), else the busiest interface's ``net.packets_in`` (nmon), else the pool's intake
(completed + rejected per second).

Thresholds (module constants, in ``Finding.parameters``):

- ``SATURATION_MIN_DURATION_MS`` = 1000: active >= max (or queue >= capacity) from one
  reading to a later one at least this far apart confirms (gauges are instants: a single
  saturated reading only makes it likely, as do shorter runs).
- ``NEAR_FULL_RATIO`` = 0.9: peak active >= 90 % of max, or queue >= 90 % of capacity,
  makes it likely.
- ``DUMP_BUSY_RATIO`` = 0.9 and ``DUMP_MIN_POOL_THREADS`` = 8: a thread dump where >= 90 %
  of a pool of >= 8 threads is RUNNABLE or BLOCKED makes it likely (I/O selector pools, which
  are always RUNNABLE in ``epollWait``, are skipped).
- ``LOAD_DROP_RATIO`` = 0.3 and ``LOAD_SIGNAL_MIN_PER_S`` = 20: saturation whose mean
  request rate is <= 30 % of the peak before it is "after the load was removed"; a network
  signal whose peak stays below 20 /s is background noise and not used.

Verdicts: ``confirmed`` when tasks were rejected during the capture (metrics or log lines)
or a pool stayed saturated >= ``SATURATION_MIN_DURATION_MS``; ``likely`` for a brief
saturation, a pool near full, a counter that already held rejections before the capture, or
a busy pool in a thread dump; ``ruled_out`` when pool metrics show every pool below those
marks with no rejections (the peaks are named); ``insufficient_data`` without pool metrics.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
    EventView,
    Evidence,
    Finding,
    IncidentData,
    Missing,
    SeriesView,
    Verdict,
    parameters_of,
)
from rootline.detectors.quantities import (
    by_host,
    fmt_duration_ms,
    fmt_number,
    iso_ms,
    longest_true_run,
    merged_series,
    step_values_at,
    true_runs,
    typical_interval_ms,
)

ID = "threadpool_exhaustion"
TITLE = "Thread pool exhaustion"

# Saturated for a second or more is not a sampling accident: a 200 ms sampler saw it six times
# in a row, a 1 s capture twice. The saturating JDK 17 fixture pool stayed full 23 s.
SATURATION_MIN_DURATION_MS = 1000
# 90 % of max: report A's pool ran at 300 of 500 (60 %) during the jam without being the
# bottleneck; 90 % leaves too little headroom for a burst and is worth a look.
NEAR_FULL_RATIO = 0.9
# A thread dump is one instant: only a pool almost entirely on CPU or on a lock counts, and
# only a real pool (>= 8 threads, Dubbo's default is 200, Tomcat's 200).
DUMP_BUSY_RATIO = 0.9
DUMP_MIN_POOL_THREADS = 8
# "After the load was removed": the request rate during saturation fell to <= 30 % of its peak
# before (report A: traffic cut to zero when the room was taken out of service).
LOAD_DROP_RATIO = 0.3
# Segments or packets per second that an idle host makes anyway (ssh, NTP, monitoring).
LOAD_SIGNAL_MIN_PER_S = 20.0

PARAMETERS = [
    "SATURATION_MIN_DURATION_MS",
    "NEAR_FULL_RATIO",
    "DUMP_BUSY_RATIO",
    "DUMP_MIN_POOL_THREADS",
    "LOAD_DROP_RATIO",
    "LOAD_SIGNAL_MIN_PER_S",
]

# Netty / NIO selector and acceptor threads sit RUNNABLE in epollWait: not busy workers.
_IO_POOL_RE = re.compile(
    r"I/O|EventLoop|epoll|selector|poller|acceptor|boss|NettyServerWorker|NettyClientWorker|"
    r"CompilerThread|GC |G1 |VM Thread",
    re.IGNORECASE,
)

_MISSING = [
    Missing(
        "thread-pool metrics (CSV or JSON lines: timestamp, pool, active, max, queue, "
        "queue_capacity, completed, rejected)",
        "log ThreadPoolExecutor getActiveCount/getMaximumPoolSize/getQueue().size()/"
        "getCompletedTaskCount every second, or scrape Micrometer: "
        "while sleep 1; do date -Is; curl -s http://HOST:PORT/actuator/prometheus "
        "| grep -E '^(executor|dubbo_thread_pool|tomcat_threads)'; done > pool.prom",
    ),
    Missing(
        "application log with the pool's rejection lines (Dubbo 'Thread pool is EXHAUSTED!', "
        "RejectedExecutionException, Tomcat 'All threads are currently busy')",
        "cp logs/app.log catalina.out ./   # the service's own log for the incident window",
    ),
    Missing(
        "thread dumps during the slow period",
        "rootline-collect.sh --interval 2 --duration 60 --jstack-pid PID   "
        "# or: for i in 1 2 3; do jstack PID > jstack-$i.txt; sleep 5; done",
    ),
]


@dataclass(slots=True)
class PoolWindow:
    """A period when one pool was saturated (or rejecting), in epoch ms."""

    host: str
    pool: str
    from_ms: int
    to_ms: int


@dataclass(slots=True)
class PoolStats:
    """What the metrics say about one pool on one host."""

    host: str
    pool: str
    artifact: str
    samples: int = 0
    peak_active: float = float("nan")
    max_threads: float = float("nan")
    peak_queue: float = float("nan")
    queue_capacity: float = float("nan")
    saturated_ms: float = 0.0
    saturated_from: int | None = None
    saturated_to: int | None = None
    saturated_samples: int = 0
    queue_full_samples: int = 0
    rejected_in_capture: float = 0.0
    rejected_before_capture: float = 0.0
    rejected_peak_rate: float = 0.0
    rejected_from: int | None = None
    rejected_to: int | None = None
    span_from: int | None = None
    span_to: int | None = None

    @property
    def label(self) -> str:
        return f"{self.pool} on {self.host}" if self.host else self.pool

    @property
    def has_limits(self) -> bool:
        """Whether saturation can be judged: active with max, or queue with capacity."""
        active_known = np.isfinite(self.peak_active) and np.isfinite(self.max_threads)
        queue_known = np.isfinite(self.peak_queue) and np.isfinite(self.queue_capacity)
        return bool(active_known or queue_known)

    @property
    def near_full(self) -> bool:
        active_near = (
            np.isfinite(self.peak_active)
            and np.isfinite(self.max_threads)
            and self.max_threads > 0
            and self.peak_active >= NEAR_FULL_RATIO * self.max_threads
        )
        queue_near = (
            np.isfinite(self.peak_queue)
            and np.isfinite(self.queue_capacity)
            and self.queue_capacity > 0
            and self.peak_queue >= NEAR_FULL_RATIO * self.queue_capacity
        )
        return bool(active_near or queue_near)


def _pool_key(s: SeriesView) -> tuple[str, str]:
    return (s.host or "", s.labels.get("pool", "default"))


def _group(data: IncidentData) -> dict[tuple[str, str], dict[str, list[SeriesView]]]:
    grouped: dict[tuple[str, str], dict[str, list[SeriesView]]] = {}
    for s in data.series("threadpool.*"):
        grouped.setdefault(_pool_key(s), {}).setdefault(s.name, []).append(s)
    return grouped


def _rejections(
    cumulative: Sequence[SeriesView], rates: Sequence[SeriesView]
) -> tuple[float, float, float, int | None, int | None]:
    """(rejected during the capture, already counted at its start, peak rate /s, first, last)."""
    in_capture = 0.0
    before = 0.0
    peak_rate = 0.0
    first: int | None = None
    last: int | None = None
    for s in cumulative:
        values = np.asarray(s.values, dtype=np.float64)
        if not len(values):
            continue
        before = max(before, float(values[0]))
        steps = np.diff(values)
        rising = steps > 0  # a counter going down is a restart, not negative rejections
        in_capture += float(steps[rising].sum())
        if rising.any():
            at = s.times_ms[1:][rising]
            first = int(at[0]) if first is None else min(first, int(at[0]))
            last = int(at[-1]) if last is None else max(last, int(at[-1]))
    for s in rates:
        values = np.asarray(s.values, dtype=np.float64)
        if not len(values):
            continue
        peak_rate = max(peak_rate, float(values.max()))
        positive = values > 0
        if positive.any() and not cumulative:
            dt_s = typical_interval_ms(s.times_ms) / 1000.0 or 1.0
            in_capture += float(values[positive].sum() * dt_s)
            at = s.times_ms[positive]
            first = int(at[0]) if first is None else min(first, int(at[0]))
            last = int(at[-1]) if last is None else max(last, int(at[-1]))
    return in_capture, before, peak_rate, first, last


def _pool_stats(host: str, pool: str, named: dict[str, list[SeriesView]]) -> PoolStats:
    any_series = next(iter(named.values()))[0]
    stats = PoolStats(host=host, pool=pool, artifact=any_series.artifact)
    active_t, active_v = merged_series(named.get("threadpool.active", []))
    max_t, max_v = merged_series(named.get("threadpool.max", []))
    queue_t, queue_v = merged_series(named.get("threadpool.queue", []))
    cap_t, cap_v = merged_series(named.get("threadpool.queue_capacity", []))
    all_times = [t for t in (active_t, queue_t) if len(t)]
    if all_times:
        stats.span_from = int(min(t[0] for t in all_times))
        stats.span_to = int(max(t[-1] for t in all_times))
    grid = active_t if len(active_t) else queue_t
    stats.samples = len(grid)
    saturated = np.zeros(len(grid), dtype=bool)
    if len(active_t):
        stats.peak_active = float(active_v.max())
        if len(max_t):
            max_at = step_values_at(max_t, max_v, active_t)
            stats.max_threads = float(max_v.max())
            active_full = (max_at > 0) & (active_v >= max_at)
            saturated |= active_full
            stats.saturated_samples = int(active_full.sum())
    if len(queue_t):
        stats.peak_queue = float(queue_v.max())
        if len(cap_t) and float(cap_v.max()) > 0:
            # 0 is what executors report for a SynchronousQueue (Dubbo queues=0) and some
            # agents for "unbounded": either way there is no capacity to fill.
            stats.queue_capacity = float(cap_v.max())
            cap_at = step_values_at(cap_t, cap_v, queue_t)
            queue_full = (cap_at > 0) & (queue_v >= cap_at)
            stats.queue_full_samples = int(queue_full.sum())
            if len(grid):
                on_grid = step_values_at(queue_t, queue_full.astype(np.float64), grid) > 0
                saturated |= on_grid
    run = longest_true_run(grid, saturated) if len(grid) else None
    if run is not None:
        first, last, _ = run
        # Pool gauges are readings at an instant: a run lasts from its first saturated reading
        # to its last, so one reading of a 10 s scrape is a moment, not 10 s.
        stats.saturated_ms = float(grid[last] - grid[first])
        stats.saturated_from = int(grid[first])
        stats.saturated_to = int(grid[last] + typical_interval_ms(grid))
    (
        stats.rejected_in_capture,
        stats.rejected_before_capture,
        stats.rejected_peak_rate,
        stats.rejected_from,
        stats.rejected_to,
    ) = _rejections(
        named.get("threadpool.rejected", []), named.get("threadpool.rejected_per_s", [])
    )
    return stats


def pool_saturation_windows(data: IncidentData) -> list[PoolWindow]:
    """Every period a pool was saturated (active >= max or queue >= capacity) or rejecting.

    Used by other detectors (``gc_pauses``) to say whether their signal overlaps the slow
    period. Pure: reads the same series as :func:`detect`.
    """
    windows: list[PoolWindow] = []
    for (host, pool), named in sorted(_group(data).items()):
        active_t, active_v = merged_series(named.get("threadpool.active", []))
        max_t, max_v = merged_series(named.get("threadpool.max", []))
        if len(active_t) and len(max_t):
            max_at = step_values_at(max_t, max_v, active_t)
            mask = (max_at > 0) & (active_v >= max_at)
            step = typical_interval_ms(active_t)
            for first, last in true_runs(mask):
                windows.append(
                    PoolWindow(host, pool, int(active_t[first]), int(active_t[last] + step))
                )
        queue_t, queue_v = merged_series(named.get("threadpool.queue", []))
        cap_t, cap_v = merged_series(named.get("threadpool.queue_capacity", []))
        if len(queue_t) and len(cap_t):
            cap_at = step_values_at(cap_t, cap_v, queue_t)
            mask = (cap_at > 0) & (queue_v >= cap_at)
            step = typical_interval_ms(queue_t)
            for first, last in true_runs(mask):
                windows.append(
                    PoolWindow(host, pool, int(queue_t[first]), int(queue_t[last] + step))
                )
    for event in data.events("threadpool_rejected"):
        windows.append(
            PoolWindow(
                event.host or "", str(event.attrs.get("pool", "?")), event.time_ms, event.time_ms
            )
        )
    return windows


@dataclass(slots=True)
class LoadSignal:
    name: str
    unit: str
    series: str | None
    labels: dict[str, str]
    times_ms: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]


def _covers(times: npt.NDArray[np.int64], from_ms: int, to_ms: int) -> bool:
    """Whether a signal has a point inside the window and one at or before its start."""
    return bool(((times >= from_ms) & (times <= to_ms)).any() and (times <= from_ms).any())


def _load_signal(
    data: IncidentData,
    stats: PoolStats,
    named: dict[str, list[SeriesView]],
    from_ms: int,
    to_ms: int,
) -> LoadSignal | None:
    """The request-rate signal of the pool's host covering the window, network first.

    A pool without a host (metrics uploaded without one) takes any host's network signal:
    an incident of one service host is the common case, and the window must be covered.
    """
    host = stats.host or None
    segs = [s for s in data.series("netstat.TcpInSegs", host=host) if s.unit == "per_s"]
    for items in by_host(segs).values():
        t, v = merged_series(items)
        if _covers(t, from_ms, to_ms) and float(v.max()) >= LOAD_SIGNAL_MIN_PER_S:
            return LoadSignal("incoming TCP segments", "/s", "netstat.TcpInSegs", {}, t, v)
    packets = [
        s
        for s in data.series("net.packets_in", host=host)
        if len(s) and _covers(s.times_ms, from_ms, to_ms)
    ]
    if packets:
        busiest = max(packets, key=lambda s: float(np.asarray(s.values).sum()))
        if float(busiest.values.max()) >= LOAD_SIGNAL_MIN_PER_S:
            iface = busiest.labels.get("if", "?")
            return LoadSignal(
                f"packets in on {iface}",
                "/s",
                "net.packets_in",
                {"if": iface},
                busiest.times_ms,
                np.asarray(busiest.values, dtype=np.float64),
            )
    completed_t, completed_v = merged_series(named.get("threadpool.completed_per_s", []))
    if len(completed_t) >= 2:
        rejected_t, rejected_v = merged_series(named.get("threadpool.rejected_per_s", []))
        intake = completed_v.copy()
        if len(rejected_t):
            intake = intake + step_values_at(rejected_t, rejected_v, completed_t)
        return LoadSignal(
            "pool intake (completed + rejected tasks)",
            "/s",
            "threadpool.completed_per_s",
            {"pool": stats.pool},
            completed_t,
            intake,
        )
    return None


@dataclass(slots=True)
class Timing:
    verdict: str  # "under_load", "after_load", "unknown"
    text: str
    evidence: Evidence | None = None


def _timing(load: LoadSignal | None, stats: PoolStats, from_ms: int, to_ms: int) -> Timing:
    if load is None:
        return Timing(
            "unknown",
            "No request-rate signal (nstat / nmon NET / pool completed counts) covers the "
            "saturation, so whether it happened under load or after it cannot be told.",
        )
    t, v = load.times_ms, load.values
    before = v[t < from_ms]
    during = v[(t >= from_ms) & (t <= to_ms)]
    if not len(during):
        during = step_values_at(t, v, np.array([from_ms, to_ms], dtype=np.int64))
    peak_before = float(before.max()) if len(before) else float("nan")
    mean_during = float(during.mean())
    peak_overall = float(v[t <= to_ms].max()) if (t <= to_ms).any() else mean_during
    window = f"{iso_ms(from_ms)} .. {iso_ms(to_ms)}"
    if (
        np.isfinite(peak_before)
        and peak_before > 0
        and mean_during <= LOAD_DROP_RATIO * peak_before
    ):
        text = (
            f"The pool saturated AFTER the load was removed: {load.name} averaged "
            f"{fmt_number(mean_during)}{load.unit} during the saturation ({window}), "
            f"{100 * mean_during / peak_before:.0f} % of the {fmt_number(peak_before)}{load.unit} "
            f"peak before it (threshold {LOAD_DROP_RATIO:.0%}). Work arriving with no new "
            "traffic is a backlog draining out of socket buffers: the network path (one "
            "congested connection, a slow reader) held the requests back, as in DOMAIN "
            "report A, and the pool is where the backlog lands, not its cause."
        )
        verdict = "after_load"
    else:
        drop_at = None
        if peak_overall > 0:
            high = (t >= from_ms) & (t <= to_ms) & (v > LOAD_DROP_RATIO * peak_overall)
            if high.any():
                drop_at = int(t[high][-1])
        text = (
            f"The pool saturated UNDER load: {load.name} averaged {fmt_number(mean_during)}"
            f"{load.unit} during the saturation ({window}), against a peak of "
            f"{fmt_number(peak_overall)}{load.unit}."
        )
        if drop_at is not None and to_ms - drop_at >= SATURATION_MIN_DURATION_MS:
            text += (
                f" The load fell below {LOAD_DROP_RATIO:.0%} of that peak at {iso_ms(drop_at)} "
                f"and the pool stayed full {fmt_duration_ms(to_ms - drop_at)} longer, "
                "working off its queue."
            )
        verdict = "under_load"
    evidence = Evidence(
        summary=f"{load.name}: {fmt_number(mean_during)}{load.unit} on average during the "
        f"saturation, peak before it "
        + (f"{fmt_number(peak_before)}{load.unit}" if np.isfinite(peak_before) else "not captured"),
        observed=round(mean_during, 3),
        threshold=f"after load if <= {LOAD_DROP_RATIO} x peak before",
        unit=load.unit,
        from_ms=from_ms,
        to_ms=to_ms,
        series=load.series,
        labels=dict(load.labels),
        host=stats.host or None,
    )
    return Timing(verdict, text, evidence)


@dataclass(slots=True)
class LogPool:
    host: str
    pool: str
    events: list[EventView] = field(default_factory=list)


def _log_rejections(data: IncidentData) -> list[LogPool]:
    grouped: dict[tuple[str, str], LogPool] = {}
    for event in data.events("threadpool_rejected"):
        key = (event.host or "", str(event.attrs.get("pool", "?")))
        grouped.setdefault(key, LogPool(*key)).events.append(event)
    return [grouped[k] for k in sorted(grouped)]


@dataclass(slots=True)
class BusyDump:
    host: str
    pool: str
    busy: float
    total: float
    time_ms: int
    artifact: str


def _busy_dumps(data: IncidentData) -> list[BusyDump]:
    """Dumps where most of a real worker pool is RUNNABLE or BLOCKED."""
    totals: dict[tuple[str, str, int], tuple[float, str]] = {}
    for s in data.series("jvm.threads.pool"):
        pool = s.labels.get("pool", "")
        for t, v in zip(s.times_ms, s.values, strict=True):
            totals[(s.host or "", pool, int(t))] = (float(v), s.artifact)
    busy: dict[tuple[str, str, int], float] = {}
    for s in data.series("jvm.threads.pool_state"):
        if s.labels.get("state") not in ("runnable", "blocked"):
            continue
        pool = s.labels.get("pool", "")
        for t, v in zip(s.times_ms, s.values, strict=True):
            key = (s.host or "", pool, int(t))
            busy[key] = busy.get(key, 0.0) + float(v)
    found: list[BusyDump] = []
    for key, count in busy.items():
        host, pool, time_ms = key
        total, artifact = totals.get(key, (0.0, ""))
        if _IO_POOL_RE.search(pool) or total < DUMP_MIN_POOL_THREADS:
            continue
        if count >= DUMP_BUSY_RATIO * total:
            found.append(BusyDump(host, pool, count, total, time_ms, artifact))
    return sorted(found, key=lambda d: (-d.busy, d.time_ms))


def _queue_text(stats: PoolStats) -> str:
    """``queue peak 47/50``, ``queue peak 7 (no capacity reported)`` or ``no queue data``."""
    if not np.isfinite(stats.peak_queue):
        return "no queue data"
    if not np.isfinite(stats.queue_capacity):
        return f"queue peak {fmt_number(stats.peak_queue)} (no capacity reported)"
    return f"queue peak {fmt_number(stats.peak_queue)}/{fmt_number(stats.queue_capacity)}"


def _pool_evidence(stats: PoolStats) -> list[Evidence]:
    items: list[Evidence] = []
    host = stats.host or None
    if np.isfinite(stats.peak_active):
        of_max = (
            f" of max {fmt_number(stats.max_threads)}" if np.isfinite(stats.max_threads) else ""
        )
        from_ms: int | None
        to_ms: int | None
        if stats.saturated_samples and stats.saturated_from is not None:
            text = (
                f"{stats.label}: saturated for {fmt_duration_ms(stats.saturated_ms)} "
                f"({stats.saturated_samples} of {stats.samples} samples at active >= max "
                f"{fmt_number(stats.max_threads)}, {stats.queue_full_samples} with the queue full)"
            )
            from_ms, to_ms = stats.saturated_from, stats.saturated_to
        else:
            text = (
                f"{stats.label}: active threads peaked at {fmt_number(stats.peak_active)}{of_max}"
            )
            from_ms, to_ms = stats.span_from, stats.span_to
        items.append(
            Evidence(
                summary=text,
                observed=stats.peak_active,
                threshold=f"active >= max for >= {SATURATION_MIN_DURATION_MS} ms "
                f"(likely at >= {NEAR_FULL_RATIO:.0%} of max)",
                unit="threads",
                from_ms=from_ms,
                to_ms=to_ms,
                series="threadpool.active",
                labels={"pool": stats.pool},
                artifact=stats.artifact,
                host=host,
            )
        )
    if np.isfinite(stats.peak_queue):
        of_cap = (
            f" of capacity {fmt_number(stats.queue_capacity)}"
            if np.isfinite(stats.queue_capacity)
            else ""
        )
        items.append(
            Evidence(
                summary=f"{stats.label}: queue peaked at {fmt_number(stats.peak_queue)} tasks{of_cap}"
                f" ({stats.queue_full_samples} samples full)",
                observed=stats.peak_queue,
                threshold="queue >= capacity",
                unit="tasks",
                from_ms=stats.saturated_from
                if stats.saturated_from is not None
                else stats.span_from,
                to_ms=stats.saturated_to if stats.saturated_to is not None else stats.span_to,
                series="threadpool.queue",
                labels={"pool": stats.pool},
                artifact=stats.artifact,
                host=host,
            )
        )
    if stats.rejected_in_capture > 0 or stats.rejected_before_capture > 0:
        items.append(
            Evidence(
                summary=f"{stats.label}: {fmt_number(stats.rejected_in_capture, 0)} tasks rejected "
                f"during the capture (peak {fmt_number(stats.rejected_peak_rate)}/s), counter at "
                f"{fmt_number(stats.rejected_before_capture, 0)} when it started",
                observed=stats.rejected_in_capture,
                threshold="> 0",
                unit="tasks",
                from_ms=stats.rejected_from,
                to_ms=stats.rejected_to,
                series="threadpool.rejected",
                labels={"pool": stats.pool},
                artifact=stats.artifact,
                host=host,
            )
        )
    return items


def _remedies(timing: str) -> list[str]:
    network = [
        "The backlog came from the network path: raise Dubbo `connections` (e.g. "
        '<dubbo:reference connections="4"/>, at least the provider\'s core count) and '
        "`iothreads`, and make sure SO_SNDBUF/SO_RCVBUF are not pinned small "
        "(net.ipv4.tcp_wmem / tcp_rmem max >= 4 MB); see single_connection_bottleneck.",
    ]
    pool = [
        'Dubbo: size the provider pool for the load (<dubbo:protocol threads="500"/>, '
        "`threadpool=fixed`), keep `queues=0` so a full pool fails fast to another provider, "
        "and use `dispatcher=message` so connect/heartbeat events do not take business threads.",
        "Tomcat: raise `maxThreads` (default 200) and `acceptCount` (default 100) on the "
        "Connector, or cap `maxConnections` so excess load queues in the kernel, not the pool.",
        "ThreadPoolExecutor: raise corePoolSize/maximumPoolSize, bound the queue (a huge "
        "LinkedBlockingQueue hides saturation as latency), and choose the RejectedExecutionHandler "
        "deliberately (CallerRunsPolicy throttles the producer).",
        "Fix what the busy threads wait on: a slow downstream (DB, RPC) holds every thread; "
        "add timeouts below the caller's timeout and bulkheads per downstream.",
    ]
    return network + pool if timing == "after_load" else pool + network


def detect(data: IncidentData) -> Finding:
    parameters = parameters_of(globals(), PARAMETERS)
    grouped = _group(data)
    pools = [
        (_pool_stats(host, pool, named), named) for (host, pool), named in sorted(grouped.items())
    ]
    judged = [
        (stats, named) for stats, named in pools if stats.has_limits or stats.rejected_in_capture
    ]
    log_pools = _log_rejections(data)
    busy_dumps = _busy_dumps(data)

    confirmed = [
        stats
        for stats, _ in judged
        if stats.rejected_in_capture > 0 or stats.saturated_ms >= SATURATION_MIN_DURATION_MS
    ]
    likely = [
        stats
        for stats, _ in judged
        if stats not in confirmed
        and (
            stats.saturated_samples
            or stats.queue_full_samples
            or stats.near_full
            or stats.rejected_before_capture > 0
        )
    ]

    evidence: list[Evidence] = []
    for stats, _ in sorted(
        judged, key=lambda p: (-p[0].saturated_ms, -p[0].rejected_in_capture, p[0].label)
    ):
        evidence.extend(_pool_evidence(stats))
    for log_pool in log_pools:
        first, last = log_pool.events[0], log_pool.events[-1]
        sample = first.attrs
        detail = ""
        if "active" in sample and "max" in sample:
            detail = f" (active {sample['active']} of max {sample['max']})"
        elif "active" in sample and "queue" in sample:
            detail = f" (active {sample['active']}, queue {sample['queue']})"
        evidence.append(
            Evidence(
                summary=f"{len(log_pool.events)} rejection lines for pool {log_pool.pool}"
                f"{' on ' + log_pool.host if log_pool.host else ''}{detail}, "
                f"{iso_ms(first.time_ms)} .. {iso_ms(last.time_ms)}: {str(sample.get('message', ''))[:160]}",
                observed=len(log_pool.events),
                threshold="> 0",
                unit="lines",
                from_ms=first.time_ms,
                to_ms=last.time_ms,
                event_kind="threadpool_rejected",
                labels={"pool": log_pool.pool},
                artifact=first.artifact,
                host=log_pool.host or None,
            )
        )
    for dump in busy_dumps[:3]:
        evidence.append(
            Evidence(
                summary=f"thread dump at {iso_ms(dump.time_ms)}: {fmt_number(dump.busy)} of "
                f"{fmt_number(dump.total)} {dump.pool} threads RUNNABLE/BLOCKED",
                observed=dump.busy / dump.total,
                threshold=DUMP_BUSY_RATIO,
                unit="ratio",
                from_ms=dump.time_ms,
                to_ms=dump.time_ms,
                series="jvm.threads.pool_state",
                labels={"pool": dump.pool},
                artifact=dump.artifact,
                host=dump.host or None,
            )
        )

    # The strongest window: the longest saturation, else the rejections' span.
    lead: PoolStats | None = None
    if confirmed or likely:
        lead = max(
            confirmed or likely,
            key=lambda s: (s.saturated_ms, s.rejected_in_capture, s.peak_active),
        )
    timing = Timing("unknown", "")
    if lead is not None:
        window_from = lead.saturated_from if lead.saturated_from is not None else lead.rejected_from
        window_to = lead.saturated_to if lead.saturated_to is not None else lead.rejected_to
        if window_from is not None and window_to is not None:
            named = grouped[(lead.host, lead.pool)]
            load = _load_signal(data, lead, named, window_from, window_to)
            timing = _timing(load, lead, window_from, window_to)
            if timing.evidence is not None:
                evidence.insert(1, timing.evidence)
    elif log_pools:
        first_event = log_pools[0].events[0]
        timing = Timing(
            "unknown",
            f"The log shows rejections from {iso_ms(first_event.time_ms)}; without pool metrics "
            "and a request-rate signal the timing against the load cannot be told.",
        )

    verdict: Verdict
    if confirmed or log_pools:
        verdict = "confirmed"
        if confirmed and lead is not None and not np.isfinite(lead.peak_active):
            summary = (
                f"Pool {lead.label} rejected {fmt_number(lead.rejected_in_capture, 0)} tasks "
                f"(peak {fmt_number(lead.rejected_peak_rate)}/s)"
            )
        elif confirmed and lead is not None:
            summary = (
                f"Pool {lead.label} was exhausted: active {fmt_number(lead.peak_active)} of max "
                f"{fmt_number(lead.max_threads)} for {fmt_duration_ms(lead.saturated_ms)}, "
                f"{_queue_text(lead)}, "
                f"{fmt_number(lead.rejected_in_capture, 0)} tasks rejected"
            )
        else:
            total = sum(len(p.events) for p in log_pools)
            summary = f"{total} thread-pool rejection lines in the log (pool {log_pools[0].pool})"
        if timing.verdict == "after_load":
            summary += ", after the load was removed (a network backlog draining)."
        elif timing.verdict == "under_load":
            summary += ", under load."
        else:
            summary += "."
    elif likely or busy_dumps:
        verdict = "likely"
        if likely and lead is not None:
            summary = (
                f"Pool {lead.label} ran near its limits: active peak {fmt_number(lead.peak_active)} "
                f"of max {fmt_number(lead.max_threads)}, {_queue_text(lead)}, "
                f"saturated {fmt_duration_ms(lead.saturated_ms)} "
                f"(confirmation needs >= {SATURATION_MIN_DURATION_MS} ms or rejections)."
            )
        else:
            dump = busy_dumps[0]
            summary = (
                f"A thread dump at {iso_ms(dump.time_ms)} shows {fmt_number(dump.busy)} of "
                f"{fmt_number(dump.total)} {dump.pool} threads RUNNABLE/BLOCKED; no pool metrics "
                "to show whether the pool was at its maximum."
            )
    elif judged:
        verdict = "ruled_out"
        parts = []
        for stats, _ in judged[:4]:
            active = (
                f"active peak {fmt_number(stats.peak_active)}/{fmt_number(stats.max_threads)}"
                if np.isfinite(stats.peak_active)
                else "active n/a"
            )
            queue = _queue_text(stats)
            parts.append(
                f"{stats.label} {active}, {queue}, 0 rejected over {stats.samples} samples"
            )
        summary = (
            "No pool reached its limits: "
            + "; ".join(parts)
            + f" (likely at >= {NEAR_FULL_RATIO:.0%} of max)."
        )
    else:
        have_log = "app_log" in data.artifact_kinds()
        have_dumps = bool(data.series("jvm.threads.pool"))
        seen = []
        if have_log:
            seen.append("the application log has no rejection lines")
        if have_dumps:
            seen.append("no thread dump shows a pool mostly RUNNABLE/BLOCKED")
        summary = (
            "No thread-pool metrics (active/max/queue) to judge saturation"
            + (f"; {' and '.join(seen)}" if seen else "")
            + "."
        )
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary=summary,
            evidence=evidence,
            explanation=(
                "Saturation is active == max with a full queue; a log without rejection lines "
                "does not exclude a pool that queues requests (latency) without rejecting them, "
                "and a thread dump does not show the pool's maximum."
            ),
            remedies=[],
            missing=list(_MISSING),
            parameters=parameters,
        )

    explanation = (
        "A bounded pool is exhausted when every thread is busy (active == max) and the queue is "
        "full; from then on each new request is rejected (Dubbo 'Thread pool is EXHAUSTED!', "
        "RejectedExecutionException, Tomcat 'All threads are currently busy') or waits in the "
        "queue, and callers see timeouts. "
    )
    if lead is not None and np.isfinite(lead.max_threads):
        explanation += (
            f"Here {lead.label} held {fmt_number(lead.peak_active)} of {fmt_number(lead.max_threads)} "
            f"threads busy with the queue at {fmt_number(lead.peak_queue)} of "
            f"{fmt_number(lead.queue_capacity)} and rejected {fmt_number(lead.rejected_in_capture, 0)} "
            "tasks. "
        )
    if timing.text:
        explanation += timing.text
    if verdict == "ruled_out":
        explanation = (
            "Exhaustion needs active == max with a full queue or rejections; the metrics show "
            "every pool below that, so the slowness was not the pool running out of threads."
        )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=_remedies(timing.verdict) if verdict != "ruled_out" else [],
        missing=[],
        parameters=parameters,
    )
