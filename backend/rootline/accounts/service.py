"""Rules about users, sign-in sessions, one-time links and API tokens."""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from rootline.accounts import crypto, repository
from rootline.accounts.models import ApiToken, LoginSession, OneTimeLink, User
from rootline.accounts.schemas import (
    USERNAME_PATTERN,
    TokenCreated,
    TokenRead,
    UserBrief,
    UserRead,
)
from rootline.errors import BadRequest, Conflict, NotFound
from rootline.incidents import repository as incidents_repository
from rootline.timeutil import now_ms

ADMIN = "admin"
LINK_TTL_MS = 24 * 3600 * 1000
TOKEN_PREFIX = "rl_"
TOKEN_SCOPES = ("ingest", "read-write")
# A token's last use is written at most this often (reads should not all become writes).
TOUCH_EVERY_MS = 60_000


def check_username(username: str) -> str:
    if not re.fullmatch(USERNAME_PATTERN, username):
        raise BadRequest(
            "invalid_username",
            "a user name is 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit",
        )
    return username


def create_user(
    session: Session, username: str, *, password: str | None = None, is_admin: bool = False
) -> User:
    check_username(username)
    if repository.user_by_name(session, username) is not None:
        raise Conflict("user_exists", f"user {username!r} already exists")
    user = User(
        username=username,
        password_hash=None if password is None else crypto.hash_password(password),
        is_admin=is_admin,
        disabled=False,
    )
    session.add(user)
    session.flush()
    return user


def get_user_or_404(session: Session, username: str) -> User:
    user = repository.user_by_name(session, username)
    if user is None:
        raise NotFound("user_not_found", f"no user {username!r}")
    return user


def brief(user: User) -> UserBrief:
    return UserBrief(
        id=user.id,
        username=user.username,
        is_admin=user.is_admin,
        has_password=user.password_hash is not None,
    )


def to_read(user: User) -> UserRead:
    return UserRead(
        **brief(user).model_dump(),
        disabled=user.disabled,
        created_at_ms=user.created_at_ms,
        last_login_at_ms=user.last_login_at_ms,
    )


def authenticate(session: Session, username: str, password: str) -> User | None:
    """The enabled user with this name and password, or None (same cost either way)."""
    user = repository.user_by_name(session, username)
    ok = crypto.verify_password(None if user is None else user.password_hash, password)
    if user is None or not ok or user.disabled:
        return None
    return user


def set_password(session: Session, user: User, password: str) -> None:
    user.password_hash = crypto.hash_password(password)
    session.flush()


def check_current_password(user: User, current: str | None) -> bool:
    if user.password_hash is None:
        return True
    return current is not None and crypto.verify_password(user.password_hash, current)


def set_disabled(session: Session, user: User, disabled: bool) -> None:
    """Disabling also ends the user's sessions; its tokens stop working while it stays so."""
    user.disabled = disabled
    if disabled:
        repository.delete_sessions_of(session, user.id)
    session.flush()


@dataclass(frozen=True, slots=True)
class NewSession:
    secret: str
    row: LoginSession


def start_session(session: Session, user: User, *, lifetime_ms: int) -> NewSession:
    """A new sign-in session; the cookie holds ``secret``, the table only its digest."""
    now = now_ms()
    secret = crypto.new_secret()
    row = LoginSession(
        id=crypto.digest(secret),
        user_id=user.id,
        csrf_token=secrets.token_urlsafe(32),
        created_at_ms=now,
        expires_at_ms=now + lifetime_ms,
    )
    user.last_login_at_ms = now
    session.add(row)
    repository.delete_expired_sessions(session, now)
    session.flush()
    return NewSession(secret, row)


def create_link(session: Session, user: User, *, ttl_ms: int = LINK_TTL_MS) -> str:
    """A one-time sign-in token for ``user`` (single use, expires after ``ttl_ms``)."""
    token = crypto.new_secret()
    now = now_ms()
    session.add(
        OneTimeLink(
            token_hash=crypto.digest(token),
            user_id=user.id,
            created_at_ms=now,
            expires_at_ms=now + ttl_ms,
        )
    )
    session.flush()
    return token


def redeem_link(session: Session, token: str) -> User | None:
    """The link's user, once: the link is spent even when the user turns out disabled."""
    user_id = repository.claim_link(session, crypto.digest(token), now_ms())
    if user_id is None:
        return None
    user = repository.user_by_id(session, user_id)
    return None if user is None or user.disabled else user


def ensure_admin(session: Session) -> str | None:
    """First start: create ``admin`` (no password) when there is no user at all.

    While ``admin`` has no password and never signed in, return a fresh one-time link
    token for it (the caller prints the link); otherwise None.
    """
    if repository.count_users(session) == 0:
        create_user(session, ADMIN, is_admin=True)
    admin = repository.user_by_name(session, ADMIN)
    if (
        admin is None
        or admin.disabled
        or admin.password_hash is not None
        or admin.last_login_at_ms is not None
    ):
        return None
    return create_link(session, admin)


def token_read(token: ApiToken) -> TokenRead:
    return TokenRead(
        id=token.id,
        name=token.name,
        scope=token.scope,
        incident_id=token.incident_id,
        created_at_ms=token.created_at_ms,
        last_used_at_ms=token.last_used_at_ms,
        revoked=token.revoked_at_ms is not None,
        prefix=token.prefix,
    )


def create_token(
    session: Session,
    user: User,
    *,
    name: str,
    scope: str,
    incident_id: uuid.UUID | None = None,
) -> TokenCreated:
    if scope not in TOKEN_SCOPES:
        raise BadRequest("invalid_scope", f"scope is one of {', '.join(TOKEN_SCOPES)}")
    if incident_id is not None and incidents_repository.get(session, incident_id) is None:
        raise NotFound("incident_not_found", f"no incident {incident_id}")
    secret = crypto.new_secret(TOKEN_PREFIX)
    token = ApiToken(
        token_hash=crypto.digest(secret),
        prefix=secret[:10],
        name=name,
        user_id=user.id,
        scope=scope,
        incident_id=incident_id,
        created_at_ms=now_ms(),
    )
    session.add(token)
    session.flush()
    return TokenCreated(**token_read(token).model_dump(), token=secret)


def list_tokens(session: Session, *, user_id: int | None) -> Sequence[ApiToken]:
    return repository.tokens(session, user_id)


def revoke_token(session: Session, token_id: int, *, owner_id: int | None) -> None:
    """Revoke a token; ``owner_id`` (when given) must own it, else it is not found."""
    token = repository.token(session, token_id)
    if token is None or (owner_id is not None and token.user_id != owner_id):
        raise NotFound("token_not_found", f"no token {token_id}")
    if token.revoked_at_ms is None:
        token.revoked_at_ms = now_ms()
    session.flush()


def use_is_due(token: ApiToken, now: int) -> bool:
    """Whether a use of ``token`` at ``now`` should be recorded (at most once a minute)."""
    return token.last_used_at_ms is None or token.last_used_at_ms < now - TOUCH_EVERY_MS


def record_use(factory: sessionmaker[Session], token_id: int, now: int) -> None:
    """Record a use of the token, in a transaction of its own (a no-op when another request
    recorded one less than a minute ago)."""
    with factory.begin() as session:
        repository.touch_token(session, token_id, now, every_ms=TOUCH_EVERY_MS)
