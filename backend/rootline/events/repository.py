"""Every query on events."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, delete, func, insert, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import Select

from rootline.events.models import Event

INSERT_BATCH = 5000


def insert_many(session: Session, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), INSERT_BATCH):
        session.execute(insert(Event), rows[start : start + INSERT_BATCH])


def delete_for_artifact(session: Session, artifact_id: uuid.UUID) -> None:
    session.execute(delete(Event).where(Event.artifact_id == artifact_id))


def _filtered(
    query: Select[Any],
    *,
    incident_id: uuid.UUID,
    kinds: Sequence[str],
    host: str | None,
    from_ms: int | None,
    to_ms: int | None,
) -> Select[Any]:
    query = query.where(Event.incident_id == incident_id)
    if kinds:
        query = query.where(Event.kind.in_(kinds))
    if host:
        query = query.where(Event.host == host)
    if from_ms is not None:
        query = query.where(Event.time_ms >= from_ms)
    if to_ms is not None:
        query = query.where(Event.time_ms <= to_ms)
    return query


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    kinds: Sequence[str],
    host: str | None,
    from_ms: int | None,
    to_ms: int | None,
    limit: int,
    offset: int,
) -> Sequence[Event]:
    query = _filtered(
        select(Event), incident_id=incident_id, kinds=kinds, host=host, from_ms=from_ms, to_ms=to_ms
    )
    return session.scalars(
        query.order_by(Event.time_ms, Event.id).limit(limit).offset(offset)
    ).all()


def kind_summary(
    session: Session,
    *,
    incident_id: uuid.UUID,
    kinds: Sequence[str],
    host: str | None,
    from_ms: int | None,
    to_ms: int | None,
) -> Sequence[Row[tuple[str, int, float | None, float | None]]]:
    query = select(
        Event.kind, func.count(), func.sum(Event.duration_ms), func.max(Event.duration_ms)
    ).group_by(Event.kind)
    query = _filtered(
        query, incident_id=incident_id, kinds=kinds, host=host, from_ms=from_ms, to_ms=to_ms
    )
    return session.execute(query.order_by(Event.kind)).all()


def all_of_kind(
    session: Session, *, incident_id: uuid.UUID, kind: str, host: str | None
) -> Sequence[Event]:
    query = select(Event).where(Event.incident_id == incident_id, Event.kind == kind)
    if host:
        query = query.where(Event.host == host)
    return session.scalars(query.order_by(Event.time_ms, Event.id)).all()
