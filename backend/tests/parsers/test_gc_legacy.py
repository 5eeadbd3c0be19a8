"""JDK 6/7/8 GC logs: every corpus file, golden numbers, anchoring, bad input."""

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
from tests.parsers.gc_helpers import (
    LEGACY_CORPUS,
    OTHER_CORPUS,
    UNIFIED_CORPUS,
    fact,
    pauses,
    read,
)

# Independent of the parser: a record opens with "[GC" or "[Full GC" (not the nested
# "[GC ref-proc", G1's "[GC Worker ..." detail, nor a "[GC concurrent-..." phase) ...
RECORD_OPENER = re.compile(r"\[(?:Full GC|GC)\b(?! concurrent| ref-proc| Worker)")
# ... and its own duration is the ", N secs]" that ends a line or precedes its [Times: ...];
# nested durations are followed by more text ("secs] 380117K->...", "secs]12.388: [weak").
RECORD_DURATION = re.compile(r", (\d+[.,]\d+) secs\](?= \[Times|\s*$)", re.MULTILINE)


def independent_count(text: str) -> tuple[int, float]:
    """Pauses and total pause ms by line-level grep, without the parser's record assembly."""
    count = len(RECORD_OPENER.findall(text))
    total_s = 0.0
    for line in text.splitlines():
        if "concurrent-" in line:
            continue
        total_s += sum(float(v.replace(",", ".")) for v in RECORD_DURATION.findall(line))
    return count, total_s * 1000.0


def parse(text: str, **context: int) -> ParseResult:
    return gc_legacy.parse(text, ParseContext(**context))


def legacy_file(name: str) -> Path:
    path = next((p for p in LEGACY_CORPUS if p.name == name), None)
    if path is None:
        pytest.skip(f"corpus file {name} not found")
    return path


@pytest.mark.parametrize("path", LEGACY_CORPUS, ids=lambda p: p.name)
def test_corpus_file_is_recognised_and_pauses_match_an_independent_count(path: Path) -> None:
    text = read(path)
    assert detect_kind(text[:65536]) == "gc_legacy"
    result = parse(text)
    assert result.status == "parsed", result.diagnostics[:3]
    count, total_ms = independent_count(text)
    durations = pauses(result)
    assert len(durations) == count
    assert sum(durations) == pytest.approx(total_ms, abs=0.5, rel=0.001)
    assert fact(result, "gc.pause_count") == str(count)


# Hand-checked table (same numbers as the report): file -> (pauses, total pause ms).
# Counted by reading the files: e.g. the loongarch log has 5 records whose last
# ", N secs]" are 0.5437135 + 0.1937274 + 0.6492397 + 0.0216159 + 0.4555626 s.
HAND_COUNTS = {
    "jdk8-parallel-printgcid-loongarch64-gcviewer.txt": (5, 1863.8591),
    "jdk7-g1-appstopped-tenuring-ergonomics-decimal-comma-gcviewer.txt": (1, 28.22),
    "jdk8-g1-string-dedup-rotated-logfile-gcviewer.txt": (1, 106.0907),
    "jdk8-g1-redhat-8u352-timestamps-garbagecat.txt": (3, 10.5947),
    "jdk8-shenandoah-details-shutdown-gcviewer.txt": (0, 0.0),
}


@pytest.mark.parametrize("name", sorted(HAND_COUNTS))
def test_hand_counted_files(name: str) -> None:
    count, total_ms = HAND_COUNTS[name]
    durations = pauses(parse(read(legacy_file(name))))
    assert len(durations) == count
    assert sum(durations) == pytest.approx(total_ms, abs=0.0005)


def test_parallel_golden_event_and_facts() -> None:
    result = parse(read(legacy_file("jdk8-parallel-printgcid-loongarch64-gcviewer.txt")))
    events = [e for e in result.events if e.kind == "gc_pause"]
    first, full = events[0], events[2]
    # 2022-07-26T21:00:40.750+0800 = 13:00:40.750Z
    assert first.time_ms == 1658840440750
    assert first.duration_ms == pytest.approx(543.7135)
    assert first.attrs == {
        "collector": "parallel",
        "type": "young",
        "cause": "Allocation Failure",
        "heap_before_mb": round(7077888 / 1024, 3),
        "heap_after_mb": round(222586 / 1024, 3),
        "heap_total_mb": round(9306112 / 1024, 3),
        "gc_id": 0,
        "uptime_s": 3.117,
    }
    assert full.attrs["type"] == "full" and full.attrs["cause"] == "System.gc()"
    assert full.attrs["heap_after_mb"] == round(98112 / 1024, 3)
    # start = 21:00:40.750+0800 - 3.117 s
    assert fact(result, "jvm.start_time") == "2022-07-26T13:00:37.633+00:00"
    assert fact(result, "gc.collector") == "parallel"
    assert fact(result, "jvm.version") == "1.8.0-internal-loongson_2022_07_26_20_28-b00"
    assert "-XX:+UseParallelGC" in (fact(result, "jvm.command_line") or "")
    assert fact(result, "gc.pause_max_ms") == "649.24"
    series = {s.name: s for s in result.series}
    assert series["gc.pause_ms"].unit == "ms" and len(series["gc.pause_ms"]) == 5
    assert series["gc.heap_after_mb"].unit == "MB"
    assert series["gc.heap_before_mb"].values[0] == pytest.approx(7077888 / 1024)


def test_cms_pauses_and_concurrent_phases() -> None:
    result = parse(read(legacy_file("jdk8-cms-printgcid-datestamps-openjdk8u342-gcviewer.txt")))
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    assert types.count("initial_mark") == 1 and types.count("remark") == 1
    assert types.count("young") == 8
    phases = {e.attrs["phase"]: e.duration_ms for e in result.events if e.kind == "gc_concurrent"}
    # "[CMS-concurrent-mark: 0.005/0.013 secs]": the second number is wall time.
    assert phases["mark"] == pytest.approx(13.0)
    assert set(phases) == {"mark", "preclean", "sweep", "reset"}
    initial = next(e for e in result.events if e.attrs.get("type") == "initial_mark")
    assert initial.attrs["gc_id"] == 2 and initial.attrs["heap_before_mb"] == round(18533 / 1024, 3)


def test_g1_heap_comes_from_the_detail_block_and_promotion_is_computed() -> None:
    result = parse(read(legacy_file("jdk8-g1-printgcid-datestamps-openjdk8u342-gcviewer.txt")))
    first = next(e for e in result.events if e.kind == "gc_pause")
    # [Eden: 7168.0K(7168.0K)->0.0B(4096.0K) Survivors: 0.0B->1024.0K Heap: 7168.0K(32768.0K)->6664.5K(32768.0K)]
    assert first.attrs["heap_before_mb"] == 7.0
    assert first.attrs["heap_after_mb"] == round(6664.5 / 1024, 3)
    assert first.attrs["collector"] == "g1" and first.attrs["cause"] == "G1 Evacuation Pause"
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    assert types == ["young", "young", "young", "young", "young", "remark", "cleanup"]
    assert fact(result, "gc.promotion_rate_mb_s") is not None
    assert float(fact(result, "gc.allocation_rate_mb_s") or 0) > 0


def test_decimal_comma_and_g1_split_record() -> None:
    result = parse(
        read(legacy_file("jdk7-g1-appstopped-tenuring-ergonomics-decimal-comma-gcviewer.txt"))
    )
    (pause,) = [e for e in result.events if e.kind == "gc_pause"]
    assert pause.attrs["uptime_s"] == 16578.506
    assert pause.duration_ms == pytest.approx(28.22)
    assert pause.attrs["heap_total_mb"] is not None


def test_serial_promotion_failure_is_a_full_collection() -> None:
    result = parse(read(legacy_file("jdk8-serial-defnew-details-tenuring-gctoolkit.log")))
    types = [e.attrs["type"] for e in result.events if e.kind == "gc_pause"]
    # 11 System.gc() + 1 Metadata GC Threshold full GCs, plus 4 young GCs whose DefNew
    # collection failed and fell back to Tenured (": ...secs]N: [Tenured: ...").
    assert types.count("full") == 16
    causes = {e.attrs.get("cause") for e in result.events if e.kind == "gc_pause"}
    assert {"Allocation Failure", "System.gc()", "Metadata GC Threshold"} <= causes


def test_uptime_only_log_is_anchored_by_context_or_left_unanchored() -> None:
    text = read(legacy_file("jdk8-g1-redhat-8u352-timestamps-garbagecat.txt"))
    loose = parse(text)
    assert loose.anchored is False and not loose.diagnostics
    assert loose.events[0].time_ms == 65  # "0.065: [GC pause ..." from epoch 0
    anchored = parse(text, jvm_start_ms=1_700_000_000_000)
    assert anchored.anchored is True
    assert anchored.events[0].time_ms == 1_700_000_000_065
    assert fact(anchored, "jvm.start_time") is None  # the log itself does not reveal it


def test_windows_line_endings_and_rotation_header() -> None:
    text = read(legacy_file("jdk8-cms-parnew-windows-rotated-part2-gcviewer.txt"))
    crlf = parse(text.replace("\r\n", "\n").replace("\n", "\r\n"))
    lf = parse(text.replace("\r\n", "\n"))
    assert crlf.status == "parsed"
    assert pauses(crlf) == pauses(lf) and len(pauses(crlf)) == 93


def test_truncated_mid_line_keeps_the_complete_pauses() -> None:
    text = read(legacy_file("jdk8-parallel-printgcid-loongarch64-gcviewer.txt"))
    cut = text[: text.index("[Full GC (System.gc()) [PSYoungGen: 105989K") + 40]
    result = parse(cut)
    assert len(pauses(result)) == 4
    assert result.status == "partial"
    assert "cut off" in result.diagnostics[-1].message


def test_garbage_lines_get_numbered_diagnostics_and_pauses_survive() -> None:
    lines = read(
        legacy_file("jdk8-cms-printgcid-datestamps-openjdk8u342-gcviewer.txt")
    ).splitlines()
    lines.insert(5, "#### garbage inserted here ####")
    lines.insert(10, "xyzzy 12 34 not a gc line")
    result = parse("\n".join(lines))
    assert [d.line for d in result.diagnostics] == [6, 11]
    assert len(pauses(result)) == 10


def test_sniffers_keep_to_their_own_kind(corpus_dir: Path) -> None:
    # Skipped (by the fixture) without the corpus; with it, no list may be silently empty.
    assert all([UNIFIED_CORPUS, OTHER_CORPUS, LEGACY_CORPUS]), (
        "a GC corpus list is empty: the loops below would check nothing"
    )
    for path in UNIFIED_CORPUS:
        assert gc_legacy.sniff(read(path)[:65536]) < 0.5, path.name
    for path in OTHER_CORPUS:
        head = read(path)[:65536]
        assert gc_legacy.sniff(head) < 0.5, path.name
        assert gc_unified.sniff(head) < 0.5, path.name
    for path in LEGACY_CORPUS:
        scores = sniff_scores(read(path)[:65536])
        assert [k for k, v in scores.items() if v >= 0.5] == ["gc_legacy"], path.name


def test_empty_and_wrong_kind_input() -> None:
    assert parse("").status == "failed"
    result = parse("hello\nworld\n")
    assert result.status == "failed"
    assert result.diagnostics[-1].message == "no GC records found"


@given(st.text())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(parse(text), ParseResult)


@given(st.data())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_never_raises_on_mutated_real_logs(data: st.DataObject) -> None:
    if not LEGACY_CORPUS:
        pytest.skip("corpus absent")
    path = data.draw(st.sampled_from(LEGACY_CORPUS))
    lines = read(path).splitlines()[:400]
    cut = data.draw(st.integers(0, len(lines)))
    lines = lines[:cut]
    for _ in range(data.draw(st.integers(0, 5))):
        at = data.draw(st.integers(0, len(lines)))
        lines.insert(at, data.draw(st.text(max_size=80)))
    text = "\n".join(lines)
    text = text[: data.draw(st.integers(0, len(text)))]
    assert isinstance(parse(text), ParseResult)


# --- dialects: hand-written fixtures (tests/fixtures/gc_legacy), totals added up by hand --

LEGACY_FIXTURES = FIXTURES_DIR / "gc_legacy"


def fixture(name: str) -> ParseResult:
    return parse((LEGACY_FIXTURES / name).read_text())


def test_cms_scavenge_before_remark_counts_the_remark_once() -> None:
    result = fixture("cms-scavenge-before-remark-heapatgc.log")
    assert not result.diagnostics
    found = [(e.attrs["type"], e.duration_ms) for e in result.events if e.kind == "gc_pause"]
    # young 10.2 ms, initial mark 2.0 ms, then two remarks whose own ", N secs]" are 15.0
    # and 5.299 ms: their scavenges (8.1 and 2.098 ms) run inside them, not beside them.
    assert found == [
        ("young", pytest.approx(10.2)),
        ("initial_mark", pytest.approx(2.0)),
        ("remark", pytest.approx(15.0)),
        ("remark", pytest.approx(5.299)),
    ]
    assert fact(result, "gc.pause_total_ms") == "32.499"
    remark = next(e for e in result.events if e.attrs.get("type") == "remark")
    assert remark.attrs["detail"] == "scavenge_before_remark"
    assert remark.attrs["uptime_s"] == 2.0
    phases = [e.attrs["phase"] for e in result.events if e.kind == "gc_concurrent"]
    assert phases == ["mark", "preclean", "abortable-preclean", "sweep"]


def test_a_full_gc_interrupted_by_a_concurrent_phase_is_kept() -> None:
    result = fixture("cms-full-gc-interrupted-by-concurrent-phases.log")
    durations = pauses(result)
    # 50.2 + 61.0 + 11677.083 + 2677.083 + 10751.546 + 21.0 ms: the 11.68 s Full GC, the
    # log's longest, is the one whose record a concurrent phase's line interrupts.
    assert durations == [
        pytest.approx(50.2),
        pytest.approx(61.0),
        pytest.approx(11677.083),
        pytest.approx(2677.083),
        pytest.approx(10751.546),
        pytest.approx(21.0),
    ]
    assert fact(result, "gc.pause_max_ms") == "11677.083"
    assert not result.diagnostics
    phases = {e.attrs["phase"]: e.duration_ms for e in result.events if e.kind == "gc_concurrent"}
    assert phases["abortable-preclean"] == pytest.approx(5115.0)
    assert phases["mark"] == pytest.approx(5028.0)


def test_the_longest_pause_survives_a_record_left_open() -> None:
    text = (
        "10.000: [Full GC 10.000: [CMS: 100K->90K(200K), 1.0000000 secs] 150K->90K(300K), "
        "[CMS Perm : 10K->10K(20K)], 1.0010000 secs\n"
        "11.000: [GC 11.000: [ParNew: 10K->1K(20K), 0.0010000 secs] 95K->86K(300K), "
        "0.0011000 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]\n"
    )
    result = parse(text)
    assert pauses(result) == [pytest.approx(1001.0), pytest.approx(1.1)]
    assert [d.line for d in result.diagnostics] == [1]


def test_shenandoah_jdk8_backport_with_details() -> None:
    result = fixture("shenandoah-jdk8-backport-details.log")
    assert not result.diagnostics, result.diagnostics[:3]
    found = [(e.attrs["type"], e.duration_ms) for e in result.events if e.kind == "gc_pause"]
    assert found == [
        ("init_mark", pytest.approx(1.983)),
        ("final_mark", pytest.approx(2.472)),
        ("init_update_refs", pytest.approx(0.015)),
        ("final_update_refs", pytest.approx(0.291)),
        ("full", pytest.approx(120.5)),
        ("init_mark", pytest.approx(43.46)),
        ("final_mark", pytest.approx(4.73)),
    ]
    # 1.983 + 2.472 + 0.015 + 0.291 + 120.5 + 43.46 + 4.73
    assert fact(result, "gc.pause_total_ms") == "173.451"
    final = [e for e in result.events if e.attrs.get("type") == "final_mark"][-1]
    assert final.attrs["heap_after_mb"] == 100.0 and final.attrs["uptime_s"] == 29.197
    assert fact(result, "gc.collector") == "shenandoah"


def test_jdk14_verbose_gc_without_time_stamps() -> None:
    text = (LEGACY_FIXTURES / "jdk14-verbose-gc-no-timestamps.log").read_text()
    assert detect_kind(text) == "gc_legacy"
    result = parse(text)
    assert not result.diagnostics
    found = [(e.attrs["type"], e.duration_ms) for e in result.events if e.kind == "gc_pause"]
    assert found == [
        ("young", pytest.approx(12.3456)),
        ("young", pytest.approx(10.0)),
        ("full", pytest.approx(150.0)),
        ("young", pytest.approx(5.0)),
    ]
    assert result.events[0].attrs["heap_before_mb"] == round(1234 / 1024, 3)
    assert result.anchored is False


def test_an_unknown_indented_line_is_a_numbered_diagnostic() -> None:
    text = (LEGACY_FIXTURES / "shenandoah-jdk8-backport-details.log").read_text()
    lines = text.splitlines()
    lines.insert(20, "    something nobody prints")
    result = parse("\n".join(lines))
    assert [d.line for d in result.diagnostics] == [21]
    assert len(pauses(result)) == 7


def test_a_missing_final_newline_is_not_a_cut_off() -> None:
    text = read(legacy_file("jdk8-cms-printgcid-datestamps-openjdk8u342-gcviewer.txt"))
    result = parse(text.rstrip("\r\n"))
    assert not result.diagnostics
    assert len(pauses(result)) == 10
