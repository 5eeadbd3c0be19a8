"""Every query on postmortems, their sections and revisions."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootline.postmortems.models import Postmortem, PostmortemRevision, PostmortemSection


def get(session: Session, incident_id: uuid.UUID, *, for_update: bool = False) -> Postmortem | None:
    query = select(Postmortem).where(Postmortem.incident_id == incident_id)
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def sections(session: Session, postmortem_id: int) -> Sequence[PostmortemSection]:
    return session.scalars(
        select(PostmortemSection).where(PostmortemSection.postmortem_id == postmortem_id)
    ).all()


def section(
    session: Session, postmortem_id: int, key: str, *, for_update: bool = False
) -> PostmortemSection | None:
    query = select(PostmortemSection).where(
        PostmortemSection.postmortem_id == postmortem_id, PostmortemSection.key == key
    )
    if for_update:
        query = query.with_for_update()
    return session.scalar(query)


def last_revision(session: Session, postmortem_id: int, section: str) -> PostmortemRevision | None:
    return session.scalar(
        select(PostmortemRevision)
        .where(
            PostmortemRevision.postmortem_id == postmortem_id,
            PostmortemRevision.section == section,
        )
        .order_by(PostmortemRevision.id.desc())
        .limit(1)
    )


def revisions(
    session: Session, postmortem_id: int, *, section: str | None, limit: int
) -> Sequence[PostmortemRevision]:
    query = select(PostmortemRevision).where(PostmortemRevision.postmortem_id == postmortem_id)
    if section is not None:
        query = query.where(PostmortemRevision.section == section)
    return session.scalars(query.order_by(PostmortemRevision.id.desc()).limit(limit)).all()
