"""Every query on events."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from sqlalchemy import Row, String, Table, Text, cast, delete, func, insert, select
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from rootline.db import bulk_insert, json_dumps_maker, json_loads
from rootline.events.models import Event
from rootline.parsers.base import EventData

INSERT_BATCH = 5000
READ_BATCH = 5000


def insert_many(session: Session, rows: Iterable[dict[str, Any]]) -> None:
    """Insert ``rows`` a batch at a time, taken from the iterable as they are written (the
    rows of a GC log's hundreds of thousands of pauses are never all held at once)."""
    rows = iter(rows)
    while batch := list(islice(rows, INSERT_BATCH)):
        bulk_insert(session, Event, batch)


EVENT_COLUMNS = (
    "incident_id",
    "artifact_id",
    "kind",
    "host",
    "time_ms",
    "duration_ms",
    "attrs",
    "labels",
)


def insert_events(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    events: Iterable[EventData],
    offset_ms: int = 0,
) -> None:
    """Insert the events of one artifact: what :func:`insert_many` writes for them, with
    the row built once per event as the database takes it (a GC log's hundreds of thousands
    of pauses cost no dict, no per-value bind processing and no ``json.dumps`` set-up each)."""
    connection = session.connection()
    dialect = connection.dialect
    table: Table = Event.__table__  # type: ignore[assignment]
    dumps = json_dumps_maker()
    empty_json = dumps({})
    if dialect.name == "postgresql":
        _copy_events(connection, table, incident_id, artifact_id, host, events, offset_ms)
        return
    compiled = insert(table).compile(dialect=dialect, column_keys=list(EVENT_COLUMNS))
    plain = _plain_json(dialect) and all(
        table.c[name].type._cached_bind_processor(dialect) is None
        for name in ("kind", "host", "time_ms")
    )
    # SQLite's Float binds through float() (None stays None).
    bind_duration = table.c["duration_ms"].type._cached_bind_processor(dialect) or _same
    if not plain or not compiled.positional or compiled.positiontup != list(EVENT_COLUMNS):
        insert_many(session, _event_rows(incident_id, artifact_id, host, events, offset_ms))
        return
    # The ids are the same in every row: bound (UUID to text) once.
    incident, artifact = (
        value if processor is None else processor(value)
        for name, value in (("incident_id", incident_id), ("artifact_id", artifact_id))
        for processor in (table.c[name].type._cached_bind_processor(dialect),)
    )
    rows = (
        (
            incident,
            artifact,
            e.kind,
            host,
            e.time_ms + offset_ms,
            bind_duration(e.duration_ms),
            dumps(e.attrs),
            empty_json if e.labels == {} else dumps(e.labels),
        )
        for e in events
    )
    while batch := list(islice(rows, INSERT_BATCH)):
        connection.exec_driver_sql(compiled.string, batch)


# COPY's text format: a backslash, a line break or a tab inside a value is escaped.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"})
_COPY_NULL = "\\N"


def _copy_value(value: object) -> str:
    """One value as COPY's text format has it (as psycopg's ``write_row`` writes it: None
    as ``\\N``, a number as ``str()`` gives it, a text escaped)."""
    if value is None:
        return _COPY_NULL
    return str(value).translate(_COPY_ESCAPES)


def _copy_events(
    connection: Connection,
    table: Table,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    events: Iterable[EventData],
    offset_ms: int,
) -> None:
    """The rows of :func:`insert_events` written as COPY's text, a batch of lines at a time
    (``write_row`` adapts each value of each row on its own)."""
    dumps = json_dumps_maker()
    empty_json = dumps({})
    same_in_rows = "\t".join(_copy_value(v) for v in (incident_id, artifact_id))
    host_text = _copy_value(host)
    kinds: dict[str, str] = {}
    statement = f'COPY "{table.name}" ({", ".join(EVENT_COLUMNS)}) FROM STDIN'
    driver = connection.connection.driver_connection
    lines: list[str] = []
    with driver.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
        for e in events:
            kind = kinds.get(e.kind)
            if kind is None:
                kind = kinds[e.kind] = _copy_value(e.kind)
            duration = e.duration_ms
            # JSON escapes every control character: no line break or tab, a backslash at most.
            attrs = dumps(e.attrs)
            if "\\" in attrs:
                attrs = attrs.replace("\\", "\\\\")
            labels = empty_json if e.labels == {} else _copy_value(dumps(e.labels))
            lines.append(
                f"{same_in_rows}\t{kind}\t{host_text}\t{e.time_ms + offset_ms}\t"
                f"{_COPY_NULL if duration is None else duration}\t{attrs}\t{labels}\n"
            )
            if len(lines) >= INSERT_BATCH:
                copy.write("".join(lines))
                lines.clear()
        if lines:
            copy.write("".join(lines))


def _same(value: Any) -> Any:
    return value


def _plain_json(dialect: Dialect) -> bool:
    """Whether the dialect writes a JSON value as ``json.dumps`` gives it, nothing more."""
    serializer = getattr(dialect, "_json_serializer", None)
    return serializer is None and String()._cached_bind_processor(dialect) is None


def _event_rows(
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    events: Iterable[EventData],
    offset_ms: int,
) -> Iterator[dict[str, Any]]:
    for e in events:
        yield {
            "incident_id": incident_id,
            "artifact_id": artifact_id,
            "kind": e.kind,
            "host": host,
            "time_ms": e.time_ms + offset_ms,
            "duration_ms": e.duration_ms,
            "attrs": e.attrs,
            "labels": e.labels,
        }


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
    # Fetched a batch at a time (a server-side cursor on PostgreSQL), so the driver never
    # holds every row's text beside the decoded events.
    # Through the session's connection: rows of plain columns need none of the ORM's steps.
    for kind_, time_ms, duration_ms, attrs, host_, artifact in session.connection().execute(
        query.order_by(Event.time_ms, Event.id).execution_options(yield_per=READ_BATCH)
    ):
        artifact_id = artifacts.get(artifact)
        if artifact_id is None:
            artifact_id = artifacts[artifact] = uuid.UUID(artifact)
        yield kind_, time_ms, duration_ms, json_loads(attrs), host_, artifact_id


def get(session: Session, incident_id: uuid.UUID, event_id: int) -> Event | None:
    """One event of the incident (None if it has no such event)."""
    event = session.get(Event, event_id)
    return event if event is not None and event.incident_id == incident_id else None
