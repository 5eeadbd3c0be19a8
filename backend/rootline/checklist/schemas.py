from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from rootline.validation import RequestModel

VerdictName = Literal["confirmed", "likely", "ruled_out", "insufficient_data"]


class EvidenceRead(BaseModel):
    summary: str
    observed: float | str | None
    threshold: float | str | None
    unit: str
    from_ms: int | None = Field(
        description="Where the signature is strongest: start, UTC epoch ms."
    )
    to_ms: int | None
    series: str | None = Field(description="Series name the evidence comes from, with `labels`.")
    labels: dict[str, str]
    event_kind: str | None
    artifact: str | None
    host: str | None


class MissingRead(BaseModel):
    artifact: str = Field(description="What to collect.")
    command: str = Field(description="The exact command that collects it.")


class ReviewRead(BaseModel):
    verdict_override: VerdictName | None
    note: str
    author: str
    updated_at_ms: int


class FindingRead(BaseModel):
    id: str
    title: str
    verdict: VerdictName = Field(description="The detectors' verdict (never changed by a review).")
    effective_verdict: VerdictName = Field(
        description="The team's override when set, else `verdict`."
    )
    summary: str
    evidence: list[EvidenceRead]
    explanation: str
    remedies: list[str]
    missing: list[MissingRead]
    parameters: dict[str, Any] = Field(description="The named thresholds the detector used.")
    review: ReviewRead | None
    computed_at_ms: int


class Checklist(BaseModel):
    incident_id: str
    findings: list[FindingRead] = Field(
        description="Confirmed, likely, insufficient data, ruled out (by effective verdict), checklist order within."
    )


class ReviewUpdate(RequestModel):
    verdict_override: VerdictName | None = Field(
        default=None, description="Null clears the override."
    )
    note: str = Field(default="", max_length=20_000)
    author: str = Field(default="", max_length=255)
