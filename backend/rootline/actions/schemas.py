from __future__ import annotations

import datetime as dt
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rootline.validation import RequestModel

ActionStatus = Literal["open", "in_progress", "done", "wont_do"]
ACTION_STATUSES: tuple[ActionStatus, ...] = ("open", "in_progress", "done", "wont_do")


def _ticket_url(value: str | None) -> str | None:
    """Only http(s) links: the web app renders it as a link."""
    if value is None or value == "":
        return None
    if not value.lower().startswith(("http://", "https://")):
        raise ValueError("a ticket link starts with http:// or https://")
    return value


class _ActionFields(RequestModel):
    owner: str | None = Field(default=None, max_length=255, description="Who does it.")
    due_date: dt.date | None = Field(default=None, description="ISO date, e.g. 2026-12-31.")
    status: ActionStatus | None = None
    ticket_url: str | None = Field(
        default=None, max_length=2000, description="Link to the ticket (http or https)."
    )
    notes: str | None = Field(default=None, max_length=20_000)
    command: str | None = Field(
        default=None,
        max_length=20_000,
        description="The setting or command to apply; from a remedy, copied from its text"
        " unless given.",
    )

    _ticket = field_validator("ticket_url")(_ticket_url)


class ActionItemCreate(_ActionFields):
    title: str | None = Field(
        default=None,
        min_length=1,
        max_length=500,
        description="Required unless made from a remedy (then its first words).",
    )
    external_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="The ticketing system's id; unique. `PUT .../action-items/external/{id}`"
        " upserts by it.",
    )
    finding_id: str | None = Field(
        default=None, max_length=64, description="The checklist id the item answers."
    )
    remedy_index: int | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="Index of the finding's remedy it was made from (its text is copied).",
    )


class ActionItemUpdate(_ActionFields):
    """Fields left out stay as they are; `verified_incident_id: null` clears the mark."""

    title: str | None = Field(default=None, min_length=1, max_length=500)
    external_id: str | None = Field(default=None, min_length=1, max_length=200)
    verified_incident_id: uuid.UUID | None = Field(
        default=None,
        description="Mark it verified fixed by this after-capture incident: its checklist must"
        " rule the item's checklist id out (computed verdict `ruled_out`).",
    )


class ActionItemRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    incident_id: uuid.UUID
    incident_title: str = ""
    title: str
    owner: str
    due_date: dt.date | None
    status: ActionStatus
    ticket_url: str | None
    external_id: str | None
    notes: str
    finding_id: str | None
    remedy_index: int | None
    remedy: str = Field(description="The remedy's text when the item was made from one.")
    command: str = Field(description="The setting or command to apply, one a line.")
    verified_incident_id: uuid.UUID | None
    verified_incident_title: str | None = None
    verified_at_ms: int | None
    verified_by: str | None
    created_by: str
    created_at_ms: int
    updated_at_ms: int


class ActionItemPage(BaseModel):
    items: list[ActionItemRead]
    total: int
    limit: int
    offset: int
