"""Storing parsed series and reading them back, downsampled, for the timeline."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from sqlalchemy import Row
from sqlalchemy.orm import Session

from rootline.parsers.base import SeriesData
from rootline.series import codec, connections, repository
from rootline.series.models import Series
from rootline.series.schemas import (
    ConnectionPage,
    ConnectionRead,
    SeriesPage,
    SeriesRead,
    Timeline,
    TimelineSeries,
)

# Chunks are written in batches so a 200 MB capture never holds all its rows at once: at
# most this many chunks or this many bytes of points (full chunks are 128 KiB each, so
# 2000 of them held all of a 100 MB nmon capture's 150 MB of points again).
INSERT_BATCH_CHUNKS = 2000
INSERT_BATCH_BYTES = 16 * 1024 * 1024
# A query reads at most this many stored points per series before the final downsampling,
# times the number of points asked for.
READ_BUDGET_FACTOR = 16
MAX_TIMELINE_SERIES = 200
# Connections whose series a listing shows (the busiest; the rest are found by address).
LISTED_CONNECTIONS = 50


def store(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    series: Sequence[SeriesData],
    offset_ms: int = 0,
) -> tuple[int, int]:
    """Write the series of one artifact with their chunks; returns (series, points) written.

    Per-connection series (``tcp.conn.*`` by ``local``, ``peer``) go to the artifact's
    connection table (:mod:`rootline.series.connections`), the rest one row each."""
    per_connection = [s for s in series if connections.is_connection_series(s)]
    conn_series, conn_points = _store_connections(
        session,
        incident_id=incident_id,
        artifact_id=artifact_id,
        host=host,
        series=per_connection,
        offset_ms=offset_ms,
    )
    if per_connection:
        series = [s for s in series if not connections.is_connection_series(s)]
    prepared: list[tuple[dict[str, Any], codec.Times, codec.Values]] = []
    for item in series:
        times = np.frombuffer(item.times_ms, dtype=np.int64) if len(item) else np.empty(0, np.int64)
        values = np.frombuffer(item.values, dtype=np.float64) if len(item) else np.empty(0)
        times, values = codec.sort_points(times, values)
        if not len(times):
            continue
        if offset_ms:
            times = times + offset_ms
        row = {
            "incident_id": incident_id,
            "artifact_id": artifact_id,
            "name": item.name,
            "labels": item.labels,
            "host": host,
            "unit": item.unit,
            "point_count": len(times),
            "first_ms": int(times[0]),
            "last_ms": int(times[-1]),
            "min_value": float(values.min()),
            "max_value": float(values.max()),
        }
        prepared.append((row, times, values))
    ids = repository.insert_series(session, [row for row, _, _ in prepared])
    pending: list[dict[str, Any]] = []
    pending_bytes = 0
    points = 0
    for series_id, (_, times, values) in zip(ids, prepared, strict=True):
        points += len(times)
        for chunk in codec.encode_levels(times, values):
            pending_bytes += len(chunk.data)
            pending.append(
                {
                    "series_id": series_id,
                    "level": chunk.level,
                    "seq": chunk.seq,
                    "first_ms": chunk.first_ms,
                    "last_ms": chunk.last_ms,
                    "point_count": chunk.point_count,
                    "data": chunk.data,
                }
            )
            if len(pending) >= INSERT_BATCH_CHUNKS or pending_bytes >= INSERT_BATCH_BYTES:
                repository.insert_chunks(session, pending)
                pending = []
                pending_bytes = 0
    repository.insert_chunks(session, pending)
    return len(ids) + conn_series, points + conn_points


def _store_connections(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    series: Sequence[SeriesData],
    offset_ms: int,
) -> tuple[int, int]:
    table = connections.pack(series, offset_ms)
    if table is None:
        return 0, 0
    table_id = repository.insert_conn_table(
        session,
        {
            "incident_id": incident_id,
            "artifact_id": artifact_id,
            "host": host,
            "connection_count": len(table.endpoints),
            "snapshot_count": len(table.times),
            "first_ms": int(table.times[0]),
            "last_ms": int(table.times[-1]),
            "times": connections.pack_array(table.times),
        },
    )
    present = table.points > 0
    repository.insert_conn_endpoints(
        session,
        [
            {
                "table_id": table_id,
                "idx": idx,
                "incident_id": incident_id,
                "local": local,
                "peer": peer,
                "first_ms": int(first),
                "last_ms": int(last),
                "volume": float(volume),
                "points": int(points),
            }
            for idx, ((local, peer), first, last, volume, points) in enumerate(
                zip(
                    table.endpoints,
                    table.first_ms,
                    table.last_ms,
                    table.volume,
                    table.points,
                    strict=True,
                )
            )
            if present[idx]
        ],
    )
    for packed in table.fields:
        field_id = repository.insert_conn_field(
            session,
            {
                "table_id": table_id,
                "name": packed.name,
                "unit": packed.unit,
                "stats": connections.pack_stats(packed.stats),
            },
        )
        repository.insert_conn_blocks(
            session,
            [
                {
                    "field_id": field_id,
                    "seq": block.seq,
                    "first_snapshot": block.first_snapshot,
                    "snapshot_count": block.snapshot_count,
                    "first_ms": block.first_ms,
                    "last_ms": block.last_ms,
                    "data": block.data,
                }
                for block in packed.blocks
            ],
        )
    return table.series_count, table.point_count


def to_read(series: Series | Row[Any] | ConnectionSeriesRow) -> SeriesRead:
    labels = dict(series.labels)
    if series.host:
        labels.setdefault("host", series.host)
    return SeriesRead(
        id=series.id,
        artifact_id=str(series.artifact_id),
        name=series.name,
        labels=labels,
        unit=series.unit,
        point_count=series.point_count,
        first_ms=series.first_ms,
        last_ms=series.last_ms,
        min=series.min_value,
        max=series.max_value,
    )


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    names: Sequence[str],
    host: str | None,
    limit: int,
    offset: int,
    connection: str | None = None,
) -> SeriesPage:
    """The stored series of an incident, by name.

    Per-connection series are listed for the :data:`LISTED_CONNECTIONS` busiest connections
    only (after every other series), or, with ``connection``, for the connections whose
    address contains it (and nothing else): a C10K capture holds 275 000 of them."""
    endpoints = _endpoints(
        session, incident_id=incident_id, text=connection, host=host, limit=LISTED_CONNECTIONS
    )
    virtual, _ = _listed_connection_rows(
        session, incident_id=incident_id, names=names, endpoints=endpoints
    )
    if connection:
        rows: Sequence[Any] = []
        regular_total = 0
    else:
        rows, regular_total = repository.list_page(
            session, incident_id=incident_id, names=names, host=host, limit=limit, offset=offset
        )
    # The plain series first, then the listed connections' (offset counts through both).
    start = max(0, offset - regular_total)
    extra = virtual[start : start + limit - len(rows)]
    return SeriesPage(
        items=[to_read(r) for r in [*rows, *extra]],
        total=regular_total + len(virtual),
        limit=limit,
        offset=offset,
        connections_total=repository.conn_connection_count(
            session, incident_id=incident_id, host=host
        ),
        connections_listed=len({(e.table_id, e.idx) for e in endpoints}),
    )


def _endpoints(
    session: Session, *, incident_id: uuid.UUID, text: str | None, host: str | None, limit: int
) -> Sequence[Any]:
    """The busiest connections, or those whose address contains ``text``, busiest first."""
    if text:
        return repository.search_endpoints(
            session, incident_id=incident_id, text=text, host=host, limit=limit
        )
    return repository.top_endpoints(session, incident_id=incident_id, host=host, limit=limit)


def list_connections(
    session: Session, *, incident_id: uuid.UUID, text: str | None, host: str | None, limit: int
) -> ConnectionPage:
    """The busiest connections, or those whose address contains ``text``."""
    rows = _endpoints(session, incident_id=incident_id, text=text, host=host, limit=limit)
    return ConnectionPage(
        items=[
            ConnectionRead(
                host=r.host,
                local=r.local,
                peer=r.peer,
                first_ms=r.first_ms,
                last_ms=r.last_ms,
                volume=r.volume,
                points=r.points,
            )
            for r in rows
        ],
        total=repository.conn_connection_count(session, incident_id=incident_id, host=host),
    )


@dataclass(frozen=True, slots=True)
class ConnectionSeriesRow:
    """One connection's field, shaped like a series row (what :func:`to_read` reads)."""

    id: int
    artifact_id: uuid.UUID
    name: str
    labels: dict[str, str]
    host: str | None
    unit: str
    point_count: int
    first_ms: int
    last_ms: int
    min_value: float
    max_value: float


def _connection_rows(
    fields: Sequence[Any], endpoints_of_field: Callable[[Any], Iterable[Any]]
) -> list[ConnectionSeriesRow]:
    """The series of the chosen connections of each field (a connection without a point in
    a field has no series of it), field by field."""
    rows = []
    for f in fields:
        stats = connections.unpack_stats(f.stats)
        for e in endpoints_of_field(f):
            if e.idx < len(stats.points) and stats.points[e.idx] > 0:
                rows.append(
                    ConnectionSeriesRow(
                        id=connections.connection_id(f.id, e.idx),
                        artifact_id=f.artifact_id,
                        name=f.name,
                        labels={"local": e.local, "peer": e.peer},
                        host=f.host,
                        unit=f.unit,
                        point_count=int(stats.points[e.idx]),
                        first_ms=int(stats.first_ms[e.idx]),
                        last_ms=int(stats.last_ms[e.idx]),
                        min_value=float(stats.min[e.idx]),
                        max_value=float(stats.max[e.idx]),
                    )
                )
    return rows


def _listed_connection_rows(
    session: Session, *, incident_id: uuid.UUID, names: Sequence[str], endpoints: Sequence[Any]
) -> tuple[list[ConnectionSeriesRow], Sequence[Any]]:
    """Every field's (or the named fields') series of the given connections, and the fields."""
    if not endpoints:
        return [], []
    by_table: dict[int, list[Any]] = defaultdict(list)
    for e in endpoints:
        by_table[e.table_id].append(e)
    fields = repository.conn_fields(
        session, incident_id=incident_id, names=names, table_ids=list(by_table)
    )
    return _connection_rows(fields, lambda f: by_table[f.table_id]), fields


def timeline(
    session: Session,
    *,
    incident_id: uuid.UUID,
    ids: Sequence[int],
    names: Sequence[str],
    host: str | None,
    from_ms: int | None,
    to_ms: int | None,
    max_points: int,
) -> Timeline:
    """Points of the chosen series in [from_ms, to_ms], at most ``max_points`` each, spikes kept.

    Series named (not by id) include per-connection series of the busiest connections only,
    as the listing does."""
    regular_ids = [i for i in ids if not connections.is_connection_id(i)]
    chosen = repository.find(
        session,
        incident_id=incident_id,
        ids=regular_ids,
        names=names,
        host=host,
        limit=MAX_TIMELINE_SERIES,
    )
    virtual = _chosen_connection_series(
        session,
        incident_id=incident_id,
        ids=[i for i in ids if connections.is_connection_id(i)],
        names=names,
        host=host,
        limit=MAX_TIMELINE_SERIES - len(chosen),
    )
    result = Timeline(from_ms=from_ms, to_ms=to_ms, max_points=max_points, series=[])
    # Per series and level: the overlapping chunks and how many points they hold.
    index: dict[int, dict[int, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    if chosen:
        for series_id, level, seq, count in repository.chunk_index(
            session, series_ids=[s.id for s in chosen], from_ms=from_ms, to_ms=to_ms
        ):
            index[series_id][level].append((seq, count))
    budget = max_points * READ_BUDGET_FACTOR
    fetched: list[tuple[SeriesRead, int, int, Sequence[Row[int, bytes]]]] = []
    for series in chosen:
        levels = index.get(series.id, {})
        raw_in_range = sum(count for _, count in levels.get(0, []))
        level = codec.choose_level(raw_in_range, budget, len(levels)) if levels else 0
        seqs = [seq for seq, _ in levels.get(level, [])]
        fetched.append(
            (to_read(series), level, raw_in_range, _fetch(session, series.id, level, seqs))
        )
    blocks = _fetch_connection_blocks(session, virtual, from_ms=from_ms, to_ms=to_ms)
    # Every byte needed is read (in one snapshot): end the reading transaction, so that its
    # connection goes back to the pool before the CPU-bound decoding and downsampling, most
    # of a read's time on a busy machine. Held, ten timeline readers of a process left two
    # connections for everyone else: a share-token flood's lookups and a legitimate share
    # read queued for them (1-3 s in the load-and-kill bench).
    session.commit()
    decoded = [(read, level, raw, *_decode(rows)) for read, level, raw, rows in fetched]
    decoded.extend(_decode_connections(virtual, blocks))
    for read, level, raw_in_range, times, values in decoded:
        if len(times):
            mask = np.ones(len(times), dtype=bool)
            if from_ms is not None:
                mask &= times >= from_ms
            if to_ms is not None:
                mask &= times <= to_ms
            times, values = codec.downsample(times[mask], values[mask], max_points)
        result.series.append(
            TimelineSeries(
                id=read.id,
                name=read.name,
                labels=read.labels,
                unit=read.unit,
                level=level,
                points_in_range=raw_in_range,
                t=times.tolist(),
                v=values.tolist(),
            )
        )
    return result


@dataclass(frozen=True, slots=True)
class _ConnectionFetch:
    """What reading the chosen series of one connection field needs."""

    field_id: int
    connection_count: int
    times: codec.Times
    reads: list[tuple[int, SeriesRead]]  # (connection index, series)


def _chosen_connection_series(
    session: Session,
    *,
    incident_id: uuid.UUID,
    ids: Sequence[int],
    names: Sequence[str],
    host: str | None,
    limit: int,
) -> list[_ConnectionFetch]:
    """Per-connection series asked for by name (of the busiest connections, as listed) or by
    id (any connection, of this incident only: fields are looked up within it)."""
    if limit <= 0:
        return []
    rows: list[ConnectionSeriesRow] = []
    fields: dict[int, Any] = {}
    if names:
        top = _endpoints(
            session, incident_id=incident_id, text=None, host=host, limit=LISTED_CONNECTIONS
        )
        named, named_fields = _listed_connection_rows(
            session, incident_id=incident_id, names=names, endpoints=top
        )
        rows.extend(named)
        fields.update((f.id, f) for f in named_fields)
    wanted: dict[int, list[int]] = defaultdict(list)
    for series_id in ids:
        field_id, idx = connections.split_connection_id(series_id)
        wanted[field_id].append(idx)
    if wanted:
        asked = repository.conn_fields(session, incident_id=incident_id, ids=wanted, host=host)
        endpoints = {
            (e.table_id, e.idx): e
            for e in repository.endpoints_of(session, table_ids={f.table_id for f in asked})
        }

        def asked_endpoints(f: Any) -> list[Any]:
            found = (endpoints.get((f.table_id, idx)) for idx in sorted(set(wanted[f.id])))
            return [e for e in found if e is not None]

        seen = {r.id for r in rows}
        rows.extend(r for r in _connection_rows(asked, asked_endpoints) if r.id not in seen)
        fields.update((f.id, f) for f in asked)
    if not rows:
        return []
    times = repository.conn_times(session, table_ids={f.table_id for f in fields.values()})
    fetches: dict[int, _ConnectionFetch] = {}
    for r in rows[:limit]:
        field_id, idx = connections.split_connection_id(r.id)
        fetch = fetches.get(field_id)
        if fetch is None:
            f = fields[field_id]
            fetch = fetches[field_id] = _ConnectionFetch(
                field_id, f.connection_count, connections.unpack_times(times[f.table_id]), []
            )
        fetch.reads.append((idx, to_read(r)))
    return list(fetches.values())


def _fetch_connection_blocks(
    session: Session,
    fetches: Sequence[_ConnectionFetch],
    *,
    from_ms: int | None,
    to_ms: int | None,
) -> dict[int, list[tuple[int, int, bytes]]]:
    blocks: dict[int, list[tuple[int, int, bytes]]] = defaultdict(list)
    if fetches:
        for field_id, first, count, data in repository.conn_blocks(
            session, field_ids=[f.field_id for f in fetches], from_ms=from_ms, to_ms=to_ms
        ):
            blocks[field_id].append((first, count, data))
    return blocks


def _decode_connections(
    fetches: Sequence[_ConnectionFetch], blocks: dict[int, list[tuple[int, int, bytes]]]
) -> list[tuple[SeriesRead, int, int, codec.Times, codec.Values]]:
    out = []
    for fetch in fetches:
        parts: dict[int, list[tuple[codec.Times, codec.Values]]] = defaultdict(list)
        for first, count, data in blocks.get(fetch.field_id, []):
            matrix = connections.decode_matrix(data, fetch.connection_count, count)
            block_times = fetch.times[first : first + count]
            for idx, _ in fetch.reads:
                row = matrix[idx]
                present = ~np.isnan(row)
                parts[idx].append((block_times[present], row[present]))
        for idx, read in fetch.reads:
            got = parts.get(idx, [])
            times = np.concatenate([p[0] for p in got]) if got else np.empty(0, np.int64)
            values = np.concatenate([p[1] for p in got]) if got else np.empty(0, np.float64)
            out.append((read, 0, len(times), times, values))
    return out


class FieldsByName:
    """The incident's connection fields (``repository.conn_fields`` with no name, ordered by
    name then table), asked by name as that query asks them in SQL: a few hundred rows read
    once, where the checklist made one query per field name. A ``prefix*`` compares with
    case, as PostgreSQL's LIKE does (SQLite's ignores it): the detectors ask the ss parser's
    own field names."""

    def __init__(self, rows: Sequence[Any]) -> None:
        self._by_name: dict[str, list[Any]] = {}
        for row in rows:
            self._by_name.setdefault(row.name, []).append(row)

    def named(self, names: Sequence[str], host: str | None) -> list[Any]:
        wanted: set[str] = set()
        for asked in names:
            if asked.endswith("*"):
                wanted.update(n for n in self._by_name if n.startswith(asked[:-1]))
            elif asked in self._by_name:
                wanted.add(asked)
        return [
            row
            for name in sorted(wanted)
            for row in self._by_name[name]
            if not host or row.host == host
        ]


class ConnTableIndex(NamedTuple):
    """A connection table's snapshot times and its (index, (local, peer)) in index order."""

    times: codec.Times
    endpoints: list[tuple[int, tuple[str, str]]]


def connection_series(
    session: Session,
    *,
    incident_id: uuid.UUID,
    names: Sequence[str],
    host: str | None,
    tables: dict[int, ConnTableIndex] | None = None,
    every_field: FieldsByName | None = None,
) -> Iterator[tuple[Any, dict[str, str], codec.Times, codec.Values]]:
    """(field row, labels, times, values) of every connection's series of the named fields
    (``prefix*`` allowed), time-ordered, connections without a point skipped. ``tables`` keeps
    each table's snapshot times and endpoints between calls (one caller asks field by field),
    ``every_field`` the incident's fields (see :class:`FieldsByName`), read once for all its
    questions."""
    if every_field is None:
        fields = repository.conn_fields(session, incident_id=incident_id, names=names, host=host)
    else:
        fields = every_field.named(names, host)
    if not fields:
        return
    tables = {} if tables is None else tables
    missing = {f.table_id for f in fields} - tables.keys()
    if missing:
        endpoints: dict[int, dict[int, tuple[str, str]]] = defaultdict(dict)
        for e in repository.endpoints_of(session, table_ids=missing):
            endpoints[e.table_id][e.idx] = (e.local, e.peer)
        for table_id, data in repository.conn_times(session, table_ids=missing).items():
            snapshot_times = connections.unpack_times(data)
            snapshot_times.flags.writeable = False  # shared by its connections' series
            tables[table_id] = ConnTableIndex(snapshot_times, sorted(endpoints[table_id].items()))
    blocks = repository.conn_blocks(
        session, field_ids=[f.id for f in fields], from_ms=None, to_ms=None
    )
    by_field: dict[int, list[tuple[int, int, bytes]]] = defaultdict(list)
    for field_id, first, count, data in blocks:
        by_field[field_id].append((first, count, data))
    for f in fields:
        all_times, table_endpoints = tables[f.table_id]
        parts = [
            connections.decode_matrix(data, f.connection_count, count)
            for _, count, data in by_field.get(f.id, [])
        ]
        if not parts:
            continue
        matrix = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
        # Whole-matrix counts: most connections have a value in every snapshot, and those
        # need no mask of their own (7 000 connections x 18 fields for a C10K checklist).
        present = ~np.isnan(matrix)
        counts = present.sum(axis=1).tolist()
        snapshots = matrix.shape[1]
        # Such a connection's series are read-only views: its row of the matrix, and the
        # table's snapshot times shared by all (readers that find the same times object
        # need not compare them: 126 000 copies and comparisons for a C10K checklist).
        matrix.flags.writeable = False
        for idx, (local, peer) in table_endpoints:
            count = counts[idx]
            if count == snapshots:
                yield f, {"local": local, "peer": peer}, all_times, matrix[idx]
            elif count:
                mask = present[idx]
                yield f, {"local": local, "peer": peer}, all_times[mask], matrix[idx][mask]


def _fetch(
    session: Session, series_id: int, level: int, seqs: list[int]
) -> Sequence[Row[int, bytes]]:
    """(point_count, data) of the chunks ``seqs`` of one series and level, still encoded."""
    if not seqs:
        return []
    # Chunks overlapping a range are consecutive, so one BETWEEN reads them all.
    return repository.chunk_data(
        session, series_id=series_id, level=level, first_seq=min(seqs), last_seq=max(seqs)
    )


def _decode(rows: Sequence[Row[int, bytes]]) -> tuple[codec.Times, codec.Values]:
    return codec.decode_all([(count, data) for count, data in rows])
