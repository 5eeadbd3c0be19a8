"""Helpers shared by the thread-pool, Prometheus, app-log and thread-dump parser tests."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from rootline.parsers.registry import SNIFF_BYTES
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

CORPUS_KINDS = ("gc", "gc-other-jvms", "netstat", "nmon", "ss", "threads")
# Files in fixture folders that are not captures: READMEs, capture programs and scripts.
NOT_CAPTURES = {".md", ".java", ".sh", ".py", ".c"}


def head_of(path: Path) -> str:
    return path.read_bytes()[:SNIFF_BYTES].decode("utf-8", errors="replace")


def text_of(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def foreign_files(own: set[Path]) -> list[Path]:
    """Every corpus file and every other captured fixture that is not in ``own``."""
    files: list[Path] = []
    for kind in CORPUS_KINDS:
        folder = CORPUS_DIR / kind
        if folder.is_dir():
            files.extend(p for p in folder.iterdir() if p.is_file())
    if FIXTURES_DIR.is_dir():
        files.extend(
            p for p in FIXTURES_DIR.rglob("*") if p.is_file() and p.suffix not in NOT_CAPTURES
        )
    return sorted(p for p in set(files) if p.is_file() and p not in own)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` truncated at a random point with garbage lines inserted."""
    lines = text.splitlines()
    cut = draw(st.integers(min_value=0, max_value=len(lines)))
    lines = lines[:cut]
    for _ in range(draw(st.integers(min_value=0, max_value=5))):
        at = draw(st.integers(min_value=0, max_value=len(lines)))
        lines.insert(at, draw(st.text(max_size=80)))
    cut_last_line: bool = draw(st.booleans())
    if lines and cut_last_line:
        last = lines[-1]
        lines[-1] = last[: draw(st.integers(min_value=0, max_value=len(last)))]
    return "\n".join(lines)
