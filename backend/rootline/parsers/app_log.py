"""STUB: parser for kind `app_log`, not written yet."""

from __future__ import annotations

from rootline.parsers.base import ParseContext, ParseResult

KIND = "app_log"


def sniff(head: str) -> float:
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    result.diagnose(0, "parser for app_log is not written yet")
    return result
