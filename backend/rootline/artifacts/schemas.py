from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# pending: stored, waiting for a parse worker; parsing: a worker has it; then one of the last three.
ArtifactStatus = Literal["pending", "parsing", "parsed", "partial", "failed"]


class DiagnosticRead(BaseModel):
    line: int = Field(description="1-based line number; 0 means the whole file.")
    message: str


class ArtifactRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    incident_id: uuid.UUID
    parent_id: uuid.UUID | None = Field(description="The bundle this file came from, if any.")
    filename: str
    sha256: str
    size_bytes: int
    host: str | None
    kind: str = Field(
        description="Detected (or requested) format, e.g. ss, nstat, gc_unified, bundle."
    )
    requested_kind: str | None
    status: ArtifactStatus
    diagnostics: list[DiagnosticRead]
    diagnostics_dropped: int = Field(description="Diagnostics beyond the first 200, counted only.")
    timezone: str | None
    clock_offset_s: float
    jvm_start_ms: int | None
    anchored: bool = Field(description="False for GC logs with only JVM uptime and no start time.")
    time_start_ms: int | None
    time_end_ms: int | None
    series_count: int
    point_count: int
    event_count: int
    fact_count: int
    uploaded_at_ms: int
    parsed_at_ms: int | None
    parse_seconds: float | None
    parser_version: str | None = Field(
        default=None, description="Hash of the parsers' code that produced the stored data."
    )


class UploadResult(BaseModel):
    artifacts: list[ArtifactRead] = Field(description="One per uploaded file, plus bundle members.")
    created: list[bool] = Field(
        description=(
            "False where the same bytes were already in the incident (and for a re-parse)."
        )
    )
