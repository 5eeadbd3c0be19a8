"""JDK 6/7/8 GC logs (before unified logging).

Produced by ``java -XX:+PrintGCDetails [-XX:+PrintGCDateStamps] [-XX:+PrintGCTimeStamps]
[-XX:+PrintGCID] [-XX:+PrintGCApplicationStoppedTime] [-XX:+PrintTenuringDistribution]
[-XX:+PrintHeapAtGC] [-XX:+UseGCLogFileRotation] -Xloggc:gc.log`` with Serial
(DefNew/Tenured), Parallel (PSYoungGen/ParOldGen), CMS (ParNew + CMS phases), G1 and the
JDK 8 Shenandoah backport. Sample lines::

    2016-04-14T22:37:25.036+0200: 436.981: [GC (Allocation Failure) 436.981: [ParNew: 224544K->9414K(245760K), 0.0053560 secs] 380117K->165822K(791936K), 0.0055366 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
    2022-08-01T17:16:33.198+0000: 0.197: #2: [GC (CMS Initial Mark) [1 CMS-initial-mark: 15645K(21888K)] 18533K(31680K), 0.0010369 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
    2022-08-01T17:16:33.213+0000: 0.212: #2: [CMS-concurrent-mark: 0.005/0.013 secs] [Times: user=0.01 sys=0.01, real=0.02 secs]
    0.065: [GC pause (G1 Evacuation Pause) (young), 0.0039925 secs]
       [Eden: 1024.0K(1024.0K)->0.0B(1024.0K) Survivors: 0.0B->1024.0K Heap: 1024.0K(2048.0K)->565.8K(2048.0K)]

A record may span lines (tenuring distribution, G1 ergonomics or a CMS concurrent phase
printed in the middle of it); it is complete when its square brackets balance. The record's
own duration is its last ``, N secs]``; the whole-heap transition is the last ``A->B(C)``
not written after a generation name (``Name: a->b(c)``). Decimal commas (``16576,607``)
and Windows line endings are read as well.

Events, series and facts are those of :mod:`rootline.parsers.gc_common`, plus facts
``jvm.version`` and ``jvm.command_line`` from the JVM banner. A shutdown summary (heap
printout, Shenandoah ``GC STATISTICS``) is not a pause. Known line shapes (rule -> handler):

=====================  =============================================  ==================
rule                   matches                                        handler
=====================  =============================================  ==================
``STAMP``              ``<datestamp>: <uptime>: #<id>: `` prefix       clock of a line
``RECORD_START``       ``[GC``, ``[Full GC`` after the prefix          pause record
``UNSTAMPED_RECORD``   ``[GC 1234K->567K(8192K), 0.01 secs]`` (1.3/1.4) pause at the last clock
``SHENANDOAH_PAUSE``   ``[Pause Init Mark, 1.058 ms]``                 pause (Shenandoah)
``SHENANDOAH_NAME``    ``[Pause Final MarkTotal ...`` over lines (8u171)  pause (Shenandoah)
``CMS_CONCURRENT``     ``[CMS-concurrent-mark: 0.005/0.013 secs]``     concurrent phase
``G1_CONCURRENT``      ``[GC concurrent-mark-end, 0.0123 secs]``       concurrent phase
``G1_HEAP``            ``[Eden: ... Heap: 7168.0K(32768.0K)->...]``    heap of last pause
``RECORD_DURATION``    last ``, 0.0055366 secs]``                      pause duration
``HEAP_TRANSITION``    ``380117K->165822K(791936K)``                   pause heap
``YOUNG_TRANSITION``   ``[ParNew: 224544K->9414K(245760K)``            young gen sizes
``VERSION``            ``JRE (1.8.0_45-b15)``                          ``jvm.version``
``HEAP_BLOCK``         PrintHeapAtGC inside a record (the scavenge of  skipped
                       ``-XX:+CMSScavengeBeforeRemark``)
no-op                  ``INDENTED_KNOWN`` (G1 per-phase detail, heap   skipped
                       printouts, worker notes), ``SHENANDOAH_NOTES``,
                       ``[Pause X, start]``, tenuring, ergonomics,
                       application stopped/time, rotation headers,
                       shutdown statistics (after ``Heap``, ``GC STATISTICS``)
=====================  =============================================  ==================

Any other line is a diagnostic with its line number. A concurrent phase's line that ends
inside an open record (``[Full GC 23.859: [CMS CMS: abort preclean due to time`` then
``23.859: [CMS-concurrent-abortable-preclean: ...]``) is read as that phase and the record
stays open; a record whose brackets never balance is kept when it has its duration (and
diagnosed), so the longest pause of a log is never the one lost. With
``-XX:+CMSScavengeBeforeRemark`` the scavenge runs inside the remark's pause: one pause, of
the remark's duration, ``detail: scavenge_before_remark``.
"""

from __future__ import annotations

import re

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.gc_common import (
    DATESTAMP,
    KB_PER_UNIT,
    Clock,
    Concurrent,
    GcLog,
    Pause,
    build_result,
    datestamp_ms,
    line_shapes,
    number,
    size_kb,
    unified_line_share,
)

KIND = "gc_legacy"

_NUM = r"\d+(?:[.,]\d+)?"
STAMP = re.compile(r"\s*(?:(" + DATESTAMP.pattern + r"): )?(?:(\d+[.,]\d+): )?(?:#(\d+): )?")
RECORD_START = ("[GC", "[Full GC")
CAUSE = re.compile(r"^\[(?:Full GC|GC)(?: pause)? ?\(((?:[^()]|\([^()]*\))*)\)")
RECORD_DURATION = re.compile(r".*, (\d+[.,]\d+) secs\]", re.DOTALL)
HEAP_TRANSITION = re.compile(
    r"(?<!: )(?<![\d.,])(" + _NUM + r")([BKMG])->(" + _NUM + r")([BKMG])\((" + _NUM + r")([BKMG])\)"
)
# CMS initial mark / remark report the heap's occupancy only: "] 18533K(31680K), 0.001 secs]".
HEAP_OCCUPANCY = re.compile(r"\] (" + _NUM + r")([BKMG])\((" + _NUM + r")([BKMG])\), ")
YOUNG_TRANSITION = re.compile(
    r"\[(?:ParNew|DefNew|PSYoungGen|ASParNew)[^:\]]*: ("
    + _NUM
    + r")([BKMG])->("
    + _NUM
    + r")([BKMG])"
)
OLD_GEN_IN_YOUNG_RECORD = re.compile(
    r"\[(?:Tenured|CMS)[\d:]|concurrent mode (?:failure|interrupted)"
)
G1_HEAP = re.compile(
    r"\[Eden: ("
    + _NUM
    + r")([BKMG])\("
    + _NUM
    + r"[BKMG]\)->("
    + _NUM
    + r")([BKMG])\("
    + _NUM
    + r"[BKMG]\) Survivors: ("
    + _NUM
    + r")([BKMG])->("
    + _NUM
    + r")([BKMG]) Heap: ("
    + _NUM
    + r")([BKMG])\("
    + _NUM
    + r"[BKMG]\)->("
    + _NUM
    + r")([BKMG])\(("
    + _NUM
    + r")([BKMG])\)"
)
CMS_CONCURRENT = re.compile(
    r"\[CMS-concurrent-([\w-]+?)(?:-start\]|: (" + _NUM + r")/(" + _NUM + r") secs\])"
)
G1_CONCURRENT = re.compile(
    r"\[GC concurrent-([\w-]+?)(?:-start\]|-end|-abort\]|, |\])(?:.*?(\d+[.,]\d+) secs\])?"
)
SHENANDOAH_PAUSE = re.compile(
    r"\[Pause ([^,\[\]]*?)(?: ("
    + _NUM
    + r")([BKMG])->("
    + _NUM
    + r")([BKMG])\(("
    + _NUM
    + r")([BKMG])\))?, ("
    + _NUM
    + r") ms\]"
)
SHENANDOAH_CONCURRENT = re.compile(
    r"\[Concurrent ([^,\[\]]*?)(?: " + _NUM + r"[BKMG]->.*?)?, (" + _NUM + r") ms\]"
)
SHENANDOAH_DURATION = re.compile(r", (" + _NUM + r") ms\]\s*$")
SHENANDOAH_NAME = re.compile(
    r"\[(Pause|Concurrent) ((?:[A-Z][a-z]+|[a-z]+)(?: (?:[A-Z][a-z]+|[a-z]+))*)(?=Total|[ ,(\d]|$)"
)
EMBEDDED_CONCURRENT = re.compile(r"(?:(\d+[.,]\d+): )?(\[CMS-concurrent-[^\]]*\])")
INLINE_UPTIME = re.compile(r"(\d+[.,]\d+): \[CMS-concurrent-")
VERSION = re.compile(r"JRE \(([^)]+)\)")
FLAG_COLLECTORS = (
    ("-XX:+UseG1GC", "g1"),
    ("-XX:+UseConcMarkSweepGC", "cms"),
    ("-XX:+UseShenandoahGC", "shenandoah"),
    ("-XX:+UseParallelOldGC", "parallel"),
    ("-XX:+UseParallelGC", "parallel"),
    ("-XX:+UseSerialGC", "serial"),
)
NAME_COLLECTORS = (
    ("ParNew", "cms"),
    ("CMS", "cms"),
    ("PSYoungGen", "parallel"),
    ("ParOldGen", "parallel"),
    ("PSOldGen", "parallel"),
    ("DefNew", "serial"),
    ("Tenured", "serial"),
    ("GC pause (", "g1"),
    ("GC remark", "g1"),
    ("GC cleanup", "g1"),
)
# The end of a run of indented lines: a line break before a line that is not indented.
RUN_END = re.compile(r"\n(?![ \t])")
# What an indented line outside a record is read for.
RUN_MARKERS = ("[Eden:", "[CMS-concurrent-")
# The commonest stamped lines of a G1 log whole, to their line break, read by one match
# where _stamped takes several steps (see _Reader._fast_line). The stamp is atomic: when the
# line matches, STAMP (greedy, the same pieces) read it alike. A point decimal only (float()
# reads it), ASCII digits only (int() reads them as \d does). Groups: 1-6 the stamp
# (datestamp's minute, its second, millis, zone; uptime; GC id), then one of
# - 7: a young or mixed pause's head, bracket-free parentheses: "[GC pause (G1 Evacuation
#   Pause) (young)";
# - 8: "[GC remark", its sub-phases (named here, stamped with no letter but T and Z) not read;
# - 9-14: "[GC cleanup" with its heap "A->B(C)" (number and unit of each);
# - 15: a concurrent phase's name and ending: "[GC concurrent-mark-end", "...-start]";
# and 16 the duration.
_FAST_SIZE = r"(\d+(?:\.\d+)?)([BKMG])"
FAST_LINE = re.compile(
    r"(?>(?:(\d{4}-\d\d-\d\dT\d\d:\d\d):(\d\d)\.(\d{3})((?:[+-]\d\d:?\d\d|Z)?): )?"
    r"(\d+\.\d+): (?:#(\d+): )?)"
    r"(?:(\[GC pause \([^()\[\]>\r\n]*\)(?: \([^()\[\]>\r\n]*\))*)"
    r"|(\[GC remark)(?: [-\d.:+TZ# ]*\[(?:Finalize Marking|GC ref-proc|Unloading), \d+\.\d+ secs\])*"
    r"|\[GC cleanup " + _FAST_SIZE + "->" + _FAST_SIZE + r"\(" + _FAST_SIZE + r"\)"
    r"|\[GC concurrent-([a-z]+(?:-[a-z]+)*))"
    r"(?:, (\d+\.\d+) secs)?\]\r?(?:\n|\Z)",
    re.ASCII,
)
# Where a record line's shape starts (line_shapes): a stamp's first digit after a line break.
RECORD_LINE_START = "\n0"
DATESTAMP_WHOLE = re.compile(DATESTAMP.pattern + r"\Z")
# Distinct heap lines the fast path keeps read at most (then starts again).
HEAP_CACHE_SIZE = 4096
# Lines that may sit inside a multi-line record without belonging to it.
INTERLEAVED_NOISE = ("- age", "Desired survivor", "G1Ergonomics")
# A PrintHeapAtGC block, also printed inside a CMS remark around its scavenge
# (-XX:+CMSScavengeBeforeRemark): "{Heap before GC invocations=22 (full 13):", the
# generations, "Heap after GC invocations=23 (full 13):", "}".
HEAP_BLOCK = re.compile(
    r"(?:\{?Heap (?:before|after) [Gg][Cc] invocations=|\}\s*$|\s+[A-Za-z][\w -]*? +(?:total|used|\d+K,))"
)
# Indented lines kept for nothing (G1 per-phase times, heap printouts, Shenandoah worker
# notes, string deduplication statistics, tenuring); any other indented line is a diagnostic.
INDENTED_KNOWN = re.compile(
    r"\s+(?:\[|[A-Za-z][\w -]*? +(?:total|used|\d+K,)|region size|\d+[.,]\d+: \[G1Ergonomics"
    r"|CMS: abort preclean|- age|Using \d+ of \d+ workers|Pacer for|Adaptive CSet"
    r"|Collectable Garbage|Immediate Garbage|Good progress|Bad progress|Failed to allocate"
    r"|Cancelling GC|No shared spaces|[\w :]+ += |and post-safepoint|[A-Z][\w ]+: \d)"
)
# Unstamped notes of the JDK 8 Shenandoah backport between its records.
SHENANDOAH_NOTES = (
    "Regions:",
    "Humongous object threshold",
    "Max TLAB size",
    "GC threads:",
    "Reference processing:",
    "Heuristics ergonomically",
    "Shenandoah heuristics",
    "Pacer for",
    "Initialize Shenandoah heap",
    "Trigger:",
    "Free:",
    "Evacuation Reserve",
    "Capacity:",
    "Concurrent marking triggered",
    "Adjusting free threshold",
    "Predicted cset threshold",
    "Uncommitted ",
    "Periodic GC triggered",
    "Immediate Garbage",
    "Garbage to be collected",
    "Live objects to be evacuated",
    "Live/garbage ratio",
    "Total Garbage",
    "Heap region size",
    "Region size",
    "Number of regions",
    "Parallel GC threads",
    "Concurrent GC threads",
    "Parallel reference processing",
    "Initialize Shenandoah",
    "Cancelling",
)
# JDK 1.3/1.4 -verbose:gc without time stamps: "[GC 1234K->567K(8192K), 0.0123 secs]".
UNSTAMPED_RECORD = re.compile(r"\[(?:Full GC|GC) ?[\d(\[]")
OLD_VERBOSE_GC = re.compile(r"^\[(?:Full GC|GC) \d+K->\d+K\(\d+K\), \d+[.,]\d+ secs\]", re.M)
# Lines after which unstamped lines are a shutdown summary (heap printout, statistics).
SUMMARY_OPENERS = ("Heap", "GC STATISTICS", "Cancelling concurrent GC", "/proc/meminfo")
HEADER_NOOPS = (
    "Memory:",
    "{Heap",
    "Heap",
    "}",
    "- age",
    "Desired survivor",
    "[Times",
    "Total time for which",
)
LEGACY_SIGNATURES = (
    "[GC (",
    "[GC pause",
    "[Full GC",
    "[ParNew",
    "[PSYoungGen",
    "[DefNew",
    "CMS-concurrent-",
    "[GC concurrent-",
    "[GC [PSYoungGen",
    "[GC remark",
    "GC log file created",
    "[Pause Init Mark",
    "application threads were stopped",
)


def sniff(head: str) -> float:
    """Legacy GC records (``[GC (``, ``[Full GC``, ``[ParNew`` ...) or a JDK 8 Shenandoah summary."""
    if unified_line_share(head) > 0.5:
        return 0.0
    hits = sum(head.count(signature) for signature in LEGACY_SIGNATURES)
    hits += 2 * len(OLD_VERBOSE_GC.findall(head, 0, 65536))
    if hits >= 2 or (hits and "CommandLine flags:" in head):
        return 0.95
    if "GC STATISTICS" in head and "Shenandoah" in head:
        return 0.85
    if hits:
        return 0.6
    return 0.0


class _Reader:
    """Line-by-line state: the open multi-line record and what the log revealed so far."""

    def __init__(self, context: ParseContext, result: ParseResult) -> None:
        self.context = context
        self.result = result
        self.log = GcLog.empty()
        self.flag_collector: str | None = None
        self.seen_collector: str | None = None
        self.record_parts: list[str] = []
        self.record_depth = 0
        self.record_clock = Clock(None, None)
        self.record_line = 0
        self.record_gc_id: int | None = None
        self.in_summary = False
        # Epoch ms of a datestamp's minute, by its minute and zone (see clock).
        self.minutes: dict[tuple[str, str | None, str | None, str | None, bool], int] = {}
        # What the fast path (_fast_line) learned: a minute's epoch ms by its minute and zone
        # as FAST_LINE writes them (None: no such date); the pause a record's head names
        # (a model: all but its clock, duration and GC id); a phase's name by its own (None: an untimed line); a G1 heap
        # line's sizes by the line from its "[Eden:" (None: not a heap line).
        self.fast_minutes: dict[tuple[str, str], int | None] = {}
        self.fast_pauses: dict[str, Pause] = {}
        self.fast_phases: dict[tuple[str, bool], str | None] = {}
        self.fast_heaps: dict[str, tuple[float, float, float, float, float] | None] = {}

    def clock(self, match: re.Match[str]) -> Clock | None:
        datestamp = match.group(1)
        uptime = match.group(12)
        if datestamp is None and uptime is None:
            return None
        wall = None
        if datestamp is not None:
            # As datestamp_ms reads it, each minute (and zone) looked up once per log.
            second, fraction, sign, off_h, off_m = match.group(7, 8, 9, 10, 11)
            key = (datestamp[:16], sign, off_h, off_m, datestamp[-1] == "Z")
            minute_ms = self.minutes.get(key)
            millis = int(second) * 1000 + int((fraction or "0").ljust(3, "0")[:3])
            if minute_ms is not None:
                wall = float(minute_ms + millis)
            else:
                epoch_ms = datestamp_ms(match, self.context.timezone, group=1)
                if epoch_ms is not None:
                    wall = float(epoch_ms)
                    if len(self.minutes) > 4096:
                        self.minutes.clear()
                    self.minutes[key] = epoch_ms - millis
        return Clock(wall, None if uptime is None else number(uptime))

    def read(self, text: str) -> None:
        # Most lines of a detailed log are indented detail under a record line: while no
        # record is open they matter only for G1's heap line and CMS's abort-preclean note.
        shapes = line_shapes(text, RECORD_LINE_START)
        if self._indented_shapes_known(shapes):
            self._read_runs(text, shapes)
        else:
            self._read_lines(text)
        if self.record_parts:
            self._close_unbalanced("the log ends inside it")

    @classmethod
    def _indented_all_known(cls, text: str) -> bool:
        """Whether no indented line can be a diagnostic, told from the lines' shapes."""
        return cls._indented_shapes_known(line_shapes(text, RECORD_LINE_START))

    @staticmethod
    def _indented_shapes_known(shapes: set[str]) -> bool:
        """Whether no indented line of these shapes (digits as 0; INDENTED_KNOWN names no
        digit) can be a diagnostic."""
        return all(
            INDENTED_KNOWN.match(shape) or not shape.strip()
            for shape in shapes
            if shape.startswith((" ", "\t"))
        )

    def _read_lines(self, text: str) -> None:
        line_by_line = self._line
        pending = False
        for line_no, line in enumerate(iter_lines(text), 1):
            if not pending and line.startswith((" ", "\t")):
                self._indented_detail(line_no, line)
                continue
            line_by_line(line_no, line)
            pending = bool(self.record_parts)

    def _indented_detail(self, line_no: int, line: str) -> None:
        """An indented line while no record is open."""
        if "[Eden:" in line:
            self._g1_heap(line)
        elif "[CMS-concurrent-" in line:
            self._line(line_no, line)
        elif not self.in_summary and not INDENTED_KNOWN.match(line) and line.strip():
            self.result.diagnose(line_no, f"unrecognised GC log line: {line[:120]!r}")

    def _read_runs(self, text: str, shapes: set[str] | None = None) -> None:
        """:meth:`_read_lines` when every indented line is known: a run of indented lines
        outside a record is searched for its heap and CMS lines instead of walked, and the
        commonest stamped lines (FAST_LINE) are read by :meth:`_fast_line`."""
        if shapes is None:
            shapes = line_shapes(text, RECORD_LINE_START)
        # Without a CMS phase's line in any run (no shape holds one), a run matters only for
        # its heap line: one is read straight away, the others by _run.
        heap_runs_only = not any("[CMS-concurrent-" in shape for shape in shapes)
        line_by_line = self._line
        fast_line = FAST_LINE.match
        run_end_at = RUN_END.search
        find = text.find
        length = len(text)
        # Lines are counted only when one is handed on with its number: line_no is the
        # number of the line starting at `numbered`.
        pos, line_no, numbered = 0, 1, 0
        while pos < length:
            if not self.record_parts:
                if not text.startswith((" ", "\t"), pos):
                    fast = fast_line(text, pos)
                    if fast is not None and self._fast_line(fast):
                        pos = fast.end()
                        continue
                else:
                    match = run_end_at(text, pos)
                    run_end = length if match is None else match.start() + 1
                    eden = find("[Eden:", pos, run_end)
                    if heap_runs_only and (eden < 0 or find("[Eden:", eden + 6, run_end) < 0):
                        if eden >= 0:
                            self._fast_heap(text, eden, run_end)
                    else:
                        line_no += text.count("\n", numbered, pos)
                        numbered = pos
                        self._run(text, pos, run_end, line_no)
                    pos = run_end
                    continue
            line_no += text.count("\n", numbered, pos)
            end = find("\n", pos)
            if end < 0:
                end = length
            line_by_line(line_no, text[pos:end].removesuffix("\r"))
            pos = numbered = end + 1
            line_no += 1

    def _fast_line(self, fast: re.Match[str]) -> bool:
        """A FAST_LINE line read as :meth:`_stamped` reads it, or False (nothing done) when
        it is not one this reads (an impossible date, a record without its duration).

        What _stamped makes of such a line besides its clock, GC id, duration and cleanup
        heap does not depend on them: no rule of _finish_record or _g1_concurrent finds its
        text in a number, a stamp or ", 0.0123 secs]" (G1_CONCURRENT's name stops before it,
        RECORD_DURATION takes the last), and a pause holds no "->" but a cleanup's. So the
        first line of each head is read by those methods and the others copy it.
        """
        (
            minute,
            second,
            millis,
            zone,
            uptime,
            gc_id,
            pause_head,
            remark,
            before,
            before_unit,
            after,
            after_unit,
            total,
            total_unit,
            phase_name,
            duration,
        ) = fast.groups()
        wall_ms = None
        if minute is not None:
            minute_ms = self.fast_minutes.get((minute, zone), -1)
            if minute_ms == -1:
                # As clock() reads the stamp through datestamp_ms (None: no such date).
                whole = DATESTAMP_WHOLE.match(f"{minute}:00{zone}")
                minute_ms = self.fast_minutes[(minute, zone)] = (
                    None if whole is None else datestamp_ms(whole, self.context.timezone)
                )
            if minute_ms is None:
                return False
            wall_ms = float(minute_ms + int(second + millis))  # millis: three digits
        clock = Clock(wall_ms, float(uptime))
        gc = None if gc_id is None else int(gc_id)
        if phase_name is None:
            if duration is None:
                return False  # diagnosed by _finish_record
            duration_ms = float(duration) * 1000.0
            head = pause_head or remark or "[GC cleanup"
            model = self.fast_pauses.get(head)
            if model is None:
                body = _stamped_body(fast.group())
                model = self.fast_pauses[head] = self._new_pause(body, clock, duration_ms, gc)
            pause = Pause(
                clock,
                duration_ms,
                model.collector,
                model.type,
                model.cause,
                None,
                None,
                None,
                None,
                None,
                gc,
                model.to_space_exhausted,
                model.detail,
            )
            if before is not None:
                # size_kb of each, as HEAP_TRANSITION's last (only) match in the record
                kb = KB_PER_UNIT
                pause.heap_before_kb = float(before) * kb[before_unit]
                pause.heap_after_kb = float(after) * kb[after_unit]
                pause.heap_total_kb = float(total) * kb[total_unit]
            self.in_summary = False
            self.log.see(clock)
            self.log.pauses.append(pause)
            return True
        timed = duration is not None
        phase = self.fast_phases.get((phase_name, timed))
        if phase is None and (phase_name, timed) not in self.fast_phases:
            match = G1_CONCURRENT.search(_stamped_body(fast.group()))
            if match is None:
                return False  # diagnosed by _g1_concurrent
            phase = self.fast_phases[(phase_name, timed)] = (
                match.group(1) if match.group(2) is not None else None
            )
        self.in_summary = False
        self.log.see(clock)
        if phase is not None:
            duration_ms = float(duration) * 1000.0
            start = clock if "-end" not in phase_name else clock.shifted(-duration_ms)
            self.log.concurrents.append(Concurrent(start, duration_ms, "g1", phase, gc))
        return True

    def _fast_heap(self, text: str, eden: int, run_end: int) -> None:
        """The one heap line of a run (its "[Eden:" at ``eden``), as _g1_heap reads it."""
        line_end = text.find("\n", eden, run_end)
        key = text[eden : run_end if line_end < 0 else line_end]
        # A log's heap lines repeat: each distinct one is read once.
        sizes = self.fast_heaps.get(key)
        if sizes is None and key not in self.fast_heaps:
            if len(self.fast_heaps) > HEAP_CACHE_SIZE:
                self.fast_heaps.clear()
            match = G1_HEAP.match(key)
            sizes = self.fast_heaps[key] = None if match is None else _g1_sizes(match)
        if sizes is not None:
            self._size_last_pause(sizes)

    def _run(self, text: str, start: int, end: int, line_no: int) -> None:
        """The heap and CMS lines of the indented lines in ``text[start:end]``, in order."""
        starts: set[int] = set()
        for marker in RUN_MARKERS:
            at = text.find(marker, start, end)
            while at >= 0:
                line_break = text.rfind("\n", start, at)
                starts.add(start if line_break < 0 else line_break + 1)
                line_end = text.find("\n", at, end)
                at = -1 if line_end < 0 else text.find(marker, line_end, end)
        for line_start in sorted(starts):
            line_end = text.find("\n", line_start, end)
            line = text[line_start : end if line_end < 0 else line_end].removesuffix("\r")
            self._indented_detail(line_no + text.count("\n", start, line_start), line)

    def _line(self, line_no: int, raw: str) -> None:
        line = raw.rstrip()
        if not line:
            return
        if self.record_parts and self._continue_record(line_no, line):
            return
        first = line[0]
        if first == " " or first == "\t":
            self._indented(line_no, line)
        elif first.isdigit():
            self._stamped(line_no, line)
        else:
            self._unstamped(line_no, line)

    def _continue_record(self, line_no: int, line: str) -> bool:
        """Feed ``line`` to the open record; False when it is not part of it."""
        stripped = line.lstrip()
        if stripped.startswith(INTERLEAVED_NOISE) or "G1Ergonomics" in line[:60]:
            return True
        if HEAP_BLOCK.match(line):
            return True  # PrintHeapAtGC inside the record (a CMS remark's scavenge)
        stamp = STAMP.match(line)
        body = line[stamp.end() :] if stamp else line
        if body.startswith("[CMS-concurrent"):
            # A concurrent phase ends while a Full GC (or a young GC) record is open:
            # "[Full GC 23.859: [CMS CMS: abort preclean due to time" / next line the phase.
            clock = self.clock(stamp) if stamp else None
            self._cms_concurrent(line_no, body, clock, None)
            return True
        nested_scavenge = (
            body.startswith("[GC (CMS Final Remark)")
            and "CMS Final Remark" in self.record_parts[0]
            and "[ParNew" not in "".join(self.record_parts)
        )
        if not nested_scavenge and (
            body.startswith(RECORD_START) or body.startswith("Total time for which")
        ):
            self._close_unbalanced("a new record starts before it ends")
            return False
        self.record_parts.append(line)
        self.record_depth += line.count("[") - line.count("]")
        if self.record_depth <= 0:
            self._finish_record()
        return True

    def _close_unbalanced(self, why: str) -> None:
        """A record whose brackets never balance: kept when it has its duration (a pause is
        never dropped for a missing ``]``), else reported as cut off."""
        text = "".join(self.record_parts)
        if RECORD_DURATION.match(text + "]") or SHENANDOAH_DURATION.search(text + "]"):
            self.result.diagnose(
                self.record_line, f"GC record's brackets do not balance ({why}): read as is"
            )
            self.record_parts.append("]" * max(self.record_depth, 0))
            self._finish_record()
        else:
            self.result.diagnose(self.record_line, f"GC record cut off: {why}")
            self.record_parts = []

    def _indented(self, line_no: int, line: str) -> None:
        if "[Eden:" in line:
            self._g1_heap(line)
        elif "[CMS-concurrent-" in line:
            # " CMS: abort preclean due to time 12.3: [CMS-concurrent-abortable-preclean: ...]"
            uptime = INLINE_UPTIME.search(line)
            clock = Clock(None, number(uptime.group(1))) if uptime else None
            self._cms_concurrent(line_no, line, clock, None)
        # Anything else indented is per-phase detail, ergonomics, a heap printout or statistics.

    def _stamped(self, line_no: int, line: str) -> None:
        stamp = STAMP.match(line)
        clock = self.clock(stamp) if stamp else None
        if clock is None or stamp is None:
            self._unstamped(line_no, line)
            return
        self.in_summary = False
        self.log.see(clock)
        body = line[stamp.end() :]
        gc_id = None if stamp.group(13) is None else int(stamp.group(13))
        if body.startswith(RECORD_START):
            if body.startswith("[GC concurrent-"):
                self._g1_concurrent(line_no, body, clock, gc_id)
                return
            self.record_parts = [body]
            self.record_depth = body.count("[") - body.count("]")
            self.record_clock = clock
            self.record_line = line_no
            self.record_gc_id = gc_id
            if self.record_depth <= 0:
                self._finish_record()
        elif body.startswith("[CMS-concurrent-"):
            self._cms_concurrent(line_no, body, clock, gc_id)
        elif body.startswith(("[Pause ", "[Concurrent ")):
            if body.endswith(", start]"):
                return  # "[Pause Full, start]": its end line carries the duration
            if body.count("[") > body.count("]"):
                # 8u171: "[Pause Final MarkTotal Garbage: 44620M" ... " 184G->181G(256G), 4.730 ms]"
                self.record_parts = [body]
                self.record_depth = body.count("[") - body.count("]")
                self.record_clock = clock
                self.record_line = line_no
                self.record_gc_id = gc_id
            elif body.startswith("[Pause "):
                self._shenandoah_pause(line_no, body, clock, gc_id)
            else:
                self._shenandoah_concurrent(line_no, body, clock, gc_id)
        elif body.startswith(("[G1Ergonomics", "[SoftReference")) or _is_safepoint_note(body):
            return
        elif "[GC concurrent-" in body:
            # Two threads' writes interleaved: "652.538: 652.538Total time ...\n: [GC concurrent-..."
            self._g1_concurrent(line_no, body, clock, gc_id)
        else:
            self.result.diagnose(line_no, f"unrecognised GC log line: {line[:120]!r}")

    def _unstamped(self, line_no: int, line: str) -> None:
        if line.startswith(("Java HotSpot", "OpenJDK")):
            version = VERSION.search(line)
            self.log.jvm_version = version.group(1) if version else line
        elif line.startswith("CommandLine flags:"):
            flags = line[len("CommandLine flags:") :].strip()
            self.log.command_line = flags
            for flag, collector in FLAG_COLLECTORS:
                if flag in flags:
                    self.flag_collector = collector
                    break
        elif line.startswith(RECORD_START) and UNSTAMPED_RECORD.match(line):
            # JDK 1.3/1.4 without time stamps: placed at the last clock the log gave.
            self.record_parts = [line]
            self.record_depth = line.count("[") - line.count("]")
            self.record_clock = self.log.last or Clock(None, 0.0)
            self.record_line = line_no
            self.record_gc_id = None
            if self.record_depth <= 0:
                self._finish_record()
        elif line.startswith(SUMMARY_OPENERS):
            self.in_summary = True
        elif line.startswith(SHENANDOAH_NOTES):
            return
        elif "[GC concurrent-" in line:
            self._g1_concurrent(line_no, line, None, None)
        elif (
            line.startswith(HEADER_NOOPS)
            or self.in_summary
            or "GC log file " in line
            or _is_safepoint_note(line)
        ):
            # Header, heap printouts, rotation notes ("2016-04-14 22:37:22 GC log file created").
            return
        else:
            self.result.diagnose(line_no, f"unrecognised GC log line: {line[:120]!r}")

    def _collector(self, text: str) -> str:
        for name, collector in NAME_COLLECTORS:
            if name in text:
                self.seen_collector = self.seen_collector or collector
                return collector
        return self.seen_collector or self.flag_collector or "unknown"

    def _finish_record(self) -> None:
        text = "".join(self.record_parts)
        self.record_parts = []
        if text.startswith(("[Pause ", "[Concurrent ")):
            self._shenandoah_record(text)
            return
        duration = RECORD_DURATION.match(text)
        if duration is None:
            self.result.diagnose(self.record_line, f"GC record without a duration: {text[:120]!r}")
            return
        if "[CMS-concurrent-" in text:
            # a phase that ended while the pause ran: "[ParNew23.130: [CMS-concurrent-...]"
            for phase in EMBEDDED_CONCURRENT.finditer(text):
                clock = Clock(None, number(phase.group(1))) if phase.group(1) else None
                self._cms_concurrent(self.record_line, phase.group(2), clock, None)
        pause = self._new_pause(
            text, self.record_clock, number(duration.group(1)) * 1000.0, self.record_gc_id
        )
        # Each of these rules names its "->" or "), ": a record without it is not searched
        # (a G1 pause's first line holds neither; its heap comes on its "[Eden:" line).
        has_arrow = "->" in text
        transitions = HEAP_TRANSITION.findall(text) if has_arrow else None
        if transitions:
            before, unit_b, after, unit_a, total, unit_t = transitions[-1]
            pause.heap_before_kb = size_kb(before, unit_b)
            pause.heap_after_kb = size_kb(after, unit_a)
            pause.heap_total_kb = size_kb(total, unit_t)
        elif pause.type in ("initial_mark", "remark") and "), " in text:
            occupancy = HEAP_OCCUPANCY.findall(text)
            if occupancy:
                used, unit_u, total, unit_t = occupancy[-1]
                pause.heap_before_kb = size_kb(used, unit_u)
                pause.heap_total_kb = size_kb(total, unit_t)
        young = YOUNG_TRANSITION.search(text) if has_arrow else None
        if young:
            pause.young_before_kb = size_kb(young.group(1), young.group(2))
            pause.young_after_kb = size_kb(young.group(3), young.group(4))
        self.log.pauses.append(pause)

    def _new_pause(self, text: str, clock: Clock, duration_ms: float, gc_id: int | None) -> Pause:
        """The pause a record's text names (collector, type, cause, detail), without its heap."""
        collector = self._collector(text)
        is_full = text.startswith("[Full GC")
        cause_match = CAUSE.match(text)
        cause = cause_match.group(1) if cause_match else None
        if text.startswith("[GC pause"):
            pause_type = "mixed" if "(mixed)" in text else "young"
            if cause in ("young", "mixed"):
                cause = None
        elif text.startswith("[GC remark"):
            pause_type = "remark"
        elif text.startswith("[GC cleanup"):
            pause_type = "cleanup"
        elif "CMS-initial-mark" in text:
            pause_type = "initial_mark"
        elif "CMS-remark" in text:
            pause_type = "remark"
        elif is_full or OLD_GEN_IN_YOUNG_RECORD.search(text):
            pause_type = "full"
        else:
            pause_type = "young"
        pause = Pause(
            clock,
            duration_ms,
            collector,
            pause_type,
            cause,
            gc_id=gc_id,
            to_space_exhausted="to-space" in text,
        )
        if "initial-mark" in text and collector == "g1":
            pause.detail = "concurrent_start"
        if pause_type == "remark" and "[ParNew" in text:
            # -XX:+CMSScavengeBeforeRemark: the scavenge runs inside the remark's pause,
            # whose duration (the record's own) includes it; one pause, not two.
            pause.detail = "scavenge_before_remark"
        return pause

    def _g1_heap(self, line: str) -> None:
        match = G1_HEAP.search(line)
        if match is not None:
            self._size_last_pause(_g1_sizes(match))

    def _size_last_pause(self, sizes: tuple[float, float, float, float, float]) -> None:
        """A G1 heap line's sizes (see :func:`_g1_sizes`) on the pause it follows, if any."""
        if not self.log.pauses:
            return
        pause = self.log.pauses[-1]
        (
            pause.young_before_kb,
            pause.young_after_kb,
            pause.heap_before_kb,
            pause.heap_after_kb,
            pause.heap_total_kb,
        ) = sizes

    def _cms_concurrent(
        self, line_no: int, text: str, clock: Clock | None, gc_id: int | None
    ) -> None:
        match = CMS_CONCURRENT.search(text)
        if match is None:
            self.result.diagnose(line_no, f"unrecognised CMS concurrent line: {text[:120]!r}")
            return
        if match.group(3) is None or clock is None:
            return  # a phase's start: its end line carries the duration
        self.log.concurrents.append(
            Concurrent(clock, number(match.group(3)) * 1000.0, "cms", match.group(1), gc_id)
        )

    def _g1_concurrent(
        self, line_no: int, text: str, clock: Clock | None, gc_id: int | None
    ) -> None:
        match = G1_CONCURRENT.search(text)
        if match is None:
            self.result.diagnose(line_no, f"unrecognised G1 concurrent line: {text[:120]!r}")
            return
        if match.group(2) is None or clock is None:
            return  # start lines, aborts and unstamped statistics carry no timed phase
        duration_ms = number(match.group(2)) * 1000.0
        start = clock if "-end" not in text else clock.shifted(-duration_ms)
        self.log.concurrents.append(Concurrent(start, duration_ms, "g1", match.group(1), gc_id))

    def _shenandoah_pause(self, line_no: int, body: str, clock: Clock, gc_id: int | None) -> None:
        match = SHENANDOAH_PAUSE.match(body)
        if match is None:
            self.result.diagnose(line_no, f"unrecognised Shenandoah pause line: {body[:120]!r}")
            return
        name = match.group(1)
        base, _, detail = name.partition(" (")
        pause = Pause(
            clock,
            number(match.group(8)),
            "shenandoah",
            _shenandoah_type(base),
            gc_id=gc_id,
            detail=detail.rstrip(")") or None,
        )
        if match.group(2) is not None:
            pause.heap_before_kb = size_kb(match.group(2), match.group(3))
            pause.heap_after_kb = size_kb(match.group(4), match.group(5))
            pause.heap_total_kb = size_kb(match.group(6), match.group(7))
        self.seen_collector = "shenandoah"
        self.log.pauses.append(pause)

    def _shenandoah_record(self, text: str) -> None:
        """A JDK 8 Shenandoah record written over several lines (8u171's Final Mark)."""
        duration = SHENANDOAH_DURATION.search(text)
        name = SHENANDOAH_NAME.match(text)
        if duration is None or name is None:
            self.result.diagnose(
                self.record_line, f"Shenandoah record without a duration: {text[:120]!r}"
            )
            return
        kind, title = name.group(1), name.group(2).strip()
        heap = HEAP_TRANSITION.findall(text)
        if kind == "Concurrent":
            self.log.concurrents.append(
                Concurrent(
                    self.record_clock,
                    number(duration.group(1)),
                    "shenandoah",
                    title.lower(),
                    self.record_gc_id,
                )
            )
            return
        pause = Pause(
            self.record_clock,
            number(duration.group(1)),
            "shenandoah",
            _shenandoah_type(title),
            gc_id=self.record_gc_id,
        )
        if heap:
            before, unit_b, after, unit_a, total, unit_t = heap[-1]
            pause.heap_before_kb = size_kb(before, unit_b)
            pause.heap_after_kb = size_kb(after, unit_a)
            pause.heap_total_kb = size_kb(total, unit_t)
        self.seen_collector = "shenandoah"
        self.log.pauses.append(pause)

    def _shenandoah_concurrent(
        self, line_no: int, body: str, clock: Clock, gc_id: int | None
    ) -> None:
        match = SHENANDOAH_CONCURRENT.match(body)
        if match is None:
            self.result.diagnose(
                line_no, f"unrecognised Shenandoah concurrent line: {body[:120]!r}"
            )
            return
        self.log.concurrents.append(
            Concurrent(clock, number(match.group(2)), "shenandoah", match.group(1).lower(), gc_id)
        )


def _stamped_body(line: str) -> str:
    """What :meth:`_Reader._stamped` reads of a stamped line after its stamp."""
    line = line.rstrip()
    stamp = STAMP.match(line)
    return line if stamp is None else line[stamp.end() :]


def _g1_sizes(match: re.Match[str]) -> tuple[float, float, float, float, float]:
    """Young before/after and heap before/after/total (KB) of a :data:`G1_HEAP` match."""
    # size_kb of each (number, unit) pair, the commonest line of a G1 log's: a unit of
    # [BKMG], a number of _NUM (float() reads it unless it has a decimal comma).
    (
        eden_before,
        eden_before_unit,
        eden_after,
        eden_after_unit,
        survivors_before,
        survivors_before_unit,
        survivors_after,
        survivors_after_unit,
        heap_before,
        heap_before_unit,
        heap_after,
        heap_after_unit,
        heap_total,
        heap_total_unit,
    ) = match.groups()
    if "," in match.group(0):
        eden_before, eden_after, survivors_before, survivors_after = (
            value.replace(",", ".")
            for value in (eden_before, eden_after, survivors_before, survivors_after)
        )
        heap_before, heap_after, heap_total = (
            value.replace(",", ".") for value in (heap_before, heap_after, heap_total)
        )
    kb = KB_PER_UNIT
    return (
        float(eden_before) * kb[eden_before_unit]
        + float(survivors_before) * kb[survivors_before_unit],
        float(eden_after) * kb[eden_after_unit] + float(survivors_after) * kb[survivors_after_unit],
        float(heap_before) * kb[heap_before_unit],
        float(heap_after) * kb[heap_after_unit],
        float(heap_total) * kb[heap_total_unit],
    )


def _is_safepoint_note(line: str) -> bool:
    """PrintGCApplicationStoppedTime / ConcurrentTime lines, even when garbled by interleaving."""
    return "application threads were stopped" in line or "Application time:" in line


def _shenandoah_type(name: str) -> str:
    """``Init Mark`` -> ``init_mark``; ``Degenerated GC`` -> ``degenerated``; ``Full`` -> ``full``."""
    words = name.strip().lower().replace("  ", " ")
    if words.startswith("degenerated"):
        return "degenerated"
    if words.startswith("full"):
        return "full"
    return words.replace(" ", "_")


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    reader = _Reader(context, result)
    reader.read(text)
    shenandoah = "Shenandoah" in text[:65536]
    # The events are built after the text is gone when the registry handed it over
    # (``Decoded.take_text``): a big log's events are about its text's size again.
    del text
    log = reader.log
    log.collector = reader.seen_collector or reader.flag_collector
    if log.collector is None and shenandoah:
        log.collector = "shenandoah"
    if not log.pauses and not log.concurrents and log.collector is None and log.jvm_version is None:
        result.diagnose(0, "no GC records found")
        return result
    return build_result(KIND, log, context, result)
