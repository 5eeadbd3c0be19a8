"""The shared line splitter parsers read big files with (rootline.parsers.base.iter_lines)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rootline.parsers import base


def expected(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n") or not text:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1024 * 1024])
@given(text=st.text(alphabet="ab\r\n\x1e\u2028 ", max_size=60))
def test_lines_are_those_of_split_at_any_block_size(block: int, text: str) -> None:
    saved = base._LINE_BLOCK
    base._LINE_BLOCK = block
    try:
        assert list(base.iter_lines(text)) == expected(text)
    finally:
        base._LINE_BLOCK = saved


def test_a_big_text_is_split_in_blocks_and_loses_no_line() -> None:
    text = "".join(f"line {i}\r\n" for i in range(300_000))  # ~3.5 MB: several blocks
    lines = list(base.iter_lines(text))
    assert len(lines) == 300_000
    assert lines[0] == "line 0" and lines[-1] == "line 299999"
    assert lines[123_456] == "line 123456"
