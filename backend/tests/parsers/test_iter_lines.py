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
    return [line.rstrip("\r") for line in lines]


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


def test_every_cr_before_a_line_break_is_dropped() -> None:
    # A Windows capture written again in text mode: str.splitlines read these lines (with an
    # empty one after each), and /proc/net's headers must not keep a CR on their last name.
    assert list(base.iter_lines("Ip: A B\r\r\nIp: 1 2\r\r\n")) == ["Ip: A B", "Ip: 1 2"]
