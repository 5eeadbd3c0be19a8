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

# Independent of the parser: a pause is a "GC(n) [y:|Y:|O: ]Pause ... N.NNNms" line at the end
# of a line (the "gc,start" line of the same pause has no duration; the gc,stats summary of
# Shenandoah has no GC id; safepoint lines are no pause lines). A decimal-comma locale writes
# "N,NNNms".
PAUSE_LINE = re.compile(
    r"GC\(\d+\) (?:[yYO]: )?Pause [^\n]*? (\d+(?:[.,]\d+)?)ms\r?$", re.MULTILINE
)
# Our captures whose decorations carry no wall clock (uptime, uptimemillis, uptimenanos).
UPTIME_ONLY = {
    "g1-debug-safepoint-uptime-level-tags.log",
    "parallel-uptime.log",
    "shenandoah-uptime.log",
    "serial-gc-minimal.log",
    "zgc-gc-minimal.log",
    "g1-decimal-comma-gc-all-uptime.log",
    "parallel-uptimenanos.log",
    "g1-uptimemillis-level.log",
    "zgc-timenanos-uptimenanos-hostname-pid-level.log",
}


def independent_count(text: str) -> tuple[int, float]:
    found = PAUSE_LINE.findall(text)
    return len(found), sum(float(v.replace(",", ".")) for v in found)


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


def test_jdk17_zgc_cycles_end_in_heap_shares_and_take_the_max_capacity() -> None:
    # JDK 17 ends a cycle's line with the heap's shares, no duration; its heap size is the
    # "Max Capacity" logged with each cycle (and once at start), not "Soft Max Capacity".
    result = parse(read(unified_file("zgc-2g-stalls-time-uptime-level-tags.log")))
    assert result.status == "parsed", result.diagnostics[:3]
    cycles = [e for e in result.events if e.attrs.get("phase") == "garbage collection"]
    assert len(cycles) == 5
    # [2026-11-28T01:07:13.956+0000][2.187s][info][gc] GC(0) Garbage Collection (Warmup)
    # 282M(14%)->338M(17%)
    first = cycles[0]
    assert first.attrs["gc_id"] == 0 and first.duration_ms is None
    assert (first.attrs["heap_before_mb"], first.attrs["heap_after_mb"]) == (282.0, 338.0)
    assert {c.attrs["heap_total_mb"] for c in cycles} == {2048.0}
    total = next(s for s in result.series if s.name == "gc.heap_total_mb")
    assert len(total.values) == 5 and max(total.values) == 2048.0


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
        uptime_only = path.name in UPTIME_ONLY
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


def test_sniffer_leaves_legacy_logs_alone(corpus_dir: Path) -> None:
    # Skipped (by the fixture) without the corpus; with it, no list may be silently empty.
    assert all([LEGACY_CORPUS, UNIFIED_CORPUS]), (
        "a GC corpus list is empty: the loops below would check nothing"
    )
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
    assert fact(pause, "gc.log_tail_ms") == "0"  # nothing logged after the pause ends
    tail = parse(
        "[1.000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 4M->1M(8M) 2.500ms\n"
        "[3.000s][info][gc,heap,exit] Heap\n"
    )
    # where the log ends after its last pause: the pause line is written as it ends (1.000 s)
    assert fact(tail, "gc.log_tail_ms") == "2000"


# --- dialects: every number below is read off the lines by hand --------------------------


def test_decimal_comma_locale_capture() -> None:
    """LC_ALL=de_DE.UTF-8: "[0,087s]" and "1,634ms" (the first line, "[0.005s]", was written
    before the JVM took the locale). 12 pauses; the first, GC(0), 2,083 ms ending at 0,083 s."""
    text = read(unified_file("g1-decimal-comma-gc-all-uptime.log"))
    assert "ms\n" in text and re.search(r"\[\d+,\d{3}s\]", text)
    result = parse(text)
    assert result.status == "parsed", result.diagnostics[:3]
    durations = pauses(result)
    assert len(durations) == 12 == independent_count(text)[0]
    first = next(e for e in result.events if e.kind == "gc_pause")
    line = next(x for x in text.splitlines() if "GC(0) Pause Young" in x and x.endswith("ms"))
    stamp, took = re.findall(r"\[(\d+),(\d+)s\]", line)[0], line.rsplit(" ", 1)[1]
    uptime_s = int(stamp[0]) + int(stamp[1]) / 1000
    took_ms = float(took[:-2].replace(",", "."))
    assert first.duration_ms == pytest.approx(took_ms)
    assert first.attrs["uptime_s"] == pytest.approx(uptime_s - took_ms / 1000)


def test_decimal_comma_written_by_hand() -> None:
    text = (
        "[177,375s][info][gc] GC(4) Pause Young (Normal) (G1 Evacuation Pause) 24M->11M(256M) "
        "7,870ms\n"
        "[180,001s][info][gc] GC(5) Pause Full (System.gc()) 20M->9M(256M) 120,5ms\n"
    )
    result = parse(text)
    assert pauses(result) == [pytest.approx(7.87), pytest.approx(120.5)]
    assert result.events[0].attrs["uptime_s"] == pytest.approx(177.375 - 0.00787)
    assert fact(result, "gc.pause_total_ms") == "128.37"
    assert not result.diagnostics


def test_shenandoah_decimal_comma_without_level_or_tags() -> None:
    """time,uptime only: no level, no tags; "GC STATISTICS:" and its table at exit are known
    lines, not pauses. 20 pause lines by grep."""
    text = read(unified_file("shenandoah-decimal-comma-time-uptime.log"))
    assert "GC STATISTICS:" in text
    result = parse(text)
    assert result.status == "parsed", result.diagnostics[:3]
    count, total = independent_count(text)
    assert (len(pauses(result)), count) == (20, 20)
    assert sum(pauses(result)) == pytest.approx(total)
    assert fact(result, "gc.collector") == "shenandoah"
    assert result.anchored is True


# GC(7) of a JDK 21 generational ZGC major collection, in the published format (the y:/Y:
# young and O: old prefixes, the generation summaries, the cycle line), written by hand.
GENERATIONAL_ZGC = """\
[2.100s][info][gc          ] GC(7) Major Collection (Proactive)
[2.100s][info][gc,phases   ] GC(7) Y: Young Generation
[2.101s][info][gc,phases   ] GC(7) Y: Pause Mark Start (Major) 0.020ms
[2.140s][info][gc,phases   ] GC(7) Y: Concurrent Mark 39.000ms
[2.141s][info][gc,phases   ] GC(7) Y: Pause Mark End 0.015ms
[2.150s][info][gc,phases   ] GC(7) Y: Pause Relocate Start 0.011ms
[2.170s][info][gc,phases   ] GC(7) Y: Young Generation 96M(19%)->40M(8%) 0.070s
[2.170s][info][gc,phases   ] GC(7) O: Old Generation
[2.230s][info][gc,phases   ] GC(7) O: Concurrent Mark 59.000ms
[2.231s][info][gc,phases   ] GC(7) O: Pause Mark End 0.250ms
[2.232s][info][gc,phases   ] GC(7) O: Concurrent Process Non-Strong 1.000ms
[2.240s][info][gc,phases   ] GC(7) O: Pause Relocate Start 0.300ms
[2.260s][info][gc,phases   ] GC(7) O: Old Generation 40M(8%)->36M(7%) 0.090s
[2.260s][info][gc          ] GC(7) Major Collection (Proactive) 96M(19%)->36M(7%) 0.160s
[2.300s][info][gc          ] GC(8) Minor Collection (Allocation Rate)
[2.301s][info][gc,phases   ] GC(8) y: Pause Mark Start 0.030ms
[2.320s][info][gc,phases   ] GC(8) y: Pause Mark End 0.010ms
[2.330s][info][gc,phases   ] GC(8) y: Pause Relocate Start 0.012ms
[2.350s][info][gc          ] GC(8) Minor Collection (Allocation Rate) 60M(12%)->30M(6%) 0.050s
"""


def test_generational_zgc_old_pauses_are_counted() -> None:
    result = parse(GENERATIONAL_ZGC)
    assert not result.diagnostics
    found = [(e.attrs["gc_id"], e.attrs["detail"], e.duration_ms) for e in pauses_events(result)]
    # 3 young + 2 old pauses of the major GC(7), 3 young of the minor GC(8): 8 pauses,
    # 0.020+0.015+0.011+0.250+0.300+0.030+0.010+0.012 = 0.648 ms, the longest the old one.
    assert len(found) == 8
    assert [d for _, d, _ in found].count("old") == 2
    assert sum(ms for *_, ms in found) == pytest.approx(0.648)
    assert fact(result, "gc.pause_max_ms") == "0.3"
    old = [e for e in pauses_events(result) if e.attrs["detail"] == "old"]
    assert [e.attrs["type"] for e in old] == ["pause_mark_end", "pause_relocate_start"]
    phases = {e.attrs["phase"] for e in result.events if e.kind == "gc_concurrent"}
    assert {"old mark", "young mark", "major collection", "minor collection"} <= phases


def pauses_events(result: ParseResult) -> list:  # type: ignore[type-arg]
    return [e for e in result.events if e.kind == "gc_pause"]


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("parallel-uptimenanos.log", 29),
        ("serial-timemillis-tags.log", 23),
        ("g1-uptimemillis-level.log", 12),
        ("zgc-timenanos-uptimenanos-hostname-pid-level.log", 18),
    ],
)
def test_millis_and_nanos_decorations_without_level_or_tags(name: str, count: int) -> None:
    text = read(unified_file(name))
    result = parse(text)
    assert result.status == "parsed", result.diagnostics[:3]
    assert len(pauses(result)) == count == independent_count(text)[0]
    first_line = text.splitlines()[0]
    uptimes = [e.attrs.get("uptime_s") for e in pauses_events(result)]
    if name.startswith("serial-timemillis"):
        # [1795707347903ms]: the epoch in ms, a wall clock, no uptime
        assert result.anchored is True and uptimes[0] is None
        assert first_line.startswith("[17")
    else:
        assert result.anchored is False
        assert all(u is not None and 0 < u < 10 for u in uptimes), uptimes[:3]


def test_timenanos_is_not_taken_for_the_uptime() -> None:
    """[446825976492ns][63731949ns]: the first is a monotonic clock, the second the uptime."""
    line = "[446825976492ns][63731949ns][vm][13608][info] GC(0) Pause Mark Start 0.010ms\n"
    (event,) = parse(line).events
    assert event.attrs["uptime_s"] == pytest.approx(0.063731949 - 0.00001)


def test_an_unknown_decorated_line_is_a_numbered_diagnostic() -> None:
    text = (
        "[1.000s][info][gc] Using G1\n"
        "[1.100s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 4M->1M(8M) 1.5 ms\n"
        "[1.200s][info][gc] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 4M->1M(8M) 1.500ms\n"
        "[1.300s][info][gc] 42 frobnicated\n"
    )
    result = parse(text)
    assert len(pauses(result)) == 1
    # a pause whose duration the rule cannot read is never silently skipped
    assert [d.line for d in result.diagnostics] == [2, 4]
    assert result.status == "partial"


def test_a_missing_final_newline_is_not_a_cut_off() -> None:
    text = read(unified_file("g1-uptimemillis-level.log")).rstrip("\n")
    result = parse(text)
    assert not result.diagnostics


def test_debug_level_detail_lines_are_no_ops() -> None:
    """``-Xlog:gc*=debug``: hundreds of detail lines no rule names; a debug or trace line of
    a gc tag is detail by its level. The pauses are the info-level summaries, exactly."""
    text = read(FIXTURES_DIR / "gc_unified" / "g1-debug-safepoint-uptime-level-tags.log")
    assert "[debug][gc,remset      ] GC(0) Visited cards " in text
    result = parse(text)
    assert (result.status, result.diagnostics) == ("parsed", [])
    summaries = re.findall(r"\[info \]\[gc +\] GC\(\d+\) Pause ", text)
    assert len(pauses(result)) == len(summaries) == 5
    # An unknown line at info level is still a diagnostic.
    unknown = text.replace("[debug][gc,heap] Minimum heap", "[info ][gc,heap] Minimum heap", 1)
    assert [d.line for d in parse(unknown).diagnostics] == [1]


def _young_before_kb(text: str) -> list[float | None]:
    reader = gc_unified._Reader(ParseContext(), ParseResult(kind=gc_unified.KIND))
    reader.read(text)
    return [p.young_before_kb for p in reader.log.pauses]


def _g1_run(minute: int, region: str | None, gc_ids: range) -> str:
    stamp = f"[2026-11-21T07:{minute:02d}:25.681+0000]"
    lines = [f"{stamp}[0.004s][info][gc] Using G1"]
    if region:
        lines.append(f"{stamp}[0.007s][info][gc,init] Heap Region Size: {region}")
    for n in gc_ids:
        at = f"[2026-11-21T07:{minute:02d}:{26 + n:02d}.772+0000][{1 + n}.097s]"
        lines += [
            f"{at}[info][gc,heap     ] GC({n}) Eden regions: 6->0(5)",
            f"{at}[info][gc,heap     ] GC({n}) Survivor regions: 0->1(1)",
            f"{at}[info][gc          ] GC({n}) Pause Young (Normal) (G1 Evacuation Pause)"
            " 24M->4M(64M) 2.345ms",
        ]
    return "\n".join(lines) + "\n"


def test_each_jvm_run_of_one_log_sizes_its_young_generation_with_its_own_regions() -> None:
    """Two runs in one file (a restart with another heap): 6 Eden regions are 6 MB in the
    first (1M regions) and 24 MB in the second (4M); the last region size was used for both."""
    text = _g1_run(27, "1M", range(2)) + _g1_run(40, "4M", range(2))
    assert _young_before_kb(text) == [6 * 1024.0] * 2 + [6 * 4096.0] * 2
    # A log rotated mid-run, its region size printed only by the next run: that size it is.
    rotated = _g1_run(27, None, range(2)) + _g1_run(40, "4M", range(1))
    assert _young_before_kb(rotated) == [6 * 4096.0] * 3
