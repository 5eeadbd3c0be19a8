"""Every query on series and their point chunks."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Row, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from rootline.db import bulk_insert
from rootline.series.models import ConnBlock, ConnEndpoint, ConnField, ConnTable, PointChunk, Series


def insert_series(session: Session, rows: list[dict[str, Any]]) -> list[int]:
    """Insert series rows, returning their ids in the order given."""
    if not rows:
        return []
    result = session.execute(
        insert(Series).returning(Series.id, sort_by_parameter_order=True), rows
    )
    return [row[0] for row in result]


def insert_chunks(session: Session, rows: list[dict[str, Any]]) -> None:
    bulk_insert(session, PointChunk, rows)


def delete_for_artifact(session: Session, artifact_id: uuid.UUID) -> None:
    # Chunks go with their series, a connection table's rows with it (ON DELETE CASCADE).
    session.execute(delete(Series).where(Series.artifact_id == artifact_id))
    session.execute(delete(ConnTable).where(ConnTable.artifact_id == artifact_id))


# What a series listing shows: plain columns, since loading ORM objects cost most of the time
# of a 5000-series page (an incident with one series per short-lived connection has 11 000).
LISTED_COLUMNS = (
    Series.id,
    Series.artifact_id,
    Series.name,
    Series.labels,
    Series.host,
    Series.unit,
    Series.point_count,
    Series.first_ms,
    Series.last_ms,
    Series.min_value,
    Series.max_value,
)


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    names: Sequence[str],
    host: str | None,
    limit: int,
    offset: int,
) -> tuple[Sequence[Any], int]:
    query = select(*LISTED_COLUMNS).where(Series.incident_id == incident_id)
    if names:
        query = query.where(or_(*(_name_clause(n) for n in names)))
    if host:
        query = query.where(Series.host == host)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.execute(query.order_by(Series.name, Series.id).limit(limit).offset(offset)).all()
    return rows, total


def _name_clause(name: str) -> Any:
    if name.endswith("*"):
        return Series.name.startswith(name[:-1], autoescape=True)
    return Series.name == name


def find(
    session: Session,
    *,
    incident_id: uuid.UUID,
    ids: Iterable[int],
    names: Sequence[str],
    host: str | None,
    limit: int,
) -> Sequence[Series]:
    """Series of one incident chosen by id or by name (``prefix*`` allowed)."""
    clauses = []
    id_list = list(ids)
    if id_list:
        clauses.append(Series.id.in_(id_list))
    clauses.extend(_name_clause(n) for n in names)
    if not clauses:
        return []
    query = select(Series).where(Series.incident_id == incident_id, or_(*clauses))
    if host:
        query = query.where(Series.host == host)
    return session.scalars(query.order_by(Series.name, Series.id).limit(limit)).all()


def chunk_index(
    session: Session, *, series_ids: Sequence[int], from_ms: int | None, to_ms: int | None
) -> Sequence[Row[int, int, int, int]]:
    """(series_id, level, seq, point_count) of every chunk overlapping the range."""
    query = select(
        PointChunk.series_id, PointChunk.level, PointChunk.seq, PointChunk.point_count
    ).where(PointChunk.series_id.in_(series_ids))
    if from_ms is not None:
        query = query.where(PointChunk.last_ms >= from_ms)
    if to_ms is not None:
        query = query.where(PointChunk.first_ms <= to_ms)
    return session.execute(query).all()


def chunk_data(
    session: Session, *, series_id: int, level: int, first_seq: int, last_seq: int
) -> Sequence[Row[int, bytes]]:
    """(point_count, data) of a run of chunks, in time order."""
    return session.execute(
        select(PointChunk.point_count, PointChunk.data)
        .where(
            PointChunk.series_id == series_id,
            PointChunk.level == level,
            PointChunk.seq.between(first_seq, last_seq),
        )
        .order_by(PointChunk.seq)
    ).all()


def time_bounds(session: Session, *, incident_id: uuid.UUID) -> tuple[int | None, int | None]:
    row = session.execute(
        select(func.min(Series.first_ms), func.max(Series.last_ms)).where(
            Series.incident_id == incident_id
        )
    ).one()
    return row[0], row[1]


def names_and_hosts(
    session: Session, *, incident_id: uuid.UUID
) -> tuple[set[tuple[str, str | None]], set[tuple[str, str | None]]]:
    """(name, host) of every series of the incident, and of every connection table's field."""
    series = select(Series.name, Series.host).where(Series.incident_id == incident_id)
    fields = (
        select(ConnField.name, ConnTable.host)
        .join(ConnTable, ConnTable.id == ConnField.table_id)
        .where(ConnTable.incident_id == incident_id)
    )
    return (
        {(name, host) for name, host in session.execute(series.distinct())},
        {(name, host) for name, host in session.execute(fields.distinct())},
    )


def level0_by_name(
    session: Session, *, incident_id: uuid.UUID, name: str, host: str | None
) -> Sequence[Row[int, str, str, str | None, uuid.UUID, dict[str, str], int | None, bytes | None]]:
    """(id, name, unit, host, artifact_id, labels, point_count, data) of every raw chunk of
    the named series (``prefix*``), by series then time; a series without a chunk once, with
    None for the chunk. One query where the checklist asked two (the rows, then their chunks)
    for each of some forty names."""
    query = (
        select(
            Series.id,
            Series.name,
            Series.unit,
            Series.host,
            Series.artifact_id,
            Series.labels,
            PointChunk.point_count,
            PointChunk.data,
        )
        .outerjoin(PointChunk, (PointChunk.series_id == Series.id) & (PointChunk.level == 0))
        .where(Series.incident_id == incident_id, _name_clause(name))
    )
    if host:
        query = query.where(Series.host == host)
    return session.execute(
        query.order_by(Series.name, Series.host, Series.id, PointChunk.seq)
    ).all()


# ---- connection tables (per-connection series stored by column) ----


def insert_conn_table(session: Session, row: dict[str, Any]) -> int:
    return int(session.execute(insert(ConnTable).returning(ConnTable.id), row).scalar_one())


def insert_conn_field(session: Session, row: dict[str, Any]) -> int:
    return int(session.execute(insert(ConnField).returning(ConnField.id), row).scalar_one())


def insert_conn_endpoints(session: Session, rows: list[dict[str, Any]]) -> None:
    bulk_insert(session, ConnEndpoint, rows)


def insert_conn_blocks(session: Session, rows: list[dict[str, Any]]) -> None:
    bulk_insert(session, ConnBlock, rows)


def _field_name_clause(name: str) -> Any:
    if name.endswith("*"):
        return ConnField.name.startswith(name[:-1], autoescape=True)
    return ConnField.name == name


FIELD_COLUMNS = (
    ConnField.id,
    ConnField.table_id,
    ConnField.name,
    ConnField.unit,
    ConnField.stats,
    ConnTable.artifact_id,
    ConnTable.host,
    ConnTable.connection_count,
    ConnTable.snapshot_count,
)


def conn_fields(
    session: Session,
    *,
    incident_id: uuid.UUID,
    names: Sequence[str] = (),
    host: str | None = None,
    ids: Iterable[int] = (),
    table_ids: Iterable[int] | None = None,
) -> Sequence[Any]:
    """Fields of the incident's connection tables, by name (``prefix*``) or by id; every field
    when neither is given."""
    query = (
        select(*FIELD_COLUMNS)
        .join(ConnTable, ConnTable.id == ConnField.table_id)
        .where(ConnTable.incident_id == incident_id)
    )
    clauses = [_field_name_clause(n) for n in names]
    id_list = list(ids)
    if id_list:
        clauses.append(ConnField.id.in_(id_list))
    if clauses:
        query = query.where(or_(*clauses))
    if host:
        query = query.where(ConnTable.host == host)
    if table_ids is not None:
        query = query.where(ConnField.table_id.in_(list(table_ids)))
    return session.execute(query.order_by(ConnField.name, ConnField.table_id)).all()


def conn_connection_count(session: Session, *, incident_id: uuid.UUID, host: str | None) -> int:
    query = select(func.coalesce(func.sum(ConnTable.connection_count), 0)).where(
        ConnTable.incident_id == incident_id
    )
    if host:
        query = query.where(ConnTable.host == host)
    return int(session.scalar(query) or 0)


ENDPOINT_COLUMNS = (
    ConnEndpoint.table_id,
    ConnEndpoint.idx,
    ConnEndpoint.local,
    ConnEndpoint.peer,
    ConnTable.host,
    ConnEndpoint.first_ms,
    ConnEndpoint.last_ms,
    ConnEndpoint.volume,
    ConnEndpoint.points,
)


def top_endpoints(
    session: Session, *, incident_id: uuid.UUID, host: str | None, limit: int
) -> Sequence[Any]:
    """The busiest connections: highest peak of bytes acked / received / sent, then most points."""
    query = (
        select(*ENDPOINT_COLUMNS)
        .join(ConnTable, ConnTable.id == ConnEndpoint.table_id)
        .where(ConnEndpoint.incident_id == incident_id)
    )
    if host:
        query = query.where(ConnTable.host == host)
    return session.execute(
        query.order_by(
            ConnEndpoint.volume.desc(),
            ConnEndpoint.points.desc(),
            ConnEndpoint.local,
            ConnEndpoint.peer,
        ).limit(limit)
    ).all()


def search_endpoints(
    session: Session, *, incident_id: uuid.UUID, text: str, host: str | None, limit: int
) -> Sequence[Any]:
    """Connections whose local or peer address contains ``text``, busiest first."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    query = (
        select(*ENDPOINT_COLUMNS)
        .join(ConnTable, ConnTable.id == ConnEndpoint.table_id)
        .where(ConnEndpoint.incident_id == incident_id)
    ).where(
        or_(
            ConnEndpoint.local.like(pattern, escape="\\"),
            ConnEndpoint.peer.like(pattern, escape="\\"),
        ),
    )
    if host:
        query = query.where(ConnTable.host == host)
    return session.execute(
        query.order_by(ConnEndpoint.volume.desc(), ConnEndpoint.points.desc()).limit(limit)
    ).all()


def endpoints_of(session: Session, *, table_ids: Iterable[int]) -> Sequence[Any]:
    return session.execute(
        select(*ENDPOINT_COLUMNS)
        .join(ConnTable, ConnTable.id == ConnEndpoint.table_id)
        .where(ConnEndpoint.table_id.in_(list(table_ids)))
    ).all()


def endpoint_addresses(
    session: Session, *, incident_id: uuid.UUID
) -> Sequence[Row[str | None, str, str]]:
    """(host, local, peer) of every stored connection (for redacted links)."""
    return session.execute(
        select(ConnTable.host, ConnEndpoint.local, ConnEndpoint.peer)
        .join(ConnTable, ConnTable.id == ConnEndpoint.table_id)
        .where(ConnEndpoint.incident_id == incident_id)
    ).all()


def conn_times(session: Session, *, table_ids: Iterable[int]) -> dict[int, bytes]:
    return dict(
        session.execute(
            select(ConnTable.id, ConnTable.times).where(ConnTable.id.in_(list(table_ids)))
        ).all()
    )


def conn_blocks(
    session: Session, *, field_ids: Sequence[int], from_ms: int | None, to_ms: int | None
) -> Sequence[Row[int, int, int, bytes]]:
    """(field_id, first_snapshot, snapshot_count, data) of the blocks overlapping the range."""
    query = select(
        ConnBlock.field_id, ConnBlock.first_snapshot, ConnBlock.snapshot_count, ConnBlock.data
    ).where(ConnBlock.field_id.in_(field_ids))
    if from_ms is not None:
        query = query.where(ConnBlock.last_ms >= from_ms)
    if to_ms is not None:
        query = query.where(ConnBlock.first_ms <= to_ms)
    return session.execute(query.order_by(ConnBlock.field_id, ConnBlock.seq)).all()
