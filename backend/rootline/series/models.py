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


class ConnTable(Base):
    """The per-connection series of one artifact (``tcp.conn.*`` of ``ss -ti``, ``/proc/net/tcp``)
    stored by column: connections are a dimension (:class:`ConnEndpoint`), each field one
    compressed matrix per run of snapshots (:class:`ConnBlock`). A C10K capture is then a few
    hundred rows, not one series row per connection and field. See
    :mod:`rootline.series.connections`.
    """

    __tablename__ = "conn_tables"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE"), index=True
    )
    artifact_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("artifacts.id", ondelete="CASCADE"), index=True
    )
    host: Mapped[str | None] = mapped_column(String(255), nullable=True)
    connection_count: Mapped[int] = mapped_column(Integer)
    snapshot_count: Mapped[int] = mapped_column(Integer)
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    # The snapshots' times (int64 ms, ascending), compressed.
    times: Mapped[bytes] = mapped_column(LargeBinary)


class ConnEndpoint(Base):
    """One connection of a :class:`ConnTable`: its index in the table's matrices."""

    __tablename__ = "conn_endpoints"
    __table_args__ = (Index("ix_conn_endpoints_incident_volume", "incident_id", "volume"),)

    table_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("conn_tables.id", ondelete="CASCADE"), primary_key=True
    )
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    incident_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("incidents.id", ondelete="CASCADE")
    )
    local: Mapped[str] = mapped_column(String(255))
    peer: Mapped[str] = mapped_column(String(255))
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    # The connection's rank: its peak bytes acked / received / sent (0 when none is known).
    volume: Mapped[float] = mapped_column(Float)
    # Points over all its fields (the second rank).
    points: Mapped[int] = mapped_column(Integer)


class ConnField(Base):
    """One field (``tcp.conn.rtt_ms``) of a :class:`ConnTable`, with per-connection stats."""

    __tablename__ = "conn_fields"

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("conn_tables.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str] = mapped_column(String(32), default="")
    # Per connection: points, first and last time, min and max value (compressed arrays).
    stats: Mapped[bytes] = mapped_column(LargeBinary)


class ConnBlock(Base):
    """The values of one :class:`ConnField` over a run of snapshots, all connections."""

    __tablename__ = "conn_blocks"

    field_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("conn_fields.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_snapshot: Mapped[int] = mapped_column(Integer)
    snapshot_count: Mapped[int] = mapped_column(Integer)
    first_ms: Mapped[int] = mapped_column(BigInteger)
    last_ms: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
