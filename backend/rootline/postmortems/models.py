from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class Postmortem(Base):
    """One incident's postmortem: its status and who moved it there (the text is in sections).

    ``version`` counts status changes: a status change naming another version is refused
    (409), as a section save naming another section version is.
    """

    __tablename__ = "postmortems"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE"), unique=True
    )
    status: Mapped[str] = mapped_column(String(16), default="draft")
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_by: Mapped[str] = mapped_column(String(255), default="")
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    status_changed_by: Mapped[str] = mapped_column(String(255), default="")
    status_changed_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    published_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class PostmortemSection(Base):
    """One Markdown section (summary, impact, timeline ...) with its own version."""

    __tablename__ = "postmortem_sections"
    __table_args__ = (
        UniqueConstraint("postmortem_id", "key", name="uq_postmortem_sections_postmortem_key"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    postmortem_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("postmortems.id", ondelete="CASCADE")
    )
    key: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text, default="")
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_by: Mapped[str] = mapped_column(String(255), default="")
    updated_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)


class PostmortemRevision(Base):
    """Who changed what: a section's text (or the status) before a change, by whom and when.

    Saves of one section by one author in a row, each within ``COALESCE_MS`` of the last,
    are one revision (autosave saves every few seconds while someone types): it keeps the
    text from before the first of them.
    """

    __tablename__ = "postmortem_revisions"
    __table_args__ = (
        Index("ix_postmortem_revisions_postmortem_section", "postmortem_id", "section", "id"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    postmortem_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("postmortems.id", ondelete="CASCADE")
    )
    # A section key, or "status" for a status change.
    section: Mapped[str] = mapped_column(String(32))
    author: Mapped[str] = mapped_column(String(255), default="")
    changed_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    # The section's (or the postmortem's) version the change made.
    version: Mapped[int] = mapped_column(Integer)
    previous_text: Mapped[str] = mapped_column(Text, default="")
