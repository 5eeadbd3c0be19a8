"""Every query on events, which are stored in chunks by column (:mod:`rootline.events.chunks`):
what a query filters on per event (time) is decoded from the chunks the SQL finds, the rest
(attrs, labels) only for the events a page shows."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session
from sqlalchemy.sql import ColumnElement

from rootline.events import chunks
from rootline.events.models import EventChunk
from rootline.parsers.base import EventData


@dataclass(frozen=True, slots=True)
class StoredEvent:
    id: int
    artifact_id: uuid.UUID
    kind: str
    host: str | None
    time_ms: int
    duration_ms: float | None
    attrs: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


def insert_events(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    events: Iterable[EventData],
    offset_ms: int = 0,
) -> None:
    """Insert the events of one artifact, as chunks (in the order given, kind by kind)."""
    rows = [chunk.row(incident_id, artifact_id, host) for chunk in chunks.encode(events, offset_ms)]
    # One statement per chunk: the ids must grow in the order given (an executemany may
    # be sent as one multi-row INSERT, whose rows' ids PostgreSQL gives in no set order).
    for row in rows:
        session.execute(insert(EventChunk).values(row))


def delete_for_artifact(session: Session, artifact_id: uuid.UUID) -> None:
    session.execute(delete(EventChunk).where(EventChunk.artifact_id == artifact_id))


@dataclass(frozen=True, slots=True)
class EventFilter:
    incident_id: uuid.UUID
    kinds: Sequence[str]
    host: str | None
    from_ms: int | None
    to_ms: int | None

    def conditions(self) -> list[ColumnElement[bool]]:
        """The chunks that may hold a matching event."""
        found = [EventChunk.incident_id == self.incident_id]
        if self.kinds:
            found.append(EventChunk.kind.in_(self.kinds))
        if self.host:
            found.append(EventChunk.host == self.host)
        if self.from_ms is not None:
            found.append(EventChunk.last_ms >= self.from_ms)
        if self.to_ms is not None:
            found.append(EventChunk.first_ms <= self.to_ms)
        return found

    def holds_all(self, first_ms: int, last_ms: int) -> bool:
        """Whether every event of a chunk spanning these times matches (kind and host are
        the SQL's)."""
        return (self.from_ms is None or first_ms >= self.from_ms) and (
            self.to_ms is None or last_ms <= self.to_ms
        )

    def matching(self, times: chunks.Times) -> np.ndarray:
        """A mask of the times that match."""
        mask = np.ones(len(times), dtype=bool)
        if self.from_ms is not None:
            mask &= times >= self.from_ms
        if self.to_ms is not None:
            mask &= times <= self.to_ms
        return mask


def list_page(
    session: Session, filters: EventFilter, *, limit: int, offset: int
) -> list[StoredEvent]:
    """The matching events in time order (ties in the order stored), ``limit`` of them from
    ``offset`` on."""
    found_ids: list[np.ndarray] = []
    found_times: list[chunks.Times] = []
    for chunk_id, first_ms, last_ms, times_data in session.execute(
        select(EventChunk.id, EventChunk.first_ms, EventChunk.last_ms, EventChunk.times)
        .where(*filters.conditions())
        .order_by(EventChunk.id)
    ):
        times = chunks.times(times_data)
        ids = chunks.ids(chunk_id, len(times))
        if not filters.holds_all(first_ms, last_ms):
            mask = filters.matching(times)
            times, ids = times[mask], ids[mask]
        found_ids.append(ids)
        found_times.append(times)
    order = chunks.in_order(found_ids, found_times)
    page = np.concatenate(found_ids)[order[offset : offset + limit]].tolist() if order.size else []
    wanted: dict[int, list[int]] = {}
    for event in page:
        chunk_id, index = chunks.chunk_of(event)
        wanted.setdefault(chunk_id, []).append(index)
    events: dict[int, StoredEvent] = {}
    if wanted:
        for row in session.scalars(select(EventChunk).where(EventChunk.id.in_(list(wanted)))):
            events.update(_events_of(row, wanted[row.id]))
    return [events[event] for event in page]


def _events_of(row: EventChunk, indexes: Iterable[int]) -> Iterator[tuple[int, StoredEvent]]:
    times = chunks.times(row.times).tolist()
    durations = chunks.duration_list(row.durations)
    attrs = chunks.json_list(row.attrs, row.count)
    labels = chunks.json_list(row.labels, row.count)
    for index in indexes:
        event = chunks.event_id(row.id, index)
        yield (
            event,
            StoredEvent(
                id=event,
                artifact_id=row.artifact_id,
                kind=row.kind,
                host=row.host,
                time_ms=times[index],
                duration_ms=durations[index],
                attrs=attrs[index],
                labels=labels[index],
            ),
        )


def kind_summary(
    session: Session, filters: EventFilter
) -> list[tuple[str, int, float | None, float | None]]:
    """(kind, count, total duration, longest duration) of the matching events of each kind,
    by kind; the durations None when no matching event of the kind has one."""
    counts: dict[str, int] = {}
    totals: dict[str, list[float]] = {}
    longest: dict[str, float] = {}
    for kind, count, first_ms, last_ms, total, top, chunk_id in session.execute(
        select(
            EventChunk.kind,
            EventChunk.count,
            EventChunk.first_ms,
            EventChunk.last_ms,
            EventChunk.total_duration_ms,
            EventChunk.max_duration_ms,
            EventChunk.id,
        ).where(*filters.conditions())
    ):
        if not filters.holds_all(first_ms, last_ms):
            # A chunk the window cuts: its events are counted one by one.
            times_data, durations_data = session.execute(
                select(EventChunk.times, EventChunk.durations).where(EventChunk.id == chunk_id)
            ).one()
            mask = filters.matching(chunks.times(times_data))
            count = int(mask.sum())
            if not count:
                continue
            durations = chunks.durations(durations_data)[mask]
            durations = durations[~np.isnan(durations)]
            total = math.fsum(durations.tolist()) if durations.size else None
            top = float(durations.max()) if durations.size else None
        counts[kind] = counts.get(kind, 0) + count
        if total is not None:
            totals.setdefault(kind, []).append(total)
        if top is not None:
            longest[kind] = max(top, longest.get(kind, top))
    return [
        (
            kind,
            counts[kind],
            math.fsum(totals[kind]) if kind in totals else None,
            longest.get(kind),
        )
        for kind in sorted(counts)
    ]


@dataclass(frozen=True, slots=True)
class KindEvents:
    """The events of one kind in time order, by column: what the detectors read of them.
    ``chunk[i]`` is the position in ``artifacts`` of event i's artifact (an artifact's id
    once per chunk, not per event: the checklist names each event's file)."""

    times_ms: list[int]
    durations: list[float | None]
    attrs: list[dict[str, Any]]
    hosts: list[str | None]
    chunk: list[int]
    artifacts: list[uuid.UUID]


def all_of_kind(
    session: Session, *, incident_id: uuid.UUID, kind: str, host: str | None
) -> KindEvents:
    """The events of one kind in time order (ties in the order stored)."""
    query = select(EventChunk).where(EventChunk.incident_id == incident_id, EventChunk.kind == kind)
    if host:
        query = query.where(EventChunk.host == host)
    found_ids: list[np.ndarray] = []
    found_times: list[chunks.Times] = []
    durations: list[float | None] = []
    attrs: list[dict[str, Any]] = []
    hosts: list[str | None] = []
    chunk_of_event: list[np.ndarray] = []
    artifacts: list[uuid.UUID] = []
    for row in session.scalars(query.order_by(EventChunk.id)):
        times = chunks.times(row.times)
        found_ids.append(chunks.ids(row.id, len(times)))
        found_times.append(times)
        durations += chunks.duration_list(row.durations)
        attrs += chunks.json_list(row.attrs, row.count)
        hosts += [row.host] * row.count
        chunk_of_event.append(np.full(row.count, len(artifacts), dtype=np.int64))
        artifacts.append(row.artifact_id)
    if not found_ids:
        return KindEvents([], [], [], [], [], [])
    order = chunks.in_order(found_ids, found_times)
    times_ms = np.concatenate(found_times)[order].tolist()
    position = order.tolist()
    return KindEvents(
        times_ms,
        [durations[i] for i in position],
        [attrs[i] for i in position],
        [hosts[i] for i in position],
        np.concatenate(chunk_of_event)[order].tolist(),
        artifacts,
    )


def get(session: Session, incident_id: uuid.UUID, event_id: int) -> StoredEvent | None:
    """One event of the incident (None if it has no such event)."""
    chunk_id, index = chunks.chunk_of(event_id)
    row = session.get(EventChunk, chunk_id)
    if row is None or row.incident_id != incident_id or not 0 <= index < row.count:
        return None
    return next(event for _, event in _events_of(row, [index]))
