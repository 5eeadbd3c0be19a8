"""Every query on incidents."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact
from rootline.checklist.models import ComputedFinding, FindingReview
from rootline.incidents.models import Incident


def get(session: Session, incident_id: uuid.UUID) -> Incident | None:
    return session.get(Incident, incident_id)


def list_page(
    session: Session, *, search: str | None, limit: int, offset: int
) -> tuple[Sequence[Incident], int]:
    query = select(Incident)
    if search:
        pattern = f"%{search.lower()}%"
        query = query.where(
            or_(
                func.lower(Incident.title).like(pattern), func.lower(Incident.summary).like(pattern)
            )
        )
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(
        query.order_by(Incident.created_at_ms.desc(), Incident.id).limit(limit).offset(offset)
    ).all()
    return rows, total


@dataclass(frozen=True, slots=True)
class ArtifactSummary:
    count: int = 0
    first_ms: int | None = None
    last_ms: int | None = None


def artifact_summaries(
    session: Session, incident_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, ArtifactSummary]:
    """Artifact count and covered time range per incident, in one query for a whole page."""
    if not incident_ids:
        return {}
    windowed = and_(Artifact.anchored, Artifact.kind != "bundle")
    rows = session.execute(
        select(
            Artifact.incident_id,
            func.count(),
            # A GC log with only JVM uptime has times near 1970: it must not stretch the window.
            # A bundle's range is its members' again (one stored before the worker stopped
            # widening it by unanchored members could reach 1970): the members count.
            func.min(case((windowed, Artifact.time_start_ms))),
            func.max(case((windowed, Artifact.time_end_ms))),
        )
        .where(Artifact.incident_id.in_(incident_ids))
        .group_by(Artifact.incident_id)
    ).all()
    return {row[0]: ArtifactSummary(row[1], row[2], row[3]) for row in rows}


def confirmed_finding_ids(
    session: Session, incident_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, list[str]]:
    """Checklist ids confirmed by effective verdict (the team's override, else computed)."""
    if not incident_ids:
        return {}
    effective = func.coalesce(FindingReview.verdict_override, ComputedFinding.verdict)
    rows = session.execute(
        select(ComputedFinding.incident_id, ComputedFinding.finding_id)
        .outerjoin(
            FindingReview,
            (FindingReview.incident_id == ComputedFinding.incident_id)
            & (FindingReview.finding_id == ComputedFinding.finding_id),
        )
        .where(ComputedFinding.incident_id.in_(incident_ids), effective == "confirmed")
    ).all()
    confirmed: dict[uuid.UUID, list[str]] = {}
    for incident_id, finding_id in rows:
        confirmed.setdefault(incident_id, []).append(finding_id)
    return confirmed


def lock(session: Session, incident_id: uuid.UUID) -> None:
    """Hold the incident row until the transaction ends, so its writers take turns.

    FOR NO KEY UPDATE (not FOR UPDATE) because inserting an artifact already holds a key-share
    lock on the row through its foreign key; FOR UPDATE would deadlock two uploaders.
    SQLite ignores it: its writers are already serialised.
    """
    session.execute(
        select(Incident.id).where(Incident.id == incident_id).with_for_update(key_share=True)
    )


def keep(session: Session, incident_id: uuid.UUID) -> None:
    """Keep the incident from being deleted until the transaction ends, without making its
    other writers wait (FOR KEY SHARE, as a foreign key's check takes it). Taken before any
    row the incident's deletion would cascade to, it makes a deletion wait for, not deadlock
    with, the transaction. SQLite ignores it."""
    session.execute(
        select(Incident.id)
        .where(Incident.id == incident_id)
        .with_for_update(read=True, key_share=True)
    )


def bump_version(session: Session, incident_id: uuid.UUID) -> None:
    """Count one more change of what the incident shows (``Incident.data_version``).

    One atomic ``UPDATE ... SET data_version = data_version + 1``: concurrent writers each
    add theirs, and ``updated_at_ms`` is left alone (a parse is not an edit of the incident).
    """
    session.execute(
        update(Incident)
        .where(Incident.id == incident_id)
        .values(data_version=Incident.data_version + 1, updated_at_ms=Incident.updated_at_ms)
        .execution_options(synchronize_session=False)
    )


def version(session: Session, incident_id: uuid.UUID) -> int | None:
    """The incident's data version (one read by primary key), None if there is no such incident."""
    return session.scalar(select(Incident.data_version).where(Incident.id == incident_id))
