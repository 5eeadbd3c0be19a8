"""Every query on events."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from sqlalchemy import Row, Text, cast, delete, func, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from rootline.db import bulk_insert
from rootline.events.models import Event

INSERT_BATCH = 5000
READ_BATCH = 5000


def insert_many(session: Session, rows: Iterable[dict[str, Any]]) -> None:
    """Insert ``rows`` a batch at a time, taken from the iterable as they are written (the
    rows of a GC log's hundreds of thousands of pauses are never all held at once)."""
    rows = iter(rows)
    while batch := list(islice(rows, INSERT_BATCH)):
        bulk_insert(session, Event, batch)


def delete_for_artifact(session: Session, artifact_id: uuid.UUID) -> None:
    session.execute(delete(Event).where(Event.artifact_id == artifact_id))


@dataclass(frozen=True, slots=True)
class EventFilter:
    incident_id: uuid.UUID
    kinds: Sequence[str]
    host: str | None
    from_ms: int | None
    to_ms: int | None

    def conditions(self) -> list[ColumnElement[bool]]:
        found = [Event.incident_id == self.incident_id]
        if self.kinds:
            found.append(Event.kind.in_(self.kinds))
        if self.host:
            found.append(Event.host == self.host)
        if self.from_ms is not None:
            found.append(Event.time_ms >= self.from_ms)
        if self.to_ms is not None:
            found.append(Event.time_ms <= self.to_ms)
        return found


def list_page(
    session: Session, filters: EventFilter, *, limit: int, offset: int
) -> Sequence[Event]:
    query = select(Event).where(*filters.conditions())
    return session.scalars(
        query.order_by(Event.time_ms, Event.id).limit(limit).offset(offset)
    ).all()


def kind_summary(
    session: Session, filters: EventFilter
) -> Sequence[Row[str, int, float | None, float | None]]:
    query = (
        select(Event.kind, func.count(), func.sum(Event.duration_ms), func.max(Event.duration_ms))
        .where(*filters.conditions())
        .group_by(Event.kind)
        .order_by(Event.kind)
    )
    return session.execute(query).all()


def all_of_kind(
    session: Session, *, incident_id: uuid.UUID, kind: str, host: str | None
) -> Iterator[tuple[str, int, float | None, dict[str, Any], str | None, uuid.UUID]]:
    """The events of one kind in time order, as tuples of the columns the detectors read
    (not ORM objects: a GC log holds hundreds of thousands of pauses).

    Both ``attrs`` and the artifact id are read as text (on PostgreSQL too, where the driver
    would decode JSON and UUIDs itself): the id is converted once per artifact and ``attrs``
    decoded straight from its text, not through each column's per-row result processing."""
    query = select(
        Event.kind,
        Event.time_ms,
        Event.duration_ms,
        cast(Event.attrs, Text),
        Event.host,
        cast(Event.artifact_id, Text),
    ).where(Event.incident_id == incident_id, Event.kind == kind)
    if host:
        query = query.where(Event.host == host)
    artifacts: dict[str, uuid.UUID] = {}
    loads = json.JSONDecoder().decode
    # Fetched a batch at a time (a server-side cursor on PostgreSQL), so the driver never
    # holds every row's text beside the decoded events.
    for kind_, time_ms, duration_ms, attrs, host_, artifact in session.execute(
        query.order_by(Event.time_ms, Event.id).execution_options(yield_per=READ_BATCH)
    ):
        artifact_id = artifacts.get(artifact)
        if artifact_id is None:
            artifact_id = artifacts[artifact] = uuid.UUID(artifact)
        yield kind_, time_ms, duration_ms, loads(attrs), host_, artifact_id


def get(session: Session, incident_id: uuid.UUID, event_id: int) -> Event | None:
    """One event of the incident (None if it has no such event)."""
    event = session.get(Event, event_id)
    return event if event is not None and event.incident_id == incident_id else None
