"""IBM J9 and Eclipse OpenJ9 GC logs: the XML that ``-verbose:gc`` writes.

Produced by ``java -verbose:gc [-Xverbosegclog:gc.xml]`` on IBM Java 5 to 8 (J9 2.3 to
R28) and on Eclipse OpenJ9 / IBM Semeru (Java 8 to 21+), any GC policy (``gencon``,
``optthruput``, ``optavgpause``, ``balanced``). Two schemas exist.

**J9 2.6 (Java 6 R26) and later, OpenJ9**: every stop-the-world pause is an exclusive access
of the VM, logged between ``<exclusive-start>`` and ``<exclusive-end durationms=...>``; the
GC increments run inside it (``<gc-start>`` / ``<gc-end>`` with the heap before and after,
``<gc-op>`` per operation), and a cycle (``<cycle-start>`` / ``<cycle-end>``) may span several
pauses with concurrent work in between::

    <exclusive-start id="2" timestamp="2013-08-15T11:15:45.897" intervalms="1417.925">
    <af-start id="3" totalBytesRequested="24" timestamp="2013-08-15T11:15:45.897" intervalms="1417.963" />
    <cycle-start id="4" type="scavenge" contextid="0" timestamp="2013-08-15T11:15:45.897" intervalms="1417.978" />
    <gc-start id="5" type="scavenge" contextid="4" timestamp="2013-08-15T11:15:45.897">
      <mem-info id="6" free="401784824" total="469762048" percent="85">
    <gc-op id="7" type="scavenge" timems="5.086" contextid="4" timestamp="2013-08-15T11:15:45.902">
    <gc-end id="8" type="scavenge" contextid="4" durationms="5.175" timestamp="2013-08-15T11:15:45.902">
    <exclusive-end id="13" timestamp="2013-08-15T11:15:45.902" durationms="5.290" />

**J9 2.3 to 2.5 (Java 5 and early Java 6)**: each stop is one element, ``<af>`` (allocation
failure), ``<sys>`` (``System.gc()``) or ``<con event="collection">`` (the final stop of a
concurrent collection), holding the heap before (``<nursery>`` / ``<tenured>`` with
``freebytes`` / ``totalbytes``), the ``<gc type="scavenger|global">`` it ran, the heap after,
and ``<time totalms=...>``, the whole stop.

What counts as a pause. The OpenJ9 documentation ("Verbose garbage collection logs", GC
increments and interleaving; "Log examples", gencon global cycle:
https://eclipse.dev/openj9/docs/vgclog/ and /vgclog_examples/) says that application
threads are halted from ``<exclusive-start>`` to ``<exclusive-end>`` (IBM's Java 7 guide:
"Stop-the-world operations are shown within the <exclusive-start> and <exclusive-end>
tags"), and that a gencon global cycle is three increments of which the first
(``<concurrent-kickoff>`` then a short stop holding ``<cycle-start type="global">``) and the
last (``<concurrent-global-final>``, or ``<concurrent-collection-start>`` on R28: final mark,
sweep, optional compact) stop the world, while the long middle one (concurrent mark)
runs beside the application and pauses for any scavenge in between. So one
``gc_pause`` is one exclusive access, of its ``durationms`` (or its end minus its start
when a log omits it); the concurrent increments are not pauses. A cycle that spans several
pauses (a concurrent global or concurrent-scavenge cycle) is additionally a
``gc_concurrent`` event from its ``<cycle-start>`` to its ``<cycle-end>``. The same holds
for ``<gc-op>``: its ``timems`` is part of the pause it runs in, never a pause of its own.

Pause type from what ran inside the stop: ``scavenge`` -> ``young``; ``partial gc``
(balanced) -> ``mixed``; ``global mark phase`` (balanced) -> ``mark``; ``global`` /
``global garbage collect`` -> ``full`` when the stop collected the whole heap by itself
(allocation failure, ``System.gc()``), ``remark`` when it is the final increment of a
concurrent global cycle; a stop that only starts a global cycle -> ``initial_mark``.
Cause: ``Allocation Failure`` (``<af-start>``, ``<af>``), ``System.gc()`` (``<sys-start
reason="explicit">``, ``<sys>``; another reason is kept as written), the concurrent trace's
reason for a final increment (``card cleaning threshold reached``), the kickoff reason for
an initial one (``threshold reached``). Heap before from the first ``<gc-start>``'s
``<mem-info>`` (used = total - free), after and total from the last ``<gc-end>``'s, young
sizes from its ``<mem type="nursery">``. Timestamps carry no zone: read in
``context.timezone``. Events, series and facts are those of
:mod:`rootline.parsers.gc_common`, plus ``jvm.version`` (the ``<verbosegc version>``) and
``jvm.command_line`` (the ``<vmarg>`` names); ``gc.collector`` is the ``gcPolicy``
(``gencon``, ``optthruput`` ...).

===============================  ==================================================  ==============
rule (element)                   holds                                               handler
===============================  ==================================================  ==============
``verbosegc``                    ``version``                                         ``jvm.version``
``initialized``                  ``attribute name="gcPolicy"``, ``vmarg``            collector, flags
``exclusive-start`` / ``-end``   the stop (``timestamp``, ``durationms``)            pause
``af-start``, ``sys-start``,     its trigger                                         cause
``concurrent-kickoff``,
``concurrent-collection-start``,
``concurrent-global-final``,
``concurrent-trace-info``
``cycle-start`` / ``cycle-end``  a cycle (``id``, ``type``)                          type, concurrent
``gc-start`` / ``gc-end``        an increment, its ``mem-info`` / ``mem``            type, heap
``concurrent-start`` / ``-end``  a concurrent-scavenge increment                     concurrent
``af``, ``sys``, ``con``         a J9 2.3-2.5 stop, its ``nursery`` / ``tenured`` /  pause
                                 ``gc`` / ``time totalms``
no-op                            ``gc-op`` and its children, ``allocation-stats``,   skipped
                                 ``allocation-satisfied``, ``af-end``, ``sys-end``,
                                 ``concurrent-collection-end``, ``response-info``,
                                 ``heap-resize``, ``warning``, ``concurrent-aborted``
                                 ... (:data:`NOOP_ELEMENTS`), children of known
                                 elements, comments, the ``<?xml?>`` declaration
===============================  ==================================================  ==============

Any other element, and text outside the elements (stderr output written between them),
is a numbered diagnostic.

>>> from rootline.parsers.base import ParseContext
>>> xml = (
...     '<exclusive-start id="1" timestamp="2024-05-01T10:00:00.000" />\\n'
...     '<af-start id="2" timestamp="2024-05-01T10:00:00.000" />\\n'
...     '<gc-start id="3" type="scavenge" contextid="2"><mem-info free="0" total="1048576" />'
...     '</gc-start>\\n'
...     '<gc-end id="4" type="scavenge" contextid="2"><mem-info free="524288" total="1048576" />'
...     '</gc-end>\\n'
...     '<exclusive-end id="5" timestamp="2024-05-01T10:00:00.012" durationms="12.500" />\\n'
... )
>>> (pause,) = [e for e in parse(xml, ParseContext()).events if e.kind == "gc_pause"]
>>> pause.duration_ms, pause.attrs["type"], pause.attrs["cause"], pause.attrs["heap_after_mb"]
(12.5, 'young', 'Allocation Failure', 0.5)
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field

from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.gc_common import (
    DATESTAMP,
    Clock,
    Concurrent,
    GcLog,
    Pause,
    build_result,
    datestamp_ms,
    month_date_ms,
)

KIND = "gc_ibm_xml"

# One tag, a comment, or the XML declaration. Attribute values never hold '>' in these logs
# except escaped (&gt;), so a tag ends at the first '>' after its quoted attributes.
TAG = re.compile(
    r"<!--.*?-->|<\?.*?\?>|<(/?)([A-Za-z][\w.-]*)((?:\s+[\w:.-]+\s*=\s*\"[^\"]*\")*)\s*(/?)>",
    re.DOTALL,
)
ATTRIBUTE = re.compile(r"([\w:.-]+)\s*=\s*\"([^\"]*)\"")
SIGNATURES = (
    "<verbosegc",
    "<exclusive-start",
    "<cycle-start",
    "<gc-start",
    "<gc-op",
    "<af-start",
    "<af type=",
    "<sys id=",
    "<concurrent-kickoff",
    "<initialized",
)

# Elements this parser reads; their children are detail it does not need.
CONTAINERS = frozenset(
    {
        "verbosegc",
        "initialized",
        "exclusive-start",
        "exclusive-end",
        "af-start",
        "sys-start",
        "concurrent-kickoff",
        "concurrent-collection-start",
        "concurrent-global-final",
        "cycle-start",
        "cycle-end",
        "gc-start",
        "gc-end",
        "concurrent-start",
        "concurrent-end",
        "af",
        "sys",
        "con",
    }
)
# Known elements that carry nothing a pause needs (with everything inside them).
NOOP_ELEMENTS = frozenset(
    {
        "gc-op",
        "allocation-stats",
        "allocation-satisfied",
        "af-end",
        "sys-end",
        "concurrent-collection-end",
        "concurrent-aborted",
        "concurrent-halted",
        "concurrent-collection-aborted",
        "response-info",
        "heap-resize",
        "warning",
        "percolate-collect",
        "excessive-gc",
        "attribute",
        "system",
        "vmargs",
        "vmarg",
        "mem-info",
        "mem",
        "remembered-set",
        "pending-finalizers",
        "kickoff",
        "concurrent-trace-info",
        "trace-info",
        "copy-failed",
        "tgc",
        "event",
        "compact-info",
        "classunload-info",
        "taxation-threshold",
        "gc-end-extended",
        "hardware",
        "cpu-info",
    }
)
_DETAIL_PARENTS = (CONTAINERS | NOOP_ELEMENTS) - {"verbosegc"}
# Open elements nest this deep at most (a real log: 4 or 5); deeper ones (a log of start tags
# that never close) are read as if they closed at once, with one diagnostic.
MAX_DEPTH = 64
GC_TYPES = {
    "scavenge": "young",
    "nursery": "young",
    "scavenger": "young",
    "partial gc": "mixed",
    "global mark phase": "mark",
    "global": "full",
    "global garbage collect": "full",
}
KB = 1024.0


def sniff(head: str) -> float:
    """J9 verbose GC elements (``<verbosegc``, ``<exclusive-start``, ``<af type=`` ...)."""
    hits = sum(1 for signature in SIGNATURES if signature in head)
    if hits >= 2:
        return 0.95
    return 0.6 if hits else 0.0


@dataclass(slots=True)
class _Stop:
    """One exclusive access (stop of the world) being read."""

    line: int
    clock: Clock | None
    cause: str | None = None
    kickoff_reason: str | None = None
    final_increment: bool = False
    started_global_cycle: int | None = None
    gc_types: list[str] = field(default_factory=list)
    cycle_id: int | None = None
    before_kb: float | None = None
    after_kb: float | None = None
    total_kb: float | None = None
    young_before_kb: float | None = None
    young_after_kb: float | None = None


@dataclass(slots=True)
class _OldStop:
    """One J9 2.3-2.5 ``<af>`` / ``<sys>`` / ``<con event="collection">`` being read."""

    element: str
    line: int
    clock: Clock | None
    cause: str | None
    gc_type: str | None = None
    gc_id: int | None = None
    total_ms: float | None = None
    seen_gc: bool = False
    before: dict[str, tuple[float, float]] = field(default_factory=dict)
    after: dict[str, tuple[float, float]] = field(default_factory=dict)


@dataclass(slots=True)
class _Cycle:
    type: str
    clock: Clock | None
    stop_index: int


class _Reader:
    def __init__(self, text: str, context: ParseContext, result: ParseResult) -> None:
        self.text = text
        self.context = context
        self.result = result
        self.log = GcLog.empty()
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        # The open elements, and how many of each name are open (``_inside`` is O(1): a
        # scan of the stack per tag made a log of unclosed tags quadratic).
        self.stack: list[str] = []
        self.open_counts: Counter[str] = Counter()
        self.open_detail_parents = 0
        self.too_deep: tuple[int, int] | None = None  # (first line, count)
        self.unclosed: Counter[str] = Counter()  # closed by an outer element's end tag
        self.unclosed_line = 0
        self.stop: _Stop | None = None
        self.stops_seen = 0
        self.old: _OldStop | None = None
        self.cycles: dict[int, _Cycle] = {}
        self.kickoff_reason: str | None = None
        self.vmargs: list[str] = []
        self.concurrent_scavenge: dict[int, Clock] = {}

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)

    def clock(self, attrs: dict[str, str], line: int) -> Clock | None:
        stamp = attrs.get("timestamp")
        if stamp is None:
            return None
        match = DATESTAMP.fullmatch(stamp.strip())
        epoch_ms = (
            datestamp_ms(match, self.context.timezone)
            if match
            else month_date_ms(stamp, self.context.timezone)
        )
        if epoch_ms is None:
            self.result.diagnose(line, f"unreadable timestamp {stamp!r}")
            return None
        clock = Clock(float(epoch_ms), None)
        self.log.see(clock)
        return clock

    def read(self) -> None:
        position = 0
        for match in TAG.finditer(self.text):
            self._between(position, match.start())
            position = match.end()
            closing, name, attr_text, self_closing = match.groups()
            if name is None:  # a comment or the declaration
                continue
            line = self.line_of(match.start())
            if closing:
                self._close(name, line)
                continue
            attrs = dict(ATTRIBUTE.findall(attr_text or ""))
            self._open(name, attrs, line)
            if self_closing:
                self._close(name, line)
            elif len(self.stack) >= MAX_DEPTH:
                first, count = self.too_deep or (line, 0)
                self.too_deep = (first, count + 1)
            else:
                self._push(name)
        self._between(position, len(self.text), at_end=True)
        if self.too_deep is not None:
            first, count = self.too_deep
            self.result.diagnose(
                first,
                f"{count} elements opened deeper than {MAX_DEPTH} levels (start tags that never"
                " close?): read as if closed at once",
            )
        if self.unclosed:
            names = ", ".join(f"<{n}> x {c}" for n, c in self.unclosed.most_common(5))
            self.result.diagnose(
                self.unclosed_line,
                f"{sum(self.unclosed.values())} elements without their end tag, closed by an"
                f" outer one: {names}",
            )

    def _push(self, name: str) -> None:
        self.stack.append(name)
        self.open_counts[name] += 1
        if name in _DETAIL_PARENTS:
            self.open_detail_parents += 1

    def _pop(self) -> str:
        name = self.stack.pop()
        self.open_counts[name] -= 1
        if name in _DETAIL_PARENTS:
            self.open_detail_parents -= 1
        return name

    def _between(self, start: int, end: int, *, at_end: bool = False) -> None:
        """Text between two tags: whitespace, or lines that are not verbose GC output."""
        chunk = self.text[start:end]
        if not chunk.strip():
            return
        line = self.line_of(start)
        for offset, text in enumerate(chunk.split("\n")):
            text = text.strip()
            if not text:
                continue
            if at_end and text.startswith("<"):
                self.result.diagnose(
                    line + offset, f"log cut off inside an element: {text[:120]!r}"
                )
                return
            self.result.diagnose(
                line + offset, f"text outside the verbose GC elements: {text[:120]!r}"
            )

    # --- elements -----------------------------------------------------------------------

    def _inside(self, *names: str) -> bool:
        return any(self.open_counts[name] for name in names)

    def _inside_known(self) -> bool:
        """Inside a known element other than the root: its children are detail."""
        return self.open_detail_parents > 0

    def _open(self, name: str, attrs: dict[str, str], line: int) -> None:
        parent = self.stack[-1] if self.stack else None
        if self.old is not None and self._inside(self.old.element):
            self._old_child(name, attrs, parent)
            return
        if name == "verbosegc":
            self.log.jvm_version = attrs.get("version") or self.log.jvm_version
        elif parent == "initialized" or self._inside("initialized"):
            self._initialized_child(name, attrs)
        elif name in ("gc-start", "gc-end"):
            self._increment(name, attrs, line)
        elif name == "mem-info" and parent in ("gc-start", "gc-end"):
            self._mem_info(parent, attrs)
        elif name == "mem" and parent == "mem-info" and self._inside("gc-start", "gc-end"):
            self._nursery(attrs)
        elif self._inside_known():
            self._detail(name, attrs)
        elif name in CONTAINERS:
            self._top(name, attrs, line)
        elif name not in NOOP_ELEMENTS:
            self.result.diagnose(line, f"unknown verbose GC element <{name}>")

    def _initialized_child(self, name: str, attrs: dict[str, str]) -> None:
        if name == "attribute" and attrs.get("name") == "gcPolicy":
            self.log.collector = attrs.get("value", "").removeprefix("-Xgcpolicy:") or None
        elif name == "vmarg" and "name" in attrs:
            self.vmargs.append(attrs["name"])

    def _detail(self, name: str, attrs: dict[str, str]) -> None:
        """Children of known elements: only a few matter."""
        if name == "concurrent-trace-info" and self.stop is not None:
            reason = attrs.get("reason")
            if reason and self.stop.final_increment:
                self.stop.cause = reason
        elif name == "kickoff":
            self.kickoff_reason = attrs.get("reason") or self.kickoff_reason

    def _top(self, name: str, attrs: dict[str, str], line: int) -> None:
        if name == "exclusive-start":
            if self.stop is not None:
                self.result.diagnose(self.stop.line, "exclusive access cut off: no exclusive-end")
            self.stop = _Stop(line, self.clock(attrs, line))
            self.stops_seen += 1
        elif name == "exclusive-end":
            self._exclusive_end(attrs, line)
        elif name == "af-start":
            self._cause("Allocation Failure")
        elif name == "sys-start":
            reason = attrs.get("reason", "explicit")
            self._cause("System.gc()" if reason == "explicit" else reason)
        elif name in ("concurrent-kickoff", "initialized"):
            self.clock(attrs, line)  # the log's span starts at the GC's initialisation
        elif name in ("concurrent-collection-start", "concurrent-global-final"):
            if self.stop is not None:
                self.stop.final_increment = True
                self.stop.cause = self.stop.cause or "concurrent collection"
        elif name == "cycle-start":
            self._cycle_start(attrs, line)
        elif name == "cycle-end":
            self._cycle_end(attrs, line)
        elif name == "concurrent-start":
            clock = self.clock(attrs, line)
            if clock is not None:
                self.concurrent_scavenge[_int(attrs.get("contextid"))] = clock
        elif name == "concurrent-end":
            self._concurrent_end(attrs, line)
        elif name in ("af", "sys", "con"):
            self._old_start(name, attrs, line)

    def _cause(self, cause: str) -> None:
        if self.stop is not None and self.stop.cause is None:
            self.stop.cause = cause

    def _cycle_start(self, attrs: dict[str, str], line: int) -> None:
        clock = self.clock(attrs, line)
        cycle_id = _int(attrs.get("id"))
        cycle_type = attrs.get("type", "")
        self.cycles[cycle_id] = _Cycle(cycle_type, clock, self.stops_seen)
        if self.stop is not None:
            self.stop.cycle_id = self.stop.cycle_id if self.stop.cycle_id is not None else cycle_id
            if cycle_type == "global" and self.stop.cause is None:
                self.stop.started_global_cycle = cycle_id

    def _cycle_end(self, attrs: dict[str, str], line: int) -> None:
        clock = self.clock(attrs, line)
        cycle = self.cycles.pop(_int(attrs.get("contextid")), None)
        if cycle is None or cycle.clock is None or clock is None:
            return
        if cycle.stop_index != self.stops_seen:  # it outlived its first stop: concurrent
            self.log.concurrents.append(
                Concurrent(
                    cycle.clock,
                    max(clock.wall_ms or 0.0, cycle.clock.wall_ms or 0.0)
                    - (cycle.clock.wall_ms or 0.0),
                    self.log.collector or "j9",
                    f"{cycle.type.replace(' ', '_')}_cycle",
                    _int(attrs.get("contextid")),
                )
            )

    def _concurrent_end(self, attrs: dict[str, str], line: int) -> None:
        clock = self.clock(attrs, line)
        context_id = _int(attrs.get("contextid"))
        start = self.concurrent_scavenge.pop(context_id, None)
        if start is None or clock is None or start.wall_ms is None or clock.wall_ms is None:
            return
        self.log.concurrents.append(
            Concurrent(
                start,
                clock.wall_ms - start.wall_ms,
                self.log.collector or "j9",
                "concurrent_scavenge",
                context_id,
            )
        )

    def _increment(self, name: str, attrs: dict[str, str], line: int) -> None:
        self.clock(attrs, line)
        if self.stop is None:
            self.result.diagnose(line, f"<{name}> outside an exclusive access")
            return
        if name == "gc-start":
            self.stop.gc_types.append(attrs.get("type", ""))
            if self.stop.cycle_id is None and "contextid" in attrs:
                self.stop.cycle_id = _int(attrs.get("contextid"))

    def _mem_info(self, parent: str, attrs: dict[str, str]) -> None:
        stop = self.stop
        if stop is None or "total" not in attrs or "free" not in attrs:
            return
        total = _float(attrs["total"]) / KB
        used = total - _float(attrs["free"]) / KB
        if parent == "gc-start":
            if stop.before_kb is None:
                stop.before_kb = used
        else:
            stop.after_kb = used
            stop.total_kb = total

    def _nursery(self, attrs: dict[str, str]) -> None:
        stop = self.stop
        if stop is None or attrs.get("type") != "nursery" or "total" not in attrs:
            return
        used = (_float(attrs["total"]) - _float(attrs.get("free", "0"))) / KB
        if self.open_counts["gc-start"]:
            if stop.young_before_kb is None:
                stop.young_before_kb = used
        else:
            stop.young_after_kb = used

    def _exclusive_end(self, attrs: dict[str, str], line: int) -> None:
        stop = self.stop
        self.stop = None
        end = self.clock(attrs, line)
        if stop is None:
            self.result.diagnose(line, "exclusive-end without its exclusive-start")
            return
        if stop.clock is None:
            self.result.diagnose(stop.line, "exclusive access without a timestamp")
            return
        if "durationms" in attrs:
            duration = _float(attrs["durationms"])
        elif end is not None and end.wall_ms is not None and stop.clock.wall_ms is not None:
            duration = end.wall_ms - stop.clock.wall_ms
        else:
            self.result.diagnose(line, "exclusive access without a duration")
            return
        pause_type, cause = self._classify(stop)
        self.log.pauses.append(
            Pause(
                stop.clock,
                duration,
                self.log.collector or "j9",
                pause_type,
                cause,
                heap_before_kb=stop.before_kb,
                heap_after_kb=stop.after_kb,
                heap_total_kb=stop.total_kb if stop.after_kb is not None else None,
                young_before_kb=stop.young_before_kb,
                young_after_kb=stop.young_after_kb,
                gc_id=stop.cycle_id,
            )
        )

    def _classify(self, stop: _Stop) -> tuple[str, str | None]:
        cause = stop.cause
        if not stop.gc_types:
            if stop.started_global_cycle is not None:
                reason, self.kickoff_reason = self.kickoff_reason, None
                return "initial_mark", reason or "concurrent kickoff"
            return "exclusive", cause
        kinds = [GC_TYPES.get(t, t.replace(" ", "_")) for t in stop.gc_types]
        # A stop that ran a global increment is read by it (a scavenge may precede it).
        main = next((k for k in kinds if k == "full"), kinds[-1])
        if main == "full" and stop.final_increment:
            return "remark", cause
        return main, cause

    # --- J9 2.3-2.5 ---------------------------------------------------------------------

    def _old_start(self, name: str, attrs: dict[str, str], line: int) -> None:
        if name == "con" and attrs.get("event") != "collection":
            if attrs.get("event") == "kickoff":
                self.clock(attrs, line)
            return  # kickoff, aborted, remembered set overflow ...: no stop
        if self.old is not None:
            self.result.diagnose(self.old.line, f"<{self.old.element}> cut off")
        cause = {"af": "Allocation Failure", "sys": "System.gc()"}.get(
            name, "concurrent collection"
        )
        self.old = _OldStop(name, line, self.clock(attrs, line), cause)

    def _old_child(self, name: str, attrs: dict[str, str], parent: str | None) -> None:
        old = self.old
        assert old is not None
        if name == "gc" and parent == old.element:
            old.gc_type = attrs.get("type")
            old.gc_id = _int(attrs.get("totalid") or attrs.get("id")) if attrs else None
            old.seen_gc = True
        elif name == "time" and parent == old.element and "totalms" in attrs:
            old.total_ms = _float(attrs["totalms"])
        elif (
            name in ("nursery", "tenured")
            and parent == old.element
            and "totalbytes" in attrs
            and "freebytes" in attrs
        ):
            space = (_float(attrs["totalbytes"]) / KB, _float(attrs["freebytes"]) / KB)
            (old.after if old.seen_gc else old.before)[name] = space

    def _close(self, name: str, line: int) -> None:
        if self.open_counts[name]:
            while self.stack:
                popped = self._pop()
                if popped == name:
                    break
                if not self.unclosed:
                    self.unclosed_line = line
                self.unclosed[popped] += 1
        if self.old is not None and name == self.old.element and not self._inside(name):
            self._old_end(line)

    def _old_end(self, line: int) -> None:
        old = self.old
        self.old = None
        assert old is not None
        if old.clock is None or old.total_ms is None:
            self.result.diagnose(old.line, f"<{old.element}> without a timestamp or <time totalms>")
            return
        kind = GC_TYPES.get(old.gc_type or "", old.gc_type or "exclusive")
        if old.element == "con" and kind == "full":
            kind = "remark"
        pause = Pause(old.clock, old.total_ms, self.log.collector or "j9", kind, old.cause)
        pause.gc_id = old.gc_id
        if old.before:
            pause.heap_before_kb = sum(t - f for t, f in old.before.values())
        after = {**old.before, **old.after} if old.after else {}
        if after:
            pause.heap_after_kb = sum(t - f for t, f in after.values())
            pause.heap_total_kb = sum(t for t, _ in after.values())
        if "nursery" in old.before and "nursery" in old.after:
            pause.young_before_kb = old.before["nursery"][0] - old.before["nursery"][1]
            pause.young_after_kb = old.after["nursery"][0] - old.after["nursery"][1]
        self.log.pauses.append(pause)
        self.log.see(old.clock.shifted(old.total_ms))


def _int(value: str | None) -> int:
    try:
        return int(value or "0")
    except ValueError:
        return 0


def _float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    reader = _Reader(text, context, result)
    reader.read()
    if reader.stop is not None:
        result.diagnose(reader.stop.line, "exclusive access cut off: the log ends inside it")
    if reader.old is not None:
        result.diagnose(reader.old.line, f"<{reader.old.element}> cut off: the log ends inside it")
    log = reader.log
    if reader.vmargs:
        log.command_line = " ".join(reader.vmargs)
    if not log.pauses and log.collector is None and log.jvm_version is None:
        result.diagnose(0, "no J9 verbose GC elements found")
        return result
    return build_result(KIND, log, context, result)
