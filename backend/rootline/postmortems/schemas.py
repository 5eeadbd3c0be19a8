from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rootline.validation import RequestModel

PostmortemStatus = Literal["draft", "in_review", "published"]
SectionKey = Literal[
    "summary",
    "impact",
    "timeline",
    "root_causes",
    "contributing_factors",
    "ruled_out",
    "action_items",
    "lessons",
]
ExportFormat = Literal["md", "html", "pdf"]

# The sections in document order, with their headings.
SECTIONS: dict[str, str] = {
    "summary": "Summary",
    "impact": "Impact",
    "timeline": "Timeline",
    "root_causes": "Root causes",
    "contributing_factors": "Contributing factors",
    "ruled_out": "Ruled out",
    "action_items": "Action items",
    "lessons": "Lessons",
}

MAX_SECTION_CHARS = 200_000


class SectionRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    key: SectionKey
    title: str
    text: str = Field(
        description="Markdown. `![caption](chart:<checklist id>)` draws that"
        " finding's evidence chart."
    )
    version: int = Field(description="Send it back with the next save of this section.")
    updated_by: str
    updated_at_ms: int


class PostmortemRead(BaseModel):
    incident_id: str
    status: PostmortemStatus
    version: int = Field(description="Send it back with the next status change.")
    created_by: str
    created_at_ms: int
    status_changed_by: str
    status_changed_at_ms: int
    published_at_ms: int | None
    sections: list[SectionRead] = Field(description="Every section, in document order.")


class SectionUpdate(RequestModel):
    text: str = Field(max_length=MAX_SECTION_CHARS, description="The section's new Markdown.")
    version: int = Field(
        ge=0,
        description="The section version this text was edited from: another is a conflict (409).",
    )


class StatusUpdate(RequestModel):
    status: PostmortemStatus
    version: int = Field(
        ge=0, description="The postmortem version seen: another is a conflict (409)."
    )


class RevisionRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    section: str = Field(description="A section key, or `status`.")
    author: str
    changed_at_ms: int
    version: int = Field(description="The version the change made.")
    previous_text: str = Field(description="The text (or status) before the change.")


class SectionConflict(BaseModel):
    """The 409 answer to a save edited from an older version: what is stored now."""

    code: Literal["postmortem_conflict"]
    message: str
    current: SectionRead


class StatusConflict(BaseModel):
    """The 409 answer to a status change from an older version: the status now."""

    code: Literal["postmortem_conflict"]
    message: str
    status: PostmortemStatus
    version: int
