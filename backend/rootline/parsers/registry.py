"""The one place parsers are registered, and the sniff-then-parse entry point.

Every module listed in :data:`PARSERS` follows :mod:`rootline.parsers.base`. Adding a format
means writing one module and adding it here.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import BinaryIO, Protocol, cast

from rootline.parsers import (
    app_log,
    app_metrics,
    gc_hpux,
    gc_ibm_text,
    gc_ibm_xml,
    gc_jrockit,
    gc_legacy,
    gc_unified,
    netstat,
    netstat_bsd,
    netstat_s,
    netstat_s_windows,
    netstat_windows,
    nmon,
    nstat,
    proc_net,
    proc_net_dev,
    proc_net_tcp,
    prometheus,
    ss,
    sysctl,
    sysctl_bsd,
    thread_dump,
    threadpool_metrics,
)
from rootline.parsers.base import (
    Diagnostic,
    ParseContext,
    ParseResult,
    cyclic_gc_paused,
    decode_blocks,
    looks_binary,
)

# How much of a file sniffers see: enough for headers and a first snapshot.
SNIFF_BYTES = 64 * 1024
# Below this confidence no parser claims a file, and it is stored as kind "unknown".
MIN_CONFIDENCE = 0.5


class ParserModule(Protocol):
    KIND: str

    def sniff(self, head: str) -> float: ...

    def parse(self, text: str, context: ParseContext) -> ParseResult: ...


_MODULES: tuple[ModuleType, ...] = (
    ss,
    netstat,
    netstat_bsd,
    netstat_s,
    netstat_s_windows,
    netstat_windows,
    nstat,
    proc_net,
    proc_net_dev,
    proc_net_tcp,
    sysctl,
    sysctl_bsd,
    gc_legacy,
    gc_unified,
    gc_ibm_xml,
    gc_ibm_text,
    gc_jrockit,
    gc_hpux,
    nmon,
    threadpool_metrics,
    prometheus,
    thread_dump,
    # Generic tables of timed numbers: after every specific format (it sniffs at 0.6 at most).
    app_metrics,
    # Last: application logs are the loosest match and must not shadow a specific format.
    app_log,
)
PARSERS: dict[str, ParserModule] = {m.KIND: cast(ParserModule, m) for m in _MODULES}
UNKNOWN_KIND = "unknown"


def sniff_scores(head: str) -> dict[str, float]:
    """Every parser's confidence for ``head``; used to pick one and to test that only one claims a file."""
    # Sniffers match lines with `(?m)...$`, which a CR before the LF defeats: a capture saved
    # on Windows is the same capture (parsers split lines with `splitlines`, CRLF included).
    head = head.replace("\r\n", "\n")
    scores: dict[str, float] = {}
    for kind, parser in PARSERS.items():
        try:
            scores[kind] = parser.sniff(head)
        except Exception:  # a sniffer bug must not stop the upload; it just does not claim
            scores[kind] = 0.0
    return scores


def detect_kind(head: str) -> str:
    """The kind whose sniffer is most confident, or ``unknown`` below :data:`MIN_CONFIDENCE`."""
    scores = sniff_scores(head)
    kind, best = max(scores.items(), key=lambda item: item[1], default=(UNKNOWN_KIND, 0.0))
    return kind if best >= MIN_CONFIDENCE else UNKNOWN_KIND


def parse_bytes(data: bytes, context: ParseContext, kind: str | None = None) -> ParseResult:
    """Decode, sniff (unless ``kind`` is given) and parse one artifact. Never raises."""
    return parse_decoded(decode_bytes(data, kind), context, kind=kind)


@dataclass(slots=True)
class Decoded:
    """An artifact's bytes as text, or why there is no text (``refused``)."""

    text: str
    diagnostics: list[Diagnostic]
    refused: ParseResult | None = None

    def take_text(self) -> str:
        """The text, no longer held here: handed straight to a parser, it is the parser's
        alone, which may drop it before it builds its output (see ``ss.parse``)."""
        text, self.text = self.text, ""
        return text


def decode_bytes(data: bytes, kind: str | None = None) -> Decoded:
    """The text a parser reads from ``data``, over-long lines cut (see :func:`decode_file`)."""
    return decode_file(io.BytesIO(data), kind)


# Bytes read at a time from a stored file: its text grows by this much (see decode_blocks).
_READ_BLOCK = 8 * 1024 * 1024


def decode_file(handle: BinaryIO, kind: str | None = None, *, head: bytes | None = None) -> Decoded:
    """The text a parser reads from an open file, over-long lines cut, read a block at a
    time: a parse holds the text and one block, never the file's bytes beside its text (a
    200 MB capture's bytes and text are 400 MB). ``head``: the file's first bytes, already
    read from ``handle`` (at least 1 KiB unless that is the whole file)."""
    if head is None:
        head = handle.read(_READ_BLOCK)
    if not head:
        result = ParseResult(kind=kind or UNKNOWN_KIND)
        result.diagnose(0, "file is empty (0 bytes)")
        return Decoded("", [], result)
    if looks_binary(head):
        result = ParseResult(kind=kind or UNKNOWN_KIND)
        result.diagnose(
            1, "file holds binary data (NUL bytes in the first KiB), not a text capture"
        )
        return Decoded("", [], result)
    blocks = itertools.chain((head,), iter(lambda: handle.read(_READ_BLOCK), b""))
    del head
    text, diagnostics = decode_blocks(blocks)
    return Decoded(text, diagnostics)


def parse_decoded(decoded: Decoded, context: ParseContext, kind: str | None = None) -> ParseResult:
    """Parse what :func:`decode_bytes` gave. The text is taken from ``decoded`` and handed
    to the parser with no other reference to it kept: neither the caller nor this keeps it
    alive while the parser builds its output."""
    if decoded.refused is not None:
        return decoded.refused
    return _parse(decoded, context, kind)


def parse_text(
    text: str,
    context: ParseContext,
    *,
    kind: str | None = None,
    extra_diagnostics: list[Diagnostic] | None = None,
) -> ParseResult:
    """Sniff (unless ``kind`` is given) and parse decoded text. Never raises."""
    return _parse(Decoded(text, extra_diagnostics or []), context, kind)


def _parse(decoded: Decoded, context: ParseContext, kind: str | None) -> ParseResult:
    chosen = kind or detect_kind(decoded.text[:SNIFF_BYTES])
    parser = PARSERS.get(chosen)
    if parser is None:
        result = ParseResult(kind=UNKNOWN_KIND if kind is None else chosen)
        known = ", ".join(sorted(PARSERS))
        if kind is None:
            result.diagnose(0, f"could not recognise the format; known kinds: {known}")
        else:
            result.diagnose(0, f"unknown kind {kind!r}; known kinds: {known}")
        return result
    size = len(decoded.text)
    try:
        with cyclic_gc_paused():
            result = parser.parse(decoded.take_text(), context)
    except Exception as exc:  # a parser bug must cost a diagnostic, never the upload
        result = ParseResult(kind=chosen)
        result.diagnose(0, f"parser {chosen} failed: {type(exc).__name__}: {exc}")
    if decoded.diagnostics:
        result.diagnostics[:0] = decoded.diagnostics
    if result.status == "failed" and not result.diagnostics:
        # A valid capture of nothing (ss filtered to no socket) must still say why it is empty.
        result.diagnose(
            0, f"recognised as {result.kind} but its {size:,} characters hold no data rows"
        )
    return result


def now_ms() -> int:
    return int(time.time() * 1000)


@cache
def parser_version() -> str:
    """sha256 (12 hex digits) of the parsers' code: stored with every parsed artifact."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
