from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from rootline.incidents.schemas import IncidentRead
from rootline.timeutil import InstantMs
from rootline.validation import RequestModel


class ShareView(RequestModel):
    """The view a link opens: the range, host, finding (and evidence item) and the lanes
    added to the timeline when it was made."""

    from_ms: InstantMs | None = Field(
        default=None, description="Visible range start, UTC epoch ms."
    )
    to_ms: InstantMs | None = None
    host: str | None = Field(default=None, max_length=255)
    finding: str | None = Field(default=None, max_length=64, description="Selected checklist id.")
    evidence: int | None = Field(default=None, ge=0, le=10_000)
    lanes: list[str] = Field(
        default_factory=list, max_length=50, description="Series names added as lanes."
    )

    @model_validator(mode="after")
    def _ordered(self) -> ShareView:
        if (self.from_ms is None) != (self.to_ms is None):
            raise ValueError("give both from_ms and to_ms, or neither")
        if self.from_ms is not None and self.to_ms is not None and self.to_ms <= self.from_ms:
            raise ValueError("to_ms is not after from_ms")
        if any(len(lane) > 200 for lane in self.lanes):
            raise ValueError("a lane name has at most 200 characters")
        return self


class ShareCreate(RequestModel):
    label: str = Field(default="", max_length=200)
    expires_at_ms: InstantMs | None = Field(
        default=None, description="When the link stops working, UTC epoch ms; null = never."
    )
    allow_raw: bool = Field(default=False, description="Whether raw artifacts may be downloaded.")
    view: ShareView | None = Field(default=None, description="The view the link opens.")
    redacted: bool = Field(
        default=False,
        description="Show IP addresses, host names and ports as consistent pseudonyms"
        " (`host-a`, `10.0.0.1`, `port-1`); raw downloads are then off.",
    )


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
    view: ShareView | None = None
    redacted: bool = False


class ShareCreated(ShareRead):
    token: str = Field(description="The secret, shown this once.")
    url: str = Field(description="Path of the shared view in the web app, `/share/<token>`.")


class SharedIncident(BaseModel):
    incident: IncidentRead
    allow_raw: bool
    view: ShareView | None = Field(default=None, description="The view the link opens.")
    redacted: bool = Field(default=False, description="Names and addresses are pseudonyms.")
