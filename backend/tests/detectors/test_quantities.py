"""The shared helpers the network detectors lean on: periods, counter increments, windows."""

from __future__ import annotations

import numpy as np

from rootline.detectors.quantities import (
    counter_increments,
    dominant_period,
    full_windows,
    span_near_peak,
)
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
