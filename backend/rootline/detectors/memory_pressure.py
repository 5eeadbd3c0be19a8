"""Memory pressure: the host ran out of reclaimable memory and paged.

Mechanism. When free memory plus the page cache the kernel can drop runs out, the kernel
reclaims on the allocating thread's time (direct reclaim), evicts the code and data pages
of running processes (major page faults: a disk read on the next touch) and, with swap,
pages anonymous memory out and back in. A JVM whose heap is partly swapped out turns every
GC into disk reads. The symptoms look like everything else (latency, timeouts, busy CPU in
``sys``), which is why the postmortems in DOMAIN.md rule memory out with numbers before
looking at the network ("CPU, memory and thread dumps looked fine").

Inputs (per host, nmon): ``mem.total_mb``, ``mem.free_mb``, ``mem.cached_mb``,
``mem.buffers_mb`` (Linux; available ~ free + cached + buffers), AIX
``nmon.MEMNEW.free_pct`` + ``nmon.MEMNEW.fscache_pct``; ``mem.swap_total_mb`` /
``mem.swap_free_mb``; swap-in / swap-out rates from ``nmon.VM.pswpin`` / ``pswpout``
(Linux: pages per interval, turned into pages per second) or ``nmon.PAGE.pgsin`` /
``pgsout`` (AIX paging space, per second); major faults ``nmon.VM.pgmajfault``.

Thresholds (module constants, in ``Finding.parameters``):

- ``LOW_AVAILABLE_PCT`` = 5: available memory at or below 5 % of total is where kswapd and
  direct reclaim run constantly; ``LIKELY_AVAILABLE_PCT`` = 10 is close enough to look.
- ``SWAPIN_PAGES_PER_S`` = 100 (400 KB/s of 4 KB pages): steady swap-in means the working
  set does not fit; a few pages per second come from idle daemons and mean nothing.
- ``MAJFAULT_PER_S`` = 100: major faults per second that stall threads on disk reads.
- ``SWAP_GROWTH_MB`` = 100: swap use growing by 100 MB during the capture means memory is
  being pushed out now.
- ``SUSTAINED_MS`` = 10000: rates and low memory must hold this long (one sample of a slow
  capture covers its whole interval).

Verdicts: ``confirmed`` when swap-in (or major faults) stayed above its rate for
``SUSTAINED_MS``, or available memory stayed <= ``LOW_AVAILABLE_PCT`` that long while the
host swapped or faulted; ``likely`` for low memory alone, swap-out, swap growth or shorter
bursts; ``ruled_out`` with the lowest available memory and the peak paging rates;
``insufficient_data`` without nmon MEM data.
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
    fmt_duration_ms,
    fmt_number,
    iso_ms,
    longest_true_run,
    merged_series,
    step_values_at,
    typical_interval_ms,
)

ID = "memory_pressure"
TITLE = "Memory pressure"

# 5 % available: below the kernel's reclaim watermarks on most sizes, reclaim runs non-stop.
LOW_AVAILABLE_PCT = 5.0
# 10 %: not yet reclaiming hard, but one burst away.
LIKELY_AVAILABLE_PCT = 10.0
# 100 pages/s = 400 KB/s of swap-in: a working set that does not fit, not a stray daemon.
SWAPIN_PAGES_PER_S = 100.0
# 100 major faults/s: a hundred disk reads a second on the threads' own time.
MAJFAULT_PER_S = 100.0
# 100 MB more swap used during the capture: memory is being pushed out right now.
SWAP_GROWTH_MB = 100.0
# 10 s without a break, as for CPU: not a single spike.
SUSTAINED_MS = 10_000

PARAMETERS = [
    "LOW_AVAILABLE_PCT",
    "LIKELY_AVAILABLE_PCT",
    "SWAPIN_PAGES_PER_S",
    "MAJFAULT_PER_S",
    "SWAP_GROWTH_MB",
    "SUSTAINED_MS",
]

_MISSING = [
    Missing(
        "nmon recording of the host (MEM, VM / PAGE sections) during the incident",
        "nmon -f -t -s 1 -c 300   # 1 s x 5 min; or rootline-collect.sh --interval 1 "
        "--duration 60 --nmon",
    )
]

_WANTED = [
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
]


@dataclass(slots=True)
class Rate:
    """A paging rate on one host: its peak and its longest run above the threshold."""

    what: str
    series: str
    artifact: str
    threshold: float
    peak: float = 0.0
    peak_ms: int | None = None
    run_ms: float = 0.0
    run_from: int | None = None
    run_to: int | None = None


@dataclass(slots=True)
class HostMemory:
    host: str
    artifact: str
    total_mb: float = float("nan")
    min_available_mb: float = float("nan")
    min_available_pct: float = float("nan")
    min_available_ms: int | None = None
    available_basis: str = ""
    low_run_ms: float = 0.0
    low_run_from: int | None = None
    low_run_to: int | None = None
    likely_low_samples: int = 0
    swap_total_mb: float = float("nan")
    swap_growth_mb: float = 0.0
    swap_growth_from: int | None = None
    swap_growth_to: int | None = None
    rates: list[Rate] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.host or self.artifact

    def rate(self, what: str) -> Rate | None:
        return next((r for r in self.rates if r.what == what), None)


def _per_second(
    times: npt.NDArray[np.int64], values: npt.NDArray[np.float64], per_interval: bool
) -> npt.NDArray[np.float64]:
    """nmon's Linux VM section writes counts per interval; AIX PAGE is per second already."""
    clean = np.where(values >= 0, values, 0.0)  # nmon writes -1 for unreadable columns
    if not per_interval:
        return clean
    interval_s = typical_interval_ms(times) / 1000.0
    return clean / interval_s if interval_s > 0 else clean


def _rate(
    named: dict[str, list[SeriesView]], name: str, what: str, threshold: float, per_interval: bool
) -> Rate | None:
    found = named.get(name, [])
    times, values = merged_series(found)
    if not len(times):
        return None
    rate = Rate(what, name, found[0].artifact, threshold)
    per_s = _per_second(times, values, per_interval)
    peak_i = int(np.argmax(per_s))
    rate.peak, rate.peak_ms = float(per_s[peak_i]), int(times[peak_i])
    run = longest_true_run(times, per_s >= threshold)
    if run is not None:
        first, _, duration = run
        rate.run_ms, rate.run_from = duration, int(times[first])
        rate.run_to = int(times[first] + duration)
    return rate


def _host_memory(host: str, series: list[SeriesView]) -> HostMemory | None:
    named: dict[str, list[SeriesView]] = {}
    for s in series:
        named.setdefault(s.name, []).append(s)
    memory = HostMemory(host, series[0].artifact)

    total_t, total_v = merged_series(named.get("mem.total_mb", []))
    free_t, free_v = merged_series(named.get("mem.free_mb", []))
    cached_t, cached_v = merged_series(named.get("mem.cached_mb", []))
    aix_free_t, aix_free_v = merged_series(named.get("nmon.MEMNEW.free_pct", []))
    aix_cache_t, aix_cache_v = merged_series(named.get("nmon.MEMNEW.fscache_pct", []))
    times: npt.NDArray[np.int64] = np.array([], dtype=np.int64)
    available_pct: npt.NDArray[np.float64] = np.array([], dtype=np.float64)
    available_mb: npt.NDArray[np.float64] = np.array([], dtype=np.float64)
    if len(total_t):
        memory.total_mb = float(total_v.max())
    if len(free_t) and len(cached_t) and len(total_t):
        # Linux: free + page cache + buffers, minus shmem (in "cached" but not droppable).
        times = free_t
        buffers_t, buffers_v = merged_series(named.get("mem.buffers_mb", []))
        shared_t, shared_v = merged_series(named.get("mem.shared_mb", []))
        available_mb = free_v + np.clip(step_values_at(cached_t, cached_v, times), 0, None)
        if len(buffers_t):
            available_mb = available_mb + np.clip(
                step_values_at(buffers_t, buffers_v, times), 0, None
            )
        if len(shared_t):
            available_mb = available_mb - np.clip(
                step_values_at(shared_t, shared_v, times), 0, None
            )
        total_at = step_values_at(total_t, total_v, times)
        ok = total_at > 0
        times, available_mb = times[ok], np.clip(available_mb[ok], 0, None)
        available_pct = 100.0 * available_mb / total_at[ok]
        memory.available_basis = "free + cached + buffers - shared"
    elif len(aix_free_t) and len(aix_cache_t):
        # AIX keeps free memory near zero by design; file cache (numperm) is the reserve.
        times = aix_free_t
        available_pct = aix_free_v + step_values_at(aix_cache_t, aix_cache_v, times)
        available_pct = np.clip(available_pct, 0, 100)
        total = memory.total_mb if np.isfinite(memory.total_mb) else float("nan")
        available_mb = available_pct * total / 100.0
        memory.available_basis = "free % + file cache % (AIX)"
    if len(times):
        low_i = int(np.argmin(available_pct))
        memory.min_available_pct = float(available_pct[low_i])
        memory.min_available_mb = float(available_mb[low_i])
        memory.min_available_ms = int(times[low_i])
        run = longest_true_run(times, available_pct <= LOW_AVAILABLE_PCT)
        if run is not None:
            first, _, duration = run
            memory.low_run_ms, memory.low_run_from = duration, int(times[first])
            memory.low_run_to = int(times[first] + duration)
        memory.likely_low_samples = int((available_pct <= LIKELY_AVAILABLE_PCT).sum())

    swap_total_t, swap_total_v = merged_series(named.get("mem.swap_total_mb", []))
    swap_free_t, swap_free_v = merged_series(named.get("mem.swap_free_mb", []))
    if len(swap_total_t):
        memory.swap_total_mb = float(swap_total_v.max())
    if len(swap_free_t) >= 2 and np.isfinite(memory.swap_total_mb) and memory.swap_total_mb > 0:
        # Growth = the largest fall of swap free from an earlier high to a later low.
        running_max = np.maximum.accumulate(swap_free_v)
        drops = running_max - swap_free_v
        j = int(np.argmax(drops))
        memory.swap_growth_mb = float(drops[j])
        if memory.swap_growth_mb > 0:
            i = int(np.flatnonzero(swap_free_v[: j + 1] == running_max[j])[0])
            memory.swap_growth_from, memory.swap_growth_to = (
                int(swap_free_t[i]),
                int(swap_free_t[j]),
            )

    for name, what, threshold, per_interval in (
        ("nmon.VM.pswpin", "swap-in", SWAPIN_PAGES_PER_S, True),
        ("nmon.PAGE.pgsin", "swap-in", SWAPIN_PAGES_PER_S, False),
        ("nmon.VM.pswpout", "swap-out", SWAPIN_PAGES_PER_S, True),
        ("nmon.PAGE.pgsout", "swap-out", SWAPIN_PAGES_PER_S, False),
        ("nmon.VM.pgmajfault", "major faults", MAJFAULT_PER_S, True),
    ):
        if memory.rate(what) is None:
            rate = _rate(named, name, what, threshold, per_interval)
            if rate is not None:
                memory.rates.append(rate)

    if not len(times) and not memory.rates and not len(swap_free_t):
        return None
    return memory


def _evidence(memory: HostMemory) -> list[Evidence]:
    host = memory.host or None
    items: list[Evidence] = []
    if np.isfinite(memory.min_available_pct):
        if memory.low_run_ms > 0:
            text = (
                f"{memory.label}: available memory <= {LOW_AVAILABLE_PCT:g} % for "
                f"{fmt_duration_ms(memory.low_run_ms)} from {iso_ms(memory.low_run_from)} "
                f"(lowest {fmt_number(memory.min_available_mb, 0)} MB, "
                f"{memory.min_available_pct:.1f} % of {fmt_number(memory.total_mb, 0)} MB)"
            )
            from_ms, to_ms = memory.low_run_from, memory.low_run_to
        else:
            text = (
                f"{memory.label}: lowest available memory {fmt_number(memory.min_available_mb, 0)} MB "
                f"({memory.min_available_pct:.1f} % of {fmt_number(memory.total_mb, 0)} MB, "
                f"{memory.available_basis}) at {iso_ms(memory.min_available_ms)}"
            )
            from_ms = to_ms = memory.min_available_ms
        items.append(
            Evidence(
                summary=text,
                observed=round(memory.min_available_pct, 3),
                threshold=f"confirmed <= {LOW_AVAILABLE_PCT:g} % with paging, likely <= "
                f"{LIKELY_AVAILABLE_PCT:g} %",
                unit="%",
                from_ms=from_ms,
                to_ms=to_ms,
                series="mem.free_mb",
                artifact=memory.artifact,
                host=host,
            )
        )
    for rate in memory.rates:
        if rate.run_ms > 0:
            text = (
                f"{memory.label}: {rate.what} >= {fmt_number(rate.threshold)}/s for "
                f"{fmt_duration_ms(rate.run_ms)} from {iso_ms(rate.run_from)} "
                f"(peak {fmt_number(rate.peak)}/s)"
            )
            from_ms, to_ms = rate.run_from, rate.run_to
        else:
            text = f"{memory.label}: {rate.what} peaked at {fmt_number(rate.peak)}/s"
            from_ms = to_ms = rate.peak_ms
        items.append(
            Evidence(
                summary=text,
                observed=round(rate.peak, 3),
                threshold=f">= {fmt_number(rate.threshold)}/s for >= {SUSTAINED_MS} ms",
                unit="pages/s" if rate.what != "major faults" else "faults/s",
                from_ms=from_ms,
                to_ms=to_ms,
                series=rate.series,
                artifact=rate.artifact,
                host=host,
            )
        )
    if np.isfinite(memory.swap_total_mb):
        if memory.swap_total_mb <= 0:
            text = f"{memory.label}: no swap configured"
        else:
            text = (
                f"{memory.label}: swap use grew by {fmt_number(memory.swap_growth_mb, 0)} MB "
                f"during the capture (swap {fmt_number(memory.swap_total_mb, 0)} MB)"
            )
        items.append(
            Evidence(
                summary=text,
                observed=round(memory.swap_growth_mb, 3),
                threshold=f"likely >= {SWAP_GROWTH_MB:g} MB",
                unit="MB",
                from_ms=memory.swap_growth_from,
                to_ms=memory.swap_growth_to,
                series="mem.swap_free_mb",
                artifact=memory.artifact,
                host=host,
            )
        )
    return items


def _grade(memory: HostMemory) -> tuple[str, list[str]]:
    confirmed: list[str] = []
    likely: list[str] = []
    paging_now = False
    for what in ("swap-in", "major faults"):
        rate = memory.rate(what)
        if rate is None:
            continue
        if rate.run_ms >= SUSTAINED_MS:
            confirmed.append(
                f"{what} >= {fmt_number(rate.threshold)}/s for {fmt_duration_ms(rate.run_ms)} "
                f"(peak {fmt_number(rate.peak)}/s)"
            )
        elif rate.run_ms > 0:
            likely.append(f"{what} bursts up to {fmt_number(rate.peak)}/s")
            paging_now = True
    swap_out = memory.rate("swap-out")
    if swap_out is not None and swap_out.run_ms > 0:
        likely.append(f"swap-out up to {fmt_number(swap_out.peak)}/s")
        paging_now = True
    if memory.swap_growth_mb >= SWAP_GROWTH_MB:
        likely.append(f"swap use grew {fmt_number(memory.swap_growth_mb, 0)} MB")
        paging_now = True
    if memory.low_run_ms >= SUSTAINED_MS and (paging_now or confirmed):
        confirmed.append(
            f"available memory <= {LOW_AVAILABLE_PCT:g} % for {fmt_duration_ms(memory.low_run_ms)}"
        )
    elif memory.likely_low_samples:
        likely.append(
            f"available memory down to {memory.min_available_pct:.1f} % "
            f"({fmt_number(memory.min_available_mb, 0)} MB)"
        )
    if confirmed:
        return "confirmed", confirmed + likely
    return ("likely", likely) if likely else ("ruled_out", [])


def _numbers(memory: HostMemory) -> str:
    parts = []
    if np.isfinite(memory.min_available_pct):
        parts.append(
            f"available memory never below {fmt_number(memory.min_available_mb, 0)} MB "
            f"({memory.min_available_pct:.0f} % of {fmt_number(memory.total_mb, 0)} MB)"
        )
    for rate in memory.rates:
        parts.append(f"{rate.what} peak {fmt_number(rate.peak)}/s")
    if np.isfinite(memory.swap_total_mb):
        parts.append(
            "no swap"
            if memory.swap_total_mb <= 0
            else f"swap use +{fmt_number(memory.swap_growth_mb, 0)} MB"
        )
    return ", ".join(parts) + (f" on {memory.host}" if memory.host else "")


def detect(data: IncidentData) -> Finding:
    parameters = parameters_of(globals(), PARAMETERS)
    series: list[SeriesView] = []
    for name in _WANTED:
        series.extend(data.series(name))
    hosts = [m for host, items in by_host(series).items() if (m := _host_memory(host or "", items))]
    if not hosts:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No memory samples (nmon MEM / VM / PAGE): memory pressure cannot be judged.",
            explanation="Memory pressure is read from periodic memory and paging samples of "
            "each host; socket snapshots, GC logs and thread dumps do not show it.",
            missing=list(_MISSING),
            parameters=parameters,
        )
    graded = [(m, *_grade(m)) for m in hosts]
    order = {"confirmed": 0, "likely": 1, "ruled_out": 2}
    graded.sort(
        key=lambda g: (
            order[g[1]],
            g[0].min_available_pct if np.isfinite(g[0].min_available_pct) else 100.0,
        )
    )
    lead, grade, reasons = graded[0]
    evidence = [item for m, _, _ in graded for item in _evidence(m)]

    verdict: Verdict
    remedies: list[str] = []
    if grade == "ruled_out":
        verdict = "ruled_out"
        summary = "No memory pressure: " + "; ".join(_numbers(m) for m, _, _ in graded) + "."
        explanation = (
            f"Available memory stayed above {LIKELY_AVAILABLE_PCT:g} % and nothing was paged at "
            f"{fmt_number(SWAPIN_PAGES_PER_S)} pages/s or faulted at {fmt_number(MAJFAULT_PER_S)}/s: "
            "the host had memory to spare, so the slowness did not come from reclaim or swap."
        )
    else:
        verdict = "confirmed" if grade == "confirmed" else "likely"
        summary = f"{lead.label}: " + "; ".join(reasons) + "."
        explanation = (
            "With free memory and droppable page cache exhausted, the kernel reclaims on the "
            "allocating thread's time, evicts pages of running processes (major faults: a disk "
            "read on next touch) and swaps anonymous memory; a JVM heap that is partly swapped "
            "out turns each GC into disk reads and stalls every thread. "
            f"Here: {_numbers(lead)}."
        )
        remedies = [
            "Fit the working set: lower -Xmx (heap + metaspace + direct buffers + thread stacks "
            "must fit in RAM with room for the page cache), or add memory.",
            "Keep the JVM out of swap: vm.swappiness=1 (sysctl -w vm.swappiness=1), "
            "-XX:+AlwaysPreTouch with -Xms = -Xmx, or disable swap on latency-critical hosts.",
            "Find the consumer: nmon TOP ResSet / `ps aux --sort=-rss | head`; containers: the "
            "cgroup memory.max and memory.stat (pgmajfault).",
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
