from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, ForeignKey, String, Uuid, false
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId
from rootline.timeutil import now_ms


class Share(Base):
    """A read-only link to one incident; its token is stored as a SHA-256 hex digest."""

    __tablename__ = "shares"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(String(200), default="")
    created_by: Mapped[int | None] = mapped_column(
        BigIntId, ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    )
    created_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    expires_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    allow_raw: Mapped[bool] = mapped_column(Boolean, default=False)
    revoked_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # The view the link opens: {"from_ms", "to_ms", "host", "finding", "evidence", "lanes"}.
    view: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # Addresses, host names and ports shown as pseudonyms (see rootline.shares.redaction);
    # `pseudonyms` holds the ones given out when the link was made, so they never change.
    redacted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    pseudonyms: Mapped[dict[str, dict[str, str]] | None] = mapped_column(JSON, nullable=True)
