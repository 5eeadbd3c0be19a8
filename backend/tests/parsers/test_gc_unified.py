"""JDK 9+ unified GC logs: every corpus file, our own Java 17 captures, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import gc_legacy, gc_unified
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, sniff_scores
from tests.conftest import FIXTURES_DIR
from tests.parsers.gc_helpers import LEGACY_CORPUS, UNIFIED_CORPUS, fact, pauses, read

FIXTURES = sorted((FIXTURES_DIR / "gc_unified").glob("*.log"))

# Independent of the parser: a pause is a "GC(n) [y: ]Pause ... N.NNNms" line at the end of
# a line (the "gc,start" line of the same pause has no duration; the gc,stats summary of
# Shenandoah has no GC id; safepoint lines are no pause lines).
PAUSE_LINE = re.compile(r"GC\(\d+\) (?:[yY]: )?Pause [^\n]*? (\d+(?:\.\d+)?)ms\r?$", re.MULTILINE)


def independent_count(text: str) -> tuple[int, float]:
    found = PAUSE_LINE.findall(text)
    return len(found), sum(float(v) for v in found)


def parse(text: str, **context: int) -> ParseResult:
    return gc_unified.parse(text, ParseContext(**context))


def unified_file(name: str) -> Path:
    path = next((p for p in [*UNIFIED_CORPUS, *FIXTURES] if p.name == name), None)
    if path is None:
        pytest.skip(f"file {name} not found")
    return path


@pytest.mark.parametrize("path", [*UNIFIED_CORPUS, *FIXTURES], ids=lambda p: p.name)
def test_file_is_recognised_and_pauses_match_an_independent_count(path: Path) -> None:
    text = read(path)
    assert detect_kind(text[:65536]) == "gc_unified"
    scores = sniff_scores(text[:65536])
    assert [k for k, v in scores.items() if v >= 0.5] == ["gc_unified"]
    result = parse(text)
    assert result.status == "parsed", result.diagnostics[:3]
    count, total_ms = independent_count(text)
    durations = pauses(result)
    assert len(durations) == count
    assert sum(durations) == pytest.approx(total_ms, abs=0.5, rel=0.001)


# Hand-checked: the five ZGC pause lines of GC(25) and GC(34) read by eye.
def test_zgc_pauses_stalls_and_cycles() -> None:
    result = parse(read(unified_file("jdk-ujl-zgc-allocation-stall-gcviewer.txt")))
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    assert types == ["pause_mark_start", "pause_mark_end", "pause_relocate_start"]
    stalls = [e for e in result.events if e.kind == "gc_allocation_stall"]
    assert len(stalls) == 14
    assert stalls[0].duration_ms == pytest.approx(0.706)
    assert stalls[0].attrs == {
        "stall": "allocation",
        "thread": "Group1.Backend.CompositeBackend{Tier1}.1",
    }
    assert {s.attrs["stall"] for s in stalls} == {"allocation", "relocation"}
    assert fact(result, "gc.collector") == "zgc"
    assert result.anchored is False


def test_generational_zgc_cycle_reports_heap() -> None:
    result = parse(read(unified_file("jdk21-ujl-zgc-generational-major-minor-garbagecat.txt")))
    cycle = next(e for e in result.events if e.attrs.get("phase") == "minor collection")
    assert cycle.attrs["heap_before_mb"] == 1824936 and cycle.attrs["heap_after_mb"] == 1934414
    assert cycle.duration_ms == pytest.approx(36764.0)
    pause = next(e for e in result.events if e.kind == "gc_pause")
    assert pause.attrs["detail"] == "young" and pause.attrs["gc_id"] == 34


def test_g1_minimal_golden_numbers() -> None:
    result = parse(read(unified_file("jdk9or10-ujl-g1-xlog-gc-minimal-uptime-gctoolkit.log")))
    first = next(e for e in result.events if e.kind == "gc_pause")
    # [31.249s][info][gc] GC(0) Pause Young (G1 Evacuation Pause) 24M->11M(256M) 7.965ms
    assert first.time_ms == 31249 - 8  # logged at the end: start = 31.249 s - 7.965 ms
    assert first.duration_ms == pytest.approx(7.965)
    assert first.attrs == {
        "collector": "g1",
        "type": "young",
        "cause": "G1 Evacuation Pause",
        "heap_before_mb": 24.0,
        "heap_after_mb": 11.0,
        "heap_total_mb": 256.0,
        "gc_id": 0,
        "uptime_s": pytest.approx(31.241035),
    }
    types = {e.attrs["type"] for e in result.events if e.kind == "gc_pause"}
    assert types == {"young", "remark", "cleanup", "full"}
    full = next(e for e in result.events if e.attrs.get("type") == "full")
    assert full.attrs["cause"] == "Diagnostic Command"


def test_time_and_uptime_decorations_reveal_the_jvm_start() -> None:
    result = parse(read(unified_file("jdk11plus-ujl-g1-time-uptime-decorations-gctoolkit.log")))
    # [2022-11-10T03:37:29.443-0800][0.017s]: start = 11:37:29.443Z - 0.017 s
    assert fact(result, "jvm.start_time") == "2022-11-10T11:37:29.426+00:00"
    assert result.anchored is True
    causes = {e.attrs.get("cause") for e in result.events if e.kind == "gc_pause"}
    assert "Metadata GC Threshold" in causes


def test_shenandoah_pause_types() -> None:
    result = parse(read(unified_file("jdk17-ujl-shenandoah-uptime-level-garbagecat.txt")))
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    assert "degenerated" in types
    assert {e.attrs["collector"] for e in result.events if e.kind == "gc_pause"} == {"shenandoah"}


def test_cms_unified_initial_mark_and_remark_are_pauses() -> None:
    result = parse(read(unified_file("jdk9to13-ujl-cms-gc-trace-gctoolkit.log")))
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    assert types.count("initial_mark") >= 1 and types.count("remark") >= 1
    assert fact(result, "gc.collector") == "cms"
    assert fact(result, "gc.promotion_rate_mb_s") is not None  # from "ParNew: a->b(c)" lines


def test_own_fixtures_cover_every_collector_and_decoration() -> None:
    collectors = {}
    for path in FIXTURES:
        result = parse(read(path))
        collectors[path.name] = fact(result, "gc.collector")
        uptime_only = path.name.endswith(("-uptime.log", "-minimal.log"))
        assert result.anchored is not uptime_only, path.name
    assert set(collectors.values()) == {"g1", "parallel", "serial", "zgc", "shenandoah"}


def test_utctime_uptimemillis_pid_tid_decorations() -> None:
    result = parse(read(unified_file("g1-utctime-uptimemillis-pid-tid.log")))
    pause = next(e for e in result.events if e.kind == "gc_pause")
    start = fact(result, "jvm.start_time")
    assert start is not None and start.startswith("2026-")
    assert pause.attrs["uptime_s"] > 0 and pause.attrs["heap_total_mb"] == 64.0
    assert fact(result, "gc.promotion_rate_mb_s") is not None  # from "Eden regions" x region size


def test_safepoint_lines_do_not_add_pauses() -> None:
    text = read(unified_file("g1-gc-safepoint.log"))
    assert "Safepoint" in text
    result = parse(text)
    assert len(pauses(result)) == independent_count(text)[0]
    assert not result.diagnostics


def test_uptime_only_log_anchors_on_context() -> None:
    text = read(unified_file("jdk-ujl-serial-gc-all-safepoint-oscpu-gcviewer.txt"))
    loose = parse(text)
    anchored = parse(text, jvm_start_ms=1_600_000_000_000)
    assert loose.anchored is False and not loose.diagnostics
    assert anchored.anchored is True
    assert [e.time_ms - 1_600_000_000_000 for e in anchored.events] == [
        e.time_ms for e in loose.events
    ]


def test_truncated_mid_line_and_garbage_lines() -> None:
    lines = read(unified_file("jdk9or10-ujl-g1-xlog-gc-minimal-uptime-gctoolkit.log")).splitlines()
    lines.insert(3, "garbage !!")
    lines.insert(7, "\x00\x01 more garbage")
    text = "\n".join(lines[:100]) + "\n" + lines[100][:30]
    result = parse(text)
    # 100 whole lines: "Using G1", 2 garbage lines, 97 pauses; then half of pause 98.
    assert [d.line for d in result.diagnostics] == [4, 8, 101]
    assert "cut off" in result.diagnostics[-1].message
    assert len(pauses(result)) == 97
    assert result.status == "partial"


def test_sniffer_leaves_legacy_logs_alone() -> None:
    for path in LEGACY_CORPUS:
        assert gc_unified.sniff(read(path)[:65536]) < 0.5, path.name
    for path in UNIFIED_CORPUS:
        assert gc_legacy.sniff(read(path)[:65536]) < 0.5, path.name


@given(st.text())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(parse(text), ParseResult)


@given(st.data())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_never_raises_on_mutated_real_logs(data: st.DataObject) -> None:
    candidates = [*UNIFIED_CORPUS, *FIXTURES]
    path = data.draw(st.sampled_from(candidates))
    lines = read(path).splitlines()[:400]
    lines = lines[: data.draw(st.integers(0, len(lines)))]
    for _ in range(data.draw(st.integers(0, 5))):
        lines.insert(data.draw(st.integers(0, len(lines))), data.draw(st.text(max_size=80)))
    text = "\n".join(lines)
    assert isinstance(parse(text[: data.draw(st.integers(0, len(text)))]), ParseResult)


def test_the_time_the_log_covers_is_a_fact() -> None:
    """Lines from 0.018 s (Using CMS) to 33.126 s (heap at exit): the pauses only fill the
    last 2.0 s of it, the log covers 33.1 s."""
    result = parse(read(unified_file("jdk9to13-ujl-cms-gc-trace-gctoolkit.log")))
    assert fact(result, "gc.log_span_ms") == "33108"
    pause = parse(
        "[1.000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 4M->1M(8M) 2.500ms\n"
    )
    assert fact(pause, "gc.log_span_ms") == "2.5"  # one line: the pause's own span
