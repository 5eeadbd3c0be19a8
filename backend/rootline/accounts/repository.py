"""Every query on users, sessions, one-time links and API tokens."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from rootline.accounts.models import ApiToken, LoginSession, OneTimeLink, User


def user_by_name(session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(User.username == username))


def user_by_id(session: Session, user_id: int) -> User | None:
    return session.get(User, user_id)


def count_users(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User)) or 0


def list_users(session: Session) -> Sequence[User]:
    return session.scalars(select(User).order_by(User.username)).all()


def live_session(session: Session, session_id: str, now: int) -> tuple[LoginSession, User] | None:
    row = session.execute(
        select(LoginSession, User)
        .join(User, User.id == LoginSession.user_id)
        .where(LoginSession.id == session_id, LoginSession.expires_at_ms > now)
    ).first()
    return None if row is None else (row[0], row[1])


def delete_session(session: Session, session_id: str) -> None:
    session.execute(delete(LoginSession).where(LoginSession.id == session_id))


def delete_sessions_of(session: Session, user_id: int, *, keep: str | None = None) -> None:
    query = delete(LoginSession).where(LoginSession.user_id == user_id)
    if keep is not None:
        query = query.where(LoginSession.id != keep)
    session.execute(query)


def delete_expired_sessions(session: Session, now: int) -> None:
    session.execute(delete(LoginSession).where(LoginSession.expires_at_ms <= now))


def claim_link(session: Session, token_hash: str, now: int) -> int | None:
    """Mark the link used, atomically; its user's id, or None when unknown, used or expired."""
    result = session.execute(
        update(OneTimeLink)
        .where(
            OneTimeLink.token_hash == token_hash,
            OneTimeLink.used_at_ms.is_(None),
            OneTimeLink.expires_at_ms > now,
        )
        .values(used_at_ms=now)
        .returning(OneTimeLink.user_id)
    ).first()
    return None if result is None else int(result[0])


def live_token(session: Session, token_hash: str) -> tuple[ApiToken, User] | None:
    row = session.execute(
        select(ApiToken, User)
        .join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_hash == token_hash, ApiToken.revoked_at_ms.is_(None))
    ).first()
    return None if row is None else (row[0], row[1])


def touch_token(session: Session, token_id: int, now: int, *, every_ms: int) -> None:
    session.execute(
        update(ApiToken)
        .where(
            ApiToken.id == token_id,
            (ApiToken.last_used_at_ms.is_(None)) | (ApiToken.last_used_at_ms < now - every_ms),
        )
        .values(last_used_at_ms=now)
    )


def tokens(session: Session, user_id: int | None) -> Sequence[ApiToken]:
    query = select(ApiToken).order_by(ApiToken.created_at_ms.desc(), ApiToken.id.desc())
    if user_id is not None:
        query = query.where(ApiToken.user_id == user_id)
    return session.scalars(query).all()


def token(session: Session, token_id: int) -> ApiToken | None:
    return session.get(ApiToken, token_id)
