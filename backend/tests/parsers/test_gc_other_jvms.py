"""GC logs of other JVMs: IBM J9/OpenJ9 XML, IBM classic text, JRockit, HP-UX.

Every corpus file (``gc-other-jvms/``) against an independent count of its pauses (grep-level
rules that share nothing with the parsers), GCViewer 1.36's counts where they differ and the
lines that make the difference; hand-written fixtures with golden numbers computed by hand
(every size a whole MiB, see the fixture READMEs); anchoring, bad input, sniffing.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import (
    gc_common,
    gc_hpux,
    gc_ibm_text,
    gc_ibm_xml,
    gc_jrockit,
    gc_legacy,
    gc_unified,
    registry,
)
from rootline.parsers.base import EventData, ParseContext, ParseResult
from tests.conftest import FIXTURES_DIR, corpus_files
from tests.parsers.gc_helpers import GC_CORPUS, OTHER_CORPUS, fact, pauses, read

OTHER_JVMS = corpus_files("gc-other-jvms")
MODULES = {m.KIND: m for m in (gc_ibm_xml, gc_ibm_text, gc_jrockit, gc_hpux)}
KIND_OF = {
    "hpux-jdk13-xverbosegc-gcviewer.txt": "gc_hpux",
    "ibm-j9-java6-r26-verbosegc-xml-gcviewer.txt": "gc_ibm_xml",
    "ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt": "gc_ibm_xml",
    "ibm-jdk131-verbosegc-text-gcviewer.txt": "gc_ibm_text",
    "jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt": "gc_jrockit",
}
# GCViewer 1.36 on the same files (corpus SOURCES.md): pauses found.
GCVIEWER_COUNTS = {
    "hpux-jdk13-xverbosegc-gcviewer.txt": 135,
    "ibm-j9-java6-r26-verbosegc-xml-gcviewer.txt": 1,
    "ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt": 2,
    "ibm-jdk131-verbosegc-text-gcviewer.txt": 21,
    "jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt": 15,
}
UTC = ParseContext()


def corpus_file(name: str) -> Path:
    path = next((p for p in OTHER_JVMS if p.name == name), None)
    if path is None:
        pytest.skip(f"corpus file {name} not found")
    return path


def fixture(kind: str, name: str) -> str:
    return (FIXTURES_DIR / kind / name).read_text()


def gc_pauses(result: ParseResult) -> list[EventData]:
    return [e for e in result.events if e.kind == "gc_pause"]


# --- independent counts: grep-level, one rule per format ----------------------------------


def count_hpux(text: str) -> tuple[int, float]:
    """One line per collection; its stop-the-world seconds are the last number of an 18-field
    line and the next-to-last of a 20-field one."""
    count, total_s = 0, 0.0
    for line in text.splitlines():
        fields = line.strip().removeprefix("<GC:").removesuffix(">").split()
        if line.startswith("<GC:"):
            count += 1
            total_s += float(fields[17])
    return count, total_s * 1000.0


def count_j9_exclusive(text: str) -> tuple[int, float]:
    """One pause per exclusive access: the durationms of each <exclusive-end>."""
    durations = re.findall(r'<exclusive-end [^>]*durationms="([\d.]+)"', text)
    return len(durations), sum(float(d) for d in durations)


def count_ibm_text(text: str) -> tuple[int, float]:
    """An allocation failure is one stop ("completed in N ms"); a collection that is not
    inside one (no <AF[ line since the last "completed") is one stop of its "in N ms"."""
    count, total_ms, in_af = 0, 0.0, False
    for line in text.splitlines():
        if line.startswith("<AF["):
            in_af = "completed in" not in line
            if not in_af:
                count += 1
                total_ms += float(re.findall(r"completed in (\d+) ms", line)[0])
        elif "bytes, " in line and "% free" in line and not in_af:
            count += 1
            total_ms += float(re.findall(r"in (\d+) ms>", line)[0])
    return count, total_ms


def count_jrockit(text: str) -> tuple[int, float]:
    """Each "[pau]" phase of -Xverbose:gcpause is one pause."""
    durations = re.findall(r"\[pau\] +([\d.]+) ms", text)
    return len(durations), sum(float(d) for d in durations)


INDEPENDENT = {
    "gc_hpux": count_hpux,
    "gc_ibm_xml": count_j9_exclusive,
    "gc_ibm_text": count_ibm_text,
    "gc_jrockit": count_jrockit,
}


@pytest.mark.parametrize("path", OTHER_JVMS, ids=lambda p: p.name)
def test_corpus_file_is_recognised_and_pauses_match_an_independent_count(path: Path) -> None:
    text = read(path)
    kind = KIND_OF[path.name]
    scores = registry.sniff_scores(text[: registry.SNIFF_BYTES])
    assert [k for k, v in scores.items() if v >= registry.MIN_CONFIDENCE] == [kind]
    result = registry.parse_text(text, UTC)
    assert result.kind == kind
    count, total_ms = INDEPENDENT[kind](text)
    durations = pauses(result)
    assert len(durations) == count
    assert sum(durations) == pytest.approx(total_ms, abs=1e-6)
    assert fact(result, "gc.pause_count") == str(count)
    if path.name == "ibm-j9-java6-r26-verbosegc-xml-gcviewer.txt":
        # The JVM printed one line of its own on stderr between two verbose GC elements.
        assert [(d.line, d.message) for d in result.diagnostics] == [
            (
                93,
                "text outside the verbose GC elements: "
                "'Calculated native library name as: am_ibm_16'",
            )
        ]
    else:
        assert result.status == "parsed", result.diagnostics[:3]


# Pauses and total ms, counted by reading the files (and the same as above by grep).
HAND_COUNTS = {
    "hpux-jdk13-xverbosegc-gcviewer.txt": (135, 122199.6),
    "ibm-j9-java6-r26-verbosegc-xml-gcviewer.txt": (1, 5.290),
    "ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt": (2, 25.388 + 21.708),
    # 6 collections outside an AF: 1077 + 355 + 273 + 228 + 264 + 4211 ms, and 10 AFs
    # completed in 251 + 276 + 247 + 495 + 583 + 553 + 463 + 364 + 348 + 421 ms.
    "ibm-jdk131-verbosegc-text-gcviewer.txt": (16, 6408 + 4001),
    # 44 [pau] phases = the JVM's own "sum of pauses" of its 15 collections.
    "jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt": (44, 734.808),
}


@pytest.mark.parametrize("name", sorted(HAND_COUNTS))
def test_hand_counts_and_gcviewer(name: str) -> None:
    text = read(corpus_file(name))
    result = registry.parse_text(text, UTC)
    count, total_ms = HAND_COUNTS[name]
    assert len(pauses(result)) == count
    assert sum(pauses(result)) == pytest.approx(total_ms, abs=1e-6)
    gcviewer = GCVIEWER_COUNTS[name]
    if name == "ibm-jdk131-verbosegc-text-gcviewer.txt":
        # GCViewer turns the heap expansion of an AF into a pause of its own: for AF[1]
        #   <GC(7): freed 18732840 bytes, 81% free (54867872/67107328), in 232 ms>
        #   <AF[1]: managing allocation failure, action=3 (54867872/67107328)>
        #   <GC(7): expanded heap by 9633792 to 76741120 bytes, 84% free>
        #   <AF[1]: completed in 251 ms>
        # it counts 232 ms and 251 - 232 = 19 ms; here the AF is one 251 ms stop (the world
        # stays stopped until "completed"). Five AFs expand the heap: 16 + 5 = 21.
        assert text.count("managing allocation failure, action=3") == gcviewer - count == 5
    elif name == "jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt":
        # GCViewer reads one pause per summary line, "[OC#n] a-b: OC ..., sum of pauses S
        # ms, longest pause L ms.", of L ms; here each stop-the-world phase is a pause:
        #   [INFO ][gcpause] [OC#1] [pau]    87.771 ms (31.727000-31.815000)  OC:Initial
        #   [INFO ][gcpause] [OC#1] [pau]     8.750 ms (31.828000-31.837000)  OC:Main
        # (87.771 + 8.750 = "sum of pauses 96.521 ms"; GCViewer: one pause of 87.771 ms).
        summaries = re.findall(r"sum of pauses ([\d.]+) ms, longest pause ([\d.]+) ms", text)
        assert len(summaries) == gcviewer == 15
        assert sum(float(s) for s, _ in summaries) == pytest.approx(total_ms, abs=1e-6)
        assert max(pauses(result)) == max(float(longest) for _, longest in summaries)
    else:
        assert count == gcviewer


# --- golden events of the corpus files ----------------------------------------------------


def test_hpux_golden_event_and_uptime_anchoring() -> None:
    text = read(corpus_file("hpux-jdk13-xverbosegc-gcviewer.txt"))
    loose = gc_hpux.parse(text, UTC)
    assert loose.anchored is False
    first = gc_pauses(loose)[0]
    # <GC: 2 4.020320 1 104 32 25179176 0 107544576 0 0 13369344 0 3343624 268435456
    #      5242800 5242800 5242880 0.117212 >: reason 2, the permanent generation full.
    assert (first.time_ms, first.duration_ms) == (4020, pytest.approx(117.212))
    assert first.attrs == {
        "collector": "hp-ux",
        "type": "full",
        "cause": "Permanent Generation Full",
        "heap_before_mb": round((25179176 + 0 + 0) / 1048576, 3),
        "heap_after_mb": round((0 + 0 + 3343624) / 1048576, 3),
        "heap_total_mb": round((107544576 + 13369344 + 268435456) / 1048576, 3),
        "gc_id": 1,
        "uptime_s": 4.02032,
    }
    longest = max(gc_pauses(loose), key=lambda e: e.duration_ms or 0.0)
    assert longest.attrs["gc_id"] == 60 and longest.attrs["cause"] == "System.gc()"
    anchored = gc_hpux.parse(text, ParseContext(jvm_start_ms=1_700_000_000_000))
    assert anchored.anchored is True
    assert gc_pauses(anchored)[0].time_ms == 1_700_000_004_020


def test_j9_java8_golden_scavenge() -> None:
    result = gc_ibm_xml.parse(
        read(corpus_file("ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt")), UTC
    )
    first = gc_pauses(result)[0]
    assert first.time_ms == 1451575366957  # 2015-12-31T15:22:46.957, read in UTC
    assert first.duration_ms == 25.388  # <exclusive-end ... durationms="25.388" />
    assert first.attrs == {
        "collector": "gencon",
        "type": "young",
        "cause": "Allocation Failure",
        "heap_before_mb": round((536870912 - 401882552) / 1048576, 3),
        "heap_after_mb": round((536870912 - 457545744) / 1048576, 3),
        "heap_total_mb": 512.0,
        "gc_id": 4,
    }
    assert fact(result, "jvm.version") == "R28_Java8_GA_20150116_2030_B231420_CMPRSS"
    assert fact(result, "gc.collector") == "gencon"
    assert "-Xmx512m" in (fact(result, "jvm.command_line") or "")
    # The log spans from <initialized> (15:22:43.002) to the last exclusive-end (48.251).
    assert fact(result, "gc.log_span_ms") == "5249"
    in_zone = gc_ibm_xml.parse(
        read(corpus_file("ibm-j9-java8-r28-verbosegc-xml-af-scavenge-gcviewer.txt")),
        ParseContext.for_zone("Europe/Paris"),
    )
    assert gc_pauses(in_zone)[0].time_ms == 1451575366957 - 3_600_000


def test_ibm_text_golden_af_with_heap_expansion() -> None:
    result = gc_ibm_text.parse(read(corpus_file("ibm-jdk131-verbosegc-text-gcviewer.txt")), UTC)
    af1 = gc_pauses(result)[6]
    # <GC(7): GC cycle started Thu Sep 25 16:18:50 2003
    # <GC(7): freed 18732840 bytes, 81% free (54867872/67107328), in 232 ms>
    # <GC(7): expanded heap by 9633792 to 76741120 bytes, 84% free>
    # <AF[1]: completed in 251 ms>
    assert af1.time_ms == 1064506730000
    assert af1.duration_ms == 251.0
    used_after = 67107328 - 54867872
    assert af1.attrs == {
        "collector": "ibm-classic",
        "type": "full",
        "cause": "Allocation Failure",
        "heap_before_mb": round((used_after + 18732840) / 1048576, 3),
        "heap_after_mb": round(used_after / 1048576, 3),
        "heap_total_mb": round(76741120 / 1048576, 3),
        "gc_id": 7,
    }
    standalone = gc_pauses(result)[5]  # <GC(6): ... in 4211 ms>, no AF around it
    assert standalone.duration_ms == 4211.0 and "cause" not in standalone.attrs


def test_jrockit_golden_phases_and_collection() -> None:
    result = gc_jrockit.parse(
        read(corpus_file("jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt")), UTC
    )
    oc2 = [e for e in gc_pauses(result) if e.attrs["gc_id"] == 2]
    assert [(e.attrs["type"], e.duration_ms, e.time_ms) for e in oc2] == [
        ("initial_mark", 10.377, 31862),
        ("remark", 79.85, 31976),
        ("sweep_switch", 0.01, 32057),
        ("cleanup", 0.171, 32057),
    ]
    (collection,) = [
        e for e in result.events if e.kind == "gc_concurrent" and e.attrs["gc_id"] == 2
    ]
    # [OC#2] 31.861-32.084: OC 194353KB->180730KB (524288KB), 0.223 s, sum of pauses 90.407 ms
    assert (collection.time_ms, collection.duration_ms) == (31861, 223.0)
    assert collection.attrs["heap_before_mb"] == round(194353 / 1024, 3)
    assert collection.attrs["heap_after_mb"] == round(180730 / 1024, 3)
    series = {s.name: s for s in result.series}
    assert len(series["gc.pause_ms"]) == 44 and len(series["gc.heap_after_mb"]) == 15
    assert fact(result, "gc.collector") == "jrockit-gencon"
    assert result.anchored is False


# --- hand-written fixtures ----------------------------------------------------------------

MIB = 1.0  # sizes below are MB as the events carry them (MiB: 1048576 bytes)


def test_openj9_gencon_concurrent_global_cycle() -> None:
    result = gc_ibm_xml.parse(fixture("gc_ibm_xml", "openj9-gencon-concurrent-global.xml"), UTC)
    assert result.status == "parsed", result.diagnostics
    base = 1709629200000  # 2024-03-05T09:00:00Z
    expected = [
        # (offset ms, duration ms, type, cause, heap before/after MB, cycle id)
        (10_000, 12.0, "young", "Allocation Failure", 512, 290, 4),
        (20_001, 0.4, "initial_mark", "threshold reached", None, None, 16),
        (25_000, 15.0, "young", "Allocation Failure", 856, 628, 20),
        (30_000, 51.0, "remark", "card cleaning threshold reached", 720, 456, 16),
        (40_000, 80.25, "full", "System.gc()", 500, 200, 45),
    ]
    got = [
        (
            e.time_ms - base,
            e.duration_ms,
            e.attrs["type"],
            e.attrs["cause"],
            e.attrs.get("heap_before_mb"),
            e.attrs.get("heap_after_mb"),
            e.attrs["gc_id"],
        )
        for e in gc_pauses(result)
    ]
    assert got == expected
    # The gc-op timems (11.5, 38 ...) are parts of these pauses, never pauses of their own.
    assert fact(result, "gc.pause_total_ms") == "158.65"
    assert fact(result, "gc.pause_max_ms") == "80.25"
    (cycle,) = [e for e in result.events if e.kind == "gc_concurrent"]
    # <cycle-start id="16" type="global"> at 20.001 to its <cycle-end> at 30.051.
    assert (cycle.time_ms - base, cycle.duration_ms, cycle.attrs["phase"]) == (
        20_001,
        10_050.0,
        "global_cycle",
    )
    # Allocation (young before - young after of the previous pause): (256 - 26) +
    # (100 - 20) + 0 = 310 MB in 30 s; promotion, old growth in the scavenges: 8 + 8 MB.
    assert fact(result, "gc.allocation_rate_mb_s") == "10.333"
    assert fact(result, "gc.promotion_rate_mb_s") == "0.533333"
    assert fact(result, "jvm.command_line") == "-Xms1g -Xmx1g -verbose:gc"
    heap_after = next(s for s in result.series if s.name == "gc.heap_after_mb")
    assert list(heap_after.values) == [290 * MIB, 628 * MIB, 456 * MIB, 200 * MIB]


def test_openj9_concurrent_scavenge_counts_its_two_stops() -> None:
    result = gc_ibm_xml.parse(fixture("gc_ibm_xml", "openj9-gencon-concurrent-scavenge.xml"), UTC)
    assert result.status == "parsed", result.diagnostics
    assert [(e.duration_ms, e.attrs["type"], e.attrs.get("cause")) for e in gc_pauses(result)] == [
        (2.0, "young", "Allocation Failure"),
        (3.0, "young", None),
    ]
    concurrent = {
        e.attrs["phase"]: e.duration_ms for e in result.events if e.kind == "gc_concurrent"
    }
    assert concurrent == {"concurrent_scavenge": 100.0, "scavenge_cycle": 105.0}
    assert gc_pauses(result)[1].attrs["heap_after_mb"] == 1024 - 664


def test_j9_java5_af_sys_and_concurrent_collection() -> None:
    result = gc_ibm_xml.parse(fixture("gc_ibm_xml", "j9-java5-af-sys-concurrent.xml"), UTC)
    assert result.status == "parsed", result.diagnostics
    got = [
        (
            e.time_ms,
            e.duration_ms,
            e.attrs["type"],
            e.attrs["cause"],
            e.attrs["heap_before_mb"],
            e.attrs["heap_after_mb"],
            e.attrs["heap_total_mb"],
        )
        for e in gc_pauses(result)
    ]
    assert got == [
        # Jan 15 10:00:05 2009 UTC; <time totalms="10.250" />; 64 + 64 MiB before, 4 MiB and
        # 64 bytes + 65 MiB after (the <af>'s own spaces after its <gc>), 64 + 256 total.
        (1232013605000, 10.25, "young", "Allocation Failure", 128.0, 69.0, 320.0),
        (1232013660000, 46.5, "full", "System.gc()", 160.0, 32.0, 320.0),
        (1232013750000, 30.0, "remark", "concurrent collection", 288.0, 112.0, 320.0),
    ]


def test_jrockit_memory_only_one_pause_per_collection() -> None:
    result = gc_jrockit.parse(fixture("gc_jrockit", "genpar-verbose-memory-only.log"), UTC)
    assert result.status == "parsed", result.diagnostics
    got = [
        (e.time_ms, e.duration_ms, e.attrs["type"], e.attrs["detail"]) for e in gc_pauses(result)
    ]
    assert got == [
        (5000, 39.5, "young", "longest_pause_ms=39.500"),
        # stopped 880 of 900 ms: a full collection
        (12000, 880.0, "full", "longest_pause_ms=880.000"),
        # stopped 60 of 500 ms: mostly concurrent; the sum of its pauses, 45 ms the longest
        (20000, 60.0, "old", "longest_pause_ms=45.000"),
    ]
    assert gc_pauses(result)[0].attrs["heap_after_mb"] == round(100000 / 1024, 3)
    assert fact(result, "gc.collector") == "jrockit-genpar"


def test_hpux_20_field_layout() -> None:
    result = gc_hpux.parse(fixture("gc_hpux", "jdk142-xverbosegc-20-fields.log"), UTC)
    assert result.status == "parsed", result.diagnostics
    got = [
        (e.time_ms, e.duration_ms, e.attrs["type"], e.attrs.get("cause"),
         e.attrs["heap_before_mb"], e.attrs["heap_after_mb"], e.attrs["heap_total_mb"])
        for e in gc_pauses(result)
    ]  # fmt: skip
    assert got == [
        (10500, 25.0, "young", None, 42.0, 12.0, 100.0),
        (20000, 150.0, "full", "System.gc()", 28.0, 9.0, 100.0),
        (30000, 4.0, "remark", "Occupancy > initiatingOccupancy", 56.0, 28.0, 100.0),
    ]
    (cms,) = [e for e in result.events if e.kind == "gc_concurrent"]
    assert (cms.time_ms, cms.duration_ms) == (30000, 800.0)


def test_ibm_text_concurrent_and_standalone_collection() -> None:
    result = gc_ibm_text.parse(fixture("gc_ibm_text", "jdk142-af-concurrent-standalone.log"), UTC)
    assert result.status == "parsed", result.diagnostics
    got = [
        (e.time_ms, e.duration_ms, e.attrs["type"], e.attrs.get("cause"),
         e.attrs["heap_before_mb"], e.attrs["heap_after_mb"], e.attrs["heap_total_mb"])
        for e in gc_pauses(result)
    ]  # fmt: skip
    assert got == [
        # Mon Jun 14 08:30:00 2004 UTC; 40 MiB freed, 43 of 63 free, heap expanded to 72
        (1087201800000, 135.0, "full", "Allocation Failure", 60.0, 20.0, 72.0),
        (1087201830000, 42.0, "remark", "Concurrent collection", 62.0, 32.0, 72.0),
        (1087201860000, 300.0, "full", None, 32.0, 12.0, 72.0),
    ]


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_empty_and_wrong_kind_input(kind: str) -> None:
    module = MODULES[kind]
    for text in ("", "hello\nworld\n"):
        result = module.parse(text, UTC)
        assert result.status == "failed"
        assert result.diagnostics


def test_xml_cut_off_inside_an_element_keeps_the_complete_pauses() -> None:
    text = fixture("gc_ibm_xml", "openj9-gencon-concurrent-global.xml")
    cut = text[: text.index('<gc-op id="36"') + 20]
    result = gc_ibm_xml.parse(cut, UTC)
    assert len(gc_pauses(result)) == 3
    messages = [d.message for d in result.diagnostics]
    assert any("cut off inside an element" in m for m in messages)
    assert any("exclusive access cut off" in m for m in messages)


def test_unknown_elements_and_stray_text_get_numbered_diagnostics() -> None:
    lines = fixture("gc_ibm_xml", "openj9-gencon-concurrent-global.xml").splitlines()
    lines.insert(20, '<brand-new-element id="99" />')
    lines.insert(30, "JVMDUMP039I Processing dump event")
    result = gc_ibm_xml.parse("\n".join(lines), UTC)
    assert [d.line for d in result.diagnostics] == [21, 31]
    assert len(gc_pauses(result)) == 5


@pytest.mark.parametrize(
    ("kind", "name", "garbage_at"),
    [
        ("gc_jrockit", "genpar-verbose-memory-only.log", 3),
        ("gc_hpux", "jdk142-xverbosegc-20-fields.log", 1),
        ("gc_ibm_text", "jdk142-af-concurrent-standalone.log", 4),
    ],
)
def test_garbage_lines_are_numbered_and_pauses_survive(
    kind: str, name: str, garbage_at: int
) -> None:
    lines = fixture(kind, name).splitlines()
    lines.insert(garbage_at, "#### garbage inserted here ####")
    result = MODULES[kind].parse("\n".join(lines), UTC)
    assert [d.line for d in result.diagnostics] == [garbage_at + 1]
    assert len(gc_pauses(result)) == 3


def test_hpux_record_with_an_unknown_field_count() -> None:
    result = gc_hpux.parse(
        "<GC: 1 2 3 4 5 >\n" + fixture("gc_hpux", "jdk142-xverbosegc-20-fields.log"), UTC
    )
    assert result.diagnostics[0].line == 1 and "5 fields" in result.diagnostics[0].message
    assert len(gc_pauses(result)) == 3


def test_jrockit_phases_without_their_summary_are_reported() -> None:
    text = read(corpus_file("jrockit-r28-jdk6-gencon-verbose-memory-gcviewer.txt"))
    cut = text[: text.index("[INFO ][memory ] [OC#15] 97.082")]
    result = gc_jrockit.parse(cut, UTC)
    assert len(gc_pauses(result)) == 44 - 2
    assert "OC#15 cut off" in result.diagnostics[-1].message


# --- sniffing -----------------------------------------------------------------------------

OWN_FIXTURES = sorted(
    p for kind in MODULES for p in (FIXTURES_DIR / kind).iterdir() if p.suffix != ".md"
)


@pytest.mark.parametrize("path", OWN_FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_own_fixtures_are_claimed_by_their_parser_alone(path: Path) -> None:
    scores = registry.sniff_scores(path.read_text()[: registry.SNIFF_BYTES])
    assert [k for k, v in scores.items() if v >= registry.MIN_CONFIDENCE] == [path.parent.name]


def test_these_sniffers_claim_no_other_file() -> None:
    others = (
        GC_CORPUS
        + OTHER_CORPUS
        + [
            p
            for p in FIXTURES_DIR.rglob("*")
            if p.is_file()
            and p.parent.name not in MODULES
            and p.suffix not in {".md", ".java", ".sh", ".py", ".c"}
        ]
    )
    assert others
    for path in others:
        head = read(path)[: registry.SNIFF_BYTES]
        for kind, module in MODULES.items():
            assert module.sniff(head) < registry.MIN_CONFIDENCE, (kind, path.name)


def test_hotspot_sniffers_leave_these_logs_alone() -> None:
    for path in OTHER_JVMS + OWN_FIXTURES:
        head = read(path)[: registry.SNIFF_BYTES]
        assert gc_legacy.sniff(head) < registry.MIN_CONFIDENCE, path.name
        assert gc_unified.sniff(head) < registry.MIN_CONFIDENCE, path.name


@pytest.mark.parametrize("module", [gc_common, gc_hpux, gc_ibm_xml], ids=lambda m: m.__name__)
def test_docstring_examples(module: object) -> None:
    failures, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried and not failures


# --- never raises -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(MODULES))
@given(text=st.text(max_size=400))
@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_never_raises_on_any_text(kind: str, text: str) -> None:
    assert isinstance(MODULES[kind].parse(text, UTC), ParseResult)


@given(st.data())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_never_raises_on_damaged_logs(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(OTHER_JVMS + OWN_FIXTURES))
    text = read(path)
    cut = data.draw(st.integers(0, len(text)))
    garbage = data.draw(st.text(max_size=60))
    at = data.draw(st.integers(0, len(text)))
    for candidate in (text[:cut], text[:at] + garbage + text[at:]):
        result = MODULES[KIND_OF.get(path.name, path.parent.name)].parse(candidate, UTC)
        assert result.status in {"parsed", "partial", "failed"}
        assert (result.status == "failed") == (not (result.series or result.events or result.facts))


def test_jrockit_date_decoration_anchors_the_log() -> None:
    # -Xverbosetimestamp: the line is printed at 20:04:38 (s), when the collection ended at
    # uptime 34.351 s: the JVM started at 20:04:03.649.
    line = (
        "[INFO ][memory ][Sat Oct 27 20:04:38 2012][23355] [OC#2] 34.287-34.351: OC "
        "460781KB->214044KB (524288KB), 0.064 s, sum of pauses 5.580 ms, longest pause 4.693 ms."
    )
    result = gc_jrockit.parse(line, UTC)
    assert result.anchored is True and not result.diagnostics
    assert fact(result, "jvm.start_time") == "2012-10-27T20:04:03.649+00:00"
    assert gc_pauses(result)[0].time_ms == 1351368243649 + 34287


def test_exclusive_end_without_durationms_falls_back_to_its_timestamps() -> None:
    # IBM Java 7's guide shows <exclusive-end> with a timestamp only.
    xml = (
        '<exclusive-start id="2" timestamp="2010-11-23T00:41:32.515">\n'
        '  <response-info timems="0.011" idlems="0.011" threads="0" lastid="00124F00" '
        'lastname="main" />\n'
        "</exclusive-start>\n"
        '<af-start id="3" totalBytesRequested="24" timestamp="2010-11-23T00:41:32.515" />\n'
        '<gc-start id="5" type="scavenge" contextid="4" timestamp="2010-11-23T00:41:32.515" />\n'
        '<exclusive-end id="13" timestamp="2010-11-23T00:41:32.517" />\n'
    )
    (pause,) = gc_pauses(gc_ibm_xml.parse(xml, UTC))
    assert (pause.duration_ms, pause.attrs["type"]) == (2.0, "young")


def test_a_j9_log_of_start_tags_that_never_close_parses_in_linear_time() -> None:
    """5 MB of ``<gc-op>`` start tags without end tags: a scan of the open elements per tag
    took minutes; counted per name and capped in depth it takes well under a second."""
    import time

    line = (
        '<gc-op id="1" type="scavenge" timems="1.0" contextid="1"'
        ' timestamp="2013-08-15T11:15:45.897">\n'
    )
    text = (
        '<?xml version="1.0" ?>\n<verbosegc xmlns="http://www.ibm.com/j9/verbosegc"'
        ' version="R26">\n' + line * (5_000_000 // len(line))
    )
    started = time.process_time()
    result = gc_ibm_xml.parse(text, ParseContext())
    assert time.process_time() - started < 5.0
    assert any("deeper than 64 levels" in d.message for d in result.diagnostics)
    # An element left open inside one that closes is named.
    unclosed = (
        '<verbosegc version="R26">\n<exclusive-start id="1" timestamp="2013-08-15T11:15:45.897">\n'
        '<gc-op id="2" type="scavenge" timems="1.0" timestamp="2013-08-15T11:15:45.897">\n'
        "</exclusive-start>\n</verbosegc>\n"
    )
    messages = [d.message for d in gc_ibm_xml.parse(unclosed, ParseContext()).diagnostics]
    assert "1 elements without their end tag, closed by an outer one: <gc-op> x 1" in messages
