"""Errors the API reports as JSON ``{"code", "message"}`` with a stable code, never a trace."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status_code = 400

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.headers: dict[str, str] = {}


class NotFound(ApiError):
    status_code = 404


class BadRequest(ApiError):
    status_code = 400


class PayloadTooLarge(ApiError):
    status_code = 413


class Conflict(ApiError):
    status_code = 409


class ServiceUnavailable(ApiError):
    status_code = 503


class Unauthorized(ApiError):
    status_code = 401


class Forbidden(ApiError):
    status_code = 403


class TooManyRequests(ApiError):
    status_code = 429

    def __init__(self, code: str, message: str, *, retry_after_s: int) -> None:
        super().__init__(code, message)
        self.headers = {"Retry-After": str(max(1, retry_after_s))}
