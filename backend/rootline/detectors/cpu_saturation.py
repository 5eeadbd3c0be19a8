"""Quantities of ``cpu_saturation`` (rule: ``rules/cpu_saturation.toml``), per host.

Inputs (nmon, per host): ``cpu.user_pct`` + ``cpu.sys_pct`` (else 100 - ``cpu.idle_pct``,
else Prometheus ``prom.system_cpu_usage`` x 100), ``cpu.core.busy_pct{cpu}``,
``proc.runqueue``; cores from the fact ``nmon.cpus`` or the series ``cpu.count``. nmon writes
-1 for columns it could not read: those readings are dropped.

- ``busy_run_ms``: the longest run of samples with user + sys >= ``cpu_busy_pct``; CPU
  percentages are averages over the sample interval, so one sample covers one interval.
- ``core_pinned_run_ms``: the longest run of one core >= ``core_pinned_pct`` while the host
  average stays below ``cpu_busy_pct`` (one hot thread, e.g. the Netty I/O thread of one
  connection, with the rest idle; otherwise it is plain saturation).
- ``runqueue_run_ms``: the longest run of run queue / cores >= ``runqueue_per_core``. Linux
  nmon's Runnable is a reading at an instant (``procs_running``, a whole number), so its run
  lasts from its first reading to its last (one noisy reading is no evidence of anything).
  AIX topas_nmon's Runnable is averaged over the interval, which its fractional values show
  (``60.20``): such a reading stands for its whole interval, like a CPU percentage, and a
  run counts one interval per sample (``runqueue_averaged``).
- ``sample_interval_ms`` (the typical interval of the CPU samples) and ``coarse_interval_ms``
  (the same, only when longer than ``sustained_ms``): an average over 5 or 20 minutes cannot
  show a saturation shorter than one sample, so a ruled-out says it judged only saturation
  sustained across whole samples at that resolution.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, Quantity, SeriesView
from rootline.detectors.quantities import (
    by_host,
    first_fact_number,
    host_key,
    longest_true_run,
    merged_series,
    runs_aix,
    step_values_at,
    typical_interval_ms,
)

WANTED = (
    "cpu.user_pct",
    "cpu.sys_pct",
    "cpu.idle_pct",
    "cpu.count",
    "cpu.core.busy_pct",
    "proc.runqueue",
    "prom.system_cpu_usage",
)


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    series: list[SeriesView] = []
    for name in WANTED:
        series.extend(s for s in data.series(name) if s.name == name)
    out = []
    for host, items in by_host(series).items():
        m = _host(data, host, items, params)
        if m is not None:
            out.append(m)
    return out


def _busy(
    named: dict[str, list[SeriesView]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], str]:
    """Host CPU busy % over time and the series it came from."""
    user_t, user_v = merged_series(named.get("cpu.user_pct", []))
    sys_t, sys_v = merged_series(named.get("cpu.sys_pct", []))
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


class _Run(NamedTuple):
    """The longest run of a mask: its duration (ms), from, to, and how many readings."""

    ms: float
    from_ms: int | None
    to_ms: int | None
    samples: int


def _run(
    times: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_], *, instantaneous: bool = False
) -> _Run:
    """The longest run of ``mask``; (0, None, None, 0) for none."""
    run = longest_true_run(times, mask)
    if run is None:
        return _Run(0.0, None, None, 0)
    first, last, duration = run
    if instantaneous:
        duration = float(times[last] - times[first])
        return _Run(duration, int(times[first]), int(times[last]), last - first + 1)
    # An interval's figure (a CPU percentage, topas_nmon's averaged Runnable) is stamped at the
    # interval's end (nmon and topas_nmon compute it since the previous snapshot): the run
    # began one interval before its first stamp and ended at its last.
    return _Run(duration, int(times[last] - duration), int(times[last]), last - first + 1)


def _host(
    data: IncidentData, host: str | None, series: list[SeriesView], params: Params
) -> Measurement | None:
    named: dict[str, list[SeriesView]] = {}
    for s in series:
        named.setdefault(s.name, []).append(s)
    busy_pct = float(params["cpu_busy_pct"])
    pinned_pct = float(params["core_pinned_pct"])
    times, busy, source = _busy(named)
    core_series = named.get("cpu.core.busy_pct", [])
    runqueue_t, runqueue_v = merged_series(named.get("proc.runqueue", []))
    if not len(times) and not core_series and not len(runqueue_t):
        return None
    artifact = series[0].artifact
    values: dict[str, Quantity] = {"samples": len(times)}
    anchors: dict[str, Anchor] = {}

    if len(times):
        peak = int(np.argmax(busy))
        run_ms, run_from, run_to, _ = _run(times, busy >= busy_pct)
        values.update(
            busy_peak_pct=float(busy[peak]),
            busy_peak_at=int(times[peak]),
            busy_run_ms=run_ms,
            busy_run_from=run_from,
            busy_mean_pct=float(np.mean(busy)),
        )
        where = (run_from, run_to) if run_from is not None else (int(times[peak]),) * 2
        anchors["busy_run_ms"] = Anchor(source, {}, *where, host, artifact)

    best: tuple[float, float, str, int | None, int | None, int, str] | None = None
    core_peak: tuple[float, str] | None = None
    for s in core_series:
        core_t, core_v = merged_series([s])
        ok = core_v >= 0
        core_t, core_v = core_t[ok], core_v[ok]
        if not len(core_t):
            continue
        label = s.labels.get("cpu", "?")
        peak_i = int(np.argmax(core_v))
        if core_peak is None or core_v[peak_i] > core_peak[0]:
            core_peak = (float(core_v[peak_i]), label)
        host_busy = step_values_at(times, busy, core_t) if len(times) else np.zeros(len(core_t))
        run_ms, run_from, run_to, _ = _run(core_t, (core_v >= pinned_pct) & (host_busy < busy_pct))
        candidate = (run_ms, float(core_v[peak_i]), label, run_from, run_to,
                     int(core_t[peak_i]), s.artifact)  # fmt: skip
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    if best is not None and core_peak is not None:
        run_ms, _, label, run_from, run_to, peak_at, core_artifact = best
        values.update(
            core_peak_pct=core_peak[0],
            core_peak_label=core_peak[1],
            core_pinned_run_ms=run_ms,
            core_pinned_label=label,
            core_pinned_from=run_from,
        )
        where = (run_from, run_to) if run_from is not None else (peak_at, peak_at)
        anchors["core_pinned_run_ms"] = Anchor(
            "cpu.core.busy_pct", {"cpu": label}, *where, host, core_artifact
        )

    cores = first_fact_number(data.facts("nmon.cpus", host=host))
    count_t, count_v = merged_series(named.get("cpu.count", []))
    if cores is None and len(count_t):
        cores = float(count_v.max())
    values["cores"] = cores
    values["aix"] = runs_aix(data, host)
    if len(runqueue_t):
        ok = runqueue_v >= 0
        runqueue_t, runqueue_v = runqueue_t[ok], runqueue_v[ok]
    if len(runqueue_t):
        peak_i = int(np.argmax(runqueue_v))
        values.update(
            runqueue_peak=float(runqueue_v[peak_i]), runqueue_peak_at=int(runqueue_t[peak_i])
        )
        # A fractional run queue is an interval average (AIX topas_nmon), not a reading at an
        # instant: each reading then stands for its interval, as a CPU percentage does.
        averaged = bool(np.any(runqueue_v != np.round(runqueue_v)))
        values["runqueue_averaged"] = averaged
        if cores:
            per_core = runqueue_v / cores
            over = per_core >= float(params["runqueue_per_core"])
            run_ms, run_from, run_to, run_samples = _run(
                runqueue_t, over, instantaneous=not averaged
            )
            values.update(
                runqueue_per_core_peak=float(per_core.max()),
                runqueue_run_ms=run_ms,
                runqueue_run_from=run_from,
                # readings in that run: one interval average alone confirms nothing
                runqueue_run_samples=run_samples,
            )
            where = (run_from, run_to) if run_from is not None else (int(runqueue_t[peak_i]),) * 2
            anchors["runqueue_run_ms"] = Anchor(
                "proc.runqueue", {}, *where, host, named["proc.runqueue"][0].artifact
            )
    sampled = times if len(times) else runqueue_t
    if len(sampled) < 2 and core_series:
        sampled = merged_series(core_series[:1])[0]
    interval = typical_interval_ms(sampled) if len(sampled) >= 2 else 0.0
    if interval > 0:
        values["sample_interval_ms"] = interval
        if interval > float(params["sustained_ms"]):
            values["coarse_interval_ms"] = interval
    return Measurement(
        entity=host or artifact,
        key=host_key(host),
        values=values,
        anchor=Anchor(source or None, {}, None, None, host, artifact),
        anchors=anchors,
    )
