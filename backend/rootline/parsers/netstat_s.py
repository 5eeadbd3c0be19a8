"""STUB: parser for kind `netstat_s`, not written yet."""

from __future__ import annotations

from rootline.parsers.base import ParseContext, ParseResult

KIND = "netstat_s"


def sniff(head: str) -> float:
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    result.diagnose(0, "parser for netstat_s is not written yet")
    return result
