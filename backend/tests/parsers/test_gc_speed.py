"""The shortcuts that make the GC parsers fast read exactly what the slow ways read."""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest

from rootline.events import chunks
from rootline.parsers import (
    gc_hpux,
    gc_ibm_text,
    gc_ibm_xml,
    gc_jrockit,
    gc_legacy,
    gc_unified,
)
from rootline.parsers.base import EventColumns, EventData, ParseContext, ParseResult
from rootline.parsers.gc_common import (
    DIGIT_BYTES_AS_ZERO,
    Clock,
    GcLog,
    digits_as_zero,
    line_shapes,
)
from tests.conftest import FIXTURES_DIR
from tests.parsers.gc_helpers import GC_CORPUS, LEGACY_CORPUS, UNIFIED_CORPUS, read

UNIFIED_FILES = [*UNIFIED_CORPUS, *sorted((FIXTURES_DIR / "gc_unified").glob("*.log"))]
LEGACY_FILES = [*LEGACY_CORPUS, *sorted((FIXTURES_DIR / "gc_legacy").glob("*.log"))]
# Every GC parser's fixtures, with the module that reads them.
OTHER_GC_FILES = [
    (module, path)
    for module in (gc_hpux, gc_ibm_text, gc_ibm_xml, gc_jrockit)
    for path in sorted((FIXTURES_DIR / module.KIND).glob("*"))
    if path.suffix != ".md"
]
# A counted repetition ({0,60}) is not a digit the rule names.
_REPETITION = re.compile(r"\{\d+(?:,\d*)?\}")


@pytest.mark.parametrize(
    "rule", [gc_unified.UNKNOWN_LINE, gc_unified.DETAIL_LEVEL, gc_unified.GC_TAGS]
)
def test_line_rules_name_no_zero_so_a_known_shape_is_a_known_line(rule: re.Pattern[str]) -> None:
    # A shape writes every digit 0: a rule naming a 0 could know the shape of a line it does
    # not know. A rule naming another digit ("G1 Service Thread") knows no shape of its lines:
    # the exact line scan then runs, slower but as right.
    assert "0" not in _REPETITION.sub("", rule.pattern)


def test_a_rule_naming_a_digit_costs_the_exact_scan_not_a_diagnostic() -> None:
    line = "[2024-03-01T10:00:00.000+0000][1.000s][info][gc,task] GC(1) G1 Service Thread x\n"
    assert gc_unified.parse(line * 3, ParseContext()).diagnostics == []


def test_line_shapes_split_at_newline_only_across_blocks() -> None:
    text = "[1.5s] a 12\r\n" * 70_000 + "[22.5s] b\x1e7\n\nlast 9"
    shapes = line_shapes(text)
    assert shapes == {"[0.0s] a 00\r", "[00.0s] b\x1e0", "", "last 0"}


@pytest.mark.parametrize(
    "text",
    [
        "1.5: [GC x]\n  detail 12\n" * 60_000 + "\n9 tail\n0",
        "0\n0\n\n07 a\r\n  b 8\n0",
        "\n0x\n\n0",
        "",
        "no digit\n at all",
    ],
)
def test_line_shapes_by_groups_of_lines_are_the_shapes_of_the_lines(text: str) -> None:
    assert line_shapes(text, "\n0") == line_shapes(text)


def test_an_unknown_line_among_a_million_known_ones_is_found_at_its_line() -> None:
    good = "[2024-03-01T10:00:00.000+0000][1.000s][info][gc,phases] GC(1)   Other: 0.1ms\n"
    text = good * 30_000 + "[2024-03-01T10:00:01.000+0000][2.000s][info][gc] Bogus 77\n" + good
    result = gc_unified.parse(text, ParseContext())
    assert [(d.line, "Bogus 77" in d.message) for d in result.diagnostics] == [(30_001, True)]


@pytest.mark.parametrize("path", UNIFIED_FILES, ids=lambda p: p.name)
def test_common_decorations_read_as_the_token_loop_reads_them(path: Path) -> None:
    context = ParseContext(timezone=dt.timezone(dt.timedelta(hours=-8)))
    for line in path.read_text(errors="replace").splitlines():
        fast = gc_unified.decorations(line, context)
        assert fast == gc_unified.token_decorations(line, context), line


@pytest.mark.parametrize(
    "line",
    [
        "[2024-12-31T23:59:59.999+0100][5.5s][info][gc] x",
        "[2025-01-01T00:00:00.000-0130][5,5s][info ][gc,start  ] x",
        "[2024-02-29T12:00:00.5Z][0.001s] x",
        "[2024-03-31T02:30:00.000][12.0s][gc] in a DST gap when read in Europe/Berlin",
        "[2023-02-29T12:00:00.000+0000][1.0s][info][gc] no such day",
        "[2024-01-01T00:00:00.000+0000][1.0s][7][info][gc] a pid after the uptime",
        "[2024-01-01T00:00:00.000+0000][1.0s][info][gc][ x",
    ],
)
def test_common_decorations_across_dates_zones_and_odd_tokens(line: str) -> None:
    for context in (ParseContext(), ParseContext.for_zone("Europe/Berlin")):
        assert gc_unified.decorations(line, context) == gc_unified.token_decorations(line, context)


def _legacy_read(text: str, runs: bool) -> tuple[object, ...]:
    result = ParseResult(kind=gc_legacy.KIND)
    reader = gc_legacy._Reader(ParseContext(), result)
    (reader._read_runs if runs else reader._read_lines)(text)
    log = reader.log
    return (log.pauses, log.concurrents, log.first, log.last, result.diagnostics)


@pytest.mark.parametrize(
    "path", [*LEGACY_CORPUS, *sorted((FIXTURES_DIR / "gc_legacy").glob("*"))], ids=lambda p: p.name
)
def test_legacy_runs_of_indented_lines_read_as_line_by_line(path: Path) -> None:
    text = path.read_text(errors="replace")
    if not gc_legacy._Reader._indented_all_known(text):
        pytest.skip("an indented line is unknown: the line-by-line reading runs")
    assert _legacy_read(text, runs=True) == _legacy_read(text, runs=False)
    crlf = text.replace("\n", "\r\n")
    assert _legacy_read(crlf, runs=True) == _legacy_read(crlf, runs=False)


def test_legacy_record_open_across_indented_lines_and_a_cms_line_in_a_run() -> None:
    text = (
        "  [Eden: 1.0K(2.0K)->0.0B(2.0K) Survivors: 0.0B->0.0B Heap: 3.0K(8.0K)->1.0K(8.0K)]\n"
        "2024-01-01T00:00:00.000+0000: 1.000: [GC pause (G1 Evacuation Pause) (young)\n"
        "   [Parallel Time: 4.9 ms, GC Workers: 2]\n"
        ", 0.0071813 secs]\n"
        "   [Eden: 7168.0K(7168.0K)->0.0B(4096.0K) Survivors: 0.0B->1024.0K"
        " Heap: 7168.0K(32768.0K)->6664.5K(32768.0K)]\n"
        "   [Other: 2.7 ms]\n"
        " CMS: abort preclean due to time 2.5: [CMS-concurrent-abortable-preclean: 0.1/0.2 secs]\n"
        "2024-01-01T00:00:03.000+0000: 3.000: [Full GC (Allocation Failure)  10K->5K(20K), 0.5 secs]"
    )
    assert gc_legacy._Reader._indented_all_known(text)
    runs, lines = _legacy_read(text, runs=True), _legacy_read(text, runs=False)
    assert runs == lines
    pauses = runs[0]
    assert isinstance(pauses, list) and len(pauses) == 2
    assert pauses[0].heap_after_kb == 6664.5 and len(runs[1]) == 1  # type: ignore[union-attr]


_EDEN = "   [Eden: 1.0K(2.0K)->0.0B(2.0K) Survivors: 0.0B->0.0B Heap: 3.0K(8.0K)->1.0K(8.0K)]\n"


def test_legacy_fast_lines_read_as_line_by_line() -> None:
    # Lines of FAST_LINE's shapes at their edges (zones, no GC id, no datestamp, an
    # impossible date, no duration, phase names holding "-end", a cleanup's heap, a remark's
    # sub-phases) and runs with no, one or two heap lines.
    stamps = [
        "2024-01-01T00:00:00.000+0000: 1.000: #1: ",
        "2024-01-01T00:00:59.999Z: 2.500: ",
        "2024-01-01T00:01:00.123: 3.000: #2: ",
        "2024-01-01T00:01:00.123+05:30: 3.100: #3: ",
        "2023-02-29T00:00:00.000+0000: 4.000: #4: ",
        "5.000: #5: ",
        "6.000: ",
        "2024-01-01T00:02:00.000-0800: 7,000: #6: ",
    ]
    bodies = [
        "[GC pause (G1 Evacuation Pause) (young), 0.0087570 secs]",
        "[GC pause (G1 Evacuation Pause) (mixed) (to-space exhausted), 0.0100 secs]",
        "[GC pause (G1 Humongous Allocation) (young) (initial-mark), 0.0020 secs]",
        "[GC pause (CMS in a cause) (young), 0.0010 secs]",
        "[GC pause (G1 Evacuation Pause) (young)]",
        "[GC remark 2024-01-01T00:00:01.000+0000: 1.100: #1: [Finalize Marking, 0.0001 secs]"
        " 1.101: [GC ref-proc, 0.0002 secs] [Unloading, 0.0010 secs], 0.0023 secs]",
        "[GC cleanup 12345K->12000K(32M), 0.0001234 secs]",
        "[GC cleanup 1.5G->1G(2G), 0.5 secs]",
        "[GC concurrent-root-region-scan-start]",
        "[GC concurrent-root-region-scan-end, 0.0001234 secs]",
        "[GC concurrent-mark-endless-end, 0.25 secs]",
        "[GC concurrent-mark-start, 0.25 secs]",
        "[GC concurrent-mark-abort]",
        "[GC concurrent-cleanup-end]",
    ]
    runs = ["", " [Times: user=0.01 sys=0.00, real=0.01 secs]\n", _EDEN, _EDEN + _EDEN]
    lines = [_EDEN]
    for i, stamp in enumerate(stamps):
        for j, body in enumerate(bodies):
            lines.append(stamp + body + "\n" + runs[(i + j) % len(runs)])
    text = "".join(lines)
    assert gc_legacy._Reader._indented_all_known(text)
    runs_read, lines_read = _legacy_read(text, runs=True), _legacy_read(text, runs=False)
    assert runs_read == lines_read
    assert len(runs_read[0]) > 50  # type: ignore[arg-type]
    crlf = text.replace("\n", "\r\n")
    assert _legacy_read(crlf, runs=True) == _legacy_read(crlf, runs=False)


# Timed lines at the edges of the unified fast path (_Reader._read_timed's layouts, read by
# the shape of each line): zones, fractions of 0-9 digits, decimal commas, generations, heap
# words that are no heap, a concurrent phase naming a pause, an impossible date, non-ASCII
# and a lone surrogate in a name, Unicode digits, and G1 region counts longer than the
# characters they are keyed by, over two JVM runs of different region sizes.
_ZEROS = str.maketrans("0123456789", "0" * 10)
_UNIFIED_STAMPS = [
    "[2024-01-01T00:00:00.000+0000][1.000s][info][gc          ] ",
    "[2024-01-01T00:00:59.5Z][2,500s][info][gc] ",
    "[2024-01-01T00:01:00.123456789-05:30][3.1s][gc,start] ",
    "[2024-01-01T00:01:00][4s][info ][gc,phases   ]",
    "[2023-02-29T00:00:00.000+0000][5.000s][info][gc] ",
    "[2024-03-31T02:30:00.000][6.000s][info][gc] ",
    "[2024-01-01T00:02:00.12+0100][7.000s][info][gc][gc,heap] ",
]
_UNIFIED_BODIES = [
    "GC({id}) Pause Young (Normal) (G1 Evacuation Pause) 24M->11M(256M) 7.965ms",
    "GC({id}) Pause Young (Mixed) (G1 Evacuation Pause) 1,5G->1G(2G) 12,5ms",
    "GC({id}) Pause Young (Concurrent Start) (G1 Humongous Allocation) 3B->2K(9T) 0.001ms",
    "GC({id}) Pause Young (Normal) (G1 Evacuation Failure) 2M->1M(3M) 1ms",
    "GC({id}) Pause Remark 10M->9M(-) 2.0ms",
    "GC({id}) Pause Full (System.gc()) a->b 3.5ms",
    "GC({id}) Pause Cleanup 1M->1M(2M)x 0.1ms",
    "GC({id}) y: Pause Mark Start 0.004ms",
    "GC({id}) O: Pause Mark End (Major) 0.250ms",
    "GC({id}) Y: Concurrent Mark 10M->5M(20M) 1.5ms",
    "GC({id}) Concurrent Mark Cycle 12.3ms",
    "GC({id}) Concurrent Pause Name 1.0ms",
    "GC({id}) Concurrent Mark From Roots",
    "GC({id}) Pause Young (Normal) (G1 Évacuation \udc80) 5M->4M(8M) 1.0ms",
    "GC(\u0661{id}) Pause Young (Normal) (G1 Evacuation Pause) 5M->4M(8M) \u0662.0ms",
    "GC({id}) Pause Young (Normal) (G1 Evacuation Pause) 5M->4M(8M) 1.0us",
]
_REGION_LINES = [
    "GC({id}) Eden regions: 24->0(26)",
    "GC({id}) Eden regions: 1234567890->5(6)",
    "GC({id}) Eden regions: 1234567890->6(6)",
    "GC({id}) Survivor regions: 3->4(5)",
    "GC({id}) Survivor regions: 12->",
    "GC({id}) Survivor regions: 7->8",
]


def _unified_edge_log(newline: str) -> str:
    lines = [
        "[2024-01-01T00:00:00.000+0000][0.010s][info][gc] Using G1",
        "[2024-01-01T00:00:00.000+0000][0.020s][info][gc,init] Heap Region Size: 1M",
    ]
    gc_id = 0
    for i, stamp in enumerate(_UNIFIED_STAMPS):
        for j, body in enumerate(_UNIFIED_BODIES):
            gc_id += 1
            for k in range((i + j) % 3):
                region = _REGION_LINES[(i + j + k) % len(_REGION_LINES)]
                lines.append(_UNIFIED_STAMPS[0] + region.format(id=gc_id))
            lines.append(stamp + body.format(id=gc_id))
        if i == 3:  # a second JVM run, of another region size
            lines.append(
                "[2024-01-01T00:00:00.000+0000][0.020s][info][gc,init] Heap Region Size: 4M"
            )
    return newline.join(lines) + newline


def _unified_read(text: str, general: bool) -> tuple[object, ...]:
    result = ParseResult(kind=gc_unified.KIND)
    reader = gc_unified._Reader(ParseContext.for_zone("Europe/Berlin"), result)
    reader.text = text
    reader._read_settings(text, gc_unified.SETTING_KEYWORDS)
    if general:  # every timed line by the rules, one at a time
        for start, end in reader._timed_lines(text):
            reader._timed(start, text[start:end].rstrip())
    else:
        reader._read_timed(text, line_shapes(text, group_marker=gc_unified.GROUP_MARKER))
    log = reader.log
    return (log.pauses, log.concurrents, log.start_ms, result.diagnostics)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_unified_fast_timed_lines_read_as_the_rules_read_them(newline: str) -> None:
    text = _unified_edge_log(newline)
    fast, general = _unified_read(text, general=False), _unified_read(text, general=True)
    assert fast == general
    pauses = fast[0]
    assert isinstance(pauses, list) and len(pauses) > 60
    assert any(p.young_before_kb for p in pauses) and any(p.young_before_kb is None for p in pauses)


def test_unified_timed_hit_finds_what_the_backtracking_rule_found() -> None:
    backtracking = re.compile(r"\) (?:[yYO]: )?(?:Pause|Concurrent) [^\n]*ms\r?(?![^\n])")
    texts = [_unified_edge_log("\n"), _unified_edge_log("\r\n")]
    texts += [path.read_text(errors="replace") for path in UNIFIED_FILES]
    texts += [
        ") Pause ms\n) Pause ms\r\n) Pause ms\r\r\n) Pause \rms\n) Pause m\n) Pausems\n",
        "a) Pause b ms x\n) O: Concurrent xms\r\n) Pause ms) Pause 2ms",
    ]
    for text in texts:
        found = [hit.span() for hit in gc_unified.TIMED_HIT.finditer(text)]
        assert found == [hit.span() for hit in backtracking.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "[0.1s] GC(1) Pause Young 1ms\n[0.2s] detail 12\n" * 40_000 + "[9s] GC(2) Pause 7ms",
        "x Pause y\n[1s] GC(1) Pause Young\n Pause \n Pause at line start 1",
        "[1s] é \udc80 Pause \u0663\n[2s] GC(3) Pause Young 2ms\r\n" * 50_000,
        "no marker\nat all 1\n",
        "",
    ],
)
def test_line_shapes_grouped_by_a_marker_are_the_shapes_of_the_lines(text: str) -> None:
    assert line_shapes(text, group_marker=gc_unified.GROUP_MARKER) == line_shapes(text)
    # Translated as UTF-8 bytes, as str.translate writes them (a block's end may add "").
    shapes = {shape for shape in line_shapes(text) if shape}
    assert shapes == {line for line in text.translate(_ZEROS).split("\n") if line}


def test_region_size_kept_with_where_it_holds_is_the_size_looked_up() -> None:
    reader = gc_unified._Reader(ParseContext(), ParseResult(kind=gc_unified.KIND))
    reader.text = "x" * 400
    reader.region_sizes = [(100, 1.0), (200, 2.0), (300, 4.0)]
    # Before the first size line its size; then the last one printed before the position.
    expected = {0: 1.0, 50: 1.0, 99: 1.0, 100: 1.0, 199: 1.0, 200: 2.0, 250: 2.0, 299: 2.0}
    order = [0, 99, 100, 199, 200, 299, 300, 400, 250, 50, 300, 100, 399, 0, 200, 199]
    assert [reader._region_kb_at(p) for p in order] == [expected.get(p, 4.0) for p in order]  # 300+
    reader.region_sizes = [(100, 8.0)]  # one run: its size everywhere
    assert [reader._region_kb_at(p) for p in (0, 500, 100)] == [8.0, 8.0, 8.0]


# --- Events by column (EventColumns): the events, chunks and windows of the EventData list ---


def _events_one_by_one(log: GcLog, base_ms: float) -> list[EventData]:
    """The events build_result gave as a list, one EventData at a time (before columns)."""

    def wall(clock: Clock) -> float:
        if clock.wall_ms is not None:
            return clock.wall_ms
        return base_ms + (clock.uptime_s or 0.0) * 1000.0

    def mb(kb: float | None) -> float | None:
        return None if kb is None else round(kb / 1024.0, 3)

    events: list[EventData] = []
    for pause in log.pauses:
        at_ms = round(wall(pause.clock))
        attrs: dict[str, object] = {"collector": pause.collector, "type": pause.type}
        for key, value in (
            ("cause", pause.cause),
            ("detail", pause.detail),
            ("heap_before_mb", mb(pause.heap_before_kb)),
            ("heap_after_mb", mb(pause.heap_after_kb)),
            ("heap_total_mb", mb(pause.heap_total_kb)),
            ("gc_id", pause.gc_id),
            ("uptime_s", None if pause.clock.uptime_s is None else round(pause.clock.uptime_s, 6)),
        ):
            if value is not None and (value or key not in ("cause", "detail")):
                attrs[key] = value
        if pause.to_space_exhausted:
            attrs["to_space_exhausted"] = True
            events.append(EventData("gc_to_space_exhausted", at_ms, None, {"gc_id": pause.gc_id}))
        events.append(EventData("gc_pause", at_ms, round(pause.duration_ms, 6), attrs))
    for phase in log.concurrents:
        attrs = {"collector": phase.collector, "phase": phase.phase}
        if phase.gc_id is not None:
            attrs["gc_id"] = phase.gc_id
        if phase.clock.uptime_s is not None:
            attrs["uptime_s"] = round(phase.clock.uptime_s, 6)
        if phase.heap_after_kb is not None:
            attrs["heap_before_mb"] = mb(phase.heap_before_kb)
            attrs["heap_after_mb"] = mb(phase.heap_after_kb)
            attrs["heap_total_mb"] = mb(phase.heap_total_kb)
        duration = None if phase.duration_ms is None else round(phase.duration_ms, 6)
        events.append(EventData("gc_concurrent", round(wall(phase.clock)), duration, attrs))
    for stall in log.stalls:
        attrs = {"stall": stall.kind, "thread": stall.thread}
        duration = round(stall.duration_ms, 6)
        events.append(EventData("gc_allocation_stall", round(wall(stall.clock)), duration, attrs))
    return events


def _columns_log() -> str:
    """A unified log with every kind of event build_result makes, the to-space exhausted
    pauses among others (their events between pauses), cycles without a duration."""
    stamp = "[2024-01-01T00:00:{s:02d}.{ms:03d}+0000][{up}s][info][gc] "
    lines = [stamp.format(s=0, ms=1, up="0.001") + "Using G1"]
    for i in range(1, 3000):
        s, up = (i // 100) % 60, f"{i / 100:.3f}"
        head = stamp.format(s=s, ms=i % 1000, up=up)
        if i % 7 == 0:
            lines.append(head + f"GC({i}) To-space exhausted")
        if i % 5 == 0:
            lines.append(head + f"GC({i}) Pause Remark 12M->10M(64M) 0.{i % 10}00ms")
        elif i % 11 == 0:
            lines.append(head + f"Allocation Stall (worker-{i}) {i % 9}.125ms")
        elif i % 13 == 0:
            lines.append(head + f"GC({i}) Garbage Collection (Warmup) 10M(8%)->8M(6%)")
        elif i % 17 == 0:
            lines.append(head + f"GC({i}) Concurrent Mark Cycle {i % 5}.5ms")
        else:
            cause = "(G1 Evacuation Pause)" if i % 3 else "(G1 Humongous Allocation)"
            heap = f"{i % 50}M->{i % 20}M(256M)"
            lines.append(head + f"GC({i}) Pause Young (Normal) {cause} {heap} {i % 4}.{i % 997}ms")
    return "\n".join(lines) + "\n"


def _gc_results() -> list[ParseResult]:
    texts = [(gc_unified, _columns_log())]
    texts += [(gc_unified, read(path)) for path in UNIFIED_FILES]
    texts += [(gc_legacy, read(path)) for path in LEGACY_FILES]
    texts += [(module, read(path)) for module, path in OTHER_GC_FILES]
    return [module.parse(text, ParseContext()) for module, text in texts]


def test_build_result_events_by_column_are_its_events_one_by_one() -> None:
    captured: list[GcLog] = []
    cases: list[tuple[Any, str]] = [(gc_unified, _columns_log())]
    cases += [(gc_unified if "-ujl-" in p.name else gc_legacy, read(p)) for p in GC_CORPUS]
    cases += [(gc_unified, read(p)) for p in UNIFIED_FILES]
    cases += [(gc_legacy, read(p)) for p in LEGACY_FILES]
    cases += [(module, read(path)) for module, path in OTHER_GC_FILES]
    for module, text in cases:
        with pytest.MonkeyPatch.context() as patch:
            build = module.build_result

            def keep(
                kind: str,
                log: GcLog,
                context: ParseContext,
                result: ParseResult,
                build: Any = build,
            ) -> Any:
                captured.append(log)
                return build(kind, log, context, result)

            patch.setattr(module, "build_result", keep)
            result = module.parse(text, ParseContext())
        if not captured:
            continue
        log = captured.pop()
        assert isinstance(result.events, EventColumns)
        base_ms = log.start_ms if log.start_ms is not None else 0.0
        expected = _events_one_by_one(log, base_ms)
        assert list(result.events) == expected
        assert result.events == expected and expected == result.events
        assert len(result.events) == len(expected) and bool(result.events) == bool(expected)
    kinds = {e.kind for e in gc_unified.parse(_columns_log(), ParseContext()).events}
    assert kinds == {"gc_pause", "gc_to_space_exhausted", "gc_concurrent", "gc_allocation_stall"}


def test_event_columns_read_as_the_list_they_hold() -> None:
    events = [
        EventData("a", 5, None, {"x": 1}),
        EventData("b", 3, 1.5, {}),
        EventData("a", 9, 2.0, {"y": 2}, {"host": "h"}),
        EventData("a", 1, -0.0, {}),
        EventData("c", 2, None),
        EventData("b", 7, 0.25, {"z": None}),
    ]
    batch = EventColumns.of(events)
    assert list(batch) == events and batch == events and events == batch
    assert [batch[i] for i in range(-6, 6)] == events + events
    assert batch[1:4] == events[1:4] and batch[::-1] == events[::-1]
    assert len(batch) == 6 and batch and not EventColumns() and EventColumns() == []
    with pytest.raises(IndexError):
        batch[6]
    batch.append(EventData("b", 0, 1.0))
    assert list(batch) == [*events, EventData("b", 0, 1.0)]
    assert [run[0] for run in batch.runs] == ["a", "b", "a", "c", "b"]


@pytest.mark.parametrize("offset_ms", [0, 3_600_000])
def test_chunks_of_events_by_column_are_the_chunks_of_their_events(offset_ms: int) -> None:
    labelled = EventColumns.of(
        [
            EventData("k", i, float(i) if i % 3 else None, {"i": i}, {"l": str(i % 2)})
            for i in range(9000)
        ]
    )
    for events in [*(r.events for r in _gc_results()), labelled]:
        assert isinstance(events, EventColumns)
        by_column = list(chunks.encode(events, offset_ms))
        assert by_column == list(chunks.encode(list(events), offset_ms))
    assert len(list(chunks.encode(labelled))) == 3


def _as_list(result: ParseResult) -> ParseResult:
    return ParseResult(result.kind, result.series, list(result.events), result.facts)


@pytest.mark.parametrize(
    "odd",
    [
        None,
        EventData("gc_pause", 10, math.nan),
        EventData("gc_pause", 10, math.inf),
        EventData("gc_pause", 2**60, 1.0),
        EventData("gc_pause", 2**70, None),
        EventData("gc_pause", 2**53 + 1, 1.0),
        EventData("gc_concurrent", -(2**62), 2.5),
        EventData("gc_pause", 1_000, 2**60),
    ],
)
def test_events_by_column_kept_within_a_window_as_the_list_is(odd: EventData | None) -> None:
    for result in _gc_results()[:3]:
        assert isinstance(result.events, EventColumns)
        if odd is not None:
            result.events.append(odd)
        listed = _as_list(result)
        assert _outcome(result.time_range) == _outcome(listed.time_range)
        first, last = _as_list(_copy(result)).time_range() if odd is None else (0, 10**13)
        for low, high in [
            (-(2**63), 2**63),
            (first, last),
            (first, (first + last) // 2),
            ((first + last) // 2, last + 10),
            (0, 2**53),
        ]:
            window_result, window_listed = _copy(result), _copy(listed)
            assert window_result.keep_within(low, high) == window_listed.keep_within(low, high)
            assert list(window_result.events) == window_listed.events
            assert _outcome(window_result.time_range) == _outcome(window_listed.time_range)


def _outcome(call: Any) -> object:
    """What ``call()`` returns, or the type of what it raises."""
    try:
        return call()
    except Exception as exc:
        return type(exc)


def _copy(result: ParseResult) -> ParseResult:
    events = result.events
    copied = EventColumns.of(events) if isinstance(events, EventColumns) else list(events)
    return ParseResult(result.kind, [], copied, result.facts)


def test_digits_as_zero_is_the_translation() -> None:
    samples = [b"", b"0123456789", bytes(range(256)) * 50, "é \u0663 12".encode() * 3000]
    samples += [
        random.Random(seed).randbytes(size) for seed, size in enumerate((1, 4095, 4096, 70_000))
    ]
    for data in samples:
        assert digits_as_zero(data) == data.translate(DIGIT_BYTES_AS_ZERO)


@pytest.mark.parametrize(
    "line",
    [
        "[0.020s][info][gc,init] Heap Region Size: 1M",
        "[0.020s][info][gc,init] Heap region size: 4096K",
        "[9.9s][info][gc,heap,exit]   region size 1024K, 5 young (5120K), 0 survivors (0K)",
        "[0.01s][info][gc] Using G1 Heap Region Size: 1M",
        "[0.01s][info][gc] GC(3) To-space exhausted Heap Region Size: 2M",
        "[0.01s][info][gc] Version: 17 Heap Region Size: 2M",
    ],
)
def test_a_region_size_keyword_skipped_only_where_no_line_gives_a_size(line: str) -> None:
    # What _setting takes from a line, it takes from the line's shape (no rule names a digit).
    shape = line.encode().translate(DIGIT_BYTES_AS_ZERO).decode()
    assert gc_unified._gives_region_size(line) == gc_unified._gives_region_size(shape)
    reader = gc_unified._Reader(ParseContext(), ParseResult(kind=gc_unified.KIND))
    taken = reader._setting(line, only=gc_unified.REGION_SIZE_RULE) == gc_unified.REGION_SIZE_RULE
    assert taken == gc_unified._gives_region_size(line)
    # A log holding the line reads as one whose every region size line is looked at.
    text = _unified_edge_log("\n").replace("Heap Region Size: 1M", line.split("] ", 2)[-1], 1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gc_unified, "_gives_region_size", lambda line: True)
        every = gc_unified.parse(text, ParseContext())
    assert gc_unified.parse(text, ParseContext()) == every
