"""event chunks: events stored by column, a chunk of up to 4096 per row (issue 16)

The rows of ``events`` are moved into ``event_chunks`` (each artifact's events kind by kind,
in the order they were stored) and ``events`` is dropped; the downgrade moves them back.
An event's id changes: it is its chunk's id times 65536 plus its place in the chunk.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 08:30:00
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from rootline.events import chunks
from rootline.parsers.base import EventData

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigIntId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

_events = sa.table(
    "events",
    sa.column("id", BigIntId),
    sa.column("incident_id", sa.Uuid()),
    sa.column("artifact_id", sa.Uuid()),
    sa.column("kind", sa.String()),
    sa.column("host", sa.String()),
    sa.column("time_ms", sa.BigInteger()),
    sa.column("duration_ms", sa.Float()),
    sa.column("attrs", sa.JSON()),
    sa.column("labels", sa.JSON()),
)
_chunks = sa.table(
    "event_chunks",
    sa.column("id", BigIntId),
    sa.column("incident_id", sa.Uuid()),
    sa.column("artifact_id", sa.Uuid()),
    sa.column("kind", sa.String()),
    sa.column("host", sa.String()),
    sa.column("count", sa.Integer()),
    sa.column("first_ms", sa.BigInteger()),
    sa.column("last_ms", sa.BigInteger()),
    sa.column("total_duration_ms", sa.Float()),
    sa.column("max_duration_ms", sa.Float()),
    sa.column("times", sa.LargeBinary()),
    sa.column("durations", sa.LargeBinary()),
    sa.column("attrs", sa.LargeBinary()),
    sa.column("labels", sa.LargeBinary()),
)


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target}.id"],
        name=op.f(f"fk_{table}_{column}_{target}"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "event_chunks",
        sa.Column("id", BigIntId, autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("artifact_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_ms", sa.BigInteger(), nullable=False),
        sa.Column("total_duration_ms", sa.Float(), nullable=True),
        sa.Column("max_duration_ms", sa.Float(), nullable=True),
        sa.Column("times", sa.LargeBinary(), nullable=False),
        sa.Column("durations", sa.LargeBinary(), nullable=False),
        sa.Column("attrs", sa.LargeBinary(), nullable=False),
        sa.Column("labels", sa.LargeBinary(), nullable=False),
        _fk("event_chunks", "incident_id", "incidents"),
        _fk("event_chunks", "artifact_id", "artifacts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_chunks")),
    )
    op.create_index("ix_event_chunks_artifact_id", "event_chunks", ["artifact_id"])
    op.create_index(
        "ix_event_chunks_incident_kind_time", "event_chunks", ["incident_id", "kind", "first_ms"]
    )
    bind = op.get_bind()
    for (incident_id, artifact_id, host), events in _events_by_artifact(bind):
        for chunk in chunks.encode(events):
            bind.execute(sa.insert(_chunks).values(chunk.row(incident_id, artifact_id, host)))
    op.drop_index("ix_events_incident_kind_time", "events")
    op.drop_index("ix_events_artifact_id", "events")
    op.drop_table("events")


def _events_by_artifact(
    bind: sa.Connection,
) -> Iterator[tuple[tuple[Any, Any, str | None], list[EventData]]]:
    """Each (incident, artifact, host)'s events in the order stored."""
    # A batch at a time (a server-side cursor on PostgreSQL): a big database's events are
    # never all held at once, only one artifact's.
    rows = bind.execute(
        sa.select(_events)
        .order_by(_events.c.artifact_id, _events.c.host, _events.c.id)
        .execution_options(yield_per=5000)
    )
    for key, group in itertools.groupby(
        rows, key=lambda row: (row.incident_id, row.artifact_id, row.host)
    ):
        yield (
            key,
            [
                EventData(row.kind, row.time_ms, row.duration_ms, row.attrs or {}, row.labels or {})
                for row in group
            ],
        )


def downgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", BigIntId, autoincrement=True, nullable=False),
        sa.Column("incident_id", sa.Uuid(), nullable=False),
        sa.Column("artifact_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=True),
        sa.Column("time_ms", sa.BigInteger(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=True),
        sa.Column("attrs", sa.JSON(), nullable=False),
        sa.Column("labels", sa.JSON(), nullable=False),
        _fk("events", "artifact_id", "artifacts"),
        _fk("events", "incident_id", "incidents"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    op.create_index("ix_events_artifact_id", "events", ["artifact_id"])
    op.create_index("ix_events_incident_kind_time", "events", ["incident_id", "kind", "time_ms"])
    bind = op.get_bind()
    for row in bind.execute(sa.select(_chunks).order_by(_chunks.c.id)).all():
        times = chunks.times(row.times).tolist()
        durations = chunks.duration_list(row.durations)
        attrs = chunks.json_list(row.attrs, row.count)
        labels = chunks.json_list(row.labels, row.count)
        bind.execute(
            sa.insert(_events),
            [
                {
                    "incident_id": row.incident_id,
                    "artifact_id": row.artifact_id,
                    "kind": row.kind,
                    "host": row.host,
                    "time_ms": times[i],
                    "duration_ms": durations[i],
                    "attrs": attrs[i],
                    "labels": labels[i],
                }
                for i in range(row.count)
            ],
        )
    op.drop_index("ix_event_chunks_incident_kind_time", "event_chunks")
    op.drop_index("ix_event_chunks_artifact_id", "event_chunks")
    op.drop_table("event_chunks")
