from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class EventRead(BaseModel):
    id: int
    artifact_id: str
    kind: str = Field(description="e.g. gc_pause, gc_concurrent, threadpool_rejected, thread_dump")
    host: str | None
    time_ms: int = Field(description="Start, UTC epoch ms.")
    duration_ms: float | None = Field(description="Length of a span; null for a point event.")
    attrs: dict[str, Any]
    labels: dict[str, str]


class EventKindSummary(BaseModel):
    kind: str
    count: int
    total_duration_ms: float
    max_duration_ms: float | None


class EventPage(BaseModel):
    items: list[EventRead]
    total: int
    limit: int
    offset: int
    kinds: list[EventKindSummary] = Field(
        description="Counts per kind over the whole filter, not just this page."
    )
