"""``ss`` read a piece at a time as the worker decodes the stored file (registry.parse_file):
the same result as the whole text gives, and never the whole text held (a C10K provider's
450 MB capture)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rootline.parsers.base import MAX_LINE_BYTES
from tests.conftest import FIXTURES_DIR
from tests.parsers.reading import dump, parse_stored, parse_whole

FIXTURES = sorted((FIXTURES_DIR / "ss").glob("*.txt"))


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
    result, reopened = parse_stored(data)
    assert result.kind == "ss"
    assert reopened == 0
    assert dump(result) == dump(parse_whole(data))


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
    result, reopened = parse_stored(data)
    assert reopened == 1
    assert result.diagnostics
    assert dump(result) == dump(parse_whole(data))
