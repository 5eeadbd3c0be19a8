"""STUB: parser for kind `thread_dump`, not written yet."""

from __future__ import annotations

from rootline.parsers.base import ParseContext, ParseResult

KIND = "thread_dump"


def sniff(head: str) -> float:
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    result.diagnose(0, "parser for thread_dump is not written yet")
    return result
