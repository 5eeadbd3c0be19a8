"""Time-series helpers shared by detectors: runs, windows, percentiles, step lookups, prose.

Kept beside :mod:`rootline.detectors.signals` (same rules: pure, documented, add, never
rename) because several helpers rewrote ``signals.py`` at the same moment this session and
functions appended to it were lost; the lead may fold this module into it. Times are UTC
epoch milliseconds; series arrays come sorted by time
(:class:`rootline.detectors.base.SeriesView`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import FactView, SeriesView


def typical_interval_ms(times_ms: npt.NDArray[np.int64]) -> float:
    """Median spacing of positive steps between samples, in ms (0.0 with fewer than 2 times).

    Duplicate times (two artifacts stamping the same second) are ignored, so the spacing of a
    1 s capture stays 1000 ms.

    >>> typical_interval_ms(np.array([0, 1000, 1000, 2000, 5000]))
    1000.0
    """
    if len(times_ms) < 2:
        return 0.0
    steps = np.diff(np.asarray(times_ms, dtype=np.int64))
    steps = steps[steps > 0]
    return float(np.median(steps)) if len(steps) else 0.0


def true_runs(mask: npt.NDArray[np.bool_]) -> list[tuple[int, int]]:
    """Index ranges ``(first, last)`` (inclusive) of consecutive True values in ``mask``.

    >>> true_runs(np.array([False, True, True, False, True]))
    [(1, 2), (4, 4)]
    """
    flags = np.asarray(mask, dtype=bool)
    if not len(flags):
        return []
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.diff(padded)
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def run_duration_ms(times_ms: npt.NDArray[np.int64], first: int, last: int) -> float:
    """How long a run of samples ``first..last`` covers: last - first plus one sample interval.

    A single sample of a 5 s capture stands for 5 s, not 0 s, so runs compare across capture
    intervals.
    """
    if not len(times_ms):
        return 0.0
    return float(times_ms[last] - times_ms[first]) + typical_interval_ms(times_ms)


def longest_true_run(
    times_ms: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_]
) -> tuple[int, int, float] | None:
    """The run of True samples covering the longest time: ``(first, last, duration_ms)``."""
    best: tuple[int, int, float] | None = None
    for first, last in true_runs(mask):
        duration = run_duration_ms(times_ms, first, last)
        if best is None or duration > best[2]:
            best = (first, last, duration)
    return best


def step_values_at(
    times_ms: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    at_ms: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """A step series (the last sample at or before each instant) read at ``at_ms``.

    Instants before the first sample take the first value; an empty series gives NaN.

    >>> step_values_at(np.array([10, 20]), np.array([1.0, 2.0]), np.array([5, 10, 15, 25]))
    array([1., 1., 1., 2.])
    """
    query = np.asarray(at_ms, dtype=np.int64)
    if not len(times_ms):
        return np.full(len(query), np.nan)
    index = np.searchsorted(times_ms, query, side="right") - 1
    return np.asarray(values, dtype=np.float64)[np.clip(index, 0, len(values) - 1)]


def nearest_rank_percentile(values: npt.ArrayLike, percent: float) -> float:
    """The nearest-rank percentile (the value at rank ceil(p/100 * n)); NaN when empty.

    >>> nearest_rank_percentile([5.0, 1.0, 3.0, 2.0, 4.0], 99)
    5.0
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    if not len(ordered):
        return float("nan")
    rank = int(np.ceil(percent / 100.0 * len(ordered)))
    return float(ordered[min(max(rank, 1), len(ordered)) - 1])


def densest_window(
    starts_ms: npt.NDArray[np.int64], durations_ms: npt.NDArray[np.float64], window_ms: int
) -> tuple[int, float]:
    """The window of ``window_ms`` holding the most span time: ``(window_start_ms, total_ms)``.

    Windows start at a span's start (where the maximum always is). Spans are taken as
    sequential, as stop-the-world pauses of one JVM are: only the last span starting in a
    window can reach past its end, and only its part inside counts, so one 30 s pause gives
    at most ``window_ms``. Vectorised: 200 000 pauses take milliseconds.

    >>> densest_window(np.array([0, 1000, 50000]), np.array([100.0, 200.0, 900.0]), 10000)
    (50000, 900.0)
    >>> densest_window(np.array([0]), np.array([30000.0]), 10000)
    (0, 10000.0)
    """
    if not len(starts_ms) or window_ms <= 0:
        return 0, 0.0
    order = np.argsort(starts_ms, kind="stable")
    starts = np.asarray(starts_ms, dtype=np.int64)[order]
    durations = np.maximum(np.asarray(durations_ms, dtype=np.float64)[order], 0.0)
    cumulative = np.concatenate(([0.0], np.cumsum(durations)))
    window_ends = starts + window_ms
    after_last = np.searchsorted(starts, window_ends, side="left")  # index past the window
    totals = cumulative[after_last] - cumulative[np.arange(len(starts))]
    last = after_last - 1
    overflow = np.maximum(starts[last] + durations[last] - window_ends, 0.0)
    totals = np.clip(totals - overflow, 0.0, float(window_ms))
    best = int(np.argmax(totals))
    return int(starts[best]), float(totals[best])


def overlap_ms(a_from: float, a_to: float, b_from: float, b_to: float) -> float:
    """Length of the intersection of two time ranges (0.0 when they do not meet)."""
    return max(0.0, min(a_to, b_to) - max(a_from, b_from))


def iso_ms(time_ms: float | None) -> str:
    """An epoch-ms instant as ``YYYY-mm-ddTHH:MM:SSZ`` (``?`` when unknown), for summaries.

    >>> iso_ms(0)
    '1970-01-01T00:00:00Z'
    """
    if time_ms is None or not np.isfinite(time_ms):
        return "?"
    moment = dt.datetime.fromtimestamp(float(time_ms) / 1000.0, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fmt_number(value: float, digits: int = 1) -> str:
    """A number for prose: integers without decimals, others with ``digits`` decimals.

    >>> fmt_number(8.0), fmt_number(2.345), fmt_number(float("nan"))
    ('8', '2.3', 'n/a')
    """
    if not np.isfinite(value):
        return "n/a"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def fmt_duration_ms(duration_ms: float) -> str:
    """A duration for prose: ``850 ms``, ``2.4 s``, ``3.5 min``.

    >>> fmt_duration_ms(0.011), fmt_duration_ms(5.25), fmt_duration_ms(850), fmt_duration_ms(2400)
    ('0.01 ms', '5.2 ms', '850 ms', '2.4 s')
    """
    if not np.isfinite(duration_ms):
        return "n/a"
    if duration_ms == 0:
        return "0 ms"
    if duration_ms < 1000:
        if duration_ms >= 10:
            return f"{duration_ms:.0f} ms"
        return f"{duration_ms:.1f} ms" if duration_ms >= 1 else f"{duration_ms:.2f} ms"
    if duration_ms < 120_000:
        return f"{duration_ms / 1000:.1f} s"
    return f"{duration_ms / 60_000:.1f} min"


def series_by_host(series: Sequence[SeriesView]) -> dict[str, list[SeriesView]]:
    """Series grouped by host (``""`` for series without one), hosts in sorted order."""
    grouped: dict[str, list[SeriesView]] = {}
    for item in series:
        grouped.setdefault(item.host or "", []).append(item)
    return dict(sorted(grouped.items()))


def merged_series(
    series: Sequence[SeriesView],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Points of several series of one quantity (e.g. two captures of one host) as one.

    Sorted by time; duplicate instants keep the largest value; NaN values are dropped.
    """
    if not series:
        return np.array([], dtype=np.int64), np.array([], dtype=np.float64)
    times = np.concatenate([np.asarray(s.times_ms, dtype=np.int64) for s in series])
    values = np.concatenate([np.asarray(s.values, dtype=np.float64) for s in series])
    finite = np.isfinite(values)
    times, values = times[finite], values[finite]
    order = np.lexsort((-values, times))
    times, values = times[order], values[order]
    if not len(times):
        return times, values
    keep = np.concatenate(([True], np.diff(times) > 0))
    return times[keep], values[keep]


def first_fact_number(facts: Sequence[FactView]) -> float | None:
    """The first fact whose value reads as a finite number (``"8"``, ``"91.4 MB"``), else None."""
    for fact in facts:
        try:
            number = float(fact.value.strip().split()[0])
        except (ValueError, IndexError):
            continue
        if np.isfinite(number):
            return number
    return None
