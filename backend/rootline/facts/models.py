from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId


class Fact(Base):
    """A setting or derived value read from an artifact, e.g. ``net.ipv4.tcp_wmem``."""

    __tablename__ = "facts"
    __table_args__ = (Index("ix_facts_incident_key", "incident_id", "key"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    artifact_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), index=True
    )
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)
    time_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
