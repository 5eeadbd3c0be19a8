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
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
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


class FieldProblem(BaseModel):
    loc: list[str | int] = Field(
        description="Where: `['body', 'jvm_start']`, `['query', 'limit']`, `['path', 'incident_id']`."
    )
    message: str


class InvalidRequest(BaseModel):
    """The body of every 422 answer (see :func:`invalid_request`)."""

    code: Literal["invalid_request"]
    message: str
    errors: list[FieldProblem] = Field(description="Each problem, naming its field.")


def document_invalid_requests(schema: dict[str, Any]) -> dict[str, Any]:
    """Point every 422 answer of the OpenAPI document at :class:`InvalidRequest`, the body the
    API sends, instead of FastAPI's default (``detail``), so the clients generated from the
    document read the real shape."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    definition = InvalidRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(definition.pop("$defs", {}))
    components["InvalidRequest"] = definition
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            answer = (
                operation.get("responses", {}).get("422") if isinstance(operation, dict) else None
            )
            if answer is not None:
                answer["description"] = "The request is not valid; each problem names its field."
                answer["content"] = {
                    "application/json": {"schema": {"$ref": "#/components/schemas/InvalidRequest"}}
                }
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    return schema


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
