"""A bulkhead: at most a few heavy requests at once per server process, so cheap ones stay fast.

A server process runs its Python in one thread at a time (the GIL). When thirty timeline
reads are in flight in one process, each thread gets the interpreter for 5 ms in turn, and a
request that needs 5 ms of Python (a share link's incident, a health check, the artifacts
list) waits for every one of them, over and over: 1.5 to 2.5 s in the load-and-kill bench on
2 CPUs, while alone it takes 3 ms. Queued before it starts, a heavy request costs nothing
but its place in line (no thread, no database connection); the few that run share the
interpreter with the cheap requests only.

Heavy: the routes whose work grows with the data (timeline points, raw downloads, a
checklist computed afresh, two compared, a thread dump read again from its file,
postmortem drafts, charts and exports: a PDF runs Chromium). They wait for a slot up to
``heavy_wait_s`` seconds, then are answered 503 with ``Retry-After``, which the web app
retries. Everything else goes straight through.
"""

from __future__ import annotations

import asyncio
import json
import re

from starlette.types import ASGIApp, Receive, Scope, Send

# Private (`/api/incidents/1/...`) and shared (`/api/shared/<token>/...`) read routes alike.
_INCIDENT = r"^/api/(?:incidents/[^/]+|shared/[^/]+)"
HEAVY_ROUTES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("GET", re.compile(_INCIDENT + r"/timeline$")),
    ("GET", re.compile(_INCIDENT + r"/artifacts/[^/]+/raw$")),
    ("GET", re.compile(_INCIDENT + r"/checklist$")),
    ("GET", re.compile(_INCIDENT + r"/postmortem/export$")),
    ("GET", re.compile(_INCIDENT + r"/postmortem/charts/[^/]+$")),
    ("POST", re.compile(_INCIDENT + r"/postmortem$")),
    ("GET", re.compile(r"^/api/compare$")),
    ("GET", re.compile(_INCIDENT + r"/events/[^/]+/threads$")),
)


def is_heavy(method: str, path: str) -> bool:
    return any(method == m and pattern.match(path) for m, pattern in HEAVY_ROUTES)


class Bulkhead:
    """ASGI middleware: `slots` heavy requests at once in this process, the rest wait in line."""

    def __init__(self, app: ASGIApp, *, slots: int, wait_s: float) -> None:
        self.app = app
        self.slots = slots
        self.wait_s = wait_s
        self._semaphore: asyncio.Semaphore | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_heavy(scope["method"], scope["path"]):
            await self.app(scope, receive, send)
            return
        if self._semaphore is None:  # made on the server's own event loop
            self._semaphore = asyncio.Semaphore(self.slots)
        try:
            async with asyncio.timeout(self.wait_s):
                await self._semaphore.acquire()
        except TimeoutError:
            await _busy(send, self.wait_s)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._semaphore.release()


async def _busy(send: Send, waited_s: float) -> None:
    body = json.dumps(
        {
            "code": "server_busy",
            "message": f"the server had no room for this request within {waited_s:g} s; "
            "try again shortly",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", b"2"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
