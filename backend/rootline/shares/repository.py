"""Every query on share links."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootline.accounts.models import User
from rootline.annotations.models import Annotation
from rootline.artifacts.models import Artifact
from rootline.events.models import EventChunk
from rootline.facts.models import Fact
from rootline.series import repository as series_repository
from rootline.series.models import Series
from rootline.shares.models import Share
from rootline.shares.redaction import Known


def list_for_incident(
    session: Session, incident_id: uuid.UUID
) -> Sequence[tuple[Share, str | None]]:
    rows = session.execute(
        select(Share, User.username)
        .outerjoin(User, User.id == Share.created_by)
        .where(Share.incident_id == incident_id)
        .order_by(Share.created_at_ms.desc(), Share.id.desc())
    ).all()
    return [(row[0], row[1]) for row in rows]


def get(session: Session, incident_id: uuid.UUID, share_id: int) -> Share | None:
    row = session.get(Share, share_id)
    return row if row is not None and row.incident_id == incident_id else None


def live_by_hash(session: Session, token_hash: str, now: int) -> Share | None:
    """The share with this token, unless revoked, expired, or made by a user now disabled."""
    return session.scalar(
        select(Share)
        .outerjoin(User, User.id == Share.created_by)
        .where(
            Share.token_hash == token_hash,
            Share.revoked_at_ms.is_(None),
            (Share.expires_at_ms.is_(None)) | (Share.expires_at_ms > now),
            User.disabled.is_not(True),
        )
    )


def known_names(session: Session, incident_id: uuid.UUID) -> Known:
    """The host names, addresses and ports the incident's data names (for redacted links)."""
    known = Known()
    for table in (Artifact, EventChunk, Fact, Annotation):
        for (host,) in session.execute(
            select(table.host).where(table.incident_id == incident_id).distinct()
        ):
            known.add_host(host)
    for host, labels in session.execute(
        select(Series.host, Series.labels).where(Series.incident_id == incident_id)
    ):
        known.add_host(host)
        known.add_labels(labels or {})
    for host, local, peer in series_repository.endpoint_addresses(session, incident_id=incident_id):
        known.add_host(host)
        known.add_labels({"local": local, "peer": peer})
    return known
