"""Per-connection series stored by column: pure packing and unpacking, no database.

``ss -tinm`` of a provider with 7 000 consumers writes ~40 numbers per connection per snapshot.
Stored as one series per connection and field that is 275 000 series rows and as many chunk
rows for 111 MB of text (250 MB of SQLite plus its WAL, 40 s to store). Here the connections
of one artifact are a dimension instead:

- the snapshot times once (``int64`` ms, ascending);
- the connections once (``local``, ``peer``), each with an index;
- per field (``tcp.conn.rtt_ms``), a matrix [connection x snapshot] of float64, ``NaN`` where
  the connection has no value, cut into blocks of consecutive snapshots of at most
  :data:`BLOCK_CELLS` cells. Each block is packed by XOR of every value's bits with the bits of
  the same connection's previous value (exact, unlike a float difference: a counter that did
  not move and an absent value both become zero bits), byte-shuffled (the 8 bytes of each value
  in 8 planes) and compressed with zstd;
- per field and connection: points, first and last time, min and max (the series listing).

A per-connection series keeps an id of its own, so the API and the pages see series as before:
``CONN_ID_BASE + field_id * CONN_ID_STRIDE + connection index`` (below 2^53, a safe JavaScript
integer, and far above any series row's id).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rootline import compression
from rootline.compression import compressor
from rootline.parsers.base import SeriesData

CONN_ID_BASE = 2**52
CONN_ID_STRIDE = 2**21  # connections per table at most (2 097 152)
BLOCK_CELLS = 1 << 20  # values per block (8 MiB raw)
ZSTD_LEVEL = 3
# Series whose peak ranks a connection (the timeline draws the busiest ones).
VOLUME_FIELDS = frozenset(
    {"tcp.conn.bytes_acked", "tcp.conn.bytes_received", "tcp.conn.bytes_sent"}
)
CONNECTION_LABELS = frozenset({"local", "peer"})

Times = npt.NDArray[np.int64]
Values = npt.NDArray[np.float64]


def is_connection_series(series: SeriesData) -> bool:
    """Whether a parsed series is one connection's field (``tcp.conn.*`` labelled local, peer)."""
    return series.name.startswith("tcp.conn.") and series.labels.keys() == CONNECTION_LABELS


def is_connection_id(series_id: int) -> bool:
    return series_id >= CONN_ID_BASE


def connection_id(field_id: int, index: int) -> int:
    return CONN_ID_BASE + field_id * CONN_ID_STRIDE + index


def split_connection_id(series_id: int) -> tuple[int, int]:
    """(field id, connection index) of a per-connection series id."""
    return divmod(series_id - CONN_ID_BASE, CONN_ID_STRIDE)


@dataclass(frozen=True, slots=True)
class Stats:
    """Per connection of one field: points, first/last time, min/max (arrays by index)."""

    points: npt.NDArray[np.int64]
    first_ms: npt.NDArray[np.int64]
    last_ms: npt.NDArray[np.int64]
    min: Values
    max: Values


@dataclass(frozen=True, slots=True)
class Block:
    seq: int
    first_snapshot: int
    snapshot_count: int
    first_ms: int
    last_ms: int
    data: bytes


@dataclass(frozen=True, slots=True)
class PackedField:
    name: str
    unit: str
    stats: Stats
    blocks: list[Block]


@dataclass(frozen=True, slots=True)
class PackedTable:
    times: Times
    endpoints: list[tuple[str, str]]
    volume: Values
    points: npt.NDArray[np.int64]
    first_ms: npt.NDArray[np.int64]
    last_ms: npt.NDArray[np.int64]
    fields: list[PackedField]

    @property
    def series_count(self) -> int:
        return sum(int((f.stats.points > 0).sum()) for f in self.fields)

    @property
    def point_count(self) -> int:
        return int(self.points.sum())


def pack(series: Sequence[SeriesData], offset_ms: int = 0) -> PackedTable | None:
    """The connection series of one artifact as a table (None when there are none)."""
    if not series:
        return None
    index: dict[tuple[str, str], int] = {}
    # A parser gives a connection's series one labels dict (and mostly one times array):
    # each distinct one looked up once, not once per series.
    row_of: dict[int, int] = {}
    for s in series:
        if id(s.labels) not in row_of:
            local_peer = (s.labels["local"], s.labels["peer"])
            row_of[id(s.labels)] = index.setdefault(local_peer, len(index))
    if len(index) > CONN_ID_STRIDE:
        raise ValueError(f"{len(index)} connections in one artifact; at most {CONN_ID_STRIDE}")
    # A parser may give a connection's fields one times array: each distinct one read once.
    distinct = {id(s.times_ms): s.times_ms for s in series}
    all_times = np.unique(
        np.frombuffer(b"".join(distinct.values()), dtype=np.int64)
        if distinct
        else np.empty(0, np.int64)
    )
    if not len(all_times):
        return None
    n_conn, n_snap = len(index), len(all_times)
    by_field: dict[str, list[SeriesData]] = {}
    for s in series:
        by_field.setdefault(s.name, []).append(s)
    volume = np.zeros(n_conn)
    points = np.zeros(n_conn, dtype=np.int64)
    first_ms = np.full(n_conn, np.iinfo(np.int64).max)
    last_ms = np.full(n_conn, np.iinfo(np.int64).min)
    fields = []
    # The matrix cells (row * n_snap + snapshot column, int64 bytes) of each (connection,
    # times array) pair, found once: a connection's fields share one times array (see
    # above), and searching every field's times again was most of this function; a field's
    # cells are then one bytes.join over its series, not an array each.
    cells: dict[tuple[int, int], bytes] = {}
    for s in series:
        pair = (id(s.labels), id(s.times_ms))
        if pair not in cells:
            snapshots = np.searchsorted(all_times, np.frombuffer(s.times_ms, dtype=np.int64))
            cells[pair] = (snapshots + row_of[pair[0]] * n_snap).tobytes()
    for name in sorted(by_field):
        members = by_field[name]
        matrix = np.full((n_conn, n_snap), np.nan)
        flat = np.frombuffer(
            b"".join([cells[id(s.labels), id(s.times_ms)] for s in members]), dtype=np.int64
        )
        # One copy of all the field's points (bytes.join over the arrays' buffers).
        values = np.frombuffer(b"".join(s.values for s in members), dtype=np.float64)
        matrix.reshape(-1)[flat] = values
        matrix[~np.isfinite(matrix)] = np.nan
        stats = _stats(matrix, all_times + offset_ms)
        present = stats.points > 0
        if not present.any():
            continue
        points += stats.points
        first_ms = np.where(present, np.minimum(first_ms, stats.first_ms), first_ms)
        last_ms = np.where(present, np.maximum(last_ms, stats.last_ms), last_ms)
        if name in VOLUME_FIELDS:
            volume = np.maximum(volume, np.where(present, stats.max, 0.0))
        fields.append(
            PackedField(name, members[0].unit, stats, list(_blocks(matrix, all_times + offset_ms)))
        )
    endpoints = list(index)
    if not fields:
        return None
    return PackedTable(all_times + offset_ms, endpoints, volume, points, first_ms, last_ms, fields)


def _stats(matrix: Values, times: Times) -> Stats:
    present = ~np.isnan(matrix)
    count = present.sum(axis=1)
    any_ = count > 0
    first = np.where(any_, times[present.argmax(axis=1)], 0)
    last = np.where(any_, times[len(times) - 1 - present[:, ::-1].argmax(axis=1)], 0)
    low = np.where(present, matrix, np.inf).min(axis=1)
    high = np.where(present, matrix, -np.inf).max(axis=1)
    return Stats(
        count.astype(np.int64),
        first.astype(np.int64),
        last.astype(np.int64),
        np.where(any_, low, 0.0),
        np.where(any_, high, 0.0),
    )


def _blocks(matrix: Values, times: Times) -> Iterable[Block]:
    n_conn, n_snap = matrix.shape
    per_block = max(1, BLOCK_CELLS // max(1, n_conn))
    compress = compressor(ZSTD_LEVEL)
    for seq, start in enumerate(range(0, n_snap, per_block)):
        part = matrix[:, start : start + per_block]
        yield Block(
            seq,
            start,
            part.shape[1],
            int(times[start]),
            int(times[start + part.shape[1] - 1]),
            compress(encode_matrix(part)),
        )


def encode_matrix(matrix: Values) -> bytes:
    """XOR of each value's bits with its row's previous value, then the 8 byte planes."""
    bits = np.ascontiguousarray(matrix, dtype="<f8").view("<u8")
    xored = bits.copy()
    xored[:, 1:] ^= bits[:, :-1]
    return xored.view(np.uint8).reshape(-1, 8).T.tobytes()


def decode_matrix(data: bytes, n_conn: int, n_snap: int) -> Values:
    planes = compression.unpack_array(data, "u1")
    bits = planes.reshape(8, -1).T.copy().view("<u8").reshape(n_conn, n_snap)
    np.bitwise_xor.accumulate(bits, axis=1, out=bits)
    return bits.view("<f8")


def pack_array(array: npt.NDArray[np.generic]) -> bytes:
    return compression.pack_array(array, ZSTD_LEVEL)


def unpack_array(data: bytes, dtype: str) -> npt.NDArray[np.generic]:
    return compression.unpack_array(data, dtype)


def unpack_times(data: bytes) -> Times:
    return compression.unpack_array(data, "<i8")


def pack_stats(stats: Stats) -> bytes:
    return pack_array(
        np.concatenate(
            [
                stats.points.astype("<i8").view("<u8"),
                stats.first_ms.astype("<i8").view("<u8"),
                stats.last_ms.astype("<i8").view("<u8"),
                stats.min.astype("<f8").view("<u8"),
                stats.max.astype("<f8").view("<u8"),
            ]
        )
    )


def unpack_stats(data: bytes) -> Stats:
    raw = unpack_array(data, "<u8").reshape(5, -1)
    return Stats(
        raw[0].view("<i8"),
        raw[1].view("<i8"),
        raw[2].view("<i8"),
        raw[3].view("<f8"),
        raw[4].view("<f8"),
    )
