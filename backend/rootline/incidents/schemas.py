from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rootline.timeutil import InstantMs, check_zone
from rootline.validation import RequestModel

IncidentStatus = Literal["draft", "published"]


class IncidentCreate(RequestModel):
    title: str = Field(min_length=1, max_length=300)
    summary: str = Field(default="", max_length=20_000)
    timezone: str = Field(default="UTC", description="IANA zone used for zone-less timestamps.")

    _zone = field_validator("timezone")(check_zone)


class IncidentUpdate(RequestModel):
    title: str | None = Field(default=None, min_length=1, max_length=300)
    summary: str | None = Field(default=None, max_length=20_000)
    timezone: str | None = None
    status: IncidentStatus | None = None
    window_start_ms: InstantMs | None = None
    window_end_ms: InstantMs | None = None

    _zone = field_validator("timezone")(check_zone)


class CauseRead(BaseModel):
    id: str = Field(description="Checklist id.")
    title: str


class IncidentRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    title: str
    summary: str
    timezone: str
    status: IncidentStatus
    window_start_ms: int | None = Field(description="Start of the incident window, UTC epoch ms.")
    window_end_ms: int | None
    created_at_ms: int
    updated_at_ms: int
    artifact_count: int = 0
    top_causes: list[CauseRead] = Field(
        default_factory=list,
        description="Causes confirmed by effective verdict (override, else computed), checklist order.",
    )


class IncidentVersion(BaseModel):
    version: int = Field(
        description="Grows with every change of what the incident shows; compare, never order."
    )


class IncidentPage(BaseModel):
    items: list[IncidentRead]
    total: int
    limit: int
    offset: int
