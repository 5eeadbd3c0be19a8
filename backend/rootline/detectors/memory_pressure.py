"""Quantities of ``memory_pressure`` (rule: ``rules/memory_pressure.toml``), per host.

Inputs (nmon, per host): ``mem.total_mb``, ``mem.free_mb``, ``mem.cached_mb``,
``mem.buffers_mb``, ``mem.shared_mb`` (Linux), AIX ``nmon.MEMNEW.free_pct`` +
``nmon.MEMNEW.fscache_pct``; ``mem.swap_total_mb`` / ``mem.swap_free_mb``; swap-in /
swap-out from ``nmon.VM.pswpin`` / ``pswpout`` (Linux: pages per interval, turned into pages
per second) or ``nmon.PAGE.pgsin`` / ``pgsout`` (AIX paging space, per second); major faults
``nmon.VM.pgmajfault`` (per interval). nmon writes -1 for unreadable columns: read as 0.

- ``min_available_pct``: the lowest available memory, Linux free + page cache + buffers -
  shmem (in "cached" but not droppable), AIX free % + file cache % (AIX keeps free memory near
  zero by design; its file cache is the reserve). ``low_run_ms``: the longest run at or below
  ``low_available_pct`` (one sample of a slow capture covers its interval).
- ``swapin_run_ms`` / ``swapout_run_ms`` / ``majfault_run_ms``: the longest runs at or above
  ``swapin_pages_per_s`` / ``majfault_per_s``, with their peaks.
- ``swap_growth_mb``: the largest fall of free swap from an earlier high to a later low.
- ``paging_now``: the host paged during the capture (a swap-in, swap-out or major-fault run
  of at least ``likely_ms``, or swap use growing by ``swap_growth_min_mb``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, Quantity, SeriesView
from rootline.detectors.quantities import (
    by_host,
    host_key,
    longest_true_run,
    merged_series,
    runs_aix,
    step_values_at,
    typical_interval_ms,
)

WANTED = (
    "mem.total_mb",
    "mem.free_mb",
    "mem.cached_mb",
    "mem.buffers_mb",
    "mem.shared_mb",
    "mem.swap_total_mb",
    "mem.swap_free_mb",
    "nmon.MEMNEW.free_pct",
    "nmon.MEMNEW.fscache_pct",
    "nmon.VM.pswpin",
    "nmon.VM.pswpout",
    "nmon.VM.pgmajfault",
    "nmon.PAGE.pgsin",
    "nmon.PAGE.pgsout",
)

# (quantity prefix, series, threshold name, per interval: Linux VM counts, AIX PAGE rates)
RATES = (
    ("swapin", "nmon.VM.pswpin", "swapin_pages_per_s", True),
    ("swapin", "nmon.PAGE.pgsin", "swapin_pages_per_s", False),
    ("swapout", "nmon.VM.pswpout", "swapin_pages_per_s", True),
    ("swapout", "nmon.PAGE.pgsout", "swapin_pages_per_s", False),
    ("majfault", "nmon.VM.pgmajfault", "majfault_per_s", True),
)


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    series: list[SeriesView] = []
    for name in WANTED:
        series.extend(s for s in data.series(name) if s.name == name)
    out = []
    for host, items in by_host(series).items():
        m = _host(host, items, params, aix=runs_aix(data, host))
        if m is not None:
            out.append(m)
    return out


def _available(
    named: dict[str, list[SeriesView]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64], str]:
    """(times, available MB, available %, basis) of one host; empty arrays without data."""
    total_t, total_v = merged_series(named.get("mem.total_mb", []))
    free_t, free_v = merged_series(named.get("mem.free_mb", []))
    cached_t, cached_v = merged_series(named.get("mem.cached_mb", []))
    if len(free_t) and len(cached_t) and len(total_t):
        times = free_t
        available = free_v + np.clip(step_values_at(cached_t, cached_v, times), 0, None)
        for name, sign in (("mem.buffers_mb", 1.0), ("mem.shared_mb", -1.0)):
            extra_t, extra_v = merged_series(named.get(name, []))
            if len(extra_t):
                available = available + sign * np.clip(
                    step_values_at(extra_t, extra_v, times), 0, None
                )
        total_at = step_values_at(total_t, total_v, times)
        ok = total_at > 0
        mb = np.clip(available[ok], 0, None)
        return times[ok], mb, 100.0 * mb / total_at[ok], "free + cached + buffers - shared"
    aix_free_t, aix_free_v = merged_series(named.get("nmon.MEMNEW.free_pct", []))
    aix_cache_t, aix_cache_v = merged_series(named.get("nmon.MEMNEW.fscache_pct", []))
    if len(aix_free_t) and len(aix_cache_t):
        pct = np.clip(aix_free_v + step_values_at(aix_cache_t, aix_cache_v, aix_free_t), 0, 100)
        # The total at each sample: memory added to a running LPAR (DLPAR) raises it midway.
        total = (
            step_values_at(total_t, total_v, aix_free_t)
            if len(total_t)
            else np.full(len(aix_free_t), np.nan)
        )
        return aix_free_t, pct * total / 100.0, pct, "free % + file cache % (AIX)"
    empty = np.array([], dtype=np.float64)
    return np.array([], dtype=np.int64), empty, empty, ""


def _host(
    host: str | None, series: list[SeriesView], params: Params, *, aix: bool
) -> Measurement | None:
    named: dict[str, list[SeriesView]] = {}
    for s in series:
        named.setdefault(s.name, []).append(s)
    artifact = series[0].artifact
    values: dict[str, Quantity] = {"aix": aix}
    anchors: dict[str, Anchor] = {}
    total_t, total_v = merged_series(named.get("mem.total_mb", []))
    if len(total_t):
        values["total_mb"] = float(total_v.max())

    times, available_mb, available_pct, basis = _available(named)
    if len(times):
        low = int(np.argmin(available_pct))
        if len(total_t):  # the total then, which a percentage is of (memory can be added)
            values["total_mb"] = float(step_values_at(total_t, total_v, times[low : low + 1])[0])
        values.update(
            min_available_pct=float(available_pct[low]),
            min_available_mb=float(available_mb[low]) if np.isfinite(available_mb[low]) else None,
            min_available_at=int(times[low]),
            available_basis=basis,
            low_run_ms=0.0,
        )
        anchors["min_available_pct"] = Anchor(
            "mem.free_mb", {}, int(times[low]), int(times[low]), host, artifact
        )
        run = longest_true_run(times, available_pct <= float(params["low_available_pct"]))
        if run is not None:
            first, _, duration = run
            values.update(low_run_ms=duration, low_run_from=int(times[first]))
            anchors["low_run_ms"] = Anchor(
                "mem.free_mb", {}, int(times[first]), int(times[first] + duration), host, artifact
            )

    swap_total_t, swap_total_v = merged_series(named.get("mem.swap_total_mb", []))
    swap_free_t, swap_free_v = merged_series(named.get("mem.swap_free_mb", []))
    if len(swap_total_t):
        values["swap_total_mb"] = float(swap_total_v.max())
        values["swap_growth_mb"] = 0.0
    if len(swap_free_t) >= 2 and float(values.get("swap_total_mb") or 0.0) > 0:
        running_max = np.maximum.accumulate(swap_free_v)
        drops = running_max - swap_free_v
        j = int(np.argmax(drops))
        values["swap_growth_mb"] = float(drops[j])
        if drops[j] > 0:
            i = int(np.flatnonzero(swap_free_v[: j + 1] == running_max[j])[0])
            anchors["swap_growth_mb"] = Anchor(
                "mem.swap_free_mb", {}, int(swap_free_t[i]), int(swap_free_t[j]), host, artifact
            )

    for prefix, name, threshold, per_interval in RATES:
        if f"{prefix}_peak" in values:
            continue
        found = named.get(name, [])
        rate_t, rate_v = merged_series(found)
        if not len(rate_t):
            continue
        clean = np.where(rate_v >= 0, rate_v, 0.0)
        interval_s = typical_interval_ms(rate_t) / 1000.0
        per_s = clean / interval_s if per_interval and interval_s > 0 else clean
        peak = int(np.argmax(per_s))
        values[f"{prefix}_peak"] = float(per_s[peak])
        values[f"{prefix}_run_ms"] = 0.0
        where = (int(rate_t[peak]), int(rate_t[peak]))
        run = longest_true_run(rate_t, per_s >= float(params[threshold]))
        if run is not None:
            # A rate is stamped at the end of the interval it was counted over (nmon's VM /
            # PAGE since the previous snapshot): the run began one interval before its first
            # stamp and ended at its last.
            _, last, duration = run
            values[f"{prefix}_run_ms"] = duration
            values[f"{prefix}_run_from"] = int(rate_t[last] - duration)
            where = (int(rate_t[last] - duration), int(rate_t[last]))
        anchors[f"{prefix}_run_ms"] = anchors[f"{prefix}_peak"] = Anchor(
            name, {}, *where, host, found[0].artifact
        )

    if not len(times) and not any(k.endswith("_peak") for k in values) and not len(swap_free_t):
        return None
    likely_ms = float(params["likely_ms"])
    values["paging_now"] = bool(
        any(
            float(values.get(f"{prefix}_run_ms") or 0.0) >= likely_ms
            for prefix in ("swapin", "majfault", "swapout")
        )
        or float(values.get("swap_growth_mb") or 0.0) >= float(params["swap_growth_min_mb"])
    )
    return Measurement(
        entity=host or artifact,
        key=host_key(host),
        values=values,
        anchor=Anchor("mem.free_mb", {}, None, None, host, artifact),
        anchors=anchors,
    )
