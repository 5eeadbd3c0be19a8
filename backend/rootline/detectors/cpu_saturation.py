"""CPU saturation: the host, or one core of it, had no cycles left.

Mechanism. When user + system CPU stays near 100 %, every thread waits for a core and
latency grows with the run queue; the same happens when more threads are runnable than
there are cores (run queue / cores >= 2). One core pinned while the average is low is the
quieter variant that matters for RPC stacks: one connection is served by one I/O thread
(Netty NioWorker, DOMAIN.md report A), so a single hot thread caps the connection while the
host looks 30 % busy (report A: provider CPU 66 % of 8 vCPU, consumers ~30 %; report C:
all 9 Netty workers busy every 60 s while CPU looked moderate). The opposite numbers rule
CPU out and send the search to the network, which is why they are stated.

Inputs (per host, nmon): ``cpu.user_pct`` + ``cpu.sys_pct`` (else 100 - ``cpu.idle_pct``,
else Prometheus ``prom.system_cpu_usage`` x 100), ``cpu.core.busy_pct{cpu}``,
``proc.runqueue``, cores from the fact ``nmon.cpus`` or the series ``cpu.count``.

Thresholds (module constants, in ``Finding.parameters``):

- ``CPU_BUSY_PCT`` = 90: user + sys at or above 90 % is saturated (the kernel and the JVM
  need the rest for interrupts, GC threads and the I/O threads themselves).
- ``CORE_PINNED_PCT`` = 95: one core at or above 95 % busy is pinned, counted only while
  the host average stays below ``CPU_BUSY_PCT`` (otherwise it is plain saturation).
- ``RUNQUEUE_PER_CORE`` = 2.0: twice as many runnable threads as cores means each waits
  about as long as it runs.
- ``SUSTAINED_MS`` = 10000: a condition must hold 10 s without a break to confirm (the
  nmon ``-s 1`` or ``-s 5`` captures give 10 or 2 samples); ``LIKELY_MS`` = 5000 for a
  shorter burst to count as likely (a JVM's start-up JIT burst lasts a few seconds). Shorter spikes are reported but rule nothing in.

Verdicts: ``confirmed`` when any of the three held for ``SUSTAINED_MS``; ``likely`` when one
held for ``LIKELY_MS``; ``ruled_out`` otherwise, naming the peaks ("CPU peaked at 31 %, no
core above 70 %, run queue 3 on 8 cores"); ``insufficient_data`` without nmon.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
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
    first_fact_number,
    fmt_duration_ms,
    fmt_number,
    iso_ms,
    longest_true_run,
    merged_series,
    step_values_at,
)

ID = "cpu_saturation"
TITLE = "CPU saturation"

# 90 %: past it the run queue grows and latency with it; the rest goes to softirq and GC.
CPU_BUSY_PCT = 90.0
# 95 % on one core: a single thread (a Netty I/O worker) has no headroom left.
CORE_PINNED_PCT = 95.0
# 2 runnable threads per core: each waits about as long as it runs.
RUNQUEUE_PER_CORE = 2.0
# 10 s without a break: not a JIT warm-up or a log rotation.
SUSTAINED_MS = 10_000
# 5 s, half the confirmation period: longer than the JIT compiler's burst when a JVM starts
# (the lab's Java processes pinned one of 2 cores for up to 4 s at start-up).
LIKELY_MS = 5_000

PARAMETERS = [
    "CPU_BUSY_PCT",
    "CORE_PINNED_PCT",
    "RUNQUEUE_PER_CORE",
    "SUSTAINED_MS",
    "LIKELY_MS",
]

_MISSING = [
    Missing(
        "nmon recording of the host (CPU_ALL, CPU per core, PROC run queue) during the incident",
        "nmon -f -t -s 1 -c 300   # 1 s x 5 min; or rootline-collect.sh --interval 1 "
        "--duration 60 --nmon",
    )
]


@dataclass(slots=True)
class Condition:
    """One saturation signature on one host: its longest run and its peak."""

    name: str
    host: str
    series: str
    labels: dict[str, str]
    artifact: str
    peak: float
    peak_ms: int
    run_ms: float = 0.0
    run_from: int | None = None
    run_to: int | None = None
    threshold: str = ""
    unit: str = "%"
    text: str = ""


@dataclass(slots=True)
class HostCpu:
    host: str
    artifact: str
    samples: int
    times_ms: npt.NDArray[np.int64]
    busy: npt.NDArray[np.float64]
    source: str
    cores: float | None
    conditions: list[Condition] = field(default_factory=list)
    peak_core: float = float("nan")
    peak_core_label: str = ""
    peak_runqueue: float = float("nan")

    @property
    def label(self) -> str:
        return self.host or self.artifact


def _busy(
    named: dict[str, list[SeriesView]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], str]:
    """Host CPU busy % over time and the series it came from."""
    user_t, user_v = merged_series(named.get("cpu.user_pct", []))
    sys_t, sys_v = merged_series(named.get("cpu.sys_pct", []))
    # nmon writes -1 for columns it could not read; drop them rather than read negative CPU.
    if len(user_t) and len(sys_t):
        sys_at = step_values_at(sys_t, sys_v, user_t)
        ok = (user_v >= 0) & (sys_at >= 0)
        return user_t[ok], np.clip(user_v[ok] + sys_at[ok], 0.0, 100.0), "cpu.user_pct"
    idle_t, idle_v = merged_series(named.get("cpu.idle_pct", []))
    if len(idle_t):
        ok = idle_v >= 0
        return idle_t[ok], np.clip(100.0 - idle_v[ok], 0.0, 100.0), "cpu.idle_pct"
    prom_t, prom_v = merged_series(named.get("prom.system_cpu_usage", []))
    if len(prom_t):
        ok = prom_v >= 0
        return prom_t[ok], np.clip(prom_v[ok] * 100.0, 0.0, 100.0), "prom.system_cpu_usage"
    return np.array([], dtype=np.int64), np.array([], dtype=np.float64), ""


def _run(
    times: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_], *, instantaneous: bool = False
) -> tuple[float, int | None, int | None]:
    """(duration ms, from, to) of the longest run of ``mask``.

    CPU percentages are averages over the sample interval, so one sample covers one interval;
    a run-queue count is a reading at one instant, so its run covers only last - first (one
    noisy reading of 4 runnable threads is no evidence of anything).
    """
    run = longest_true_run(times, mask)
    if run is None:
        return 0.0, None, None
    first, last, duration = run
    if instantaneous:
        duration = float(times[last] - times[first])
    return duration, int(times[first]), int(times[first] + duration)


def _host_cpu(data: IncidentData, host: str, series: list[SeriesView]) -> HostCpu | None:
    named: dict[str, list[SeriesView]] = {}
    for s in series:
        named.setdefault(s.name, []).append(s)
    times, busy, source = _busy(named)
    cores_series = merged_series(named.get("cpu.count", []))[1]
    cores = first_fact_number(data.facts("nmon.cpus", host=host or None))
    if cores is None and len(cores_series):
        cores = float(cores_series.max())
    core_series = named.get("cpu.core.busy_pct", [])
    runqueue_t, runqueue_v = merged_series(named.get("proc.runqueue", []))
    if not len(times) and not core_series and not len(runqueue_t):
        return None
    artifact = series[0].artifact
    cpu = HostCpu(host, artifact, len(times), times, busy, source, cores)

    if len(times):
        peak_i = int(np.argmax(busy))
        run_ms, run_from, run_to = _run(times, busy >= CPU_BUSY_PCT)
        cpu.conditions.append(
            Condition(
                "host CPU busy",
                host,
                source,
                {},
                artifact,
                float(busy[peak_i]),
                int(times[peak_i]),
                run_ms,
                run_from,
                run_to,
                f">= {CPU_BUSY_PCT:g} % for >= {SUSTAINED_MS} ms",
                "%",
                f"user+sys >= {CPU_BUSY_PCT:g} %",
            )
        )

    best_core: Condition | None = None
    for s in core_series:
        core_t, core_v = merged_series([s])
        ok = core_v >= 0
        core_t, core_v = core_t[ok], core_v[ok]
        if not len(core_t):
            continue
        peak_i = int(np.argmax(core_v))
        if not np.isfinite(cpu.peak_core) or core_v[peak_i] > cpu.peak_core:
            cpu.peak_core = float(core_v[peak_i])
            cpu.peak_core_label = s.labels.get("cpu", "?")
        # Pinned only while the host as a whole is not saturated: one hot thread, idle rest.
        host_busy = step_values_at(times, busy, core_t) if len(times) else np.zeros(len(core_t))
        mask = (core_v >= CORE_PINNED_PCT) & (host_busy < CPU_BUSY_PCT)
        run_ms, run_from, run_to = _run(core_t, mask)
        condition = Condition(
            f"core {s.labels.get('cpu', '?')} pinned",
            host,
            "cpu.core.busy_pct",
            {"cpu": s.labels.get("cpu", "?")},
            s.artifact,
            float(core_v[peak_i]),
            int(core_t[peak_i]),
            run_ms,
            run_from,
            run_to,
            f">= {CORE_PINNED_PCT:g} % while the host < {CPU_BUSY_PCT:g} %, for >= {SUSTAINED_MS} ms",
            "%",
            f"one core >= {CORE_PINNED_PCT:g} % while the host average < {CPU_BUSY_PCT:g} %",
        )
        if best_core is None or (condition.run_ms, condition.peak) > (
            best_core.run_ms,
            best_core.peak,
        ):
            best_core = condition
    if best_core is not None:
        cpu.conditions.append(best_core)

    if len(runqueue_t) and cores:
        ok = runqueue_v >= 0
        runqueue_t, runqueue_v = runqueue_t[ok], runqueue_v[ok]
        if len(runqueue_t):
            per_core = runqueue_v / cores
            peak_i = int(np.argmax(per_core))
            cpu.peak_runqueue = float(runqueue_v[peak_i])
            run_ms, run_from, run_to = _run(
                runqueue_t, per_core >= RUNQUEUE_PER_CORE, instantaneous=True
            )
            cpu.conditions.append(
                Condition(
                    "run queue",
                    host,
                    "proc.runqueue",
                    {},
                    named["proc.runqueue"][0].artifact,
                    float(runqueue_v[peak_i]),
                    int(runqueue_t[peak_i]),
                    run_ms,
                    run_from,
                    run_to,
                    f">= {RUNQUEUE_PER_CORE:g} x {fmt_number(cores)} cores for >= {SUSTAINED_MS} ms",
                    "threads",
                    f"run queue >= {RUNQUEUE_PER_CORE:g} per core",
                )
            )
    return cpu


def _evidence(cpu: HostCpu, condition: Condition) -> Evidence:
    if condition.run_ms > 0:
        text = (
            f"{cpu.label}: {condition.text} for {fmt_duration_ms(condition.run_ms)} from "
            f"{iso_ms(condition.run_from)} (peak {fmt_number(condition.peak)}"
            f"{'' if condition.unit == 'threads' else ' %'})"
        )
        from_ms, to_ms = condition.run_from, condition.run_to
    else:
        text = (
            f"{cpu.label}: {condition.name} peaked at {fmt_number(condition.peak)}"
            f"{' runnable' if condition.unit == 'threads' else ' %'} at {iso_ms(condition.peak_ms)}"
        )
        from_ms, to_ms = condition.peak_ms, condition.peak_ms
    return Evidence(
        summary=text,
        observed=round(condition.peak, 3),
        threshold=condition.threshold,
        unit=condition.unit,
        from_ms=from_ms,
        to_ms=to_ms,
        series=condition.series,
        labels=dict(condition.labels),
        artifact=condition.artifact,
        host=cpu.host or None,
    )


def _peaks(cpu: HostCpu) -> str:
    parts = []
    if len(cpu.busy):
        parts.append(f"CPU peaked at {fmt_number(float(cpu.busy.max()))} % (user+sys)")
    if np.isfinite(cpu.peak_core):
        parts.append(f"busiest core {cpu.peak_core_label} at {fmt_number(cpu.peak_core)} %")
    if np.isfinite(cpu.peak_runqueue):
        parts.append(
            f"run queue peak {fmt_number(cpu.peak_runqueue)} on {fmt_number(cpu.cores or float('nan'))} cores"
        )
    return ", ".join(parts) + (f" on {cpu.host}" if cpu.host else "")


def detect(data: IncidentData) -> Finding:
    parameters = parameters_of(globals(), PARAMETERS)
    wanted = [
        "cpu.user_pct",
        "cpu.sys_pct",
        "cpu.idle_pct",
        "cpu.count",
        "cpu.core.busy_pct",
        "proc.runqueue",
        "prom.system_cpu_usage",
    ]
    series: list[SeriesView] = []
    for name in wanted:
        series.extend(data.series(name))
    hosts = [
        c for host, items in by_host(series).items() if (c := _host_cpu(data, host or "", items))
    ]
    if not hosts:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No CPU samples (nmon CPU_ALL / per-core / PROC): CPU saturation cannot be judged.",
            explanation="CPU saturation is read from periodic CPU samples of each host; "
            "snapshots of sockets or thread dumps do not show it.",
            missing=list(_MISSING),
            parameters=parameters,
        )

    scored: list[tuple[HostCpu, Condition]] = [(cpu, c) for cpu in hosts for c in cpu.conditions]
    scored.sort(key=lambda hc: (-hc[1].run_ms, -hc[1].peak))
    # Host-wide saturation leads over the run queue, which leads over one pinned core.
    priority = {"host CPU busy": 0, "run queue": 1}
    sustained = sorted(
        [(cpu, c) for cpu, c in scored if c.run_ms >= SUSTAINED_MS],
        key=lambda hc: (priority.get(hc[1].name, 2), -hc[1].run_ms),
    )
    short = [(cpu, c) for cpu, c in scored if LIKELY_MS <= c.run_ms < SUSTAINED_MS]
    evidence = [_evidence(cpu, c) for cpu, c in scored]

    verdict: Verdict
    if sustained:
        verdict = "confirmed"
        cpu, lead = sustained[0]
    elif short:
        verdict = "likely"
        cpu, lead = short[0]
    else:
        verdict = "ruled_out"
        cpu, lead = scored[0] if scored else (hosts[0], None)  # type: ignore[assignment]

    cores_text = f" ({fmt_number(cpu.cores)} cores)" if cpu.cores else ""
    if verdict == "ruled_out":
        summary = "; ".join(_peaks(h) for h in hosts) + (
            f": nothing held {CPU_BUSY_PCT:g} % busy, a core at {CORE_PINNED_PCT:g} % or "
            f"{RUNQUEUE_PER_CORE:g} runnable per core for {fmt_duration_ms(LIKELY_MS)}."
        )
        explanation = (
            "The CPU had headroom throughout, so the slowness did not come from threads "
            "waiting for a core; look at queues, connections and the network path. "
            + "; ".join(_peaks(h) for h in hosts)
            + "."
        )
        remedies: list[str] = []
    else:
        assert lead is not None
        summary = (
            f"{cpu.label}{cores_text}: {lead.text} for {fmt_duration_ms(lead.run_ms)} from "
            f"{iso_ms(lead.run_from)} (peak {fmt_number(lead.peak)}"
            f"{' runnable' if lead.unit == 'threads' else ' %'})."
        )
        if lead.name.startswith("core"):
            explanation = (
                f"One core ran at >= {CORE_PINNED_PCT:g} % (peak {fmt_number(lead.peak)} %) for "
                f"{fmt_duration_ms(lead.run_ms)} while the host average stayed below "
                f"{CPU_BUSY_PCT:g} %: a single thread is the bottleneck. In Netty/Dubbo each "
                "connection is served by one I/O thread, so one busy connection (or a heartbeat "
                "burst over thousands of connections) saturates its thread while the host "
                "looks idle (DOMAIN.md reports A and C)."
            )
            remedies = [
                "Spread connections over more I/O threads: Dubbo `iothreads` (default cores+1) "
                "and `connections` >= cores per consumer; Netty `workerGroup` size.",
                "Find the thread: `top -H -p PID` and `jstack PID` (the hot thread's nid in hex).",
                "Cheaper heartbeats / jittered heartbeat timers when the spikes follow the "
                "heartbeat period (see heartbeat_storm).",
            ]
        else:
            explanation = (
                f"The host ran at {fmt_number(lead.peak)}{' runnable' if lead.unit == 'threads' else ' %'}"
                f" ({lead.text}) for {fmt_duration_ms(lead.run_ms)}: runnable threads wait for a core, "
                "so every request's latency grows by the queueing delay, I/O threads fall behind "
                "and socket queues build up as a consequence, not as a cause."
            )
            remedies = [
                "Find the consumer: nmon TOP / `top -H -p PID` and `jstack` for the hot threads; "
                "GC threads point to gc_pauses.",
                "Add cores or instances, or cut the work per request (serialization, logging, "
                "TLS, regexes in the hot path).",
                "Cap concurrency so the run queue stays near the core count: Dubbo `threads`, "
                "Tomcat `maxThreads` sized to cores x (1 + wait/compute).",
            ]
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=remedies,
        parameters=parameters,
    )
