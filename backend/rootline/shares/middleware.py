"""Redacted share links, applied once to everything `/api/shared/<token>/...` answers.

Every route a share serves is one of the domains' ``read_routes`` (and the postmortem's, and
whatever is added later): rather than each of them knowing about redaction, this middleware
rewrites their JSON answers (and the postmortem's SVG charts, text too) through the share's
`Redactor` and turns the pseudonyms in the
query string back into the originals (``?host=host-a`` filters on the real host). A
redacted link answers nothing but JSON and SVG: a raw download (already refused by the share's
``allow_raw``) could not be rewritten.

The share is looked up in a short transaction of its own before the route runs, and the
answer is rewritten in a worker thread: a timeline's JSON can be megabytes.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl

from anyio import to_thread
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rootline.incidents import repository as incidents_repository
from rootline.shares import service
from rootline.shares.redaction import Redactor

PREFIX = "/api/shared/"
# A live plain (not redacted) share stays plain: that answer is kept this long per process,
# so a link's reads cost one share lookup (the route's), not two. Redacted ones are looked up
# every time, but their redactor (five scans of the incident's names) is rebuilt only when
# the incident's data version moved; unknown tokens are looked up every time (the route
# counts them). Revocation is unaffected: the route checks the share on every request.
PLAIN_TTL_S = 30.0
PLAIN_CACHE_SIZE = 4096


def _token(path: str) -> str | None:
    if not path.startswith(PREFIX):
        return None
    token = path[len(PREFIX) :].split("/", 1)[0]
    return token or None


class RedactSharedResponses:
    """ASGI middleware: the answers of a redacted share link, redacted."""

    def __init__(self, app: ASGIApp, *, sessions: sessionmaker[Session]) -> None:
        self.app = app
        self.sessions = sessions
        self._plain: dict[str, float] = {}  # token -> until when it is known to be plain
        self._redacted: dict[str, tuple[int | None, Redactor]] = {}  # token -> (version, it)

    def _redactor(self, token: str) -> Redactor | None:
        now = time.monotonic()
        if self._plain.get(token, 0.0) > now:
            return None
        with self.sessions.begin() as session:
            share = service.resolve(session, token)
            found = None
            if share is not None and share.redacted:
                version = incidents_repository.version(session, share.incident_id)
                cached = self._redacted.get(token)
                if cached is not None and cached[0] == version:
                    return cached[1]
                found = service.redactor(session, share)
                if found is not None:
                    if len(self._redacted) >= PLAIN_CACHE_SIZE:
                        self._redacted.clear()
                    self._redacted[token] = (version, found)
        if share is not None and found is None:
            if len(self._plain) >= PLAIN_CACHE_SIZE:
                self._plain.clear()
            self._plain[token] = now + PLAIN_TTL_S
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _token(scope["path"]) if scope["type"] == "http" else None
        if token is None:
            await self.app(scope, receive, send)
            return
        redactor = await to_thread.run_sync(self._redactor, token)
        if redactor is None:
            # Unknown, revoked or plain: the route answers (and counts a failed lookup).
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string", b"")
        searched = [
            _searched_text(name, value)
            for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True)
            if name in ADDRESS_SEARCHES or name in KEY_SEARCHES
        ]
        if not all(redactor.names_only_pseudonyms(v) for v in searched):
            await _refuse_search(send)
            return
        scope = {**scope, "query_string": redactor.original_query(query)}
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            assert start is not None
            status, headers, body = await to_thread.run_sync(
                _rewrite, redactor, start, b"".join(chunks)
            )
            await send({**start, "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, capture)


# Query parameters that search addresses by their text (GET .../connections?q=,
# .../series?connection=).
ADDRESS_SEARCHES = frozenset({"q", "connection"})
# Query parameters that search keys whose brackets hold addresses (GET .../facts?prefix=
# tcp.conn.cc[10.0.0.1:port-1): the part from the first bracket on is an address search.
KEY_SEARCHES = frozenset({"prefix"})


def _searched_text(name: str, value: str) -> str:
    """What of a query parameter's value is matched against addresses: all of an address
    search's; of a key prefix, what its brackets hold (``net.ipv4.`` names no address)."""
    if name in ADDRESS_SEARCHES:
        return value
    bracket = value.find("[")
    return "" if bracket < 0 else value[bracket + 1 :]


async def _refuse_search(send: Send) -> None:
    body = json.dumps(
        {
            "detail": "this link hides the real addresses: search by the names it shows "
            "(e.g. 10.0.0.3 or 10.0.0.3:port-1)"
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 400,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _rewrite(
    redactor: Redactor, start: Message, body: bytes
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
    status: int = start["status"]
    if not body or status == 204:
        out = body
    elif content_type.startswith(b"application/json"):
        data: Any = json.loads(body)
        out = json.dumps(
            redactor.value(data), ensure_ascii=False, allow_nan=False, separators=(",", ":")
        ).encode()
    elif content_type.startswith(b"image/svg+xml"):
        # A chart: host names, addresses and ports in its labels, as in any text.
        out = redactor.text(body.decode("utf-8")).encode("utf-8")
    else:
        status = 403
        headers = [
            (k, v) for k, v in headers if k.lower() not in {b"content-type", b"content-disposition"}
        ]
        headers.append((b"content-type", b"application/json"))
        out = json.dumps(
            {"code": "redacted", "message": "a redacted share link shows no original files"}
        ).encode()
    headers.append((b"content-length", str(len(out)).encode()))
    return status, headers, out
