from __future__ import annotations

import datetime as dt
import uuid

from sqlalchemy import BigInteger, Date, ForeignKey, Index, Integer, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class ActionItem(Base):
    """One thing to do about an incident: who, by when, its state, its ticket, the remedy it
    came from, and the after-capture incident that showed it fixed."""

    __tablename__ = "action_items"
    __table_args__ = (
        Index("ix_action_items_incident", "incident_id", "id"),
        Index("ix_action_items_owner_due", "owner", "due_date"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    title: Mapped[str] = mapped_column(String(500))
    owner: Mapped[str] = mapped_column(String(255), default="")
    due_date: Mapped[dt.date | None] = mapped_column(Date, nullable=True)
    # open, in_progress, done, wont_do
    status: Mapped[str] = mapped_column(String(16), default="open")
    ticket_url: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    # The ticketing system's id: an integration upserts by it (unique where set).
    external_id: Mapped[str | None] = mapped_column(String(200), nullable=True, unique=True)
    notes: Mapped[str] = mapped_column(Text, default="")
    # Where it came from: a checklist id and the index of one of its remedies, with the
    # remedy's text and its setting or command as they read when the item was made.
    finding_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    remedy_index: Mapped[int | None] = mapped_column(Integer, nullable=True)
    remedy: Mapped[str] = mapped_column(Text, default="")
    command: Mapped[str] = mapped_column(Text, default="")
    # Verified fixed: an incident captured after the change whose checklist rules the
    # source cause out. Cleared when that incident is deleted.
    verified_incident_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="SET NULL"), nullable=True
    )
    verified_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    verified_by: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_by: Mapped[str] = mapped_column(String(255), default="")
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    updated_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms, onupdate=now_ms)
