from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class Annotation(Base):
    """A note pinned to an instant or a range of the incident's timeline."""

    __tablename__ = "annotations"
    __table_args__ = (Index("ix_annotations_incident_time", "incident_id", "from_ms"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    from_ms: Mapped[int] = mapped_column(BigInteger)
    to_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    text: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(255), default="")
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    series: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
