"""How points are packed for storage and reduced for display.

Points of a series are sorted by time and cut into chunks of :data:`CHUNK_POINTS`; each chunk
stores its times (int64 ms, as differences from the one before) and values (float64), byte
planes apart (every point's first byte, then every second byte ...) and compressed by zstd:
a sampled series' steps and its values' exponents repeat, so the planes compress 6x (raw
text, 16 bytes a point) to 50x (real nmon captures). Chunks written before that hold the
raw little-endian arrays, exactly 16 bytes a point, which no compressed chunk is. Beside the raw
level 0, coarser levels keep the min and max point of each bucket of ``LEVEL_FACTOR ** level``
raw points: a query picks the finest level that stays under its point budget, so reading a
million-point series for a 2000-pixel chart touches a few tens of thousands of points, and a
one-point spike survives at every level. The final reduction to the requested number of
points is MinMaxLTTB from ``tsdownsample``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import zstandard
from tsdownsample import MinMaxLTTBDownsampler

from rootline.compression import compressor

try:  # the byte planes in C, where the package was built with it (see setup.py)
    from rootline.series import _planes
except ImportError:  # pragma: no cover - a machine without a C compiler at install
    _planes = None  # type: ignore[assignment]

CHUNK_POINTS = 8192
LEVEL_FACTOR = 64
# A level is built only when the level below it holds more points than this.
LEVEL_MIN_POINTS = 4 * CHUNK_POINTS
MAX_LEVEL = 3
ZSTD_LEVEL = 1

Times = npt.NDArray[np.int64]
Values = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class EncodedChunk:
    level: int
    seq: int
    first_ms: int
    last_ms: int
    point_count: int
    data: bytes


def sort_points(times: Times, values: Values) -> tuple[Times, Values]:
    """Points ordered by time, non-finite values dropped (a stable sort keeps equal times in order)."""
    finite = np.isfinite(values)
    if not finite.all():
        times, values = times[finite], values[finite]
    if len(times) > 1 and not bool(np.all(times[1:] >= times[:-1])):
        order = np.argsort(times, kind="stable")
        times, values = times[order], values[order]
    return times, values


def min_max_buckets(times: Times, values: Values, bucket: int) -> tuple[Times, Values]:
    """The min and max point of every ``bucket`` consecutive points, in time order."""
    n = len(values)
    full = n // bucket * bucket
    parts_t: list[Times] = []
    parts_v: list[Values] = []
    if full:
        shaped = values[:full].reshape(-1, bucket)
        base = np.arange(0, full, bucket)
        lo = base + shaped.argmin(axis=1)
        hi = base + shaped.argmax(axis=1)
        idx = np.sort(np.concatenate((lo, hi)))
        parts_t.append(times[idx])
        parts_v.append(values[idx])
    if full < n:
        tail_v = values[full:]
        idx = np.sort(np.unique(np.array([tail_v.argmin(), tail_v.argmax()]))) + full
        parts_t.append(times[idx])
        parts_v.append(values[idx])
    return np.concatenate(parts_t), np.concatenate(parts_v)


def encode_levels(times: Times, values: Values) -> Iterator[EncodedChunk]:
    """Every chunk of every level of one sorted series."""
    packer = _Packer()
    level_times, level_values = times, values
    level = 0
    while True:
        for seq, start in enumerate(range(0, len(level_times), CHUNK_POINTS)):
            t = level_times[start : start + CHUNK_POINTS]
            v = level_values[start : start + CHUNK_POINTS]
            yield EncodedChunk(
                level=level,
                seq=seq,
                first_ms=int(t[0]),
                last_ms=int(t[-1]),
                point_count=len(t),
                data=packer.packed(t, v),
            )
        if level >= MAX_LEVEL or len(level_times) <= LEVEL_MIN_POINTS:
            return
        level += 1
        level_times, level_values = min_max_buckets(level_times, level_values, LEVEL_FACTOR)


class _Packer:
    """Packs chunks through two buffers it keeps, so that a chunk costs only its compressed
    bytes. Not shared between threads: a zstd compressor is not."""

    def __init__(self) -> None:
        self.compress = compressor(ZSTD_LEVEL)
        self.words = np.empty(2 * CHUNK_POINTS, dtype="<u8")
        self.planes = np.empty(16 * CHUNK_POINTS, dtype=np.uint8)

    def packed(self, times: Times, values: Values) -> bytes:
        """The chunk's bytes: time steps and values as byte planes, compressed (the raw arrays
        in the rare case that this is exactly as long as they are, which would read as raw)."""
        n = len(times)
        words = self.words[: 2 * n]
        steps = words[:n].view("<i8")
        steps[0] = times[0]
        np.subtract(times[1:], times[:-1], out=steps[1:])
        words[n:].view("<f8")[:] = values
        planes = self.planes[: 16 * n]
        if _planes is not None:
            _planes.scatter(words, planes)
        else:
            planes.reshape(8, 2 * n)[:] = words.view(np.uint8).reshape(2 * n, 8).T
        data = self.compress(planes.data)
        if len(data) != 16 * n:
            return data
        return b"".join(
            (
                np.ascontiguousarray(times, dtype="<i8").data,
                np.ascontiguousarray(values, dtype="<f8").data,
            )
        )


def decode(data: bytes, point_count: int) -> tuple[Times, Values]:
    return decode_all([(point_count, data)])


def decode_all(chunks: Sequence[tuple[int, bytes]]) -> tuple[Times, Values]:
    """The points of consecutive chunks, given as (point_count, data), in one pair of arrays
    each chunk is decoded into (no array per chunk to join after), through one buffer."""
    total = sum(count for count, _ in chunks)
    times = np.empty(total, dtype=np.int64)
    values = np.empty(total, dtype=np.float64)
    decompressor = zstandard.ZstdDecompressor()  # one per call: not shared between threads
    planes = np.empty(16 * max((count for count, _ in chunks), default=0), dtype=np.uint8)
    at = 0
    for count, data in chunks:
        chunk_times, chunk_values = times[at : at + count], values[at : at + count]
        at += count
        if len(data) == 16 * count:  # raw arrays (chunks written before compression)
            chunk_times[:] = np.frombuffer(data, dtype="<i8", count=count)
            chunk_values[:] = np.frombuffer(data, dtype="<f8", count=count, offset=count * 8)
            continue
        chunk_planes = planes[: 16 * count]
        _decompress_into(decompressor, data, chunk_planes)
        # Each point's 8 bytes gathered from the 8 planes straight into its place.
        if _planes is not None:
            _planes.gather(chunk_planes, 2 * count, 0, chunk_times.view(np.uint64))
            _planes.gather(chunk_planes, 2 * count, count, chunk_values.view(np.uint64))
        else:
            by_plane = chunk_planes.reshape(8, 2 * count)
            chunk_times.view(np.uint8).reshape(count, 8)[:] = by_plane[:, :count].T
            chunk_values.view(np.uint8).reshape(count, 8)[:] = by_plane[:, count:].T
        np.cumsum(chunk_times, out=chunk_times)  # steps to times
    return times, values


def _decompress_into(
    decompressor: zstandard.ZstdDecompressor, data: bytes, out: npt.NDArray[np.uint8]
) -> None:
    view = memoryview(out)  # type: ignore[arg-type]
    filled = 0
    with decompressor.stream_reader(data) as reader:
        while filled < len(view):
            got = reader.readinto(view[filled:])
            if not got:
                break
            filled += got
    if filled != len(view):
        raise ValueError(f"a point chunk holds {filled} bytes, not {len(view)}")


def points_per_raw_point(level: int) -> float:
    """How many stored points a level keeps per raw point (2 per bucket above level 0)."""
    return 1.0 if level == 0 else 2.0 / LEVEL_FACTOR**level


def choose_level(raw_points_in_range: int, budget: int, levels_available: int) -> int:
    """The finest level whose points in range stay within ``budget``."""
    for level in range(levels_available):
        if raw_points_in_range * points_per_raw_point(level) <= budget:
            return level
    return levels_available - 1


def downsample(times: Times, values: Values, max_points: int) -> tuple[Times, Values]:
    """At most ``max_points`` points keeping the visual shape (MinMaxLTTB) and the minimum and
    maximum of the whole range.

    MinMaxLTTB picks one point per bucket, and with few buckets that point need not be the
    global extreme (5 points into 4 lost the only negative value): the extremes are added to
    what it picks from a budget two points smaller.
    """
    if len(times) <= max_points:
        return times, values
    extremes = np.unique(np.array([values.argmin(), values.argmax()]))
    if max_points < 5:
        ends = np.array([i for i in (0, len(values) - 1) if i not in extremes], dtype=np.int64)
        idx = np.union1d(extremes, ends[: max(0, max_points - len(extremes))])[:max_points]
    else:
        picked = MinMaxLTTBDownsampler().downsample(times, values, n_out=max_points - 2)  # type: ignore[no-untyped-call]
        idx = np.union1d(picked.astype(np.int64), extremes)
    return times[idx], values[idx]
