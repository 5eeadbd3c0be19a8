"""Every parser reads through the bounded line reader: an over-long line costs one
diagnostic with its line number, and the rest of the file is still parsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootline.parsers import registry
from rootline.parsers.base import MAX_LINE_BYTES, ParseContext
from tests.conftest import FIXTURES_DIR

NOT_CAPTURES = {".md", ".json", ".sh", ".py"}
FIXTURES = sorted(
    next(p for p in sorted(folder.iterdir()) if p.is_file() and p.suffix not in NOT_CAPTURES)
    for folder in FIXTURES_DIR.iterdir()
    if folder.is_dir() and folder.name != "java"
)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.parent.name)
def test_an_over_long_line_is_skipped_with_its_number_and_the_rest_parsed(fixture: Path) -> None:
    data = fixture.read_bytes()
    context = ParseContext(default_time_ms=1_700_000_000_000)
    plain = registry.parse_bytes(data, context)
    lines = data.split(b"\n")
    long_line = b" ".join(b"w%07d" % n for n in range(MAX_LINE_BYTES // 8 + 10))
    spoiled = b"\n".join([*lines[:2], long_line, *lines[2:]])
    result = registry.parse_bytes(spoiled, context)
    (diagnostic,) = [d for d in result.diagnostics if "line limit" in d.message]
    assert diagnostic.line == 3
    assert result.kind == plain.kind
    assert (
        len(result.series) + len(result.events) + len(result.facts) > 0 or plain.status == "failed"
    )
