from __future__ import annotations

from pydantic import BaseModel, Field

from rootline.incidents.schemas import IncidentRead
from rootline.timeutil import InstantMs
from rootline.validation import RequestModel


class ShareCreate(RequestModel):
    label: str = Field(default="", max_length=200)
    expires_at_ms: InstantMs | None = Field(
        default=None, description="When the link stops working, UTC epoch ms; null = never."
    )
    allow_raw: bool = Field(default=False, description="Whether raw artifacts may be downloaded.")


class ShareRead(BaseModel):
    id: int
    label: str
    created_at_ms: int
    created_by: str | None = Field(description="User name of the creator.")
    expires_at_ms: int | None
    allow_raw: bool
    revoked: bool
    expired: bool
    prefix: str


class ShareCreated(ShareRead):
    token: str = Field(description="The secret, shown this once.")
    url: str = Field(description="Path of the shared view in the web app, `/share/<token>`.")


class SharedIncident(BaseModel):
    incident: IncidentRead
    allow_raw: bool
