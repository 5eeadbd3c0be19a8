from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from rootline.parsers import registry
from rootline.parsers.base import TIME_ASSUMPTION_FACTS, placed_at_default
from rootline.timeutil import INSTANT_RANGE, check_clock_offset, check_zone, parse_instant
from rootline.validation import RequestModel

# pending: stored, waiting for a parse worker; parsing: a worker has it; then one of the last three.
ArtifactStatus = Literal["pending", "parsing", "parsed", "partial", "failed"]


class DiagnosticRead(BaseModel):
    line: int = Field(description="1-based line number; 0 means the whole file.")
    message: str


class TimeAssumptionRead(BaseModel):
    key: str = Field(
        description="The parser's fact saying what it assumed, one of: "
        + ", ".join(f"`{key}` ({meaning})" for key, meaning in TIME_ASSUMPTION_FACTS.items())
        + "."
    )
    value: str


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
    time_assumptions: list[TimeAssumptionRead] = Field(
        default_factory=list,
        description="What the parser had to assume about the file's times (a date for lines "
        "with a time of day only, say), from its facts: those times are a guess. Empty when "
        "nothing was assumed.",
    )

    @computed_field(  # type: ignore[prop-decorator]
        description="True when the file holds no time of its own (an ss or netstat -s listing "
        "without a timestamp line, a sysctl dump) and its data was placed at the upload time "
        "(plus any clock offset): when it was captured is not known."
    )
    @property
    def placed_at_upload(self) -> bool:
        return placed_at_default(
            self.kind, self.time_start_ms, self.uploaded_at_ms + round(self.clock_offset_s * 1000)
        )


class UploadResult(BaseModel):
    artifacts: list[ArtifactRead] = Field(description="One per uploaded file, plus bundle members.")
    created: list[bool] = Field(
        description=(
            "False where the same bytes were already in the incident (and for a re-parse)."
        )
    )


class ReparseOptions(RequestModel):
    """What a re-parse may change before the stored bytes are read again (the upload's options).

    A field left out keeps its value; ``null`` clears it (the host named in the file, the
    incident's zone, no JVM start, the sniffed kind). Given for a bundle, it applies to every
    member.
    """

    host: str | None = Field(default=None, max_length=255)
    kind: str | None = Field(
        default=None, max_length=64, description="Read as this kind instead of sniffing."
    )
    timezone: str | None = Field(
        default=None, max_length=64, description="IANA zone for the file's zone-less times."
    )
    clock_offset_s: float | None = Field(
        default=None, description="Seconds added to every time of the file."
    )
    jvm_start: str | None = Field(
        default=None,
        max_length=64,
        description=(
            "JVM start time anchoring an uptime-only GC log: ISO-8601 (UTC if no zone) or "
            f"epoch seconds/ms, within {INSTANT_RANGE}."
        ),
    )

    _zone = field_validator("timezone")(check_zone)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str | None) -> str | None:
        if value is not None and value not in registry.PARSERS:
            raise ValueError(
                f"unknown kind {value!r}; known: {', '.join(sorted(registry.PARSERS))}"
            )
        return value

    @field_validator("clock_offset_s")
    @classmethod
    def _offset(cls, value: float | None) -> float | None:
        return None if value is None else check_clock_offset(value)

    @field_validator("jvm_start")
    @classmethod
    def _instant(cls, value: str | None) -> str | None:
        if value is not None and value.strip():
            try:
                parse_instant(value)
            except ValueError:
                raise ValueError(
                    f"not a time: ISO-8601 or epoch seconds/ms within {INSTANT_RANGE}"
                ) from None
        return value

    def jvm_start_ms(self) -> int | None:
        """The JVM start as UTC epoch ms (None when cleared)."""
        return parse_instant(self.jvm_start) if self.jvm_start and self.jvm_start.strip() else None
