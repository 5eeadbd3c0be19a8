from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base
from rootline.timeutil import now_ms


class Artifact(Base):
    """One uploaded file; its bytes live in the artifact store under ``sha256``."""

    __tablename__ = "artifacts"
    __table_args__ = (
        # The same bytes from two hosts are two artifacts (one blob): identical sysctl dumps
        # of two machines say something about each machine.
        UniqueConstraint(
            "incident_id", "sha256", "dedup_host", name="uq_artifacts_incident_sha256_dedup_host"
        ),
        Index("ix_artifacts_sha256", "sha256"),
        # The parse workers' queue: the oldest pending artifact first.
        Index("ix_artifacts_status_uploaded_at_ms", "status", "uploaded_at_ms"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    # Members of a bundle point at the bundle they came from.
    parent_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), nullable=True, index=True
    )
    sha256: Mapped[str] = mapped_column(String(64))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    filename: Mapped[str] = mapped_column(String(512))
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # The host the upload named ("" for none), kept as uploaded: with ``sha256``, what makes
    # an upload the same as one before. Unlike ``host`` it is not filled in by the parser
    # (an nmon file names its host), so a parse can never collide with another artifact.
    dedup_host: Mapped[str] = mapped_column(String(255), default="", server_default="")
    # What the uploader asked for; None means sniff from content.
    requested_kind: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(64), default="unknown")
    status: Mapped[str] = mapped_column(String(16), default="pending")
    diagnostics: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    diagnostics_dropped: Mapped[int] = mapped_column(Integer, default=0)
    timezone: Mapped[str | None] = mapped_column(String(64), nullable=True)
    clock_offset_s: Mapped[float] = mapped_column(Float, default=0.0)
    jvm_start_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    anchored: Mapped[bool] = mapped_column(Boolean, default=True)
    time_start_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    time_end_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    series_count: Mapped[int] = mapped_column(Integer, default=0)
    point_count: Mapped[int] = mapped_column(BigInteger, default=0)
    event_count: Mapped[int] = mapped_column(Integer, default=0)
    fact_count: Mapped[int] = mapped_column(Integer, default=0)
    uploaded_at_ms: Mapped[int] = mapped_column(BigInteger, default=now_ms)
    parsed_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    parse_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Hash of the parsers' code that produced the stored data (parsers.registry.parser_version).
    parser_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # The lease of the parse worker working on it (status "parsing"); see artifacts.worker.
    claim_token: Mapped[str | None] = mapped_column(String(32), nullable=True)
    claimed_at_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    parse_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class BlobClaim(Base):
    """Uploads about to put a blob in the store: while one is fresh, no delete removes it.

    Blobs are shared by content. An upload writes its blob before it records its artifact,
    so a delete that finds no artifact referring to the blob cannot tell "unused" from
    "about to be used" without this row: the upload counts itself in ``pending`` (and stamps
    ``claimed_at_ms``) in a committed transaction before the blob takes its name, and takes
    itself off once its artifact is recorded. A delete locks the row, and removes the blob
    only when nothing refers to it and no claim is fresh (see ``service.forget_blobs``).
    """

    __tablename__ = "blob_claims"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    pending: Mapped[int] = mapped_column(Integer, default=0)
    claimed_at_ms: Mapped[int] = mapped_column(BigInteger, default=0)
