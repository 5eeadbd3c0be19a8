"""The application's symptom: when its latency (or its errors) rose, and which causes overlap it.

A postmortem starts from what the users saw. The application's own series (``app.*``: the
:mod:`rootline.parsers.app_metrics` columns and the :mod:`rootline.parsers.app_log` counts)
say when that was; the checklist then says which of its confirmed or likely causes were at
work in that window.

Method (robust change detection, per series, on its points in time order):

1. Candidates: *latency* series (unit ``ms``, ``us``, ``ns`` or ``s``) and *error* series (unit
   ``count`` or ``per_s`` with an error word in the name: ``errors``, ``failures``,
   ``timeouts``, ``5xx`` ..., and ``app.log.errors``), with at least :data:`MIN_POINTS` points.
2. Baseline: the points in the first quarter of the series' *time span* (at least
   :data:`MIN_BASELINE_POINTS`; by time, not by points: a series with points only where
   something happened would otherwise take its burst as its baseline): their median ``m``
   and their MAD scaled to a standard deviation, ``s = 1.4826 * MAD``.
3. Threshold: ``max(m + K_MAD * s, m * (1 + MIN_RELATIVE_RISE), m + minimum step)``. The
   relative and absolute floors keep a flat baseline (MAD 0) from calling jitter a rise; the
   minimum step is 1 ms for latency (in the series' unit) and 1 for error counts and rates.
   Latency must pass the threshold; errors need only reach it (0 errors a second, then 1 a
   second for minutes, is a rise).
4. Rise: the first run of :data:`SUSTAIN_POINTS` consecutive points after the baseline all
   above the threshold (at or above it for errors); the window starts at its first point. It ends at the last point above
   the threshold before :data:`SUSTAIN_POINTS` consecutive points at or below it (or at the
   series' end). ``peak`` is the highest value in the window.
5. The symptom is the latency rise if any series has one (the earliest; the larger rise
   against its threshold on a tie), else the earliest error rise; none otherwise.

Overlap: a finding overlaps the symptom when one of its timed evidence items that is not short
of its threshold (``met`` true or unknown) and whose time was read, not assumed (no
``time_assumed``: see :mod:`rootline.detectors.assumed_time`), has a range within
:data:`OVERLAP_TOLERANCE_MS` of the window (a cause seen a little before the symptom still counts: snapshots are seconds apart,
nmon a minute). Only confirmed and likely findings are candidates; for the others the question
is not asked (``None``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import ArtifactTime, IncidentData, SeriesView
from rootline.detectors.quantities import fmt_duration_ms, fmt_number, iso_ms
from rootline.parsers.base import PLACED_AT_UPLOAD, UNANCHORED

SymptomKind = Literal["latency", "errors"]

MIN_POINTS = 8
MIN_BASELINE_POINTS = 5
BASELINE_SHARE = 0.25
K_MAD = 5.0
MAD_TO_SIGMA = 1.4826
MIN_RELATIVE_RISE = 0.5
SUSTAIN_POINTS = 3
OVERLAP_TOLERANCE_MS = 60_000

_LATENCY_UNITS: dict[str, float] = {"ms": 1.0, "us": 1000.0, "ns": 1e6, "s": 0.001}  # 1 ms
_ERROR_WORD = re.compile(
    r"(?:^|[._])(?:errors?|errs?|failures?|failed|fails?|timeouts?|exceptions?|5xx|rejected|rejections)(?:$|[._])"
)
CAUSE_VERDICTS = ("confirmed", "likely")


@dataclass(frozen=True, slots=True)
class Symptom:
    """When the application's latency or errors rose: one series' window."""

    series: str
    labels: dict[str, str]
    host: str | None
    unit: str
    kind: SymptomKind
    start_ms: int
    end_ms: int
    baseline: float
    threshold: float
    peak: float
    summary: str
    # What of its file's times was assumed (``app_log.date_assumed`` ...: see ArtifactTime):
    # the window is then where the file was put, not where it was seen.
    time_assumed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def kind_of(series: SeriesView) -> SymptomKind | None:
    """Whether a series can show the symptom: latency, errors, or neither."""
    if series.unit in _LATENCY_UNITS:
        return "latency"
    if series.unit in ("count", "per_s") and _ERROR_WORD.search(series.name):
        return "errors"
    return None


@dataclass(frozen=True, slots=True)
class _Rise:
    start: int
    end: int
    baseline: float
    threshold: float
    peak: float


def find_rise(
    times_ms: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    minimum_step: float,
    *,
    reaching: bool = False,
) -> _Rise | None:
    """The first sustained rise above the early baseline (steps 2-4 of the module's method).

    >>> t = np.arange(12, dtype=np.int64) * 1000
    >>> v = np.array([10, 11, 10, 12, 10, 11, 50, 60, 55, 10, 10, 10], dtype=np.float64)
    >>> rise = find_rise(t, v, 1.0)
    >>> (rise.start, rise.end, rise.baseline, rise.peak)
    (6000, 8000, 10.0, 60.0)

    ``reaching``: a point at the threshold counts as above it (error counts).
    """
    finite = np.isfinite(values)
    times_ms, values = times_ms[finite], values[finite]
    count = len(values)
    if count < MIN_POINTS:
        return None
    baseline_end = times_ms[0] + (times_ms[-1] - times_ms[0]) * BASELINE_SHARE
    in_first_quarter = int(np.searchsorted(times_ms, baseline_end, side="left"))
    baseline_count = max(MIN_BASELINE_POINTS, in_first_quarter)
    if count < baseline_count + SUSTAIN_POINTS:
        return None
    early = values[:baseline_count]
    median = float(np.median(early))
    sigma = MAD_TO_SIGMA * float(np.median(np.abs(early - median)))
    threshold = max(median + K_MAD * sigma, median * (1 + MIN_RELATIVE_RISE), median + minimum_step)
    above = values >= threshold if reaching else values > threshold
    run = 0
    start = None
    for index in range(baseline_count, count):
        run = run + 1 if above[index] else 0
        if run == SUSTAIN_POINTS:
            start = index - SUSTAIN_POINTS + 1
            break
    if start is None:
        return None
    last_above, quiet = start, 0
    for index in range(start, count):
        if above[index]:
            last_above, quiet = index, 0
        else:
            quiet += 1
            if quiet >= SUSTAIN_POINTS:
                break
    peak = float(values[start : last_above + 1].max())
    return _Rise(int(times_ms[start]), int(times_ms[last_above]), median, threshold, peak)


def _value(value: float, unit: str) -> str:
    if unit == "ms":
        return fmt_duration_ms(value)
    if unit == "per_s":
        return f"{fmt_number(value)}/s"
    if unit in ("count", ""):
        return fmt_number(value)
    return f"{fmt_number(value)} {unit}"


def _said(assumed: Sequence[tuple[str, str]]) -> str:
    """What was assumed of a file's times, briefly."""
    parts = []
    for what, detail in assumed:
        if what == PLACED_AT_UPLOAD:
            parts.append("no timestamp: placed at the upload time")
        elif what == UNANCHORED:
            parts.append("JVM uptimes only")
        else:
            parts.append(f"{what} = {detail}")
    return "; ".join(parts)


def _summary(series: SeriesView, rise: _Rise) -> str:
    what = series.name + (f" on {series.host}" if series.host else "")
    return (
        f"{what} rose from {_value(rise.baseline, series.unit)} (its early median) to"
        f" {_value(rise.peak, series.unit)} at {iso_ms(rise.start)}, above"
        f" {_value(rise.threshold, series.unit)} until {iso_ms(rise.end)}"
        f" ({fmt_duration_ms(rise.end - rise.start)})"
    )


def find_symptom(data: IncidentData) -> Symptom | None:
    """The application's symptom window, or None when no app series rose (see the module)."""
    by_name: dict[str, list[ArtifactTime]] = {}
    for placed in data.artifact_times():
        by_name.setdefault(placed.artifact, []).append(placed)
    assumed = {
        name: tuple(pair for t in found for pair in t.assumed)
        for name, found in by_name.items()
        if all(t.assumed for t in found)
    }
    return symptom_of(data.series("app.*"), assumed)


def symptom_of(
    series: Iterable[SeriesView], assumed: Mapping[str, Sequence[tuple[str, str]]] | None = None
) -> Symptom | None:
    """:func:`find_symptom` over given series; ``assumed``: what of each file's times was
    assumed, by file (:meth:`IncidentData.artifact_times`), for those it holds."""
    best: tuple[tuple[int, int, float], Symptom] | None = None
    for view in series:
        kind = kind_of(view)
        if kind is None:
            continue
        step = _LATENCY_UNITS.get(view.unit, 1.0)
        rise = find_rise(view.times_ms, view.values, step, reaching=kind == "errors")
        if rise is None:
            continue
        # Latency first, then the earliest, then the larger rise against its threshold.
        rank = (0 if kind == "latency" else 1, rise.start, -rise.peak / max(rise.threshold, 1e-9))
        if best is None or rank < best[0]:
            guessed = (assumed or {}).get(view.artifact, ())
            summary = _summary(view, rise)
            if guessed:
                summary += (
                    f"; its file's times were assumed ({_said(guessed)}), so the window is"
                    " where the file was put, not where it was seen"
                )
            symptom = Symptom(
                series=view.name,
                labels=dict(view.labels),
                host=view.host,
                unit=view.unit,
                kind=kind,
                start_ms=rise.start,
                end_ms=rise.end,
                baseline=rise.baseline,
                threshold=rise.threshold,
                peak=rise.peak,
                summary=summary,
                time_assumed=", ".join(dict.fromkeys(what for what, _ in guessed)) or None,
            )
            best = (rank, symptom)
    return best[1] if best else None


@dataclass(frozen=True, slots=True)
class Overlap:
    """Whether a finding's evidence falls in the symptom window, and a sentence saying so."""

    overlaps: bool | None
    sentence: str | None


def overlap(
    symptom: Symptom | None, verdict: str, evidence: Sequence[Mapping[str, Any]]
) -> Overlap:
    """Does a finding with ``verdict`` and ``evidence`` (as in the API) overlap ``symptom``?

    >>> s = Symptom("app.x.p99_ms", {}, None, "ms", "latency", 60_000, 120_000, 12, 18, 490, "")
    >>> overlap(s, "confirmed", [{"from_ms": 100_000, "to_ms": 110_000, "met": True}]).overlaps
    True
    >>> overlap(s, "likely", [{"from_ms": 600_000, "to_ms": 610_000, "met": None}]).sentence
    'Its evidence (1970-01-01T00:10:00Z to 1970-01-01T00:10:10Z) starts 8.0 min after the symptom ends.'
    >>> overlap(s, "ruled_out", []).overlaps is None
    True
    """
    if symptom is None or verdict not in CAUSE_VERDICTS:
        return Overlap(None, None)
    if symptom.time_assumed:
        return Overlap(
            None,
            f"The symptom's time was assumed ({symptom.time_assumed}: its file carries no"
            " date or no timestamp), so whether this overlaps it is unknown.",
        )
    timed = [e for e in evidence if e.get("from_ms") is not None and e.get("met") is not False]
    # Evidence whose time was assumed (an undated listing placed at the upload time) sits
    # where it was put, not where it was seen: it overlaps nothing.
    ranges = [
        (int(e["from_ms"]), int(e.get("to_ms") or e["from_ms"]))
        for e in timed
        if not e.get("time_assumed")
    ]
    if timed and not ranges:
        return Overlap(
            None,
            "Its evidence's time was assumed, not read (a file without a timestamp or a date),"
            " so whether it overlaps the symptom is unknown.",
        )
    if not ranges:
        return Overlap(
            None, "Its evidence carries no time, so whether it overlaps the symptom is unknown."
        )
    low = symptom.start_ms - OVERLAP_TOLERANCE_MS
    high = symptom.end_ms + OVERLAP_TOLERANCE_MS
    first = min(start for start, _ in ranges)
    last = max(end for _, end in ranges)
    span = f"{iso_ms(first)} to {iso_ms(last)}"
    if any(start <= high and end >= low for start, end in ranges):
        return Overlap(True, f"Its evidence ({span}) overlaps the symptom window.")
    if last < low:
        gap = fmt_duration_ms(symptom.start_ms - last)
        return Overlap(False, f"Its evidence ({span}) ends {gap} before the symptom starts.")
    gap = fmt_duration_ms(first - symptom.end_ms)
    return Overlap(False, f"Its evidence ({span}) starts {gap} after the symptom ends.")
