"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.orm import Session

from rootline import models
from rootline.db import alembic_config, make_engine


def test_single_head(database_url: str) -> None:
    script = ScriptDirectory.from_config(alembic_config(database_url))
    assert len(script.get_heads()) == 1


def test_models_match_migrations(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, models.Base.metadata)
    engine.dispose()
    assert differences == []


def test_downgrade_to_base_and_back(database_url: str) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "base")
    engine = make_engine(database_url)
    with engine.connect() as connection:
        tables = set(engine.dialect.get_table_names(connection))
    assert tables <= {"alembic_version"}
    command.upgrade(config, "head")
    with engine.connect() as connection:
        tables = set(engine.dialect.get_table_names(connection))
    engine.dispose()
    assert {t.name for t in models.Base.metadata.sorted_tables} <= tables


def test_events_move_into_chunks_and_back(database_url: str) -> None:
    """0012 moves every row of ``events`` into ``event_chunks``; its downgrade moves them back,
    value for value, each artifact's events in the order they were stored."""

    import sqlalchemy as sa

    from rootline.artifacts.models import Artifact
    from rootline.events import repository
    from rootline.incidents.models import Incident

    config = alembic_config(database_url)
    engine = make_engine(database_url)
    with Session(engine) as session:
        made = Incident(title="t")
        session.add(made)
        session.flush()
        files = [
            Artifact(incident_id=made.id, sha256=name, size_bytes=1, filename=name)
            for name in ("a.log", "b.log")
        ]
        session.add_all(files)
        session.commit()
        incident, artifacts = made.id, [f.id for f in files]
    command.downgrade(config, "0011")
    events = sa.table(
        "events",
        *(sa.column(n) for n in ("incident_id", "artifact_id", "kind", "host", "time_ms")),
        sa.column("duration_ms"),
        sa.column("attrs", sa.JSON()),
        sa.column("labels", sa.JSON()),
        sa.column("id"),
    )
    ids = sa.Uuid().bind_processor(engine.dialect) or (lambda v: v)
    rows = [
        {
            "incident_id": ids(incident),
            "artifact_id": ids(artifacts[i % 4 // 3]),  # 0, 1, 2 in a.log, 3 in b.log ...
            "kind": "gc_pause" if i % 3 else "thread_dump",
            "host": "h1" if i % 4 // 3 == 0 else None,
            "time_ms": 1_000 + (7 * i) % 10,
            "duration_ms": None if i % 3 == 0 else i / 10,
            "attrs": {"i": i, "cause": "G1 Evacuation Pause", "nan": None},
            "labels": {} if i % 2 else {"pool": "p"},
        }
        for i in range(12)
    ]
    with engine.begin() as connection:
        connection.execute(sa.insert(events), rows)
        before = connection.execute(sa.select(events).order_by(events.c.time_ms, events.c.id)).all()
    command.upgrade(config, "head")
    with Session(engine) as session:
        stored = repository.list_page(
            session,
            repository.EventFilter(incident, (), None, None, None),
            limit=100,
            offset=0,
        )
        assert session.get(Incident, incident) is not None

    def values(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
        return sorted(
            (
                str(r.artifact_id).replace("-", ""),
                r.kind,
                r.time_ms,
                r.duration_ms,
                sorted(r.attrs.items(), key=str),
                r.labels,
                r.host,
            )
            for r in rows
        )

    assert len(stored) == len(before) == 12
    assert values(stored) == values(before)
    # Ties in time: the old ids ordered an artifact's events of a kind; the chunks keep that.
    for artifact in artifacts:
        for kind in ("gc_pause", "thread_dump"):
            assert [
                r.attrs["i"] for r in stored if (r.artifact_id, r.kind) == (artifact, kind)
            ] == [
                r.attrs["i"]
                for r in before
                if (str(r.artifact_id).replace("-", ""), r.kind) == (artifact.hex, kind)
            ]
    command.downgrade(config, "0011")
    with engine.connect() as connection:
        after = connection.execute(sa.select(events).order_by(events.c.time_ms, events.c.id)).all()
    command.upgrade(config, "head")
    engine.dispose()
    assert values(after) == values(before)
