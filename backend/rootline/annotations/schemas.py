from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rootline.timeutil import InstantMs
from rootline.validation import RequestModel


class AnnotationCreate(RequestModel):
    from_ms: InstantMs = Field(description="Start (or the instant), UTC epoch ms.")
    to_ms: InstantMs | None = Field(
        default=None, description="End of a range; null for an instant."
    )
    text: str = Field(
        min_length=1, max_length=20_000, description="Shown as plain text, never as HTML."
    )
    author: str = Field(default="", max_length=255)
    host: str | None = Field(default=None, max_length=255)
    series: str | None = Field(default=None, max_length=200)

    @model_validator(mode="after")
    def _ordered(self) -> AnnotationCreate:
        if self.to_ms is not None and self.to_ms < self.from_ms:
            raise ValueError("to_ms is before from_ms")
        return self


class AnnotationRead(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    from_ms: int
    to_ms: int | None
    text: str
    author: str
    host: str | None
    series: str | None
    created_at_ms: int
