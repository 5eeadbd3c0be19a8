"""Rules about share links: read-only access to one incident for whoever holds the token."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.accounts import crypto
from rootline.auth import Principal
from rootline.errors import BadRequest, NotFound
from rootline.incidents.models import Incident
from rootline.shares import repository
from rootline.shares.models import Share
from rootline.shares.redaction import Redactor, assign
from rootline.shares.schemas import ShareCreate, ShareCreated, ShareRead, ShareView
from rootline.timeutil import now_ms


def to_read(share: Share, created_by: str | None, now: int) -> ShareRead:
    return ShareRead(
        id=share.id,
        label=share.label,
        created_at_ms=share.created_at_ms,
        created_by=created_by,
        expires_at_ms=share.expires_at_ms,
        allow_raw=share.allow_raw,
        revoked=share.revoked_at_ms is not None,
        expired=share.expires_at_ms is not None and share.expires_at_ms <= now,
        prefix=share.prefix,
        view=ShareView.model_validate(share.view) if share.view else None,
        redacted=share.redacted,
    )


def create(
    session: Session, *, incident: Incident, user: Principal, data: ShareCreate
) -> ShareCreated:
    now = now_ms()
    if data.expires_at_ms is not None and data.expires_at_ms <= now:
        raise BadRequest("invalid_expiry", "expires_at_ms is in the past")
    if data.redacted and data.allow_raw:
        raise BadRequest("raw_not_redactable", "a redacted link cannot offer the raw files")
    token = crypto.new_secret()
    share = Share(
        incident_id=incident.id,
        token_hash=crypto.digest(token),
        prefix=token[:8],
        label=data.label,
        created_by=user.user_id,
        created_at_ms=now,
        expires_at_ms=data.expires_at_ms,
        allow_raw=data.allow_raw,
        view=data.view.model_dump(exclude_defaults=True) if data.view else None,
        redacted=data.redacted,
        # Numbered now and kept: the same names read the same on every later request.
        pseudonyms=assign(repository.known_names(session, incident.id)) if data.redacted else None,
    )
    session.add(share)
    session.flush()
    read = to_read(share, user.username, now)
    return ShareCreated(**read.model_dump(), token=token, url=f"/share/{token}")


def list_for_incident(session: Session, *, incident: Incident) -> Sequence[ShareRead]:
    now = now_ms()
    return [to_read(s, by, now) for s, by in repository.list_for_incident(session, incident.id)]


def revoke(session: Session, *, incident: Incident, share_id: int) -> None:
    share = repository.get(session, incident.id, share_id)
    if share is None:
        raise NotFound("share_not_found", f"no share {share_id} in incident {incident.id}")
    if share.revoked_at_ms is None:
        share.revoked_at_ms = now_ms()
    session.flush()


def resolve(session: Session, token: str) -> Share | None:
    """The live share behind ``token`` (None when unknown, revoked, expired, or its maker
    is disabled: what a user shared stops with the user, as their API tokens do)."""
    return repository.live_by_hash(session, crypto.digest(token), now_ms())


def redactor(session: Session, share: Share) -> Redactor | None:
    """The redactor of a redacted share (None for a plain one): its stored pseudonyms, and
    the next numbers for names its incident gained since."""
    if not share.redacted:
        return None
    pseudonyms = assign(repository.known_names(session, share.incident_id), share.pseudonyms)
    return Redactor(pseudonyms, key=share.token_hash.encode())
