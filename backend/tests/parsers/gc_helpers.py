"""Shared checks for the two GC parser test modules."""

from __future__ import annotations

from pathlib import Path

from rootline.parsers.base import ParseResult
from tests.conftest import corpus_files

GC_CORPUS = corpus_files("gc")
UNIFIED_CORPUS = [p for p in GC_CORPUS if "-ujl-" in p.name]
LEGACY_CORPUS = [p for p in GC_CORPUS if "-ujl-" not in p.name]
OTHER_CORPUS = [p for folder in ("ss", "netstat", "nmon", "threads") for p in corpus_files(folder)]


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def pauses(result: ParseResult) -> list[float]:
    return [e.duration_ms or 0.0 for e in result.events if e.kind == "gc_pause"]


def fact(result: ParseResult, key: str) -> str | None:
    return next((f.value for f in result.facts if f.key == key), None)
