"""The shared helpers the network detectors lean on: periods, counter increments, windows."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors.base import SeriesView
from rootline.detectors.quantities import (
    connection_series,
    counter_increments,
    dominant_period,
    exact_values_at,
    fmt_duration_ms,
    full_windows,
    held_intervals,
    median,
    reading_progress,
    span_near_peak,
    window_held_intervals,
    zero_windows,
)
from tests.detectors.conn_incident import connection
from tests.detectors.net_incident import T0, Capture, incident


def test_dominant_period_finds_a_spike_train_and_not_its_harmonics() -> None:
    times = (T0 + np.arange(600) * 1000).astype(np.int64)
    values = np.where(np.arange(600) % 60 < 2, 100.0, 5.0)
    found = dominant_period(times, values, min_period_s=5, max_period_s=300, min_cycles=3)
    assert found is not None
    assert found.period_s == 60 and found.strength > 0.9 and found.cycles == 10
    assert len(found.peak_ms) == 10 and found.spike_ratio == 20


def test_dominant_period_ignores_ramps_flat_lines_and_short_series() -> None:
    times = (T0 + np.arange(300) * 1000).astype(np.int64)
    assert dominant_period(times, np.arange(300.0), min_period_s=5, max_period_s=300) is None
    assert dominant_period(times, np.ones(300), min_period_s=5, max_period_s=300) is None
    assert dominant_period(times[:3], np.ones(3), min_period_s=5, max_period_s=300) is None


def test_dominant_period_with_duplicate_and_uneven_times() -> None:
    seconds = np.sort(np.concatenate([np.arange(0, 300, 2), [10, 10, 11]]))
    times = (T0 + seconds * 1000).astype(np.int64)
    values = np.where(seconds % 30 < 4, 50.0, 1.0)
    found = dominant_period(times, values, min_period_s=5, max_period_s=300)
    assert found is not None and abs(found.period_s - 30) <= 2


def test_counter_increments_from_totals_deltas_and_rates_agree() -> None:
    total = Capture(host="a").counter("TcpOutSegs", [10, 20, 30])
    delta = Capture(host="b").series("netstat.TcpOutSegs.delta", [0, 10, 20, 30], unit="count")
    rate = Capture(host="c").series("netstat.TcpOutSegs", [0, 5, 10, 15], step_s=2, unit="per_s")
    found = counter_increments(incident(total, delta, rate), "TcpOutSegs")
    assert {host: inc.total for host, inc in found.items()} == {"a": 60, "b": 60, "c": 60}


def test_counter_reset_counts_nothing() -> None:
    capture = Capture().series("netstat.TcpOutSegs.total", [100, 150, 20, 50], unit="count")
    inc = counter_increments(incident(capture), "TcpOutSegs")["h1"]
    assert list(inc.increments) == [50, 0, 30]


def test_full_windows_only_whole_windows_or_the_whole_capture() -> None:
    ends = (T0 + np.arange(1, 11) * 1000).astype(np.int64)
    gaps = np.ones(10)
    first, stop = full_windows(ends, gaps, 3)
    assert list(first) == list(range(8)) and all(stop - first == 3)
    first, stop = full_windows(ends, gaps, 60)
    assert list(first) == [0] and list(stop) == [10]


def test_span_near_peak() -> None:
    times = np.arange(6, dtype=np.int64)
    assert span_near_peak(times, np.array([1.0, 9, 10, 9.5, 2, 10]), 0.9) == (1, 3)
    assert span_near_peak(times[:0], np.array([]), 0.9) == (0, 0)


def _row(**fields):  # type: ignore[no-untyped-def]
    capture = connection(Capture(kind="ss", host="h"), "10.0.0.1:1", "10.0.0.2:2", **fields)
    row = connection_series(incident(capture), tuple(k.replace("__", ".") for k in fields))
    return row[("h", "10.0.0.1:1", "10.0.0.2:2")]


def test_reading_progress_counts_the_intervals_held_at_both_ends() -> None:
    # held at snapshots 1..4; the counter grows 1->2 and 3->4, stays flat 2->3; not read at 5
    row = _row(bytes_received=[0.0, 10.0, 20.0, 20.0, 50.0, 60.0])
    times = row["bytes_received"].times_ms
    held = held_intervals(np.array([False, True, True, True, True, False]))
    assert held.tolist() == [False, True, True, True, False]
    progress = reading_progress(row, "bytes_received", times, held)
    assert progress is not None
    assert (progress.intervals, progress.grew) == (3, 2)
    assert progress.moved_bytes == 40.0 and progress.held_ms == 3000.0
    assert progress.rate == 40.0 / 3 and abs(progress.flat_share - 1 / 3) < 1e-9
    assert progress.span == (int(times[1]), int(times[4]))
    # nothing held, no counter, or a counter not read at an interval's ends: no progress
    assert reading_progress(row, "bytes_received", times, np.zeros(5, dtype=bool)) is None
    assert reading_progress(row, "bytes_acked", times, held) is None
    assert held_intervals(np.array([True])).tolist() == []


def test_window_held_intervals_read_the_rwnd_limited_clock_against_busy() -> None:
    # busy +1000 ms per interval; rwnd_limited +0, +300, +200, +1000 ms: held >= 25 %
    row = _row(
        busy_ms=[1000.0, 2000.0, 3000.0, 4000.0, 5000.0],
        rwnd_limited_ms=[0.0, 0.0, 300.0, 500.0, 1500.0],
    )
    times = row["busy_ms"].times_ms
    assert window_held_intervals(row, times, 25.0).tolist() == [False, True, False, True]
    assert window_held_intervals(_row(busy_ms=[1.0, 2.0]), times[:2], 25.0).tolist() == [False]


def test_zero_windows_take_the_larger_of_two_names_for_the_same_events() -> None:
    data = incident(
        Capture(kind="nstat", host="a").counter("TcpExtTCPToZeroWindowAdv", [0, 2, 1]),
        Capture(kind="nstat", host="a").counter("TcpExtTCPWantZeroWindowAdv", [0, 5, 1]),
        Capture(kind="nstat", host="a").counter("TcpExtTCPWinProbe", [0, 1, 0]),
    )
    found = zero_windows(data)["a"]
    assert (found.advertised, found.probes, found.events) == (6.0, 1.0, 7.0)
    assert found.shown.source.name.startswith("netstat.TcpExtTCPWantZeroWindowAdv")


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.floats(allow_nan=False, allow_infinity=False, width=64) | st.integers(-(10**9), 10**9),
        min_size=1,
        max_size=300,
    )
)
def test_median_is_numpys_exactly(values: list[float]) -> None:
    floats = np.array(values, dtype=np.float64)
    assert median(floats) == float(np.median(floats))
    ints = np.array([int(v) for v in values if float(v).is_integer() and abs(v) < 2**53])
    if len(ints):
        assert median(ints) == float(np.median(ints))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 40), max_size=30, unique=True),
    st.lists(st.integers(0, 40), max_size=30, unique=True),
)
def test_exact_values_at_reads_the_point_taken_at_each_instant(
    have: list[int], want: list[int]
) -> None:
    """Also when the series was sampled at exactly the instants asked (the quick path): the
    same values, in an array of its own."""
    times = np.array(sorted(have), dtype=np.int64)
    series = SeriesView("s", {}, "", None, "f", times, times * 10.0 + 0.5)
    for instants in (np.array(sorted(want), dtype=np.int64), times.copy()):
        found = exact_values_at(series, instants, -1.0)
        expected = [t * 10.0 + 0.5 if t in set(have) else -1.0 for t in instants.tolist()]
        assert found.dtype == np.float64 and found.tolist() == expected
        found[:] = 7.0
        assert series.values.tolist() == (times * 10.0 + 0.5).tolist()


def test_long_durations_read_in_hours_and_minutes() -> None:
    # The walk: "for 627.8 min in a row" on a 10-hour AIX capture.
    assert fmt_duration_ms(37_668_000) == "10 h 28 min"
    assert fmt_duration_ms(7_199_000) == "120.0 min"
    assert fmt_duration_ms(7_200_000) == "2 h 0 min"
    assert fmt_duration_ms(3 * 86_400_000) == "3.0 days"
