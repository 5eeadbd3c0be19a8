"""Events written by the batch insert (bind processing once per batch, COPY on PostgreSQL) and
read back by the checklist's reader are the events the parser gave, value for value."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact
from rootline.checklist.data import DatabaseIncidentData
from rootline.db import bulk_insert
from rootline.events import repository, service
from rootline.events.models import Event
from rootline.incidents.models import Incident
from rootline.parsers.base import EventData
from tests.conftest import db_session


def _incident_with_artifacts(
    session: Session, names: list[str]
) -> tuple[uuid.UUID, list[uuid.UUID]]:
    incident = Incident(title="events")
    session.add(incident)
    session.flush()
    ids = []
    for name in names:
        artifact = Artifact(
            incident_id=incident.id,
            sha256=f"{len(ids):064d}",
            size_bytes=1,
            filename=name,
            status="parsed",
        )
        session.add(artifact)
        session.flush()
        ids.append(artifact.id)
    return incident.id, ids


EVENTS = [
    EventData(
        "gc_pause",
        1_700_000_000_000 + i,
        None if i % 7 == 0 else round(i * 0.123456, 6) if i % 7 != 1 else i * 1e-7,
        {}
        if i % 5 == 0
        else {
            "type": "full" if i % 3 == 0 else "young",
            "cause": "Allocation Failure — ünïcode",
            # What COPY's text format escapes, and what JSON escapes.
            "note": 'a\\b\tc\nd\re "quoted" \\N',
            "heap_total_mb": 64.0 + i,
            "nested": {"list": [1, 2.5, None, True]},
            "to_space_exhausted": i % 4 == 0,
        },
        {} if i % 2 else {"pool": f"p{i}\\\t"},
    )
    for i in range(23)
]


def test_events_read_back_as_written(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(repository, "READ_BATCH", 4)  # read in several batches
    with db_session(database_url) as session:
        incident_id, (first, second) = _incident_with_artifacts(session, ["a.log", "dir/b.log"])
        # Two artifacts' events in one incident, interleaved in time.
        service.store(
            session, incident_id=incident_id, artifact_id=first, host="h1", events=EVENTS[::2]
        )
        service.store(
            session, incident_id=incident_id, artifact_id=second, host=None, events=EVENTS[1::2]
        )
    with db_session(database_url) as session:
        rows = session.scalars(select(Event).order_by(Event.time_ms)).all()
        assert [(r.kind, r.time_ms, r.duration_ms, r.attrs, r.labels) for r in rows] == [
            (e.kind, e.time_ms, e.duration_ms, e.attrs, e.labels) for e in EVENTS
        ]
        assert [(r.artifact_id, r.host) for r in rows] == [
            (first, "h1") if i % 2 == 0 else (second, None) for i in range(len(EVENTS))
        ]
        views = DatabaseIncidentData(session, incident_id).events("gc_pause")
        assert [(v.time_ms, v.duration_ms, v.attrs, v.host, v.artifact) for v in views] == [
            (e.time_ms, e.duration_ms, e.attrs, "h1", "a.log")
            if i % 2 == 0
            else (e.time_ms, e.duration_ms, e.attrs, None, "dir/b.log")
            for i, e in enumerate(EVENTS)
        ]
        only_h1 = DatabaseIncidentData(session, incident_id).events("gc_pause", host="h1")
        assert [v.time_ms for v in only_h1] == [e.time_ms for e in EVENTS[::2]]


def test_bulk_insert_fills_python_defaults_and_takes_any_key_order(database_url: str) -> None:
    with db_session(database_url) as session:
        incident_id, (artifact,) = _incident_with_artifacts(session, ["a.log"])
        # No attrs or labels given: the columns' Python defaults ({}) fill them.
        bulk_insert(
            session,
            Event,
            [
                {"time_ms": t, "kind": "k", "artifact_id": artifact, "incident_id": incident_id}
                for t in (3, 1, 2)
            ],
        )
    with db_session(database_url) as session:
        rows = session.scalars(select(Event).order_by(Event.time_ms)).all()
        assert [(r.time_ms, r.kind, r.attrs, r.labels, r.host) for r in rows] == [
            (1, "k", {}, {}, None),
            (2, "k", {}, {}, None),
            (3, "k", {}, {}, None),
        ]
