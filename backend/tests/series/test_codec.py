"""Point packing and reduction: every level keeps the extremes, queries stay within budget."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rootline.series import codec


def test_round_trip_of_a_chunk() -> None:
    times = np.array([1, 2, 5], dtype=np.int64)
    values = np.array([0.5, -1.0, 3.25])
    (chunk,) = list(codec.encode_levels(times, values))
    decoded_t, decoded_v = codec.decode(chunk.data, chunk.point_count)
    assert decoded_t.tolist() == [1, 2, 5]
    assert decoded_v.tolist() == [0.5, -1.0, 3.25]
    assert (chunk.first_ms, chunk.last_ms, chunk.level) == (1, 5, 0)


def test_levels_keep_a_single_point_spike() -> None:
    n = 1_000_000
    times = np.arange(n, dtype=np.int64) * 1000
    values = np.sin(np.arange(n) / 5000.0)
    values[654_321] = 40.0
    values[123_456] = -40.0
    chunks = list(codec.encode_levels(times, values))
    levels = {c.level for c in chunks}
    assert levels == {0, 1}
    level1 = [c for c in chunks if c.level == 1]
    assert sum(c.point_count for c in level1) == 2 * n // codec.LEVEL_FACTOR
    top = max(codec.decode(c.data, c.point_count)[1].max() for c in level1)
    bottom = min(codec.decode(c.data, c.point_count)[1].min() for c in level1)
    assert (top, bottom) == (40.0, -40.0)


def test_choose_level_respects_the_budget() -> None:
    assert codec.choose_level(10_000, 32_000, 2) == 0
    assert codec.choose_level(1_000_000, 32_000, 2) == 1
    assert codec.choose_level(100_000_000, 32_000, 2) == 1  # coarsest available


def test_sort_drops_non_finite_values_and_orders_by_time() -> None:
    times = np.array([3, 1, 2, 4], dtype=np.int64)
    values = np.array([3.0, 1.0, np.nan, np.inf])
    t, v = codec.sort_points(times, values)
    assert t.tolist() == [1, 3]
    assert v.tolist() == [1.0, 3.0]


@settings(max_examples=60, deadline=None)
@example(values=[0.0, 0.0, 1.0, -1.0, 0.0], max_points=4)  # MinMaxLTTB alone dropped the -1
@given(
    values=st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=1, max_size=3000),
    max_points=st.integers(2, 500),
)
def test_downsample_never_exceeds_the_budget_and_keeps_extremes(
    values: list[float], max_points: int
) -> None:
    v = np.array(values)
    t = np.arange(len(v), dtype=np.int64)
    out_t, out_v = codec.downsample(t, v, max_points)
    assert len(out_t) <= max(max_points, 2) if len(v) > max_points else len(out_t) == len(v)
    assert np.all(np.diff(out_t) > 0)
    if max_points >= 4:
        assert out_v.max() == v.max()
        assert out_v.min() == v.min()
