"""Every query on series and their point chunks."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Row, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from rootline.db import bulk_insert
from rootline.series.models import PointChunk, Series


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
    # Chunks go with their series through ON DELETE CASCADE.
    session.execute(delete(Series).where(Series.artifact_id == artifact_id))


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


def level0_chunks(session: Session, *, series_ids: Sequence[int]) -> Sequence[Row[int, int, bytes]]:
    """(series_id, point_count, data) of every raw chunk of the given series, in time order."""
    return session.execute(
        select(PointChunk.series_id, PointChunk.point_count, PointChunk.data)
        .where(PointChunk.series_id.in_(series_ids), PointChunk.level == 0)
        .order_by(PointChunk.series_id, PointChunk.seq)
    ).all()


def by_name(
    session: Session, *, incident_id: uuid.UUID, name: str, host: str | None
) -> Sequence[Series]:
    query = select(Series).where(Series.incident_id == incident_id, _name_clause(name))
    if host:
        query = query.where(Series.host == host)
    return session.scalars(query.order_by(Series.name, Series.host, Series.id)).all()
