"""What no field of the API accepts, refused before any route runs, with the field named.

PostgreSQL refuses NUL in text and every integer column is at most 64 bits: a NUL byte or
an integer past int64 anywhere in a request used to reach the database and come back as a
500, as did ``1e400`` (read as infinity). `RequestModel`, the base of every request body,
holds its fields to that; `RequestGuard` checks the path and the query string of every
request; `text_problem` is the rule for fields read elsewhere (multipart form fields, file
names).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, unquote

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from starlette.types import ASGIApp, Receive, Scope, Send

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

Location = list[str | int]


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as text, or None."""
    return "must not contain NUL (\\u0000) characters" if "\x00" in value else None


def _json_problems(value: Any, loc: Location) -> Iterator[tuple[Location, str]]:
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            yield loc, problem
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            yield loc, "must be an integer within 64 bits (-2^63 .. 2^63-1)"
    elif isinstance(value, float):
        if not math.isfinite(value):
            yield loc, "must be a finite number"
    elif isinstance(value, dict):
        for key, item in value.items():
            problem = text_problem(key)
            if problem:
                yield [*loc, key], f"field name {problem}"
            yield from _json_problems(item, [*loc, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_problems(item, [*loc, index])


def invalid_request(errors: list[tuple[Location, str]]) -> dict[str, Any]:
    """The API's answer to an invalid request (status 422), as FastAPI's validation errors
    are answered too (see `rootline.app`)."""
    return {
        "code": "invalid_request",
        "message": "the request is not valid",
        "errors": [{"loc": loc, "message": message} for loc, message in errors],
    }


class RequestModel(BaseModel):
    """The base of every request body: no NUL in any text, integers within int64, numbers
    finite (``1e400`` is infinity), at any depth; the error names the field.

    Checked by Pydantic like any constraint, so after authentication: a caller who may not
    use the route is told that first.
    """

    model_config = ConfigDict(allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, value: Any, info: ValidationInfo) -> Any:
        for loc, problem in _json_problems(value, []):
            where = "".join(f"[{part!r}]" for part in loc)
            raise ValueError(f"{where} {problem}".strip())
        return value


class RequestGuard:
    """ASGI middleware: 422 for NUL in the path or in a query parameter, naming it.

    Bodies pass untouched (uploads stream past; JSON bodies are `RequestModel`s).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            errors = list(self._url_problems(scope))
            if errors:
                await _answer(send, 422, invalid_request(errors))
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _url_problems(scope: Scope) -> Iterator[tuple[Location, str]]:
        path = unquote(scope.get("raw_path", b"").decode("latin-1")) or scope.get("path", "")
        problem = text_problem(path)
        if problem:
            yield ["path"], problem
        query = scope.get("query_string", b"").decode("latin-1")
        for name, value in parse_qsl(query, keep_blank_values=True, errors="replace"):
            problem = text_problem(name) or text_problem(value)
            if problem:
                yield ["query", name.replace("\x00", "\\u0000")], problem


async def _answer(send: Send, status: int, content: dict[str, Any]) -> None:
    payload = json.dumps(content).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
