from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel, Field

from rootline.validation import RequestModel

TokenScope = Literal["ingest", "read-write"]
USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"
MIN_PASSWORD = 8


class LoginRequest(RequestModel):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class PasswordChange(RequestModel):
    current_password: str | None = Field(
        default=None, max_length=1024, description="Null only while the user has no password."
    )
    new_password: str = Field(min_length=MIN_PASSWORD, max_length=1024)


class UserBrief(BaseModel):
    id: int
    username: str
    is_admin: bool
    has_password: bool


class Me(BaseModel):
    user: UserBrief
    csrf_token: str = Field(description="Send it back as the X-CSRF-Token header on writes.")


class UserRead(UserBrief):
    disabled: bool
    created_at_ms: int
    last_login_at_ms: int | None


class TokenCreate(RequestModel):
    name: str = Field(default="", max_length=100)
    scope: TokenScope = "read-write"
    incident_id: uuid.UUID | None = Field(
        default=None, description="Limit the token to this incident."
    )


class TokenRead(BaseModel):
    id: int
    name: str
    scope: TokenScope
    incident_id: uuid.UUID | None
    created_at_ms: int
    last_used_at_ms: int | None
    revoked: bool
    prefix: str


class TokenCreated(TokenRead):
    token: str = Field(description="The secret, shown this once: `Authorization: Bearer rl_...`.")
