"""Storing parsed events and listing them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.events import repository
from rootline.events.models import Event
from rootline.events.schemas import EventKindSummary, EventPage, EventRead
from rootline.parsers.base import EventData


def store(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    events: Sequence[EventData],
    offset_ms: int = 0,
) -> int:
    """Write the events of one artifact; returns how many."""
    repository.insert_many(
        session,
        [
            {
                "incident_id": incident_id,
                "artifact_id": artifact_id,
                "kind": e.kind,
                "host": host,
                "time_ms": e.time_ms + offset_ms,
                "duration_ms": e.duration_ms,
                "attrs": e.attrs,
                "labels": e.labels,
            }
            for e in events
        ],
    )
    return len(events)


def to_read(event: Event) -> EventRead:
    return EventRead(
        id=event.id,
        artifact_id=str(event.artifact_id),
        kind=event.kind,
        host=event.host,
        time_ms=event.time_ms,
        duration_ms=event.duration_ms,
        attrs=event.attrs,
        labels=event.labels,
    )


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
) -> EventPage:
    """Events in time order with per-kind totals."""
    filters = repository.EventFilter(incident_id, kinds, host, from_ms, to_ms)
    rows = repository.list_page(session, filters, limit=limit, offset=offset)
    summary = [
        EventKindSummary(
            kind=kind, count=count, total_duration_ms=total or 0.0, max_duration_ms=longest
        )
        for kind, count, total, longest in repository.kind_summary(session, filters)
    ]
    return EventPage(
        items=[to_read(r) for r in rows],
        total=sum(s.count for s in summary),
        limit=limit,
        offset=offset,
        kinds=summary,
    )
