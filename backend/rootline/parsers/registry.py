"""The one place parsers are registered, and the sniff-then-parse entry point.

Every module listed in :data:`PARSERS` follows :mod:`rootline.parsers.base`. Adding a format
means writing one module and adding it here.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import time
from collections.abc import Callable, Iterator
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
    TextPieces,
    cyclic_gc_paused,
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

# A stored file's text a piece at a time, as it is decoded (see TextPieces): the result, or
# None when the parser gives the file up (it is then decoded again and read whole by ``parse``).
PieceParser = Callable[[Iterator[str], ParseContext], ParseResult | None]

# The kinds also read that way, never holding the whole text (see parse_file): a big nmon
# capture's series are as big as its text, and the two together were 3.5x the file.
PIECE_PARSERS: dict[str, PieceParser] = {nmon.KIND: nmon.parse_pieces, ss.KIND: ss.parse_pieces}
UNKNOWN_KIND = "unknown"


def sniff_scores(head: str) -> dict[str, float]:
    """Every parser's confidence for ``head``; used to pick one and to test that only one claims a file."""
    # Sniffers match lines with `(?m)...$`, which a CR before the LF defeats: a capture saved
    # on Windows is the same capture (parsers drop a line's CRs: see base.iter_lines).
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


# Bytes read at a time from a stored file: its text grows by this much (see decode_blocks),
# and a piece parser gets this much at a time (see parse_file).
_READ_BLOCK = 1024 * 1024


def decode_file(handle: BinaryIO, kind: str | None = None, *, head: bytes | None = None) -> Decoded:
    """The text a parser reads from an open file, over-long lines cut, read a block at a
    time: a parse holds the text and one block, never the file's bytes beside its text (a
    200 MB capture's bytes and text are 400 MB). ``head``: the file's first bytes, already
    read from ``handle`` (at least 1 KiB unless that is the whole file)."""
    return decode_pieces(text_pieces(handle, kind, head=head))


def text_pieces(
    handle: BinaryIO, kind: str | None = None, *, head: bytes | None = None
) -> TextPieces | ParseResult:
    """An open file's text a piece at a time as its blocks are read and decoded (see
    :func:`decode_file`), or why it has none (empty, binary)."""
    if head is None:
        head = handle.read(_READ_BLOCK)
    if not head:
        result = ParseResult(kind=kind or UNKNOWN_KIND)
        result.diagnose(0, "file is empty (0 bytes)")
        return result
    if looks_binary(head):
        result = ParseResult(kind=kind or UNKNOWN_KIND)
        result.diagnose(
            1, "file holds binary data (NUL bytes in the first KiB), not a text capture"
        )
        return result
    blocks = itertools.chain((head,), iter(lambda: handle.read(_READ_BLOCK), b""))
    del head
    return TextPieces(blocks)


def decode_pieces(pieces: TextPieces | ParseResult) -> Decoded:
    """The whole text of :func:`text_pieces` (the pieces not read yet, appended in place)."""
    if isinstance(pieces, ParseResult):
        return Decoded("", [], pieces)
    return Decoded(*pieces.joined())


def parse_file(
    handle: BinaryIO,
    context: ParseContext,
    kind: str | None = None,
    *,
    head: bytes | None = None,
    reopen: Callable[[], BinaryIO] | None = None,
) -> ParseResult:
    """Decode, sniff (unless ``kind`` is given) and parse an open file. Never raises.

    A kind in :data:`PIECE_PARSERS` reads the text as it is decoded and never holds it
    whole; when it gives the file up (an odd line, a cut or undecodable one), what it read
    is dropped and the file is read again from ``reopen()``, decoded whole and parsed by the
    kind's ``parse``, as every other kind is (and every kind when ``reopen`` is None).

    ``handle`` is closed once read: a text read whole is parsed with no stored file open
    (an S3 body holds a connection); only a piece parser reads with it open."""
    pieces = text_pieces(handle, kind, head=head)
    if isinstance(pieces, ParseResult):
        handle.close()  # refused (empty, binary ...): nothing more is read
        return pieces
    chosen = kind or detect_kind(pieces.peek(SNIFF_BYTES))
    read_pieces = PIECE_PARSERS.get(chosen)
    if read_pieces is not None and reopen is not None:
        result = _parse_pieces(read_pieces, pieces, context)
        handle.close()
        if result is not None:
            return result
        del pieces
        with reopen() as again:
            decoded = decode_file(again, kind)
    else:
        decoded = decode_pieces(pieces)
        del pieces
        handle.close()
    return _parse(decoded, context, kind, chosen)


def _parse_pieces(
    read_pieces: PieceParser, pieces: TextPieces, context: ParseContext
) -> ParseResult | None:
    """The piece parser's result, or None for the file to be read whole: when it gave the
    file up, failed (read whole, a parser bug costs its diagnostic as ever), left pieces
    unread, or decoding cut or replaced anything (its diagnostics number lines of the text)."""
    try:
        with cyclic_gc_paused():
            result = read_pieces(pieces, context)
    except Exception:
        return None
    if result is None or next(pieces, None) is not None or not pieces.clean:
        return None
    if result.status == "failed" and not result.diagnostics:
        result.diagnose(0, _no_rows(result.kind, pieces.decoded_chars))
    return result


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


def _parse(
    decoded: Decoded, context: ParseContext, kind: str | None, chosen: str | None = None
) -> ParseResult:
    """``chosen``: the kind sniffed from the text's start already (else sniffed here)."""
    chosen = chosen or kind or detect_kind(decoded.text[:SNIFF_BYTES])
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
        result.diagnose(0, _no_rows(result.kind, size))
    return result


def _no_rows(kind: str, size: int) -> str:
    # A valid capture of nothing (ss filtered to no socket) must still say why it is empty.
    return f"recognised as {kind} but its {size:,} characters hold no data rows"


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
