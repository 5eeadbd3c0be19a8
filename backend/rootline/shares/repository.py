"""Every query on share links."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from rootline.accounts.models import User
from rootline.shares.models import Share


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
