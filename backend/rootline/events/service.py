"""Storing parsed events and listing them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.artifacts import repository as artifacts_repository
from rootline.errors import NotFound
from rootline.events import repository
from rootline.events.repository import StoredEvent
from rootline.events.schemas import EventKindSummary, EventPage, EventRead, ThreadDumpRead
from rootline.incidents.models import Incident
from rootline.parsers import thread_dump
from rootline.parsers.base import EventData, ParseContext, bound_lines, decode_text
from rootline.storage import ArtifactStore


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
    repository.insert_events(
        session,
        incident_id=incident_id,
        artifact_id=artifact_id,
        host=host,
        events=events,
        offset_ms=offset_ms,
    )
    return len(events)


def to_read(event: StoredEvent) -> EventRead:
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


def dump_threads(
    session: Session, store: ArtifactStore, *, incident: Incident, event_id: int
) -> ThreadDumpRead:
    """Every thread of the dump a ``thread_dump`` event stands for, read again from the
    artifact's stored bytes (the parse stores summaries only; the bytes are kept verbatim)."""
    event = repository.get(session, incident.id, event_id)
    if event is None or event.kind != "thread_dump":
        raise NotFound(
            "dump_not_found", f"no thread dump event {event_id} in incident {incident.id}"
        )
    artifact = artifacts_repository.get(session, incident.id, event.artifact_id)
    if artifact is None:
        raise NotFound("dump_not_found", f"the artifact of event {event_id} is gone")
    index = int(event.attrs.get("dump_index", 0))
    found = {
        "event_id": event.id,
        "artifact_id": str(artifact.id),
        "host": event.host,
        "time_ms": event.time_ms,
        "dump_index": index,
    }
    sha256, uploaded_at_ms = artifact.sha256, artifact.uploaded_at_ms
    # No transaction is needed while the bytes are read and parsed (a big dump takes a while).
    session.rollback()
    try:
        data = store.read(sha256)
    except FileNotFoundError:
        raise NotFound(
            "dump_not_found", "the dump's raw bytes are missing from the store"
        ) from None
    text, _ = decode_text(bound_lines(data)[0])
    dumps = thread_dump.read_threads(
        text, ParseContext.for_zone(None, default_time_ms=uploaded_at_ms)
    )
    if not 0 <= index < len(dumps):
        raise NotFound(
            "dump_not_found",
            f"the file holds {len(dumps)} dumps, not dump {index} (re-parse the artifact)",
        )
    return ThreadDumpRead.model_validate({**found, "threads": dumps[index]["threads"]})
