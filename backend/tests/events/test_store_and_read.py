"""Events written as chunks by column and read back (a page of them, sums per kind, the
checklist's reader, one by id) are the events the parser gave, value for value, in the order
the table of one row per event gave them."""

from __future__ import annotations

import math
import random
import uuid

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact
from rootline.checklist.data import DatabaseIncidentData
from rootline.db import bulk_insert
from rootline.events import chunks, repository, service
from rootline.events.models import EventChunk
from rootline.incidents.models import Incident
from rootline.parsers.base import EventData
from rootline.series.models import Series
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


def _stored(session: Session, incident_id: uuid.UUID, **filters: object) -> list:
    found = repository.EventFilter(
        incident_id,
        filters.get("kinds", ()),  # type: ignore[arg-type]
        filters.get("host"),  # type: ignore[arg-type]
        filters.get("from_ms"),  # type: ignore[arg-type]
        filters.get("to_ms"),  # type: ignore[arg-type]
    )
    return repository.list_page(session, found, limit=10_000, offset=0)


def test_events_read_back_as_written(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunks, "CHUNK_EVENTS", 4)  # several chunks per artifact
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
        assert session.scalar(select(func.count()).select_from(EventChunk)) == 3 + 3
        rows = _stored(session, incident_id)
        assert [(r.kind, r.time_ms, r.duration_ms, r.attrs, r.labels) for r in rows] == [
            (e.kind, e.time_ms, e.duration_ms, e.attrs, e.labels) for e in EVENTS
        ]
        assert [(r.artifact_id, r.host) for r in rows] == [
            (first, "h1") if i % 2 == 0 else (second, None) for i in range(len(EVENTS))
        ]
        # Each event is found again by its id.
        assert len({r.id for r in rows}) == len(rows)
        assert all(repository.get(session, incident_id, r.id) == r for r in rows)
        assert repository.get(session, uuid.uuid4(), rows[0].id) is None
        views = DatabaseIncidentData(session, incident_id).events("gc_pause")
        assert [(v.time_ms, v.duration_ms, v.attrs, v.host, v.artifact) for v in views] == [
            (e.time_ms, e.duration_ms, e.attrs, "h1", "a.log")
            if i % 2 == 0
            else (e.time_ms, e.duration_ms, e.attrs, None, "dir/b.log")
            for i, e in enumerate(EVENTS)
        ]
        only_h1 = DatabaseIncidentData(session, incident_id).events("gc_pause", host="h1")
        assert [v.time_ms for v in only_h1] == [e.time_ms for e in EVENTS[::2]]


def _as_rows(events: list[tuple[int, EventData]]) -> list[tuple[int, str, int, float | None]]:
    return [(i, e.kind, e.time_ms, e.duration_ms) for i, e in events]


def test_pages_and_sums_are_those_of_one_row_per_event(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against what ORDER BY time_ms, id with LIMIT and OFFSET, and SUM/MAX/COUNT grouped by
    kind, gave on the table of one row per event: events out of time order, ties in time,
    two kinds, windows that cut chunks."""
    monkeypatch.setattr(chunks, "CHUNK_EVENTS", 5)
    rng = random.Random(7)
    given = [
        EventData(
            "gc_pause" if i % 3 else "gc_concurrent",
            1_000 + rng.randrange(40),  # ties, and chunks whose times overlap
            None if i % 4 == 0 else rng.choice([0.1, 0.2, 0.3, 12.5, 1e-7]),
            {"i": i},
        )
        for i in range(60)
    ]
    with db_session(database_url) as session:
        incident_id, (artifact,) = _incident_with_artifacts(session, ["gc.log"])
        service.store(
            session, incident_id=incident_id, artifact_id=artifact, host="h", events=given
        )
    # Rows as the old table had them, ids in the order stored: here kind by kind, in the order
    # the kinds first come (the chunks' order), so ties in time fall the same way.
    kinds = dict.fromkeys(e.kind for e in given)
    by_kind = [(k, e) for k in kinds for e in given if e.kind == k]
    numbered = list(enumerate(e for _, e in by_kind))
    windows = [
        (None, None),
        (1_010, None),
        (None, 1_020),
        (1_005, 1_005),
        (1_013, 1_031),
        (2_000, None),
    ]
    with db_session(database_url) as session:
        for from_ms, to_ms in windows:
            inside = [
                (i, e)
                for i, e in numbered
                if (from_ms is None or e.time_ms >= from_ms)
                and (to_ms is None or e.time_ms <= to_ms)
            ]
            inside.sort(key=lambda pair: (pair[1].time_ms, pair[0]))
            filters = repository.EventFilter(incident_id, (), None, from_ms, to_ms)
            for offset, limit in [(0, 1000), (0, 7), (7, 7), (len(inside) - 2, 5), (999, 3)]:
                page = repository.list_page(session, filters, limit=limit, offset=offset)
                expected = inside[offset : offset + limit]
                assert [(r.kind, r.time_ms, r.duration_ms, r.attrs) for r in page] == [
                    (e.kind, e.time_ms, e.duration_ms, e.attrs) for _, e in expected
                ], (from_ms, to_ms, offset, limit)
            summary = repository.kind_summary(session, filters)
            expected_summary = []
            for kind in sorted({e.kind for _, e in inside}):
                durations = [
                    e.duration_ms for _, e in inside if e.kind == kind and e.duration_ms is not None
                ]
                expected_summary.append(
                    (
                        kind,
                        sum(1 for _, e in inside if e.kind == kind),
                        math.fsum(durations) if durations else None,
                        max(durations) if durations else None,
                    )
                )
            # Sums of sums: the same to the last bits or nearly.
            assert [(k, n, m) for k, n, _, m in summary] == [
                (k, n, m) for k, n, _, m in expected_summary
            ], (from_ms, to_ms)
            assert [-1.0 if t is None else t for _, _, t, _ in summary] == pytest.approx(
                [-1.0 if t is None else t for _, _, t, _ in expected_summary], rel=1e-12
            )
        only = repository.EventFilter(incident_id, ("gc_concurrent",), "h", None, None)
        assert {r.kind for r in repository.list_page(session, only, limit=100, offset=0)} == {
            "gc_concurrent"
        }
        assert (
            repository.list_page(
                session,
                repository.EventFilter(incident_id, (), "other", None, None),
                limit=9,
                offset=0,
            )
            == []
        )


def test_deleting_an_artifacts_events_leaves_the_others(database_url: str) -> None:
    with db_session(database_url) as session:
        incident_id, (first, second) = _incident_with_artifacts(session, ["a.log", "b.log"])
        service.store(session, incident_id=incident_id, artifact_id=first, host=None, events=EVENTS)
        service.store(
            session, incident_id=incident_id, artifact_id=second, host=None, events=EVENTS[:3]
        )
        repository.delete_for_artifact(session, first)
    with db_session(database_url) as session:
        assert {r.artifact_id for r in _stored(session, incident_id)} == {second}
        assert len(_stored(session, incident_id)) == 3


def test_bulk_insert_fills_python_defaults_and_takes_any_key_order(database_url: str) -> None:
    with db_session(database_url) as session:
        incident_id, (artifact,) = _incident_with_artifacts(session, ["a.log"])
        # No labels, unit or point count given: the columns' Python defaults fill them.
        bulk_insert(
            session,
            Series,
            [
                {
                    "first_ms": t,
                    "name": "s",
                    "last_ms": t,
                    "min_value": 0.0,
                    "max_value": 1.0,
                    "artifact_id": artifact,
                    "incident_id": incident_id,
                }
                for t in (3, 1, 2)
            ],
        )
    with db_session(database_url) as session:
        rows = session.scalars(select(Series).order_by(Series.first_ms)).all()
        assert [(r.first_ms, r.name, r.labels, r.unit, r.point_count, r.host) for r in rows] == [
            (1, "s", {}, "", 0, None),
            (2, "s", {}, "", 0, None),
            (3, "s", {}, "", 0, None),
        ]
