"""IBM JDK 1.2.2 to 1.4.2 GC logs: the classic (pre-J9) text form of ``-verbose:gc``.

Produced by ``java -verbose:gc`` (or ``-verbosegc``) on IBM's Developer Kits before J9
(the "Sovereign" VM, whose collector is one stop-the-world mark-sweep(-compact) of the
whole heap). Sample lines::

    <AF[1]: Allocation Failure. need 16777232 bytes, 0 ms since last AF>
    <AF[1]: managing allocation failure, action=1 (32989304/63961600) (3145728/3145728)>
    <GC(7): GC cycle started Thu Sep 25 16:18:50 2003
    <GC(7): freed 18732840 bytes, 81% free (54867872/67107328), in 232 ms>
      <GC(7): mark: 46 ms, sweep: 11 ms, compact: 175 ms>
      <GC(7): refs: soft 0 (age >= 32), weak 0, final 1, phantom 1>
    <AF[1]: managing allocation failure, action=3 (54867872/67107328)>
    <GC(7): expanded heap by 9633792 to 76741120 bytes, 84% free>
    <AF[1]: completed in 251 ms>

What a pause is: an allocation failure (``AF[n]``) holds the world from its first line to
``completed in N ms``; everything in between (one or more collections, the heap expansion
after them: ``action=3``) happens inside that one stop. So an ``AF`` is one ``gc_pause``
of its completed time, and a collection outside any ``AF`` (a ``GC(n)`` with no ``AF``
around it: an explicit request such as ``System.gc()``) is one of its own ``in N ms``.
A concurrent collection's final stop (``CON[n]`` on ``-Xgcpolicy:optavgpause``) is read as
an ``AF`` is, its type ``remark``. (GCViewer instead counts the collection and the
expansion of an ``AF`` as two pauses: 21 in the corpus file where this reads 16.)

The pause starts at the wall-clock time of its first ``GC cycle started`` line (seconds, no
zone written: read in ``context.timezone``); an ``AF`` without one is placed its ``N ms
since last AF`` after the previous one. Heap before/after/total come from ``freed X bytes
(F/T)`` (used after = T - F, before = after + X) of its first and last collection, the
total from ``expanded heap ... to Y bytes`` when the heap grew. Type ``full`` (the whole
heap), cause ``Allocation Failure`` for an ``AF``. Events, series and facts are those of
:mod:`rootline.parsers.gc_common`.

=================  ==========================================================  ==============
rule               matches                                                     handler
=================  ==========================================================  ==============
``STOP_START``     ``<AF[1]: Allocation Failure. need 16 bytes, 0 ms since``   opens a pause
                   ``last AF>``, ``<CON[2]: Concurrent collection, ...>``
``STOP_END``       ``<AF[1]: completed in 251 ms>``                            closes it
``CYCLE_START``    ``<GC(7): GC cycle started Thu Sep 25 16:18:50 2003``       clock (opens a
                                                                               pause outside
                                                                               an ``AF``)
``FREED``          ``<GC(7): freed 18732840 bytes, 81% free (54867872/``       heap (closes a
                   ``67107328), in 232 ms>`` (or ``... bytes in 52 ms, 11%``   pause outside
                   ``free (F/T)>``)                                            an ``AF``)
``EXPANDED``       ``<GC(7): expanded heap by 9633792 to 76741120 bytes``      heap total
no-op              ``managing allocation failure``, per-phase times (``mark:``  skipped
                   ``sweep:``), ``refs:``, ``moved``, mark/alloc bits, system
                   heap expansion, heap layout, class unloading, blank lines
=================  ==========================================================  ==============

Every other line is a numbered diagnostic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.gc_common import Clock, GcLog, Pause, build_result, month_date_ms

KIND = "gc_ibm_text"
COLLECTOR = "ibm-classic"

STOP_START = re.compile(
    r"<(AF|CON)\[(\d+)\]: (?:Allocation Failure\. need (\d+) bytes, (\d+) ms since last"
    r"|Concurrent collection)"
)
STOP_END = re.compile(r"<(AF|CON)\[(\d+)\]: completed in (\d+) ms>")
CYCLE_START = re.compile(r"<GC\((\d+)\): GC cycle started (.*)")
FREED = re.compile(
    r"<GC\((\d+)\): freed (\d+) bytes(?:, | in (\d+) ms, )\d+% free \((\d+)/(\d+)\)"
    r"(?:, in (\d+) ms)?"
)
EXPANDED = re.compile(r"<GC\((\d+)\): expanded heap (?:fully )?by \d+ to (\d+) bytes")
# Known lines that carry nothing a pause needs.
NOOP = re.compile(
    r"<(?:AF|CON)\[\d+\]: managing allocation failure"
    r"|<(?:AF|CON)\[\d+\]: (?:Concurrent|concurrent|collection)"
    r"|<GC[(\[][\w-]+[)\]]: (?:mark|sweep|compact|refs|moved|need to expand|expanded (?:mark|alloc)"
    r" bits|Expanded System Heap|heap layout|unloaded|stop threads|resume threads|"
    r"shrinking heap|shrank heap|no compaction|compact|pinned|mark stack overflow)"
)
# Lines that name this format, for sniffing.
SIGNATURES = re.compile(
    r"^\s*<(?:AF\[\d+\]: (?:Allocation Failure|managing allocation failure|completed in)"
    r"|GC\(\d+\): (?:GC cycle started|freed \d+ bytes)"
    r"|GC\[\d+\]: Expanded System Heap)",
    re.MULTILINE,
)
KB = 1024.0


def sniff(head: str) -> float:
    """``<AF[n]: Allocation Failure``, ``<GC(n): GC cycle started``, ``<GC(n): freed`` lines."""
    hits = len(SIGNATURES.findall(head))
    if hits >= 2:
        return 0.95
    return 0.6 if hits else 0.0


@dataclass(slots=True)
class _Stop:
    """One stop of the world being read: an allocation failure or a standalone collection."""

    kind: str  # "AF", "CON" or "GC" (a collection outside an AF)
    number: int
    line: int
    since_ms: float | None = None
    clock: Clock | None = None
    before_kb: float | None = None
    after_kb: float | None = None
    total_kb: float | None = None
    gc_id: int | None = None


class _Reader:
    def __init__(self, context: ParseContext, result: ParseResult) -> None:
        self.context = context
        self.result = result
        self.log = GcLog.empty()
        self.log.collector = COLLECTOR
        self.stop: _Stop | None = None
        self.last_af_clock: Clock | None = None

    def line(self, line_no: int, raw: str) -> None:
        line = raw.strip()
        if not line:
            return
        if match := FREED.match(line):
            self._freed(line_no, match)
        elif match := CYCLE_START.match(line):
            self._cycle_start(line_no, match)
        elif match := STOP_END.match(line):
            self._stop_end(line_no, match)
        elif match := STOP_START.match(line):
            self._stop_start(line_no, match)
        elif match := EXPANDED.match(line):
            if self.stop is not None:
                self.stop.total_kb = int(match.group(2)) / KB
        elif NOOP.match(line):
            return
        else:
            self.result.diagnose(line_no, f"unrecognised IBM verbose GC line: {line[:120]!r}")

    def _stop_start(self, line_no: int, match: re.Match[str]) -> None:
        if self.stop is not None and self.stop.kind != "GC":
            self.result.diagnose(
                self.stop.line, "allocation failure cut off: a new one starts before it completes"
            )
        since = match.group(4)
        self.stop = _Stop(
            match.group(1), int(match.group(2)), line_no, None if since is None else float(since)
        )

    def _cycle_start(self, line_no: int, match: re.Match[str]) -> None:
        epoch_ms = month_date_ms(match.group(2), self.context.timezone)
        clock = None if epoch_ms is None else Clock(float(epoch_ms), None)
        if clock is None:
            self.result.diagnose(
                line_no, f"GC cycle start without a readable date: {match.group(2)!r}"
            )
        if self.stop is None or self.stop.kind == "GC":
            if self.stop is not None:
                self.result.diagnose(self.stop.line, "collection cut off: no 'freed' line")
            self.stop = _Stop("GC", int(match.group(1)), line_no)
        if clock is not None:
            self.log.see(clock)
            if self.stop.clock is None:
                self.stop.clock = clock
        if self.stop.gc_id is None:
            self.stop.gc_id = int(match.group(1))

    def _freed(self, line_no: int, match: re.Match[str]) -> None:
        stop = self.stop
        if stop is None:
            self.result.diagnose(line_no, "'freed' line outside a collection")
            return
        freed, free, total = int(match.group(2)), int(match.group(4)), int(match.group(5))
        used_after_kb = (total - free) / KB
        if stop.before_kb is None:
            stop.before_kb = used_after_kb + freed / KB
        stop.after_kb = used_after_kb
        stop.total_kb = total / KB
        if stop.kind == "GC":
            in_ms = match.group(3) or match.group(6)
            if in_ms is None:
                self.result.diagnose(line_no, "collection without a duration ('in N ms')")
                self.stop = None
                return
            self._emit(stop, float(in_ms), line_no)
            self.stop = None

    def _stop_end(self, line_no: int, match: re.Match[str]) -> None:
        stop = self.stop
        if stop is None or stop.kind == "GC" or stop.number != int(match.group(2)):
            self.result.diagnose(line_no, "'completed' line without its allocation failure")
            self.stop = None
            return
        self._emit(stop, float(match.group(3)), line_no)
        self.stop = None

    def _emit(self, stop: _Stop, duration_ms: float, line_no: int) -> None:
        clock = stop.clock
        if clock is None and stop.since_ms is not None and self.last_af_clock is not None:
            clock = self.last_af_clock.shifted(stop.since_ms)
        if clock is None:
            self.result.diagnose(stop.line, "pause without a time: no 'GC cycle started' date")
            return
        if stop.kind == "AF":
            self.last_af_clock = clock
        pause = Pause(
            clock,
            duration_ms,
            COLLECTOR,
            "remark" if stop.kind == "CON" else "full",
            {"AF": "Allocation Failure", "CON": "Concurrent collection"}.get(stop.kind),
            heap_before_kb=stop.before_kb,
            heap_after_kb=stop.after_kb,
            heap_total_kb=stop.total_kb,
            gc_id=stop.gc_id,
        )
        self.log.pauses.append(pause)
        self.log.see(clock.shifted(duration_ms))


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    reader = _Reader(context, result)
    for line_no, line in enumerate(iter_lines(text), 1):
        reader.line(line_no, line)
    if reader.stop is not None:
        result.diagnose(reader.stop.line, "pause cut off: the log ends inside it")
    if not reader.log.pauses:
        result.diagnose(0, "no IBM verbose GC pauses found")
        return result
    return build_result(KIND, reader.log, context, result)
