"""Users, their sign-in sessions, one-time sign-in links and API tokens.

Every secret (session cookie, link, token) is stored as its SHA-256 hex digest only; a
request is matched by looking the digest up. Passwords are argon2 hashes.
"""

from __future__ import annotations

import uuid

from sqlalchemy import BigInteger, Boolean, ForeignKey, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    # Null until the user sets one (a first sign-in goes through a one-time link).
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    last_login_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class LoginSession(Base):
    __tablename__ = "login_sessions"

    # SHA-256 hex of the cookie's secret.
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    expires_at_ms: Mapped[int] = mapped_column(BigInteger)


class OneTimeLink(Base):
    __tablename__ = "one_time_links"

    # SHA-256 hex of the link's token.
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    expires_at_ms: Mapped[int] = mapped_column(BigInteger)
    used_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The first characters of the token, to recognise it in a list.
    prefix: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(100), default="")
    user_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    scope: Mapped[str] = mapped_column(String(16))
    incident_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE"), nullable=True, index=True
    )
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    last_used_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    revoked_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
