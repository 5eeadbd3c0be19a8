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


class LockRead(BaseModel):
    monitor: str
    class_name: str = Field(description="The monitor's class, '' when not printed.")
    owner: str | None = Field(default=None, description="The holder, when the dump names it.")


class ThreadRead(BaseModel):
    name: str
    pool: str = Field(description="The name without its member number (`http-nio-8080-exec`).")
    state: str = Field(description="runnable, blocked, waiting, timed_waiting, new, terminated.")
    daemon: bool
    vm: bool = Field(description="A VM internal thread (GC, compiler): no Java state of its own.")
    frames: list[str] = Field(description="Stack frames, top first (at most 1024).")
    frame_count: int = Field(description="Frames the dump printed (more than `frames` when cut).")
    locked: list[LockRead] = Field(description="Monitors the thread holds.")
    waiting_to_lock: LockRead | None
    parked_on: LockRead | None = Field(description="The lock (an AQS synchronizer) parked on.")


class ThreadDumpRead(BaseModel):
    event_id: int
    artifact_id: str
    host: str | None
    time_ms: int = Field(description="The dump's time (as the timeline has it), UTC epoch ms.")
    dump_index: int = Field(description="The dump's position in its file, from 0.")
    threads: list[ThreadRead] = Field(description="Every thread, in the dump's order.")
