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
# A keyword, then the rest of its line when that ends in an "s" (a duration's unit).
TIMED_LINE_ENDS = tuple(
    re.compile(re.escape(keyword) + r"[^\n]*s\r?(?![^\n])") for keyword in TIMED_KEYWORDS
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
# Where such lines are: a literal ") " starts the search (fast), the hit runs to the line's end.
TIMED_HIT = re.compile(r"\) (?:[yYO]: )?(?:Pause|Concurrent) [^\n]*ms\r?(?![^\n])")
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
        self.text = ""
        self.to_space: set[int] = set()

    def read(self, text: str) -> None:
        """Jump from keyword to keyword instead of walking every line: most lines are detail."""
        self.text = text
        # Lines that differ in their digits only are known or not alike (no rule names a
        # digit): the few shapes of a big log are checked first, the lines only if one fails.
        shapes = line_shapes(text)
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
        self._read_settings(text, keywords)
        self._read_timed(text, shapes)
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
        shape (:data:`TIMED_LINE`) read by one match each, the others by :meth:`_timed`.

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
            rfind = text.rfind
            lines: list[tuple[int, int]] = []
            for hit in TIMED_HIT.finditer(text):
                start = rfind("\n", 0, hit.start()) + 1
                if text.startswith("[", start):
                    lines.append((start, hit.end()))
        else:
            lines = self._timed_lines(text)
        match_line = TIMED_LINE.match
        timezone = self.context.timezone
        log = self.log
        pauses, concurrents = log.pauses, log.concurrents
        using = self.using
        to_space = self.to_space
        minutes: dict[tuple[str, str], int | None] = {}
        heap_word = HEAP_WORD.fullmatch
        heaps: dict[str, tuple[float, float, float] | None] = {}
        for start, end in lines:
            m = match_line(text, start, end)  # \Z: at the line's end
            if m is None:
                self._timed(start, text[start:end].rstrip())
                continue
            minute, second, fraction, zone, uptime, gc_id, generation, word, name, duration = (
                m.groups()
            )
            if word == "Concurrent" and "Pause " in name:
                self._timed(start, text[start:end].rstrip())  # PAUSE may match it further on
                continue
            minute_ms = minutes.get((minute, zone), -1)
            if minute_ms == -1:
                # As datestamp_ms reads the stamp (None: no such date).
                whole = DATESTAMP_WHOLE.match(f"{minute}:00{zone}")
                minute_ms = minutes[(minute, zone)] = (
                    None if whole is None else datestamp_ms(whole, timezone)
                )
            if minute_ms is None:
                self._timed(start, text[start:end].rstrip())
                continue
            wall_ms = float(
                minute_ms + int(second) * 1000 + int((fraction or "0").ljust(3, "0")[:3])
            )
            heap_kb = None
            words = name.rpartition(" ")
            if words[0] and "->" in words[2]:
                # A log's heap readings repeat: each distinct one is read once.
                heap_kb = heaps.get(words[2], _UNREAD)
                if heap_kb is _UNREAD:
                    if len(heaps) > HEAP_CACHE_SIZE:
                        heaps.clear()
                    heap_kb = heaps[words[2]] = _heap_kb(heap_word(words[2]))
                if heap_kb is not None:
                    name = words[0]
            uptime_s = float(uptime) if "," not in uptime else float(uptime.replace(",", "."))
            if log.start_ms is None:
                log.see(Clock(wall_ms, uptime_s))
            ms = float(duration) if "," not in duration else float(duration.replace(",", "."))
            clock = Clock(wall_ms + -ms, uptime_s + -ms / 1000.0)
            gc = int(gc_id)
            before_kb = after_kb = total_kb = None
            if heap_kb is not None:
                before_kb, after_kb, total_kb = heap_kb
            if word == "Pause":
                kind, pause_type, cause, detail = _classify_pause(name)
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
                        before_kb,
                        after_kb,
                        total_kb,
                        young_before_kb,
                        young_after_kb,
                        gc,
                        gc in to_space or "Evacuation Failure" in name,
                        detail,
                    )
                )
            else:
                phase = name.lower()
                if generation is not None:
                    phase = f"{'old' if generation == 'O' else 'young'} {phase}"
                concurrents.append(
                    Concurrent(
                        clock, ms, using or "unknown", phase, gc, before_kb, after_kb, total_kb
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
        region_keywords = [k for k in ("egion size", "egion Size") if k in keywords]
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

    def _region_kb_at(self, position: int) -> float | None:
        """The G1 region size of the run a line at ``position`` belongs to: the last one
        printed before it, or, before the first (a log rotated mid-run), the first one."""
        sizes = self.region_sizes
        if len(sizes) <= 1:
            return sizes[0][1] if sizes else None
        at = bisect_right(sizes, (position, math.inf))
        return sizes[at - 1][1] if at else sizes[0][1]

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
        region_kb = self._region_kb_at(position)
        if region_kb is None:
            return None  # region counts without the region's size say no size
        text = self.text
        window_start = position - YOUNG_SIZE_WINDOW if position > YOUNG_SIZE_WINDOW else 0
        before = after = 0.0
        found = False
        prefix = f"GC({gc_id}) "
        for name in G1_YOUNG_SIZE_LINES:
            line_start = prefix + name
            at = text.rfind(line_start, window_start, position)
            if at >= 0:
                # The counts are on the line (a line break precedes the pause's line, and
                # neither a digit nor "->" is one): what G1_REGIONS reads after the name.
                regions = REGION_COUNTS.match(text, at + len(line_start))
                if regions is not None:
                    found = True
                    before += int(regions.group(1)) * region_kb
                    after += int(regions.group(2)) * region_kb
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


# A heap reading not read yet (told by identity, never a reading).
_UNREAD: Final[tuple[float, float, float]] = (-1.0, -1.0, -1.0)
# Distinct heap readings (``24M->11M(256M)``) _read_timed keeps read at most (then starts again).
HEAP_CACHE_SIZE = 65536


def _heap_kb(heap: re.Match[str] | None) -> tuple[float, float, float] | None:
    """Before, after and total KB of a :data:`HEAP_WORD` match; None without one."""
    if heap is None:
        return None
    before, before_unit, after, after_unit, total, total_unit = heap.groups()
    return size_kb(before, before_unit), size_kb(after, after_unit), size_kb(total, total_unit)


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
