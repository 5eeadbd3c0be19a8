"""JDK 9+ unified GC logs.

Produced by ``java -Xlog:gc*:file=gc.log:time,uptime,level,tags`` (or ``-Xlog:gc``, any
decoration set: ``time``/``utctime`` (ISO with offset), ``uptime`` (``12.345s``),
``uptimemillis``/``timemillis`` (``233ms``), ``uptimenanos`` (``...ns``), ``level``
(possibly padded, ``[info ]``), ``tags``, ``pid``, ``tid``) for G1, Parallel, Serial, CMS
(JDK 9-13), ZGC (also JDK 21 generational) and Shenandoah. Sample lines::

    [2022-11-10T03:37:29.508-0800][0.082s][info][gc     ] Using G1
    [31.249s][info][gc] GC(0) Pause Young (G1 Evacuation Pause) 24M->11M(256M) 7.965ms
    [0.125s] GC(0) Pause Mark Start 0.004ms
    [2.125s][info][gc] GC(33) Pause Degenerated GC (Update Refs) 60M->30M(64M) 12.345ms
    [201.482s][info][gc          ] Allocation Stall (main) 0.706ms
    [2.231s][info][gc,phases   ] GC(7) O: Pause Mark End 0.250ms          (JDK 21 generational ZGC)
    [177,375s][info][gc] GC(4) Pause Young (Normal) (G1 Evacuation Pause) 24M->11M(256M) 7,870ms

The last line is from a JVM run under a decimal-comma locale (``LC_ALL=de_DE.UTF-8``):
clocks and durations then read ``177,375s`` and ``7,870ms``.

A pause or phase line is written when it ends: its start is the line's time minus its
duration. Lines of one collection share the ``GC(n)`` id, which ties the young-generation
sizes (``PSYoungGen: 15360K->2544K(17920K)``, G1 ``Eden regions: 24->0(26)``) to the pause
summary that follows them. Safepoint lines are not counted (they would double count).

Events, series and facts are those of :mod:`rootline.parsers.gc_common`. Rules (each
line is tried only when a cheap substring check passes):

=====================  ==============================================  =================
rule                   matches                                         handler
=====================  ==============================================  =================
``PAUSE``              ``GC(3) [y:|O: ]Pause <name> (..) [A->B(C)] Nms`` ``gc_pause``
``CONCURRENT``         ``GC(3) [y:|O: ]Concurrent <phase> [..] Nms``  ``gc_concurrent``
``CYCLE``              ``GC(5) Garbage Collection (..) 10M(8%)->8M``   ``gc_concurrent``
``STALL``              ``Allocation Stall (thread) 0.706ms``           ``gc_allocation_stall``
``USING``              ``Using G1``                                    ``gc.collector``
``VERSION``            ``Version: 17.0.10+7-LTS (release)``            ``jvm.version``
``YOUNG_GEN``          ``GC(3) PSYoungGen: 15360K->2544K(17920K)``     young sizes
``G1_REGIONS``         ``GC(3) Eden regions: 24->0(26)``               young sizes
``TO_SPACE``           ``GC(9) To-space exhausted``                    flag on the pause
``MAX_CAPACITY``       ``GC(5) Max Capacity: 2048M(100%)`` (ZGC)       the cycles' heap size
no-op                  ``KNOWN_LINES``: phase starts, settings and     skipped
                       sizes, sub-phase times, safepoint, age tables,
                       heap and statistics at exit (``GC STATISTICS``)
=====================  ==============================================  =================

Any other line, decorated or not, is a diagnostic with its line number; so is a ``Pause``
line whose duration the rule cannot read.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Final

from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.gc_common import (
    DATESTAMP,
    DIGIT_BYTES_AS_ZERO,
    Clock,
    Concurrent,
    GcLog,
    Pause,
    Stall,
    build_result,
    datestamp_ms,
    line_shapes,
    number,
    size_kb,
    unified_line_share,
)

KIND = "gc_unified"

_NUM = r"\d+(?:[.,]\d+)?"  # a decimal comma under some locales: "7,870ms", "[177,375s]"
_SIZE = r"(" + _NUM + r")([BKMGT])"
_HEAP = _SIZE + "->" + _SIZE + r"\(" + _SIZE + r"\)"
# JDK 21 generational ZGC prefixes a phase with its generation: y:/Y: young, O: old.
_GENERATION = r"(?:([yYO]): )?"
PAUSE = re.compile(
    r"GC\((\d+)\) " + _GENERATION + r"Pause (.+?)(?: " + _HEAP + r")? (" + _NUM + r")ms$"
)
CONCURRENT = re.compile(
    r"GC\((\d+)\) " + _GENERATION + r"Concurrent (.+?)(?: " + _HEAP + r")? (" + _NUM + r")ms$"
)
CYCLE = re.compile(
    r"GC\((\d+)\) ((?:Garbage|Major|Minor) Collection) \(([^)]*)\) "
    + _SIZE
    + r"\(\d+%\)->"
    + _SIZE
    + r"\(\d+%\)(?: ("
    + _NUM
    + r")(m?s))?$"
)
STALL = re.compile(r"(Allocation|Relocation) Stall \((.*)\) (" + _NUM + r")ms$")
USING = re.compile(r"\] Using ([\w ]+)$")
VERSION = re.compile(r"\] Version: (\S+)")
YOUNG_GEN = re.compile(r"GC\((\d+)\) (?:PSYoungGen|DefNew|ParNew): " + _SIZE + "->" + _SIZE)
G1_REGIONS = re.compile(r"GC\((\d+)\) (Eden|Survivor) regions: (\d+)->(\d+)")
# G1_REGIONS after its "GC(n) Eden regions: ": the counts before and after.
REGION_COUNTS = re.compile(r"(\d+)->(\d+)")
REGION_SIZE = re.compile(r"Heap [Rr]egion [Ss]ize: " + _SIZE)
TO_SPACE = re.compile(r"GC\((\d+)\) To-space exhausted")
# ZGC's heap size: "GC(3) Max Capacity: 2048M(100%)" per cycle (JDK 21: "GC(3) y: Max
# Capacity: ..."), "Max Capacity: 2048M" at start; not "Soft Max Capacity".
MAX_CAPACITY = re.compile(r"\] (?:GC\((\d+)\) (?:[yYO]: )?)?Max Capacity: " + _SIZE)
USING_COLLECTORS = {
    "G1": "g1",
    "Parallel": "parallel",
    "Serial": "serial",
    "Concurrent Mark Sweep": "cms",
    "The Z Garbage Collector": "zgc",
    "Z Garbage Collector": "zgc",
    "Shenandoah": "shenandoah",
}
# G1's kinds of young pause; the other parentheses of a pause line name its cause.
G1_YOUNG_KINDS = {"Normal", "Concurrent Start", "Prepare Mixed", "Mixed"}
G1_MARKERS = ("G1 ", "(Normal)", "(Concurrent Start)", "(Prepare Mixed)", "(Mixed)")
LEVELS = ("trace", "debug", "info", "warning", "error")
# Lines worth reading are found by these substrings; everything else is skipped detail.
TIMED_KEYWORDS = ("Pause ", "Concurrent ", "Stall ", "Collection (")
# A keyword, then the rest of its line when that ends in an "s" (a duration's unit), or, for
# a ZGC cycle, in its heap's share: JDK 17 ends "GC(3) Garbage Collection (Warmup)
# 208M(10%)->48M(2%)" with no duration (JDK 21 adds one).
TIMED_LINE_ENDS = tuple(
    re.compile(
        re.escape(keyword)
        + (r"[^\n]*(?:s|%\))\r?(?![^\n])" if keyword == "Collection (" else r"[^\n]*s\r?(?![^\n])")
    )
    for keyword in TIMED_KEYWORDS
)
SETTING_KEYWORDS = ("] Using ", "] Version: ", "To-space exhausted", "egion size", "egion Size")
# Young generation sizes printed before the pause summary of the same GC id, per collector.
YOUNG_SIZE_LINES = {
    "g1": ("Eden regions: ", "Survivor regions: "),
    "parallel": ("PSYoungGen: ",),
    "serial": ("DefNew: ",),
    "cms": ("ParNew: ",),
}
G1_REGION_LINES = frozenset(YOUNG_SIZE_LINES["g1"])
G1_YOUNG_SIZE_LINES = YOUNG_SIZE_LINES["g1"]
# How far before a pause summary its young-generation lines may sit (a gc* block is ~2 KB).
YOUNG_SIZE_WINDOW = 8192
_END = r"\r?$"
_TIMED_END = r"\d ?(?:ms|us|s)" + _END
# Every decorated line's message (after "GC(n) " and a generation prefix) must match one of
# these (tried in this order, the commonest first), in the reading rules above or as a known
# line kept for nothing; any other line is
# a numbered diagnostic. A line that reads "Pause ..." and ends in a time is known only as
# a PAUSE: a duration the rule cannot read (another locale, another unit) is never silent.
KNOWN_LINES: tuple[tuple[str, str], ...] = (
    ("setting, sizes or counters: 'Name: value'", r"[A-Z\"(<][\w ()/+.,'\"<>-]{0,60}?:(?:\s|$)"),
    ("blank or indented detail (tables, statistics, heap at exit)", r"(?:\s|$)"),
    ("tenuring", r"(?:Desired survivor size|Age table with)"),
    ("age table", r"- age +\d"),
    ("ZGC age table row", r"(?:Eden|Survivor \d+) +\d"),
    ("phase start / statistics", r"(?:Pause|Concurrent) (?![^\n]*" + _TIMED_END + ")"),
    ("CPU times", r"User="),
    ("PAUSE", r"Pause [^\n]*? " + _NUM + r"ms" + _END),
    ("USING, worker counts", r"Using "),
    (
        "timed sub-phase or worker detail",
        r"(?!Pause )[A-Za-z][^\n]*? " + _NUM + r" ?(?:ms|us|ns|s)\b",
    ),
    ("CONCURRENT", r"Concurrent [^\n]*? " + _NUM + r"ms" + _END),
    ("phase start: a bare name", r"[A-Z][A-Za-z ()-]*" + _END),
    ("Shenandoah cycle statistics: gross (G) / net (N)", r"Pause [^\n]*\([GN]\) +\d+ us"),
    ("safepoint", r"Safepoint \""),
    ("CYCLE, cycle start", r"(?:Garbage|Major|Minor) Collection \("),
    ("ZGC generation summary", r"(?:Young|Old) Generation\b"),
    ("STALL", r"(?:Allocation|Relocation) Stall \("),
    ("heap printout", r"(?:Heap|Collection set:?|Metaspace\b|\S+ +(?:total|used) )"),
    ("statistics banner", r"(?:=== |---|===)"),
    ("init notes", r"(?:Initializing |Heuristics |Min heap equals|Consider -XX|CPU:total)"),
    (
        "Shenandoah notes",
        r"(?:Failed to allocate|Cancelling GC|Good progress|Bad progress|Trigger:)",
    ),
    ("G1 service thread", r"G1 Service Thread"),
    ("string/symbol table cleaning", r"Cleaned string and symbol table"),
    ("ZGC statistics row", r"[A-Z][\w ]*: [A-Z]"),
    ("reference processing", r"(?:Skipped phase|Preclean \w+References|Running G1 Root Region)"),
    ("marking statistics", r"(?:Marking Stats|Mark stats cache)"),
    (
        "G1 remembered set rebuild",
        r"(?:Skipping Remembered Set|Running G1 (?:Update RemSet|Clear Bitmap)|Remembered Set Tracking)",
    ),
    (
        "Shenandoah statistics prose",
        r"(?:All times are|all workers|Under allocation pressure|under stop-the-world|"
        r"tune GC heuristics|to avoid Degenerated)",
    ),
)
_KNOWN = "(?>(?:GC\\(\\d+\\) (?:[yYO]: )?)?)(?:" + "|".join(f for _, f in KNOWN_LINES) + ")"
# After a line break (searched for in "\n" + text: a literal start is found fast), a
# decorated line whose message no rule knows (group 1) or an undecorated line (group 2).
UNKNOWN_LINE = re.compile(
    r"\n(?:(?>(?:\[[^\]\n]*\])+ ?)(?!" + _KNOWN + r")([^\n]*)|(?!\[)([^\n]+))", re.MULTILINE
)


# A debug or trace line of a gc tag (``-Xlog:gc*=debug``: ``[debug][gc,remset] GC(0) Visited
# cards ...``) is detail by its level: a known no-op, whatever its message (its counts are not
# read; pauses come from the info-level summaries as ever).
# The commonest decorations (time, uptime, then level and tags), read by one match; the
# token loop of decorations() reads any other set and order.
COMMON_DECORATIONS = re.compile(
    r"\[(" + DATESTAMP.pattern + r")\]\[(\d+(?:[.,]\d+)?)s\](?:\[[A-Za-z_][^\]\n]*\])*(?!\[) ?"
)
DETAIL_LEVEL = re.compile(r"\[(?:debug|trace) *\]")
# The commonest timed line whole, as :data:`COMMON_DECORATIONS` then :data:`PAUSE` or
# :data:`CONCURRENT` read it (tags holding no "(", so that no "GC(" hides in them), to the
# end of its line: read by one match, where :meth:`_Reader._timed` takes several steps.
# Groups: 1 the datestamp's minute, 2 its second, 3 its fraction, 4 its zone, 5 uptime,
# 6 GC id, 7 generation, 8 the word, 9 the name with the heap, 10 the duration. The name is
# read to the last space (not lazily, which tries the heap after each of its characters):
# PAUSE's lazy name is this one without a last word that is a heap (HEAP_WORD).
TIMED_LINE = re.compile(
    r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d):(\d\d)(?:[.,](\d{1,9}))?((?:[+-]\d\d:?\d\d|Z)?)\]"
    r"\[(\d+(?:[.,]\d+)?)s\](?:\[[A-Za-z_][^\]\n(]*\])*(?!\[) ?"
    r"GC\((\d+)\) " + _GENERATION + r"(Pause|Concurrent) ([^\n]+) (" + _NUM + r")ms\r?\Z"
)
HEAP_WORD = re.compile(_HEAP)
DATESTAMP_WHOLE = re.compile(DATESTAMP.pattern + r"\Z")
# Where such lines are: a literal ") " starts the search (fast), the hit runs to the line's
# end, which must end in "ms" (before a "\r"): the rest of the line is taken whole
# (possessive) and its end looked at, not given back a character at a time (a start line,
# "GC(3) Pause Young (Normal) (G1 Evacuation Pause)", is one of every two lines found).
# As r"\) (?:[yYO]: )?(?:Pause|Concurrent) [^\n]*ms\r?(?![^\n])" reads them.
TIMED_HIT = re.compile(r"\) (?:[yYO]: )?(?:Pause|Concurrent) [^\n]*+(?:(?<=ms)|(?<=ms\r))")
# What line_shapes groups a unified log's lines by: a block's lines from each line that
# starts as its first pause line does (a GC's lines, from its start line or its summary).
GROUP_MARKER = " Pause "
GC_TAGS = re.compile(r"\[gc[\w,]* *\]")


def sniff(head: str) -> float:
    """Mostly decorated lines (``[0.021s][info][gc]``) with GC content (``GC(n)``, ``Using``)."""
    share = unified_line_share(head)
    if share < 0.6:
        return 0.0
    if "GC(" in head or "][gc" in head or "] Using " in head:
        return 0.95
    return 0.3


def decorations(line: str, context: ParseContext) -> tuple[Clock, int] | None:
    """The clock a decorated line carries and where its message starts; None when undecorated."""
    fast = COMMON_DECORATIONS.match(line)
    if fast is not None:
        epoch_ms = datestamp_ms(fast, context.timezone, group=1)
        if epoch_ms is not None:
            return Clock(float(epoch_ms), number(fast.group(12))), fast.end()
    return token_decorations(line, context)


def token_decorations(line: str, context: ParseContext) -> tuple[Clock, int] | None:
    """:func:`decorations` read token by token, any set and order of them."""
    if not line.startswith("["):
        return None
    wall: float | None = None
    uptime: float | None = None
    pos = 0
    length = len(line)
    while pos < length and line[pos] == "[":
        end = line.find("]", pos)
        if end < 0:
            break
        token = line[pos + 1 : end].strip()
        if token and token[0].isdigit():
            if "T" in token and "-" in token:
                stamp = DATESTAMP.match(token)
                if stamp is None:
                    return None
                epoch_ms = datestamp_ms(stamp, context.timezone)
                if epoch_ms is None:
                    return None
                wall = float(epoch_ms)
            elif token.endswith("ms"):
                value = _decoration_number(token[:-2])
                if value is None:
                    return None
                # timemillis and uptimemillis look alike: an epoch is past the year 2001.
                if value > 1e12:
                    wall = value
                else:
                    uptime = value / 1000.0
            elif token.endswith("ns"):
                value = _decoration_number(token[:-2])
                if value is None:
                    return None
                if value > 1e18:
                    wall = value / 1e6
                else:
                    uptime = value / 1e9
            elif token.endswith("s"):
                uptime = _decoration_number(token[:-1])
                if uptime is None:
                    return None
            elif not token.isdigit():
                return None
        elif token and not (token[0].isalpha() or token[0] == "_"):
            break
        pos = end + 1
    if pos == 0:
        return None
    if line.startswith(" ", pos):
        pos += 1
    return Clock(wall, uptime), pos


def _decoration_number(text: str) -> float | None:
    """``12.345`` or, under a decimal-comma locale, ``12,345``; None when neither."""
    try:
        return number(text)
    except ValueError:
        return None


class _Reader:
    def __init__(self, context: ParseContext, result: ParseResult) -> None:
        self.context = context
        self.result = result
        self.log = GcLog.empty()
        self.using: str | None = None
        self.region_kb: float | None = None
        # (where, KB) of each G1 region size line: a log of several JVM runs has one per run.
        self.region_sizes: list[tuple[int, float]] = []
        # The last answer of _region_kb_at and where it holds (from, to): a KB, not None.
        self.region_run: tuple[int, int, float] = (0, 0, 0.0)
        self.text = ""
        self.to_space: set[int] = set()
        # What REGION_COUNTS reads after a G1 region count line's name, by the characters
        # there (see _g1_young_sizes).
        self.region_counts: dict[str, tuple[int, int]] = {}

    def read(self, text: str) -> None:
        """Jump from keyword to keyword instead of walking every line: most lines are detail."""
        self.text = text
        # Lines that differ in their digits only are known or not alike (no rule names a
        # digit): the few shapes of a big log are checked first, the lines only if one fails.
        shapes = line_shapes(text, group_marker=GROUP_MARKER)
        if any(True for _ in _unknown_lines("\n".join(shapes))):
            self._diagnose_unknown(text)
        first_end = text.find("\n")
        first_line = text if first_end < 0 else text[:first_end]
        if first_line.startswith("["):
            self._see(first_line.rstrip())
        elif not self.log.first:
            first_decorated = text.find("\n[")
            if first_decorated >= 0:
                self._see(text[first_decorated + 1 : text.find("\n", first_decorated + 1)].rstrip())
        # A keyword (no digit in it) is in a line only if it is in the line's shape: one
        # that no shape holds is not looked for through the whole text.
        keywords = tuple(k for k in SETTING_KEYWORDS if any(k in shape for shape in shapes))
        # A region size keyword is looked for only if a line holding it can give the size
        # (a heap printout's "region size 1024K, ..." cannot): each search is a pass over
        # the text, and a line gives the size exactly when its shape does.
        keywords = tuple(
            k
            for k in keywords
            if k not in REGION_SIZE_KEYWORDS
            or any(k in shape and _gives_region_size(shape.rstrip()) for shape in shapes)
        )
        self._read_settings(text, keywords)
        self._read_timed(text, shapes)
        if any("Max Capacity: " in shape for shape in shapes):
            self._read_max_capacity(text)
        last_start = text.rfind("\n[") + 1
        if last_start > 0 or text.startswith("["):
            last_end = text.find("\n", last_start)
            self._see(text[last_start : None if last_end < 0 else last_end].rstrip())
        self._check_cut_off(text)

    def _diagnose_unknown(self, text: str) -> None:
        """A numbered diagnostic for every line no rule knows."""
        for line_no, message in _unknown_lines(text):
            self.result.diagnose(line_no, message)

    def _read_timed(self, text: str, shapes: set[str]) -> None:
        """Every timed line (see :meth:`_timed_lines`), in file order: those of the commonest
        shape (:data:`TIMED_LINE`) read through their shape's :func:`_timed_layout`, the
        others by :meth:`_timed`.

        When every timed line that a rule reads has the common shape (no rule names a digit),
        the lines are found by :data:`TIMED_HIT` alone, each once (a hit runs to its line's
        end); the others (``Concurrent Mark From Roots``: no duration) are no-ops.
        """
        timed_shapes = (
            shape
            for shape in shapes
            if shape.startswith("[")
            and any(rule.search(shape) for rule in TIMED_LINE_ENDS)
            and _timed_rule(shape.rstrip()) is not None
        )
        if all(TIMED_LINE.match(shape) for shape in timed_shapes):
            lines = _timed_hits(text)
        else:
            lines = self._timed_lines(text)
        timezone = self.context.timezone
        log = self.log
        pauses, concurrents = log.pauses, log.concurrents
        using = self.using
        to_space = self.to_space
        minutes: dict[tuple[str, str], int | None] = {}
        layouts: dict[bytes, _Layout | tuple[()]] = {}
        pause_names: dict[str, _PauseName] = {}
        phase_names: dict[str, _PhaseName] = {}
        digits_as_zero = DIGIT_BYTES_AS_ZERO
        for start, end in lines:
            line = text[start:end]
            # A line matches TIMED_LINE as its shape does, group for group (see _timed_layout).
            # (Its bytes are translated: str.translate builds a table at every call.)
            try:
                encoded = line.encode()
            except UnicodeEncodeError:  # a lone surrogate (only its own code unit)
                encoded = line.encode("utf-8", "surrogatepass")
            shape = encoded.translate(digits_as_zero)
            layout = layouts.get(shape)
            if layout is None:
                if len(layouts) > LAYOUT_CACHE_SIZE:
                    layouts.clear()
                layout = layouts[shape] = _timed_layout(shape.decode("utf-8", "surrogatepass"))
            if not layout:
                if line.startswith("["):  # (TIMED_LINE reads only a decorated line)
                    self._timed(start, line.rstrip())
                continue
            (
                minute_end,
                zone_start,
                zone_end,
                second_start,
                millis_start,
                millis_end,
                millis_scale,
                uptime_start,
                uptime_end,
                uptime_comma,
                gc_start,
                gc_end,
                generation,
                is_pause,
                name_start,
                name_end,
                duration_start,
                duration_end,
                duration_comma,
            ) = layout
            minute_key = (line[1:minute_end], line[zone_start:zone_end])
            minute_ms = minutes.get(minute_key, -1)
            if minute_ms == -1:
                # As datestamp_ms reads the stamp (None: no such date).
                whole = DATESTAMP_WHOLE.match(f"{minute_key[0]}:00{minute_key[1]}")
                minute_ms = minutes[minute_key] = (
                    None if whole is None else datestamp_ms(whole, timezone)
                )
            if minute_ms is None:
                self._timed(start, line.rstrip())
                continue
            wall_ms = float(
                minute_ms
                + int(line[second_start : second_start + 2]) * 1000
                + (int(line[millis_start:millis_end]) * millis_scale if millis_scale else 0)
            )
            uptime = line[uptime_start:uptime_end]
            uptime_s = float(uptime.replace(",", ".") if uptime_comma else uptime)
            if log.start_ms is None:
                log.see(Clock(wall_ms, uptime_s))
            duration = line[duration_start:duration_end]
            ms = float(duration.replace(",", ".") if duration_comma else duration)
            clock = Clock(wall_ms + -ms, uptime_s + -ms / 1000.0)
            gc = int(line[gc_start:gc_end])
            name_heap = line[name_start:name_end]
            if is_pause:
                # A log's pause names and heap readings repeat: each distinct one is read once.
                read = pause_names.get(name_heap)
                if read is None:
                    if len(pause_names) > NAME_CACHE_SIZE:
                        pause_names.clear()
                    read = pause_names[name_heap] = _pause_name(name_heap)
                heap_kb, kind, pause_type, cause, detail, failed = read
                if generation is not None:
                    detail = "old" if generation == "O" else "young"
                collector = kind or using or "unknown"
                if collector == "g1":
                    sizes = self._g1_young_sizes(start, gc)
                else:
                    sizes = self._young_sizes(start, gc, collector)
                young_before_kb = young_after_kb = None
                if sizes is not None:
                    young_before_kb, young_after_kb = sizes
                pauses.append(
                    Pause(
                        clock,
                        ms,
                        collector,
                        pause_type,
                        cause,
                        heap_kb[0],
                        heap_kb[1],
                        heap_kb[2],
                        young_before_kb,
                        young_after_kb,
                        gc,
                        gc in to_space or failed,
                        detail,
                    )
                )
            else:
                phase_read = phase_names.get(name_heap)
                if phase_read is None:
                    if len(phase_names) > NAME_CACHE_SIZE:
                        phase_names.clear()
                    phase_read = phase_names[name_heap] = _phase_name(name_heap)
                phase, heap_kb = phase_read
                if generation is not None:
                    phase = f"{'old' if generation == 'O' else 'young'} {phase}"
                concurrents.append(
                    Concurrent(
                        clock, ms, using or "unknown", phase, gc, heap_kb[0], heap_kb[1], heap_kb[2]
                    )
                )

    @staticmethod
    def _timed_lines(text: str) -> list[tuple[int, int]]:
        """(start, end) of every decorated line holding one of :data:`TIMED_KEYWORDS` and
        ending in an ``s`` (a duration; start lines and statistics do not), in file order."""
        found: set[tuple[int, int]] = set()
        rfind = text.rfind
        for rule in TIMED_LINE_ENDS:
            for hit in rule.finditer(text):
                start = rfind("\n", 0, hit.start()) + 1
                if text.startswith("[", start):
                    found.add((start, hit.end()))
        return sorted(found)

    def _line_no(self, position: int) -> int:
        return self.text.count("\n", 0, position) + 1

    def _check_cut_off(self, text: str) -> None:
        """A last line without its end that looks like a pause or phase but reads as none."""
        if not text or text.endswith(("\n", "\r")):
            return
        last = text.rsplit("\n", 1)[-1]
        if not last.strip():
            return
        looks_timed = (
            "] " not in last or "GC(" in last or any(key in last for key in TIMED_KEYWORDS)
        )
        if looks_timed and not any(rule.search(last) for rule in (PAUSE, CONCURRENT, STALL, CYCLE)):
            line_no = text.count("\n") + 1
            self.result.diagnose(line_no, f"last line cut off mid-line: {last[:120]!r}")

    def _see(self, line: str) -> None:
        decorated = decorations(line, self.context)
        if decorated is not None and (
            decorated[0].wall_ms is not None or decorated[0].uptime_s is not None
        ):
            self.log.see(decorated[0])

    def _clock(self, position: int, line: str) -> Clock | None:
        decorated = decorations(line, self.context)
        if decorated is None:
            self.result.diagnose(self._line_no(position), f"unreadable decorations: {line[:120]!r}")
            return None
        clock = decorated[0]
        if clock.wall_ms is not None and clock.uptime_s is not None and self.log.start_ms is None:
            self.log.see(clock)
        return clock

    def _timed(self, position: int, line: str) -> None:
        """A pause, concurrent phase, stall or cycle summary: a line ending in its duration."""
        found = _timed_rule(line)
        if found is None:
            return  # statistics or a phase without a duration: nothing to take
        handler = (self._pause, self._concurrent, self._stall, self._cycle)[found[0]]
        clock = self._clock(position, line)
        if clock is not None:
            handler(position, clock, found[1])

    def _read_settings(self, text: str, keywords: tuple[str, ...]) -> None:
        """What :meth:`_setting` takes from every decorated line holding one of ``keywords``,
        in file order, read from as few of those lines as give the same: the first collector
        and the first version are kept, so those are looked for from the start until found
        (a big log repeats them per JVM run; each search through it costs a pass over the
        text). Every region size is kept with its place: each run's pauses use their own."""
        if "] Using " in keywords:
            for start, end in _lines_holding(text, "] Using "):
                if self._setting(text[start:end].rstrip(), only=USING_RULE) == USING_RULE:
                    break
        if "] Version: " in keywords:
            for start, end in _lines_holding(text, "] Version: "):
                if self._setting(text[start:end].rstrip(), only=VERSION_RULE) == VERSION_RULE:
                    break
        if "To-space exhausted" in keywords:
            for start, end in _lines_holding(text, "To-space exhausted"):
                self._setting(text[start:end].rstrip(), only=TO_SPACE_RULE)
        region_keywords = [k for k in REGION_SIZE_KEYWORDS if k in keywords]
        if region_keywords:
            last_line = -1
            for start, end in heapq.merge(*(_lines_holding(text, k) for k in region_keywords)):
                if start == last_line:
                    continue  # a line holding both
                last_line = start
                line = text[start:end].rstrip()
                taken = self._setting(line, only=REGION_SIZE_RULE) == REGION_SIZE_RULE
                if taken and self.region_kb is not None:
                    self.region_sizes.append((start, self.region_kb))

    def _read_max_capacity(self, text: str) -> None:
        """ZGC's cycle summaries (``GC(3) Garbage Collection (Warmup) 208M(10%)->48M(2%)``)
        give the heap used but not its size: that is the ``Max Capacity`` of the heap table
        logged with each cycle (``GC(3) Max Capacity: 2048M(100%)``, gc,heap) or once at
        start (``Max Capacity: 2048M``, gc,init). Each cycle takes its own GC id's, else the
        one of the log when the log has a single size (one JVM run, or runs of one -Xmx)."""
        by_id: dict[int, float] = {}
        sizes: set[float] = set()
        for start, end in _lines_holding(text, "Max Capacity: "):
            match = MAX_CAPACITY.search(text, start, end)
            if match is None:
                continue
            kb = size_kb(match.group(2), match.group(3))
            sizes.add(kb)
            if match.group(1) is not None:
                by_id[int(match.group(1))] = kb
        if not sizes:
            return
        only = next(iter(sizes)) if len(sizes) == 1 else None
        for record in self.log.concurrents:
            if record.heap_before_kb is None or record.heap_total_kb is not None:
                continue
            own = by_id.get(record.gc_id) if record.gc_id is not None else None
            record.heap_total_kb = own if own is not None else only

    def _region_kb_at(self, position: int) -> float | None:
        """The G1 region size of the run a line at ``position`` belongs to: the last one
        printed before it, or, before the first (a log rotated mid-run), the first one."""
        sizes = self.region_sizes
        if len(sizes) <= 1:
            if not sizes:
                return None
            self.region_run = (-1, len(self.text) + 1, sizes[0][1])
            return sizes[0][1]
        low, high, kb = self.region_run
        if low <= position < high:
            return kb  # (_g1_young_sizes looks first)
        at = bisect_right(sizes, (position, math.inf))
        kb = sizes[at - 1][1] if at else sizes[0][1]
        # The answer holds from the run's size line (if any) to the next one.
        low = sizes[at - 1][0] if at else -1
        high = sizes[at][0] if at < len(sizes) else len(self.text) + 1
        self.region_run = (low, high, kb)
        return kb

    def _setting(self, line: str, only: int | None = None) -> int | None:
        """Take what the first of the setting rules that matches ``line`` reads (only when it
        is rule ``only``, if given); the rule's number, None when no rule matches."""
        match = USING.search(line)
        if match is not None and match.group(1) in USING_COLLECTORS:
            if only is None or only == USING_RULE:
                self.using = self.using or USING_COLLECTORS[match.group(1)]
            return USING_RULE
        match = VERSION.search(line)
        if match is not None:
            if only is None or only == VERSION_RULE:
                self.log.jvm_version = self.log.jvm_version or match.group(1)
            return VERSION_RULE
        match = TO_SPACE.search(line)
        if match is not None:
            if only is None or only == TO_SPACE_RULE:
                self.to_space.add(int(match.group(1)))
            return TO_SPACE_RULE
        match = REGION_SIZE.search(line)
        if match is not None:
            if only is None or only == REGION_SIZE_RULE:
                self.region_kb = size_kb(match.group(1), match.group(2))
            return REGION_SIZE_RULE
        return None

    def _young_sizes(self, position: int, gc_id: int, collector: str) -> tuple[float, float] | None:
        """Young generation KB before and after GC ``gc_id``, from its detail lines above."""
        before = after = 0.0
        found = False
        window_start = max(0, position - YOUNG_SIZE_WINDOW)
        for name in YOUNG_SIZE_LINES.get(collector, ()):
            at = self.text.rfind(f"GC({gc_id}) {name}", window_start, position)
            if at < 0:
                continue
            line = self.text[at : self.text.find("\n", at)]
            # The name says which rule can match (YOUNG_GEN names its generations).
            match = None if name in G1_REGION_LINES else YOUNG_GEN.match(line)
            if match is not None:
                return size_kb(match.group(2), match.group(3)), size_kb(
                    match.group(4), match.group(5)
                )
            regions = G1_REGIONS.match(line) if name in G1_REGION_LINES else None
            region_kb = self._region_kb_at(position)
            if regions is not None and region_kb is not None:
                found = True
                before += int(regions.group(3)) * region_kb
                after += int(regions.group(4)) * region_kb
        return (before, after) if found else None

    def _g1_young_sizes(self, position: int, gc_id: int) -> tuple[float, float] | None:
        """:meth:`_young_sizes` of a G1 pause, in fewer steps (its commonest question)."""
        low, high, region_kb = self.region_run
        if not low <= position < high:
            # (a run's pauses are asked about one after another)
            found_kb = self._region_kb_at(position)
            if found_kb is None:
                return None  # region counts without the region's size say no size
            region_kb = found_kb
        text = self.text
        window_start = position - YOUNG_SIZE_WINDOW if position > YOUNG_SIZE_WINDOW else 0
        before = after = 0.0
        found = False
        counts_read = self.region_counts
        for name in G1_YOUNG_SIZE_LINES:
            line_start = f"GC({gc_id}) {name}"
            at = text.rfind(line_start, window_start, position)
            if at >= 0:
                # The counts are on the line (a line break precedes the pause's line, and
                # neither a digit nor "->" is one): what G1_REGIONS reads after the name,
                # REGION_COUNTS there. What it reads is known by the characters it looks
                # at: to the end of its match and one more (where a number ends); a match
                # inside REGION_COUNTS_SPAN characters is kept by them, any other is read
                # each time.
                at += len(line_start)
                key = text[at : at + REGION_COUNTS_SPAN]
                counts = counts_read.get(key)
                if counts is None:
                    regions = REGION_COUNTS.match(text, at)
                    if regions is not None:
                        counts = (int(regions.group(1)), int(regions.group(2)))
                        if regions.end() - at < len(key):
                            if len(counts_read) > NAME_CACHE_SIZE:
                                counts_read.clear()
                            counts_read[key] = counts
                if counts is not None:
                    found = True
                    before += counts[0] * region_kb
                    after += counts[1] * region_kb
        return (before, after) if found else None

    def _stall(self, position: int, clock: Clock, match: re.Match[str]) -> None:
        duration = number(match.group(3))
        kind = match.group(1).lower()
        self.log.stalls.append(Stall(clock.shifted(-duration), duration, kind, match.group(2)))

    def _pause(self, position: int, clock: Clock, match: re.Match[str]) -> None:
        gc_id = int(match.group(1))
        duration = number(match.group(10))
        name = match.group(3)
        kind, pause_type, cause, detail = _classify_pause(name)
        generation = match.group(2)
        if generation is not None:
            detail = "old" if generation == "O" else "young"
        pause = Pause(
            clock.shifted(-duration),
            duration,
            kind or self.using or "unknown",
            pause_type,
            cause,
            gc_id=gc_id,
            detail=detail,
            to_space_exhausted=gc_id in self.to_space or "Evacuation Failure" in name,
        )
        if match.group(4) is not None:
            pause.heap_before_kb = size_kb(match.group(4), match.group(5))
            pause.heap_after_kb = size_kb(match.group(6), match.group(7))
            pause.heap_total_kb = size_kb(match.group(8), match.group(9))
        young = self._young_sizes(position, gc_id, pause.collector)
        if young is not None:
            pause.young_before_kb, pause.young_after_kb = young
        self.log.pauses.append(pause)

    def _concurrent(self, position: int, clock: Clock, match: re.Match[str]) -> None:
        duration = number(match.group(10))
        phase = match.group(3).lower()
        if match.group(2) is not None:
            phase = f"{'old' if match.group(2) == 'O' else 'young'} {phase}"
        record = Concurrent(
            clock.shifted(-duration), duration, self.using or "unknown", phase, int(match.group(1))
        )
        if match.group(4) is not None:
            record.heap_before_kb = size_kb(match.group(4), match.group(5))
            record.heap_after_kb = size_kb(match.group(6), match.group(7))
            record.heap_total_kb = size_kb(match.group(8), match.group(9))
        self.log.concurrents.append(record)

    def _cycle(self, position: int, clock: Clock, match: re.Match[str]) -> None:
        duration = None
        if match.group(8) is not None:
            duration = number(match.group(8)) * (1.0 if match.group(9) == "ms" else 1000.0)
        start = clock if duration is None else clock.shifted(-duration)
        record = Concurrent(
            start, duration, self.using or "zgc", match.group(2).lower(), int(match.group(1))
        )
        record.heap_before_kb = size_kb(match.group(4), match.group(5))
        record.heap_after_kb = size_kb(match.group(6), match.group(7))
        self.log.concurrents.append(record)


# The rules of a timed line, tried in this order; each names its word, and a line without
# the word is not searched (a concurrent phase's line is never searched for a pause).
TIMED_RULES = (
    ("Pause ", PAUSE),
    ("Concurrent ", CONCURRENT),
    (" Stall (", STALL),
    (" Collection (", CYCLE),
)


USING_RULE, VERSION_RULE, TO_SPACE_RULE, REGION_SIZE_RULE = range(4)
REGION_SIZE_KEYWORDS = ("egion size", "egion Size")


def _gives_region_size(line: str) -> bool:
    """Whether :meth:`_Reader._setting` takes a region size from ``line`` (with ``only``
    REGION_SIZE_RULE): no earlier rule matches it and REGION_SIZE does. No rule names a
    digit (and no collector USING knows has one): a line's shape answers as the line."""
    match = USING.search(line)
    if match is not None and match.group(1) in USING_COLLECTORS:
        return False
    if VERSION.search(line) is not None or TO_SPACE.search(line) is not None:
        return False
    return REGION_SIZE.search(line) is not None


def _lines_holding(text: str, keyword: str, from_end: bool = False) -> Iterator[tuple[int, int]]:
    """(start, end) of each decorated line holding ``keyword``, in file order or, with
    ``from_end``, the last first; found one at a time, as they are taken."""
    find, rfind = text.find, text.rfind
    length = len(text)
    at = rfind(keyword) if from_end else find(keyword)
    while at >= 0:
        start = rfind("\n", 0, at) + 1
        end = find("\n", at)
        if end < 0:
            end = length
        if text.startswith("[", start):
            yield start, end
        # (a keyword holds no line break: the next one is in another line)
        at = rfind(keyword, 0, start) if from_end else find(keyword, end)


# What _read_timed reads where, in a line of a shape (_timed_layout); empty: not of the
# common shape, read by _Reader._timed. Positions in the line: the minute's end, the zone,
# the second, the millis (start, end, scale; scale 0: none), the uptime (start, end, decimal
# comma), the GC id, the generation, a pause (or a concurrent phase), the name with its
# heap, the duration (start, end, decimal comma).
_Layout = tuple[
    int, int, int, int, int, int, int, int, int, bool, int, int, str | None, bool, int, int,
    int, int, bool,
]  # fmt: skip
# Distinct shapes of timed lines _read_timed keeps the layout of at most (then starts again).
LAYOUT_CACHE_SIZE = 4096
_HeapKb = tuple[float, float, float] | tuple[None, None, None]
_NO_HEAP: Final[tuple[None, None, None]] = (None, None, None)
# A pause's name with its heap read: heap KB, then _classify_pause's collector, type, cause
# and detail, and whether the name says the evacuation failed.
_PauseName = tuple[_HeapKb, str | None, str, str | None, str | None, bool]
# A concurrent phase's name with its heap read: the phase (lower case) and heap KB.
_PhaseName = tuple[str, _HeapKb]
# How many characters after a G1 region count line's name key what REGION_COUNTS reads
# there ("24->0(26)": most counts end well inside).
REGION_COUNTS_SPAN = 12
# Distinct names with their heap (``Young (Normal) (G1 Evacuation Pause) 24M->11M(256M)``)
# _read_timed keeps read at most (then starts again).
NAME_CACHE_SIZE = 65536


def _timed_hits(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line :data:`TIMED_HIT` finds, in file order; an undecorated
    one is left for the reader to skip (one TIMED_LINE reads is decorated)."""
    rfind = text.rfind
    return [(rfind("\n", 0, hit.start()) + 1, hit.end()) for hit in TIMED_HIT.finditer(text)]


def _timed_layout(shape: str) -> _Layout | tuple[()]:
    """Where the groups of :data:`TIMED_LINE` are in a line of ``shape``, or () when the
    line is not one _read_timed reads (no match; a concurrent phase naming a pause, which
    PAUSE may match further on). The rule names no digit and tells none from another: a
    line matches as its shape does, at the same places."""
    match = TIMED_LINE.match(shape)
    if match is None or (match.group(8) == "Concurrent" and "Pause " in match.group(9)):
        return ()
    millis_start, fraction_end = match.span(3)
    if millis_start < 0:
        millis_start = millis_end = millis_scale = 0
    else:
        # As datestamp_ms reads it: the fraction's first three digits, padded with zeros.
        millis_end = min(fraction_end, millis_start + 3)
        millis_scale = 10 ** (3 - (millis_end - millis_start))
    return (
        match.end(1),
        *match.span(4),
        match.start(2),
        millis_start,
        millis_end,
        millis_scale,
        *match.span(5),
        "," in match.group(5),
        *match.span(6),
        match.group(7),
        match.group(8) == "Pause",
        *match.span(9),
        *match.span(10),
        "," in match.group(10),
    )


def _name_and_heap(name: str) -> tuple[str, _HeapKb]:
    """A timed line's name without its heap (``24M->11M(256M)``, the last word) and the
    heap's before, after and total KB; the name whole and no heap when the last word is
    none (PAUSE's lazy name: the heap is read when it can be)."""
    words = name.rpartition(" ")
    if words[0] and "->" in words[2]:
        heap = HEAP_WORD.fullmatch(words[2])
        if heap is not None:
            before, before_unit, after, after_unit, total, total_unit = heap.groups()
            kb = (
                size_kb(before, before_unit),
                size_kb(after, after_unit),
                size_kb(total, total_unit),
            )
            return words[0], kb
    return name, _NO_HEAP


def _pause_name(name_heap: str) -> _PauseName:
    name, heap_kb = _name_and_heap(name_heap)
    return (heap_kb, *_classify_pause(name), "Evacuation Failure" in name)


def _phase_name(name_heap: str) -> _PhaseName:
    name, heap_kb = _name_and_heap(name_heap)
    return name.lower(), heap_kb


def _timed_rule(line: str) -> tuple[int, re.Match[str]] | None:
    """The first of :data:`TIMED_RULES` that reads ``line`` (its index and match)."""
    for index, (word, rule) in enumerate(TIMED_RULES):
        if word in line:
            match = rule.search(line)
            if match is not None:
                return index, match
    return None


def _unknown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, message) of every line no rule knows, decorated or not."""
    counted_to, line_no = 0, 1
    for bad in UNKNOWN_LINE.finditer("\n" + text):
        line_no += text.count("\n", counted_to, bad.start())
        counted_to = bad.start()
        if bad.group(2) is not None:
            if bad.group(2).strip():
                yield line_no, f"not a unified GC log line: {bad.group(2)[:120]!r}"
        else:
            decorations = bad.group(0)[: len(bad.group(0)) - len(bad.group(1))]
            if DETAIL_LEVEL.search(decorations) and GC_TAGS.search(decorations):
                continue  # debug / trace detail of a gc tag: a no-op
            yield line_no, f"unrecognised GC log line: {bad.group(1)[:120]!r}"


_CLASSIFIED: dict[str, tuple[str | None, str, str | None, str | None]] = {}


def _classify_pause(name: str) -> tuple[str | None, str, str | None, str | None]:
    """:func:`_classify_pause_name`, once per distinct name (a log has a few dozen)."""
    found = _CLASSIFIED.get(name)
    if found is None:
        if len(_CLASSIFIED) > 4096:
            _CLASSIFIED.clear()
        found = _CLASSIFIED[name] = _classify_pause_name(name)
    return found


def _classify_pause_name(name: str) -> tuple[str | None, str, str | None, str | None]:
    """``Young (Normal) (G1 Evacuation Pause)`` -> (collector or None, type, cause, detail)."""
    base, _, rest = name.partition(" (")
    groups = [part.strip("() ") for part in ("(" + rest).split(") (")] if rest else []
    base = base.strip()
    lowered = base.lower()
    if lowered in ("mark start", "mark end", "relocate start"):
        return "zgc", "pause_" + lowered.replace(" ", "_"), None, (groups[0] if groups else None)
    if lowered.startswith(("init ", "final ")) or lowered.startswith("degenerated"):
        pause_type = (
            "degenerated" if lowered.startswith("degenerated") else lowered.replace(" ", "_")
        )
        return "shenandoah", pause_type.replace("__", "_"), None, (groups[0] if groups else None)
    collector = "g1" if any(marker in name for marker in G1_MARKERS) else None
    kinds = [group for group in groups if group in G1_YOUNG_KINDS]
    causes = [group for group in groups if group not in G1_YOUNG_KINDS]
    cause = causes[-1] if causes else None
    detail = None
    if lowered == "young":
        pause_type = "mixed" if "Mixed" in kinds else "young"
        if "Concurrent Start" in kinds:
            detail = "concurrent_start"
    elif lowered == "initial mark":
        pause_type = "initial_mark"
    else:
        pause_type = lowered.replace(" ", "_")
    return collector, pause_type, cause, detail


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    reader = _Reader(context, result)
    reader.read(text)
    # The events are built after the text is gone when the registry handed it over
    # (``Decoded.take_text``): a big log's events are about its text's size again.
    del text
    reader.text = ""
    log = reader.log
    log.collector = reader.using or next(
        (p.collector for p in log.pauses if p.collector != "unknown"), None
    )
    if log.collector is not None:
        for pause in log.pauses:
            if pause.collector == "unknown":
                pause.collector = log.collector
        for phase in log.concurrents:
            if phase.collector == "unknown":
                phase.collector = log.collector
        # G1 in JDK 9/10 names its concurrent-start pause "Pause Initial Mark".
        if log.collector == "g1":
            for pause in log.pauses:
                if pause.type == "initial_mark":
                    pause.type, pause.detail = "young", "concurrent_start"
    if not log.pauses and not log.concurrents and log.first is None:
        result.diagnose(0, "no unified GC log lines found")
        return result
    return build_result(KIND, log, context, result)
