"""Every query on computed findings and the team's reviews."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.orm import Session

from rootline.checklist.models import ComputedFinding, FindingReview


def replace_findings(session: Session, incident_id: uuid.UUID, rows: list[dict[str, Any]]) -> None:
    session.execute(delete(ComputedFinding).where(ComputedFinding.incident_id == incident_id))
    if rows:
        session.execute(insert(ComputedFinding), rows)


def findings(session: Session, incident_id: uuid.UUID) -> Sequence[ComputedFinding]:
    return session.scalars(
        select(ComputedFinding).where(ComputedFinding.incident_id == incident_id)
    ).all()


def reviews(session: Session, incident_id: uuid.UUID) -> dict[str, FindingReview]:
    rows = session.scalars(
        select(FindingReview).where(FindingReview.incident_id == incident_id)
    ).all()
    return {r.finding_id: r for r in rows}


def review(session: Session, incident_id: uuid.UUID, finding_id: str) -> FindingReview | None:
    return session.scalar(
        select(FindingReview).where(
            FindingReview.incident_id == incident_id, FindingReview.finding_id == finding_id
        )
    )


def stale_incidents(session: Session, rules_version: str, *, limit: int) -> list[uuid.UUID]:
    """Incidents with findings computed by another rules version (or none recorded)."""
    return list(
        session.scalars(
            select(ComputedFinding.incident_id)
            .where(
                or_(
                    ComputedFinding.rules_version.is_(None),
                    ComputedFinding.rules_version != rules_version,
                )
            )
            .distinct()
            .limit(limit)
        )
    )
