"""Decoding and sniffing whole files: what reaches a parser, whatever the encoding."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult
from tests.conftest import FIXTURES_DIR

CONTEXT = ParseContext(default_time_ms=1_000)


def summary(result: ParseResult) -> list[tuple[str, tuple[float, ...]]]:
    return sorted((s.name, tuple(s.values)) for s in result.series)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf_16_with_a_byte_order_mark_is_read_like_utf_8(encoding: str) -> None:
    # PowerShell's `ss ... > capture.txt` on Windows writes UTF-16 (LE, with a BOM) and CRLF.
    text = (FIXTURES_DIR / "ss" / "ss-tan.txt").read_text()
    expected = registry.parse_bytes(text.encode(), CONTEXT)
    data = ("\ufeff" + text.replace("\n", "\r\n")).encode(encoding)
    result = registry.parse_bytes(data, CONTEXT)
    assert (result.kind, result.status) == ("ss", "parsed")
    assert summary(result) == summary(expected)
    assert result.diagnostics == []
    cut = registry.parse_bytes(data[:-1], CONTEXT)  # half a character at the end
    assert "UTF-16" in cut.diagnostics[0].message


def test_nul_bytes_without_a_byte_order_mark_are_still_binary() -> None:
    result = registry.parse_bytes("ESTAB 0 0".encode("utf-16-le"), CONTEXT)
    assert result.status == "failed"
    assert "binary" in result.diagnostics[0].message


OWN_FIXTURES = sorted(
    p
    for p in FIXTURES_DIR.glob("*/*")
    if p.is_file()
    and p.suffix not in {".md", ".sh", ".py", ".java", ".json"}
    and p.parent.name in registry.PARSERS
)


@pytest.mark.parametrize("path", OWN_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_crlf_line_endings_change_nothing(path: Path) -> None:
    # A capture copied through Windows (or saved by a Windows tool) ends lines with CRLF.
    data = path.read_bytes()
    if b"\r\n" in data:
        pytest.skip("already CRLF")
    plain = registry.parse_bytes(data, CONTEXT)
    crlf = registry.parse_bytes(data.replace(b"\n", b"\r\n"), CONTEXT)
    assert (crlf.kind, crlf.status) == (plain.kind, plain.status)
    assert summary(crlf) == summary(plain)
    assert sorted((f.key, f.value) for f in crlf.facts) == sorted(
        (f.key, f.value) for f in plain.facts
    )


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"", None), (b"\x00\x01binary", None), (b"Netid State\n", "ss"), (b"x" * 100, None)],
)
def test_parse_file_closes_the_file_whatever_it_holds(data: bytes, kind: str | None) -> None:
    handle = io.BytesIO(data)
    registry.parse_file(handle, ParseContext(), kind)
    assert handle.closed
