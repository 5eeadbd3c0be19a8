"""How `rootline serve` runs uvicorn: read timeouts for slow clients, and an access log
that never holds a secret.

- **Read timeouts** (:class:`ReadTimeoutProtocol`, uvicorn's httptools protocol plus two
  timers): a request's headers must all arrive within ``header_timeout_s`` of its first byte
  (or of the connection, for the first request), else the client gets a 408 and the
  connection is closed; once a body is under way, ``body_timeout_s`` without a byte closes
  the connection (the route sees a disconnect). Time the server itself stops reading (its
  buffer is full because the route is busy) or waits to send ``100 Continue`` does not
  count. Without them a client sending one byte a minute holds a connection for ever, and
  a few thousand such clients hold them all.
- **Access log redaction** (:class:`RedactTokens`): share tokens and one-time sign-in
  tokens travel in URL paths (``/api/shared/<token>/...``, ``/share/<token>``,
  ``/api/auth/one-time/<token>``); the access log writes their first 4 characters only,
  enough to tell two links apart, not to use one.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from typing import Any, Literal

from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from rootline.settings import get_settings

# A path segment after one of these prefixes is a secret.
_SECRET_SEGMENT = re.compile(r"(/api/shared/|/share/|/api/auth/one-time/)([^/?#]+)")
SHOWN_CHARACTERS = 4


def redact_path(path: str) -> str:
    """``path`` with every share or one-time token cut to its first few characters."""
    return _SECRET_SEGMENT.sub(lambda m: f"{m[1]}{m[2][:SHOWN_CHARACTERS]}...[redacted]", path)


class RedactTokens(logging.Filter):
    """Rewrites the path of uvicorn's access log records (``client, method, path, version,
    status``) with :func:`redact_path`."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (args[0], args[1], redact_path(args[2]), args[3], args[4])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`RedactTokens` on the access log, and
    the ``rootline`` loggers writing through uvicorn's handler from INFO up."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_tokens"] = {"()": RedactTokens}
    config["handlers"]["access"]["filters"] = ["redact_tokens"]
    # Rootline's own lines (a client hanging up, a worker dropping a result) beside uvicorn's.
    config["loggers"]["rootline"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


_Phase = Literal["headers", "body"]
_REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 27\r\nconnection: close\r\n\r\nrequest not sent in time.\r\n"
)
log = logging.getLogger("rootline.server")


class ReadTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol with header and body read timeouts (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = get_settings()
        self.header_timeout_s = settings.header_timeout_s
        self.body_timeout_s = settings.body_timeout_s
        self._read_timer: asyncio.TimerHandle | None = None

    def _arm(self, phase: _Phase) -> None:
        self._disarm()
        delay = self.header_timeout_s if phase == "headers" else self.body_timeout_s
        self._read_timer = self.loop.call_later(delay, self._expired, phase)

    def _disarm(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm("headers")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm("headers")  # one deadline for the whole header block, not per byte

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm("body")  # until on_message_complete, which follows at once without a body

    def on_body(self, body: bytes) -> None:
        super().on_body(body)
        self._arm("body")

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def _expired(self, phase: _Phase) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        waiting_on_us = self.flow.read_paused or (
            cycle is not None and cycle.waiting_for_100_continue
        )
        if phase == "body" and waiting_on_us:
            self._arm("body")
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "client"
        delay = self.header_timeout_s if phase == "headers" else self.body_timeout_s
        log.warning("%s - request %s not received within %s s: closed", client, phase, delay)
        if phase == "headers" and (cycle is None or cycle.response_complete):
            self.transport.write(_REQUEST_TIMEOUT)
        self.transport.close()
