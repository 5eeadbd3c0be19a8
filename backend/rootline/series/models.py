from __future__ import annotations

import uuid

from sqlalchemy import (
    JSON,
    BigInteger,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Uuid,
)
from sqlalchemy.orm import Mapped, mapped_column

from rootline.db import Base, BigIntId


class Series(Base):
    """A named numeric time series of one artifact; its points live in :class:`PointChunk`."""

    __tablename__ = "series"
    __table_args__ = (Index("ix_series_incident_name", "incident_id", "name"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    artifact_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    labels: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    unit: Mapped[str] = mapped_column(String(32), default="")
    point_count: Mapped[int] = mapped_column(Integer, default=0)
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    min_value: Mapped[float] = mapped_column(Float)
    max_value: Mapped[float] = mapped_column(Float)


class PointChunk(Base):
    """A run of points of one series at one resolution level, packed as binary arrays.

    Level 0 holds every point; level k keeps the minimum and the maximum of each bucket of
    ``LEVEL_FACTOR ** k`` points, so a query over a long range reads a few thousand points
    instead of millions and still shows every spike. See :mod:`rootline.series.codec`.
    """

    __tablename__ = "point_chunks"

    series_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("series.id", ondelete="CASCADE"), primary_key=True
    )
    level: Mapped[int] = mapped_column(SmallInteger, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    point_count: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)
