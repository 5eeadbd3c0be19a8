"""Every query on annotations."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootline.annotations.models import Annotation


def list_for_incident(session: Session, incident_id: uuid.UUID) -> Sequence[Annotation]:
    return session.scalars(
        select(Annotation)
        .where(Annotation.incident_id == incident_id)
        .order_by(Annotation.from_ms, Annotation.id)
    ).all()


def get(session: Session, incident_id: uuid.UUID, annotation_id: int) -> Annotation | None:
    row = session.get(Annotation, annotation_id)
    return row if row is not None and row.incident_id == incident_id else None
