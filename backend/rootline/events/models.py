from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import JSON, BigInteger, Float, ForeignKey, Index, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId


class Event(Base):
    """A point or span on the timeline: a GC pause, a rejected task, a listen overflow ..."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_incident_kind_time", "incident_id", "kind", "time_ms"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    artifact_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(64))
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    time_ms: Mapped[int] = mapped_column(BigInteger)
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    attrs: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    labels: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
