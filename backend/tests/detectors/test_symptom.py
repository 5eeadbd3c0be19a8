"""The application's symptom window (robust rise over the early baseline) and which causes
overlap it: hand-computed numbers on our own fixtures and on a lab GC capture."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from rootline import offline
from rootline.detectors import symptom
from rootline.detectors.base import SeriesView
from rootline.detectors.data import MemoryIncidentData
from rootline.parsers.base import ParseContext
from tests.conftest import FIXTURES_DIR
from tests.detectors.conn_incident import LAB_FIXTURES

LATENCY_CSV = FIXTURES_DIR / "app_metrics" / "checkout-latency.csv"
GC_STORM = LAB_FIXTURES / "gc_pauses" / "base" / "rootline-app-20261121T075211.tar.gz"
# "Uploaded" at 07:49:00, a minute before the CSV's first row: a file whose first time is the
# upload time holds none of its own (placed_at_upload), so the two must not coincide.
CONTEXT = ParseContext.for_zone("UTC", default_time_ms=1_795_247_340_000)


def at(hour: int, minute: int, second: int) -> int:
    return int(dt.datetime(2026, 11, 21, hour, minute, second, tzinfo=dt.UTC).timestamp() * 1000)


def view(name: str, unit: str, values: list[float], step_ms: int = 1000) -> SeriesView:
    times = np.arange(len(values), dtype=np.int64) * step_ms
    return SeriesView(name, {}, unit, None, "x", times, np.asarray(values, dtype=np.float64))


def test_latency_csv_golden_window() -> None:
    data = MemoryIncidentData(offline.parse_path(LATENCY_CSV, CONTEXT, None))
    found = symptom.find_symptom(data)
    assert found is not None
    # Baseline: the first 30 of 121 points cycle 11, 12, 13, 12: median 12, MAD 0.5, so
    # 12 + 5 x 1.4826 x 0.5 = 15.7 < 12 x 1.5 = 18: the threshold is 18 ms.
    assert (found.series, found.kind, found.unit) == (
        "app.checkout_latency.p99_ms",
        "latency",
        "ms",
    )
    assert (found.baseline, found.threshold, found.peak) == (12.0, 18.0, 490.0)
    assert (found.start_ms, found.end_ms) == (at(7, 52, 12), at(7, 52, 34))
    assert found.summary == (
        "app.checkout_latency.p99_ms rose from 12 ms (its early median) to 490 ms at"
        " 2026-11-21T07:52:12Z, above 18 ms until 2026-11-21T07:52:34Z (22.0 s)"
    )


def test_errors_rise_in_the_same_window_but_latency_is_preferred() -> None:
    data = MemoryIncidentData(offline.parse_path(LATENCY_CSV, CONTEXT, None))
    (errors,) = data.series("app.checkout_latency.errors")
    assert symptom.kind_of(errors) == "errors"
    rise = symptom.find_rise(errors.times_ms, errors.values, 1.0)
    assert rise is not None
    # Baseline 0 (MAD 0): the threshold is the minimum step, 1 error.
    assert (rise.baseline, rise.threshold, rise.peak) == (0.0, 1.0, 3.0)
    assert (rise.start, rise.end) == (at(7, 52, 12), at(7, 52, 34))
    (rps,) = data.series("app.checkout_latency.rps")
    assert symptom.kind_of(rps) is None  # throughput is not a symptom series


def test_no_symptom_without_a_sustained_rise() -> None:
    flat = view("app.x.p99_ms", "ms", [12, 13, 12, 11, 12, 13, 12, 12, 13, 12, 12, 12])
    blip = view("app.x.p99_ms", "ms", [12, 13, 12, 11, 12, 13, 400, 400, 12, 12, 12, 12])
    early = view("app.x.p99_ms", "ms", [400] * 6 + [12] * 6)  # the rise is the baseline
    short = view("app.x.p99_ms", "ms", [12, 12, 400, 400, 400])
    assert all(symptom.symptom_of([s]) is None for s in (flat, blip, early, short))


def test_jitter_on_a_flat_baseline_is_not_a_rise() -> None:
    # MAD 0: without the 50 % floor, 13 ms against a baseline of 12 would be a rise.
    jitter = view("app.x.p99_ms", "ms", [12] * 8 + [13, 14, 15, 16, 17, 13])
    assert symptom.symptom_of([jitter]) is None


def test_errors_are_the_symptom_when_no_latency_rose() -> None:
    errors = view("app.log.errors", "per_s", [0] * 8 + [5, 6, 7, 0, 0, 0])
    latency = view("app.x.p99_ms", "ms", [12] * 14)
    found = symptom.symptom_of([latency, errors])
    assert found is not None and found.kind == "errors"
    assert (found.start_ms, found.end_ms, found.peak) == (8000, 10_000, 7.0)


def test_earliest_latency_rise_wins() -> None:
    later = view("app.a.p99_ms", "ms", [10] * 10 + [90] * 4)
    earlier = view("app.b.latency", "ms", [10] * 8 + [30] * 6)
    found = symptom.symptom_of([later, earlier])
    assert found is not None and found.series == "app.b.latency"


SYMPTOM = symptom.Symptom(
    "app.x.p99_ms", {}, None, "ms", "latency", 600_000, 660_000, 12.0, 18.0, 490.0, ""
)


@pytest.mark.parametrize(
    ("verdict", "evidence", "overlaps"),
    [
        ("confirmed", [{"from_ms": 650_000, "to_ms": 700_000, "met": True}], True),
        # Within a minute before the window: a cause slightly ahead of its symptom.
        ("likely", [{"from_ms": 500_000, "to_ms": 545_000, "met": None}], True),
        ("confirmed", [{"from_ms": 100_000, "to_ms": 200_000, "met": True}], False),
        # Evidence short of its threshold is not where the cause is.
        ("confirmed", [{"from_ms": 650_000, "to_ms": 700_000, "met": False}], None),
        ("confirmed", [{"from_ms": None, "to_ms": None, "met": True}], None),
        ("ruled_out", [{"from_ms": 650_000, "to_ms": 700_000, "met": True}], None),
        ("insufficient_data", [], None),
    ],
)
def test_overlap(verdict: str, evidence: list[dict[str, object]], overlaps: bool | None) -> None:
    result = symptom.overlap(SYMPTOM, verdict, evidence)
    assert result.overlaps is overlaps
    assert (result.sentence is None) == (verdict not in ("confirmed", "likely"))


def test_overlap_sentences() -> None:
    before = symptom.overlap(SYMPTOM, "confirmed", [{"from_ms": 100_000, "to_ms": 200_000}])
    assert before.sentence == (
        "Its evidence (1970-01-01T00:01:40Z to 1970-01-01T00:03:20Z) ends 6.7 min before the"
        " symptom starts."
    )
    assert symptom.overlap(None, "confirmed", []).overlaps is None


@pytest.mark.skipif(not GC_STORM.is_file(), reason="lab fixtures not found")
def test_a_gc_storm_overlaps_the_latency_rise() -> None:
    # The lab's GC storm (07:52:11-07:52:35, longest pause 337 ms at 07:52:17) and the
    # hand-written latency CSV whose p99 rises 07:52:12-07:52:34: the confirmed cause
    # overlaps the symptom, and the items without data are not asked.
    findings, parsed = offline.analyze([GC_STORM, LATENCY_CSV], CONTEXT)
    found = symptom.find_symptom(MemoryIncidentData(parsed))
    assert found is not None and found.series == "app.checkout_latency.p99_ms"
    by_id = {f.id: f for f in findings}
    assert by_id["gc_pauses"].verdict == "confirmed"
    gc = symptom.overlap(found, "confirmed", by_id["gc_pauses"].to_dict()["evidence"])
    assert gc.overlaps is True
    overlapping = [
        f.id
        for f in findings
        if symptom.overlap(found, f.verdict, f.to_dict()["evidence"]).overlaps
    ]
    assert "gc_pauses" in overlapping


def test_the_baseline_is_the_first_quarter_of_the_time_span_not_of_the_points() -> None:
    """Points only where errors were (a 0 either side): a single early error, then a burst of
    two minutes. The first quarter of the *points* is the burst itself; of the time, quiet."""
    times = [9_000, 10_000, 11_000] + [899_000] + [900_000 + 1000 * n for n in range(120)]
    times.append(1_020_000)
    values = [0.0, 1.0, 0.0, 0.0] + [5.0] * 120 + [0.0]
    errors = SeriesView(
        "app.log.errors", {}, "per_s", None, "x", np.asarray(times), np.asarray(values)
    )
    found = symptom.symptom_of([errors])
    assert found is not None and found.kind == "errors"
    assert 900_000 <= found.start_ms <= 902_000 and found.end_ms == 1_019_000


def test_errors_going_from_none_to_one_a_second_for_minutes_are_the_symptom() -> None:
    errors = view("app.log.errors", "per_s", [0] * 600 + [1] * 300 + [0] * 60)
    found = symptom.symptom_of([errors])
    assert found is not None
    assert (found.start_ms, found.end_ms, found.baseline, found.threshold) == (
        600_000,
        899_000,
        0.0,
        1.0,
    )
    # Latency must still pass its threshold, not just reach it.
    latency = view("app.x.p99_ms", "ms", [12] * 20 + [18] * 10)
    assert symptom.symptom_of([latency]) is None
