"""Every file of the public corpus is recognised as its kind and read without failing."""

from __future__ import annotations

from pathlib import Path

import pytest

from rootline.parsers import registry
from rootline.parsers.base import ParseContext
from tests.conftest import corpus_files

EXPECTED_KINDS = {
    "ss": {"ss"},
    "netstat": {"netstat", "netstat_s", "nstat", "proc_net", "sysctl"},
    "gc": {"gc_legacy", "gc_unified"},
    "nmon": {"nmon"},
    "threads": {"thread_dump", "app_log"},
}
CASES = [(folder, path) for folder in EXPECTED_KINDS for path in corpus_files(folder)]


@pytest.mark.corpus
@pytest.mark.parametrize(("folder", "path"), CASES, ids=[f"{f}/{p.name}" for f, p in CASES])
def test_corpus_file_is_recognised_and_read(folder: str, path: Path) -> None:
    data = path.read_bytes()
    result = registry.parse_bytes(
        data, ParseContext.for_zone("UTC", default_time_ms=1_700_000_000_000)
    )
    assert result.kind in EXPECTED_KINDS[folder]
    assert result.status != "failed", result.diagnostics[:3]
    assert result.series or result.events or result.facts


def test_the_corpus_is_there() -> None:
    if not CASES:
        pytest.skip("corpus not found (../shared/corpus or ROOTLINE_CORPUS_DIR)")
    assert len(CASES) >= 80
