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


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=-(2**62), max_value=2**62),
            st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([-0.0, 5e-324]),
        ),
        min_size=1,
        max_size=300,
    )
)
@example([(0, 0.0)])
@example([(1_700_000_000_000 + 1000 * i, 42.0) for i in range(300)])  # compresses to little
def test_a_packed_chunk_reads_back_bit_for_bit(points: list[tuple[int, float]]) -> None:
    times = np.sort(np.array([t for t, _ in points], dtype=np.int64))
    values = np.array([v for _, v in points], dtype=np.float64)
    for chunk in codec.encode_levels(times, values):
        if chunk.level:
            continue
        start = chunk.seq * codec.CHUNK_POINTS
        decoded_t, decoded_v = codec.decode(chunk.data, chunk.point_count)
        assert decoded_t.tolist() == times[start : start + chunk.point_count].tolist()
        # Bits, not values: -0.0 stays -0.0.
        assert decoded_v.tobytes() == values[start : start + chunk.point_count].tobytes()


def test_a_regular_series_is_stored_in_a_fraction_of_its_raw_bytes() -> None:
    n = codec.CHUNK_POINTS
    times = 1_700_000_000_000 + np.arange(n, dtype=np.int64) * 5000
    values = np.round(np.random.default_rng(1).normal(30, 5, n), 1)  # a gauge, one decimal
    (chunk,) = list(codec.encode_levels(times, values))
    assert len(chunk.data) < 16 * n / 3


def test_chunks_written_raw_before_compression_still_read() -> None:
    times = np.array([1, 2, 5], dtype=np.int64)
    values = np.array([0.5, -1.0, 3.25])
    raw = times.astype("<i8").tobytes() + values.astype("<f8").tobytes()
    decoded_t, decoded_v = codec.decode(raw, 3)
    assert (decoded_t.tolist(), decoded_v.tolist()) == ([1, 2, 5], [0.5, -1.0, 3.25])


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


def test_the_compiled_byte_planes_were_built() -> None:
    """`make setup` builds them; without them series are written and read at numpy's pace."""
    assert codec._planes is not None, "rootline.series._planes missing: pip install -e backend"


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=-(2**62), max_value=2**62),
            st.floats(allow_nan=False, allow_infinity=False),
        ),
        min_size=1,
        max_size=300,
    )
)
def test_compiled_byte_planes_write_and_read_numpys_bytes(points: list[tuple[int, float]]) -> None:
    """The stored bytes do not depend on whether the package was built with its C loops: a
    database written by one reads back by the other."""
    assert codec._planes is not None
    times, values = codec.sort_points(
        np.array([t for t, _ in points], dtype=np.int64), np.array([v for _, v in points])
    )
    compiled = [c.data for c in codec.encode_levels(times, values)]
    planes = codec._planes
    try:
        codec._planes = None  # type: ignore[assignment]
        plain = [c.data for c in codec.encode_levels(times, values)]
        plain_read = codec.decode(plain[0], min(len(times), codec.CHUNK_POINTS))
    finally:
        codec._planes = planes
    assert compiled == plain
    compiled_read = codec.decode(compiled[0], min(len(times), codec.CHUNK_POINTS))
    assert compiled_read[0].tobytes() == plain_read[0].tobytes()
    assert compiled_read[1].tobytes() == plain_read[1].tobytes()
