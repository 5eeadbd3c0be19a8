"""Oracle (BEA) JRockit GC logs written by ``-Xverbose:memory`` (and ``-Xverbose:gcpause``).

Produced by ``java -Xverbose:memory,gcpause -Xverboselog:gc.log`` (``-Xverbose:gc`` turns on
both) on JRockit R27/R28 (Java 5 and 6). Every line carries its level and module; times are
seconds of JVM uptime. Sample lines::

    [INFO ][memory ] Heap size: 524288KB, maximal heap size: 524288KB, nursery size: 262144KB.
    [INFO ][gcpause] [OC#1] [---]   133.744 ms (31.727000-31.861000)  OC
    [INFO ][gcpause] [OC#1] [pau]    87.771 ms (31.727000-31.815000)  OC:Initial
    [INFO ][gcpause] [OC#1] [con]    13.299 ms (31.815000-31.828000)  OC:ConcurrentMark
    [INFO ][gcpause] [OC#1] [pau]     8.750 ms (31.828000-31.837000)  OC:Main
    [INFO ][memory ] [OC#1] 31.727-31.861: OC 270886KB->194351KB (524288KB), 0.134 s, sum of pauses 96.521 ms, longest pause 87.771 ms.

A collection (``YC#n`` young, ``OC#n`` old) may run mostly concurrently; only its pauses stop
the application. So the ``gc_pause`` events are:

- with ``-Xverbose:gcpause``: each ``[pau]`` phase (``OC:Initial`` -> type
  ``initial_mark``, ``OC:Main`` -> ``remark``, a whole ``OC`` in one pause -> ``full``, a
  ``YC`` -> ``young``, others in snake case: ``sweep_switch``, ``cleanup``), at its start;
  the collection's summary line becomes a ``gc_concurrent`` event (phase
  ``old_collection`` / ``young_collection``, its whole time) carrying the heap before,
  after and total, which feed the heap series (as ZGC's cycles do);
- with ``-Xverbose:memory`` alone: one pause per summary line, of its ``sum of pauses``
  (its total stop time: its longest pause is kept as ``longest_pause_ms`` in ``detail``),
  type ``young`` for ``YC``, ``full`` for an ``OC`` stopped for (nearly) all of its time,
  else ``old``; the heap on the pause. Older summaries without the pause sum
  (``2.833-2.848: GC 33004K->27248K (65536K), 15.000 ms``) are one pause of that time.

GCViewer reads one pause per summary line with its *longest* pause as the duration (15
pauses, 638.5 ms in the corpus file where the 44 ``[pau]`` phases add up to 734.8 ms, the
JVM's own ``sum of pauses``). The log is anchored by the date decoration of
``-Xverbosetimestamp`` when a summary line carries one (the JVM start = that date, which is
when the line was printed, less the collection's end uptime: second precision), else only by
a JVM start time given at upload (``context.jvm_start_ms``). JRockit logs no cause. Facts: those of
:mod:`rootline.parsers.gc_common`; ``gc.collector`` is ``jrockit-<strategy>``.

===================  =====================================================  ===============
rule                 matches                                                handler
===================  =====================================================  ===============
``PREFIX``           ``[INFO ][memory ] ``, ``[memory ] `` (optionally      module of a
                     ``[Sat Oct 27 20:04:38 2012][23355]`` after it)        line
``SUMMARY``          ``[OC#1] 31.727-31.861: OC 270886KB->194351KB``        collection
                     ``(524288KB), 0.134 s, sum of pauses 96.521 ms, ...``
``PHASE``            ``[OC#1] [pau]    87.771 ms (31.727000-31.815000)``    pause phase
                     ``OC:Initial`` (``[con]`` / ``[---]`` phases: no-op)
``MODE``             ``GC mode: ..., strategy: Generational Concurrent``    collector
                     ``Mark & Sweep.``, ``Changing GC strategy from: a``
                     ``to: b``
no-op                the legend (``<start>-<end>: ...``), heap size,        skipped
                     ``Running with`` / ``Running on``, ``Throwing``
                     ``OutOfMemory``, lines of other ``-Xverbose`` modules
                     (``[nursery]``, ``[compact]``, ``[alloc  ]`` ...)
===================  =====================================================  ===============

Every other line is a numbered diagnostic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.gc_common import (
    Clock,
    Concurrent,
    GcLog,
    Pause,
    build_result,
    month_date_ms,
)

KIND = "gc_jrockit"

PREFIX = re.compile(
    r"^(?:\[(?P<level>[A-Z]+) *\])?\[(?P<module>[a-z]+) *\]"
    r"(?:\[(?P<date>[A-Z][a-z]{2} [^\]]*\d{4})\])?(?:\[\d+\])? ?"
)
SUMMARY = re.compile(
    r"(?:\[(?P<kind>[OY]C)#(?P<id>\d+)\] )?(?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?): "
    r"(?P<type>[A-Z]+)\b[^\d]*?(?P<before>\d+)KB?->(?P<after>\d+)KB? \((?P<total>\d+)KB?\), "
    r"(?P<time>\d+(?:\.\d+)?) (?P<unit>s|ms)"
    r"(?:, sum of pauses (?P<sum>\d+(?:\.\d+)?) ms, longest pause (?P<longest>\d+(?:\.\d+)?) ms)?"
)
PHASE = re.compile(
    r"\[(?P<kind>[OY]C)#(?P<id>\d+)\] \[(?P<what>---|con|pau)\] +(?P<ms>\d+(?:\.\d+)?) ms "
    r"\((?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?)\) +(?P<name>\S+)"
)
MODE = re.compile(r"GC mode: .*strategy: (?P<strategy>[^.,]+)")
STRATEGY_CHANGE = re.compile(r"Changing GC strategy from: (?P<old>\w+) to: (?P<new>\w+)")
MEMORY_NOOPS = (
    "<",  # the legend: "<start>-<end>: <type> ..." and its explanations
    " ",  # legend continuation ("           Run with -Xverbose:gcpause ...")
    "Heap size:",
    "Running with",
    "Running on",
    "Throwing OutOfMemory",
    "Run with",
    "Prefetch distance",
    "Memory usage report",
)
STRATEGIES = {
    "Generational Concurrent Mark & Sweep": "gencon",
    "Generational Parallel Mark & Sweep": "genpar",
    "Single Concurrent Mark & Sweep": "singlecon",
    "Single Parallel Mark & Sweep": "singlepar",
}
# Share of a collection's time it must stop the world to be read as a full (not concurrent) one.
STOPPED_THROUGHOUT = 0.9
SIGNATURE = re.compile(r"^\[(?:[A-Z]+ *\])?\[(?:memory|gcpause) *\] ", re.MULTILINE)


def sniff(head: str) -> float:
    """Lines tagged ``[memory ]`` / ``[gcpause]`` (after a level such as ``[INFO ]``)."""
    hits = len(SIGNATURE.findall(head))
    if hits >= 2 and ("sum of pauses" in head or "GC mode:" in head or "[OC#" in head
                      or "[YC#" in head or "KB->" in head or "K->" in head):  # fmt: skip
        return 0.95
    return 0.6 if hits >= 2 else 0.0


@dataclass(slots=True)
class _Collection:
    phases: list[Pause] = field(default_factory=list)


class _Reader:
    def __init__(self, context: ParseContext, result: ParseResult) -> None:
        self.context = context
        self.result = result
        self.log = GcLog.empty()
        self.strategy: str | None = None
        self.open: dict[str, _Collection] = {}

    @property
    def collector(self) -> str:
        return f"jrockit-{self.strategy}" if self.strategy else "jrockit"

    def line(self, line_no: int, raw: str) -> None:
        line = raw.rstrip()
        if not line.strip():
            return
        prefix = PREFIX.match(line)
        if prefix is None:
            self.result.diagnose(line_no, f"unrecognised JRockit log line: {line[:120]!r}")
            return
        body = line[prefix.end() :]
        module = prefix.group("module")
        if module == "memory":
            self._memory(line_no, body, prefix.group("date"))
        elif module == "gcpause":
            self._gcpause(line_no, body)
        # Other -Xverbose modules (nursery, compact, alloc, refobj, gcheuri ...): not needed.

    def _memory(self, line_no: int, body: str, date: str | None) -> None:
        if match := SUMMARY.match(body):
            self._summary(match)
            if date is not None and self.log.start_ms is None:
                # The line was printed at the collection's end: its date less that uptime.
                printed_ms = month_date_ms(date, self.context.timezone)
                if printed_ms is not None:
                    self.log.start_ms = printed_ms - float(match.group("end")) * 1000.0
        elif match := MODE.search(body):
            strategy = match.group("strategy").strip()
            self.strategy = self.strategy or STRATEGIES.get(strategy, strategy.lower())
        elif match := STRATEGY_CHANGE.search(body):
            self.strategy = self.strategy or match.group("old")
        elif not body or body.startswith(MEMORY_NOOPS):
            return
        else:
            self.result.diagnose(line_no, f"unrecognised JRockit memory line: {body[:120]!r}")

    def _gcpause(self, line_no: int, body: str) -> None:
        match = PHASE.match(body)
        if match is None:
            self.result.diagnose(line_no, f"unrecognised JRockit gcpause line: {body[:120]!r}")
            return
        if match.group("what") != "pau":
            return  # "[---]" is the whole collection, "[con]" a concurrent phase
        key = f"{match.group('kind')}#{match.group('id')}"
        start = float(match.group("start"))
        name = match.group("name")
        self.open.setdefault(key, _Collection()).phases.append(
            Pause(
                Clock(None, start),
                float(match.group("ms")),
                self.collector,
                _phase_type(name),
                gc_id=int(match.group("id")),
                detail=name,
            )
        )

    def _summary(self, match: re.Match[str]) -> None:
        start, end = float(match.group("start")), float(match.group("end"))
        kind = match.group("kind") or ("YC" if match.group("type") == "YC" else "OC")
        gc_id = None if match.group("id") is None else int(match.group("id"))
        before_kb = float(match.group("before"))
        after_kb = float(match.group("after"))
        total_kb = float(match.group("total"))
        time_ms = float(match.group("time")) * (1000.0 if match.group("unit") == "s" else 1.0)
        clock = Clock(None, start)
        self.log.see(clock)
        self.log.see(Clock(None, end))
        collection = self.open.pop(f"{kind}#{gc_id}", None) if gc_id is not None else None
        if collection is not None and collection.phases:
            for pause in collection.phases:
                pause.collector = self.collector
                self.log.pauses.append(pause)
            self.log.concurrents.append(
                Concurrent(
                    clock,
                    (end - start) * 1000.0,
                    self.collector,
                    "young_collection" if kind == "YC" else "old_collection",
                    gc_id,
                    before_kb,
                    after_kb,
                    total_kb,
                )
            )
            return
        pause_sum = match.group("sum")
        duration_ms = time_ms if pause_sum is None else float(pause_sum)
        if kind == "YC":
            pause_type = "young"
        elif duration_ms >= STOPPED_THROUGHOUT * time_ms:
            pause_type = "full"
        else:
            pause_type = "old"
        longest = match.group("longest")
        self.log.pauses.append(
            Pause(
                clock,
                duration_ms,
                self.collector,
                pause_type,
                heap_before_kb=before_kb,
                heap_after_kb=after_kb,
                heap_total_kb=total_kb,
                gc_id=gc_id,
                detail=None if longest is None else f"longest_pause_ms={longest}",
            )
        )


def _phase_type(name: str) -> str:
    """``OC:Initial`` -> ``initial_mark``; ``OC`` -> ``full``; ``OC:SweepSwitch`` -> ``sweep_switch``."""
    kind, _, phase = name.partition(":")
    if not phase:
        return "young" if kind == "YC" else "full"
    if phase == "Initial":
        return "initial_mark"
    if phase == "Main":
        return "remark"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", phase).lower()


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    reader = _Reader(context, result)
    for line_no, line in enumerate(iter_lines(text), 1):
        reader.line(line_no, line)
    for key in reader.open:
        result.diagnose(0, f"collection {key} cut off: pause phases without its summary line")
    log = reader.log
    log.collector = reader.collector
    if not log.pauses:
        result.diagnose(0, "no JRockit collections found")
        return result
    return build_result(KIND, log, context, result)
