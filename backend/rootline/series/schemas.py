from __future__ import annotations

from pydantic import BaseModel, Field


class SeriesRead(BaseModel):
    id: int
    artifact_id: str
    name: str
    labels: dict[str, str] = Field(description="Labels, including `host` when the series has one.")
    unit: str
    point_count: int
    first_ms: int = Field(description="Time of the first point, UTC epoch ms.")
    last_ms: int
    min: float
    max: float


class SeriesPage(BaseModel):
    items: list[SeriesRead]
    total: int
    limit: int
    offset: int
    connections_total: int = Field(
        default=0, description="TCP connections with per-connection series (`tcp.conn.*`)."
    )
    connections_listed: int = Field(
        default=0,
        description="Connections whose series this listing holds: the busiest ones, or those "
        "matching `connection`.",
    )


class TimelineSeries(BaseModel):
    id: int
    name: str
    labels: dict[str, str]
    unit: str
    level: int = Field(
        description="Resolution level read: 0 is every point, higher is min/max rollups."
    )
    points_in_range: int = Field(
        description="Raw points in the requested range (estimated from chunks)."
    )
    t: list[int] = Field(description="Times of the returned points, UTC epoch ms, ascending.")
    v: list[float] = Field(description="Values of the returned points, in `unit`.")


class Timeline(BaseModel):
    from_ms: int | None
    to_ms: int | None
    max_points: int
    series: list[TimelineSeries]


class ConnectionRead(BaseModel):
    host: str | None
    local: str = Field(description="Local address:port.")
    peer: str = Field(description="Peer address:port.")
    first_ms: int
    last_ms: int
    volume: float = Field(description="Peak bytes acked, received or sent (0 when unknown).")
    points: int = Field(description="Points over all its per-connection series.")


class ConnectionPage(BaseModel):
    items: list[ConnectionRead]
    total: int = Field(description="Connections of the incident (of `host` when given).")
