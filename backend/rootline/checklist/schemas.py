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
    met: bool | None = Field(
        default=None,
        description="Whether the observation is at or past its named threshold (null: no threshold).",
    )
    threshold_name: str | None = Field(
        default=None, description="The rule's name for the threshold."
    )
    symptom: str | None = Field(
        default=None,
        description="The symptom it observes on an entity (`sendq_full@conn:...`), for the"
        " differential diagnosis.",
    )
    corroborates: bool = Field(
        default=False, description="A proxy that supports the mechanism but never decides alone."
    )
    operator: Literal[">=", ">", "<=", "<", "==", "!=", "present", "absent"] | None = Field(
        default=None,
        description="How `observed` is compared with `threshold` to be `met` (null: no"
        " threshold, or stored before it was recorded).",
    )
    time_assumed: str | None = Field(
        default=None,
        description="What of its file's times was assumed rather than read: `placed_at_upload`"
        " (no timestamp: placed at the upload time), `app_log.date_assumed` (times of day put"
        " on the upload's date), `unanchored` (JVM uptimes only); several joined by `, `."
        " Where it sits on the timeline is then a guess. Null: the file's own times.",
    )
    against: list[str] = Field(
        default_factory=list,
        description="Other files the observation was placed against (the slow period's, for"
        " GC pauses inside it); `time_assumed` covers theirs too.",
    )


class ReferenceRead(BaseModel):
    title: str
    url: str | None = None
    source: str | None = None


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
    references: list[ReferenceRead] = Field(
        default_factory=list, description="Field reports, kernel and framework documentation."
    )
    explained_by: list[str] = Field(
        default_factory=list,
        description="Checklist ids whose mechanism explains this item's symptoms (then it is"
        " ruled out as a second cause).",
    )
    entity: str = Field(
        default="", description="What was judged: a connection, a listener, a host..."
    )
    rules_version: str = Field(default="", description="The rules version that computed it.")
    review: ReviewRead | None
    computed_at_ms: int
    overlaps_symptom: bool | None = Field(
        default=None,
        description="Whether its evidence falls in the application's symptom window (null: no"
        " symptom found, the item is not a confirmed or likely cause, or its evidence has no time).",
    )
    symptom_overlap: str | None = Field(
        default=None,
        description="One sentence on how its evidence lies against the symptom window.",
    )


class SymptomRead(BaseModel):
    """When the application's latency (or errors) rose: rootline.detectors.symptom's method."""

    series: str = Field(
        description="The application series that shows it (`app.*`), with `labels`."
    )
    labels: dict[str, str]
    host: str | None
    unit: str
    kind: Literal["latency", "errors"]
    start_ms: int = Field(description="First point of the sustained rise, UTC epoch ms.")
    end_ms: int = Field(
        description="Last point above the threshold before it settled, UTC epoch ms."
    )
    baseline: float = Field(description="Median of the series' first quarter, in `unit`.")
    threshold: float = Field(
        description="Baseline + 5 MAD (at least +50 % and one step), in `unit`."
    )
    peak: float = Field(description="Highest value in the window, in `unit`.")
    summary: str
    time_assumed: str | None = Field(
        default=None,
        description="What of its file's times was assumed (as `EvidenceRead.time_assumed`):"
        " the window is where the file was put, and no finding is said to overlap it.",
    )
    overlapping: list[str] = Field(
        description="Ids of the confirmed and likely findings whose evidence overlaps the window,"
        " in checklist order."
    )


class Checklist(BaseModel):
    incident_id: str
    rules_version: str = Field(
        description="The rules version in force (hash of the rule files and quantities code)."
    )
    findings: list[FindingRead] = Field(
        description="Confirmed, likely, insufficient data, ruled out (by effective verdict), checklist order within."
    )
    symptom: SymptomRead | None = Field(
        default=None,
        description="The application's symptom window from its own series (`app.*`), if they show one.",
    )


class ReviewUpdate(RequestModel):
    verdict_override: VerdictName | None = Field(
        default=None, description="Null clears the override."
    )
    note: str = Field(default="", max_length=20_000)
    author: str = Field(default="", max_length=255)


class KeyNumber(BaseModel):
    summary: str
    observed: float | str | None
    threshold: float | str | None
    unit: str
    met: bool | None


class CompareVerdict(BaseModel):
    verdict: VerdictName = Field(description="Effective verdict (the team's override, if any).")
    summary: str
    key_numbers: list[KeyNumber] = Field(
        description="The evidence measured against thresholds (at most 4)."
    )


class CompareSide(BaseModel):
    incident_id: str
    title: str
    timezone: str
    from_ms: int | None = Field(description="Start of the range compared (null: no data).")
    to_ms: int | None
    windowed: bool = Field(description="Whether the checklist was computed over a range only.")


class CompareRow(BaseModel):
    id: str
    title: str
    a: CompareVerdict
    b: CompareVerdict
    change: Literal["same", "better", "worse", "unclear"] = Field(
        description="From A to B: `better` when the verdict moved toward ruled out, `worse`"
        " toward confirmed, `unclear` when one side lacks the data to say."
    )


class Comparison(BaseModel):
    a: CompareSide
    b: CompareSide
    rules_version: str
    rows: list[CompareRow] = Field(
        description="Changed rows first (worse, better, unclear), then the rest."
    )
