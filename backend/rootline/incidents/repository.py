"""Every query on incidents."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact
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


def artifact_counts(session: Session, incident_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, int]:
    if not incident_ids:
        return {}
    rows = session.execute(
        select(Artifact.incident_id, func.count())
        .where(Artifact.incident_id.in_(incident_ids))
        .group_by(Artifact.incident_id)
    ).all()
    return {incident_id: count for incident_id, count in rows}


def derived_window(session: Session, incident_id: uuid.UUID) -> tuple[int | None, int | None]:
    row = session.execute(
        select(func.min(Artifact.time_start_ms), func.max(Artifact.time_end_ms)).where(
            Artifact.incident_id == incident_id
        )
    ).one()
    return row[0], row[1]


def count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Incident)) or 0


def lock(session: Session, incident_id: uuid.UUID) -> None:
    """Hold the incident row until the transaction ends, so its writers take turns.

    FOR NO KEY UPDATE (not FOR UPDATE) because inserting an artifact already holds a key-share
    lock on the row through its foreign key; FOR UPDATE would deadlock two uploaders.
    SQLite ignores it: its writers are already serialised.
    """
    session.execute(
        select(Incident.id).where(Incident.id == incident_id).with_for_update(key_share=True)
    )
