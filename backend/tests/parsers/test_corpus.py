"""Every file of the public corpus is recognised as its kind and read without failing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult
from tests.conftest import corpus_files

EXPECTED_KINDS = {
    "ss": {"ss"},
    "netstat": {"netstat", "netstat_s", "nstat", "proc_net", "sysctl"},
    "gc": {"gc_legacy", "gc_unified"},
    "gc-other-jvms": {"gc_ibm_xml", "gc_ibm_text", "gc_jrockit", "gc_hpux"},
    "nmon": {"nmon"},
    "threads": {"thread_dump", "app_log"},
}
CONTEXT = ParseContext.for_zone("UTC", default_time_ms=1_700_000_000_000)
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
    assert len(CASES) >= 85


def assert_well_formed(result: ParseResult, text: str) -> None:
    """What every parser promises, whatever the input."""
    lines = text.count("\n") + 1
    assert result.status in {"parsed", "partial", "failed"}
    assert (result.status == "failed") == (not (result.series or result.events or result.facts))
    assert result.status != "failed" or result.diagnostics, "a failure must say why"
    for diagnostic in result.diagnostics:
        assert 0 <= diagnostic.line <= lines, (diagnostic, lines)
        assert diagnostic.message
    for series in result.series:
        assert len(series.times_ms) == len(series.values) > 0
        assert series.name and series.unit is not None


SAMPLES = [path for _, path in CASES if path.stat().st_size < 200_000]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_damage_to_a_real_capture_gives_a_well_formed_result(data: st.DataObject) -> None:
    if not SAMPLES:
        pytest.skip("corpus not found")
    text = data.draw(st.sampled_from(SAMPLES)).read_text(errors="replace")
    lines = text.splitlines(keepends=True)
    cut = data.draw(st.integers(0, len(text)))
    garbage = data.draw(st.text(max_size=80))
    at = data.draw(st.integers(0, len(lines)))
    damaged = "".join(lines[:at]) + garbage + "\n" + "".join(lines[at:])
    for candidate in (text[:cut], damaged):
        assert_well_formed(registry.parse_text(candidate, CONTEXT), candidate)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_characters_splitlines_takes_for_line_ends_do_not_shift_line_numbers(path: Path) -> None:
    """``str.splitlines`` also breaks at \\x0b, \\x0c, \\x1c-\\x1e, \\x85 and U+2028: a parser
    splitting with it numbered the lines after such a character past the file's end."""
    lines = path.read_text(errors="replace").splitlines(keepends=True)
    at = len(lines) // 2
    damaged = (
        "".join(lines[:at]) + "\x1e\x1e0 \x0b\x0c\x1c\x1d\x85\u2028\u2029x\n" + "".join(lines[at:])
    )
    assert_well_formed(registry.parse_text(damaged, CONTEXT), damaged)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=2000))
def test_arbitrary_text_gives_a_well_formed_result(text: str) -> None:
    assert_well_formed(registry.parse_text(text, CONTEXT), text)
