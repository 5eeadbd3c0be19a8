from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FactRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    key: str = Field(description="e.g. net.ipv4.tcp_wmem, gc.pause_max_ms")
    value: str
    host: str | None
    time_ms: int | None


class FactPage(BaseModel):
    items: list[FactRead]
    total: int
    limit: int
    offset: int
