"""A file is decoded a block at a time (``decode_blocks``), exactly as its joined bytes would
be by ``bound_lines`` + ``decode_text``, and without holding its bytes beside its text."""

from __future__ import annotations

import io
import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.parsers import registry
from rootline.parsers.base import (
    Diagnostic,
    TextPieces,
    bound_lines,
    decode_blocks,
    decode_text,
)

# Pieces a damaged capture is made of: line breaks, CRLF, multi-byte and broken UTF-8, NULs,
# byte-order marks (UTF-8 and UTF-16) in odd places, runs long enough to pass a small limit.
PIECES = [
    b"a",
    b"bc",
    b"\n",
    b"\r\n",
    b"\xc3\xa9",
    b"\xff",
    b"\xe2\x82",
    b"\x00",
    b"x" * 13,
    b"\n\n",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
]


def joined(data: bytes, limit: int) -> tuple[str, list[tuple[int, str]]]:
    bounded, long_lines = bound_lines(data, limit)
    text, decoded = decode_text(bounded)
    return text, [(d.line, d.message) for d in long_lines + decoded]


def streamed(blocks: list[bytes], limit: int) -> tuple[str, list[tuple[int, str]]]:
    text, diagnostics = decode_blocks(blocks, limit)
    return text, [(d.line, d.message) for d in diagnostics]


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40),
    st.booleans(),
    st.integers(min_value=1, max_value=12),
    st.lists(st.integers(min_value=0, max_value=400), max_size=6),
)
def test_blocks_decode_as_the_joined_bytes(
    pieces: list[bytes], bom: bool, limit: int, cuts: list[int]
) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(pieces)
    points = sorted({min(c, len(data)) for c in cuts})
    blocks = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    assert streamed(blocks, limit) == joined(data, limit)


def test_a_line_longer_than_many_blocks_is_skipped_as_it_streams_by() -> None:
    data = b"one\n" + b"y" * 1000 + b"\nthree\n\xff\n"
    blocks = [data[i : i + 7] for i in range(0, len(data), 7)]
    text, diagnostics = decode_blocks(blocks, limit=64)
    assert text == "one\n\nthree\n\ufffd\n"
    assert diagnostics == [
        Diagnostic(2, "line of 1000 bytes is over the 64-byte line limit: skipped"),
        Diagnostic(4, "not valid UTF-8 from byte 11; undecodable bytes replaced"),
    ]


def test_the_text_is_not_held_twice() -> None:
    """The text grows in place: the peak is the text and a block or two, not twice the text
    (which ``"".join`` or a copying ``+`` would cost). In a fresh process, with fewer blocks
    than the interpreter's warm-up, where a loop run the first time copies."""
    done = subprocess.run([sys.executable, "-c", _MEASURE], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    peak_blocks, text_blocks = map(float, done.stdout.split())
    assert text_blocks == 6
    assert peak_blocks < text_blocks + 4, (peak_blocks, text_blocks)


_MEASURE = """
import tracemalloc
from rootline.parsers.base import decode_blocks
block = (b"ESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\\n" * 30_000)[: 1 << 20]
block = block[: block.rindex(b"\\n") + 1]
tracemalloc.start()
text, _ = decode_blocks(iter([block] * 6))
print(tracemalloc.get_traced_memory()[1] / len(block), len(text) / len(block))
"""


def test_a_stored_file_is_decoded_as_its_bytes_are() -> None:
    data = b"\xef\xbb\xbfTotal: 3\n" + b"z" * 300_000 + b"\nTCP: 1\r\n\xfe"
    whole = registry.decode_bytes(data)
    by_blocks = registry.decode_file(io.BytesIO(data[9:]), head=data[:9])
    assert (by_blocks.text, by_blocks.diagnostics) == (whole.text, whole.diagnostics)
    assert whole.text.startswith("Total: 3\n\nTCP: 1\r\n")
    assert [d.line for d in whole.diagnostics] == [2, 4]


def test_a_traced_decode_stays_linear() -> None:
    """Under a tracer or profiler (a debugger, coverage, cProfile) CPython does not append
    to a string in place: each ``+=`` copies the text so far. The decode must not then cost
    the square of the file's size (a 200 MB capture: minutes)."""
    block = b"ESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\n" * 450  # about 16 KiB
    blocks = [block] * 600  # 10 MB: copying at every block costs seconds, joining once ms

    def trace(frame: object, event: str, arg: object) -> object:
        return trace

    started = time.process_time()
    sys.settrace(trace)
    try:
        text, diagnostics = decode_blocks(iter(blocks))
    finally:
        sys.settrace(None)
    spent = time.process_time() - started
    assert (len(text), diagnostics) == (len(block) * 600, [])
    assert spent < 0.5, f"{spent:.2f} CPU s to decode 10 MB under a tracer"


def test_pieces_peeked_at_are_still_handed_out() -> None:
    """The registry sniffs a file's first characters before its parser reads the pieces."""
    block = b"ESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\n" * 1000
    pieces = TextPieces(iter([block[:100], block[100:], block]))
    opening = pieces.peek(50_000)
    assert opening == (block * 2).decode()[:50_000]
    assert "".join(pieces) == (block * 2).decode() and pieces.clean
