"""The shortcuts that make the GC parsers fast read exactly what the slow ways read."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from rootline.parsers import gc_legacy, gc_unified
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.gc_common import line_shapes
from tests.conftest import FIXTURES_DIR
from tests.parsers.gc_helpers import LEGACY_CORPUS, UNIFIED_CORPUS

UNIFIED_FILES = [*UNIFIED_CORPUS, *sorted((FIXTURES_DIR / "gc_unified").glob("*.log"))]
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
