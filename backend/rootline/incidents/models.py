from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, String, Text, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base
from rootline.timeutil import now_ms


class Incident(Base):
    __tablename__ = "incidents"

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    title: Mapped[str] = mapped_column(String(300))
    summary: Mapped[str] = mapped_column(Text, default="")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    status: Mapped[str] = mapped_column(String(16), default="draft")
    # Set by the team; when null the window is derived from the artifacts' time ranges.
    window_start_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    window_end_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    updated_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms, onupdate=now_ms)
    # Bumped by every write that changes what the incident's pages show (an upload, a parse,
    # recomputed findings, a review, an annotation): open pages poll it to refresh (issue 14).
    data_version: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
