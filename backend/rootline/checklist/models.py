from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import JSON, BigInteger, ForeignKey, String, Text, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class ComputedFinding(Base):
    """The detectors' latest verdict for one checklist id of an incident (replaced on recompute)."""

    __tablename__ = "findings"
    __table_args__ = (
        UniqueConstraint("incident_id", "finding_id", name="uq_findings_incident_finding"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    finding_id: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    # The rules version (detectors.engine.rules_version) that computed it; another is stale.
    rules_version: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    computed_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)


class FindingReview(Base):
    """The team's verdict override and note; kept apart so recomputation never touches it."""

    __tablename__ = "finding_reviews"
    __table_args__ = (
        UniqueConstraint("incident_id", "finding_id", name="uq_finding_reviews_incident_finding"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    finding_id: Mapped[str] = mapped_column(String(64))
    verdict_override: Mapped[str | None] = mapped_column(String(32), nullable=True)
    note: Mapped[str] = mapped_column(Text, default="")
    author: Mapped[str] = mapped_column(String(255), default="")
    updated_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
