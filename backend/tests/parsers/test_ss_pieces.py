"""``ss`` read a piece at a time as the worker decodes the stored file (registry.parse_file):
the same result as the whole text gives, and never the whole text held (a C10K provider's
450 MB capture)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from rootline.parsers import registry
from rootline.parsers.base import MAX_LINE_BYTES, ParseContext, ParseResult
from tests.conftest import FIXTURES_DIR

FIXTURES = sorted((FIXTURES_DIR / "ss").glob("*.txt"))


def _parse_file(data: bytes) -> tuple[ParseResult, int]:
    """As the worker reads a stored file, and how often it was reopened (read again whole)."""
    reopened = []

    def reopen() -> io.BytesIO:
        reopened.append(1)
        return io.BytesIO(data)

    result = registry.parse_file(io.BytesIO(data), ParseContext(), reopen=reopen)
    return result, len(reopened)


def _whole(data: bytes) -> ParseResult:
    return registry.parse_decoded(registry.decode_bytes(data), ParseContext())


def _dump(result: ParseResult) -> tuple[object, ...]:
    return (
        result.kind,
        result.status,
        [(d.line, d.message) for d in result.diagnostics],
        [(f.key, f.value, f.time_ms) for f in result.facts],
        [
            (s.name, s.labels, s.unit, s.times_ms.tobytes(), s.values.tobytes())
            for s in result.series
        ],
    )


def _many_pieces(data: bytes) -> bytes:
    """Copies of a capture up to ~3 MB: several 1 MiB blocks, pieces cut inside snapshots."""
    return data * max(2, 3_000_000 // len(data))


CLEAN: dict[str, Callable[[bytes], bytes]] = {
    "as is": lambda data: data,
    "CRLF": lambda data: data.replace(b"\n", b"\r\n"),
    "no final newline": lambda data: data.rstrip(b"\n"),
    "many pieces": _many_pieces,
    "many pieces CRLF": lambda data: _many_pieces(data).replace(b"\n", b"\r\n"),
    "cut mid-line": lambda data: _many_pieces(data)[:2_500_001],
}


@pytest.mark.parametrize("change", CLEAN.values(), ids=CLEAN.keys())
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_pieces_read_as_the_whole_text(path: Path, change: Callable[[bytes], bytes]) -> None:
    data = change(path.read_bytes())
    result, reopened = _parse_file(data)
    assert result.kind == "ss"
    assert reopened == 0
    assert _dump(result) == _dump(_whole(data))


def _bad_byte(data: bytes) -> bytes:
    at = data.index(b"\n", len(data) // 2) + 1
    return data[:at] + b"\xff" + data[at:]


def _long_line(data: bytes) -> bytes:
    at = data.index(b"\n", len(data) // 2) + 1
    return data[:at] + b"x" * (MAX_LINE_BYTES + 10) + b"\n" + data[at:]


@pytest.mark.parametrize("change", [_bad_byte, _long_line], ids=["bad UTF-8", "over-long line"])
def test_a_capture_decoding_changed_is_read_again_whole(change: Callable[[bytes], bytes]) -> None:
    """Decoding's diagnostics number lines of the whole text: such a file is read again whole."""
    data = change(_many_pieces((FIXTURES_DIR / "ss" / "ss-tinm-loop.txt").read_bytes()))
    result, reopened = _parse_file(data)
    assert reopened == 1
    assert result.diagnostics
    assert _dump(result) == _dump(_whole(data))
