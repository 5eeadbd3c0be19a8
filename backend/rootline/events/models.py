from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, LargeBinary, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId


class EventChunk(Base):
    """Up to :data:`~rootline.events.chunks.CHUNK_EVENTS` events of one kind from one
    artifact (points or spans on the timeline: GC pauses, rejected tasks, thread dumps ...),
    stored by column. See :mod:`rootline.events.chunks`."""

    __tablename__ = "event_chunks"
    __table_args__ = (
        Index("ix_event_chunks_incident_kind_time", "incident_id", "kind", "first_ms"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    artifact_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(64))
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    count: Mapped[int] = mapped_column(Integer)
    # The earliest and the latest of the chunk's times (UTC epoch ms).
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    # Over the chunk's events with a duration (null when none has one).
    total_duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    max_duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Compressed columns, see rootline.events.chunks.
    times: Mapped[bytes] = mapped_column(LargeBinary)
    durations: Mapped[bytes] = mapped_column(LargeBinary)
    attrs: Mapped[bytes] = mapped_column(LargeBinary)
    labels: Mapped[bytes] = mapped_column(LargeBinary)
