"""HP-UX JVM GC logs written by ``-Xverbosegc`` (HP's Java 1.2 to 5.0 for HP-UX).

Produced by ``java -Xverbosegc[:file=gc.log]``: one machine-readable line per collection,
sizes in bytes and times in seconds of JVM uptime. Two layouts exist, told apart by the
number of fields. HP JDK 1.2, 1.3 and 1.4.0 write 18::

    <GC: 2 4.020320 1 104 32 25179176 0 107544576 0 0 13369344 0 3343624 268435456 5242800 5242800 5242880 0.117212 >

    %1 cause: -1 scavenge (young collection); 0-6 full collection, the reason:
       0 System.gc, 1 old generation full, 2 permanent generation full, 3 train
       generation full, 4 old generation expanded on last scavenge, 5 old generation too
       full to scavenge, 6 FullGCAlot
    %2 uptime at the start (s)   %3 collection number   %4 allocation request (bytes)
    %5 tenuring threshold        %6-8 eden before, after, capacity
    %9-11 survivor before, after, capacity              %12-14 old before, after, capacity
    %15-17 permanent before, after, capacity            %18 duration (s)

HP JDK 1.4.1 and later write 20: ``%1`` the kind (1 scavenge, 2 old or full collection,
3 a complete and 4 an incomplete background CMS cycle), ``%2`` its detail (for 2 the
reason: 1 allocation failure, 2 System.gc, 3 tenured generation full, 4 permanent
generation full, 5 train generation full, 6 CMS generation full, 7 old generation expanded
on last scavenge, 8 old generation too full to scavenge, 9 FullGCAlot, 10 allocation
profiler, 11 last ditch collection, 12 heap dump, 13 GC locker, 14 no cause specified),
``%3`` the uptime, then the fields above shifted by one, ``%19`` the stop-the-world time
and ``%20`` the whole collection's time (s) (HP's "-Xverbosegc" pages for 1.2-1.4.0 and
1.4.1+, cited by GCViewer's HP-UX readers).

Each line is a ``gc_pause`` (the events and series of :mod:`rootline.parsers.gc_common`):
its stop-the-world time, placed at its uptime (the log is anchored only by a JVM start
time given at upload, ``context.jvm_start_ms``); the heap is eden + survivor + old (the
permanent generation left out, as HotSpot's heap figures do), young sizes eden + survivor.
A background CMS cycle (kind 3 or 4) is a ``remark`` pause of its stop-the-world time
(initial mark and remark) plus a ``gc_concurrent`` event of its whole time.

=============  ====================================================  ===============
rule           matches                                               handler
=============  ====================================================  ===============
``RECORD``     ``<GC: `` then 18 or 20 numbers then ``>``             pause
no-op          blank lines                                           skipped
=============  ====================================================  ===============

Every other line (another field count, text) is a numbered diagnostic.

>>> from rootline.parsers.base import ParseContext
>>> line = "<GC: -1 1.500000 7 0 31 1048576 0 2097152 0 65536 131072 524288 540672 4194304 0 0 8 0.012500 >"
>>> pause = next(e for e in parse(line, ParseContext()).events if e.kind == "gc_pause")
>>> pause.time_ms, pause.duration_ms, pause.attrs["type"], pause.attrs["heap_after_mb"]
(1500, 12.5, 'young', 0.578)
"""

from __future__ import annotations

import re

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.gc_common import Clock, Concurrent, GcLog, Pause, build_result

KIND = "gc_hpux"
COLLECTOR = "hp-ux"

_NUMBER = r"-?\d+(?:\.\d+)?"
RECORD = re.compile(r"<GC:((?: +" + _NUMBER + r")+) *>")
# Any line that opens like a record: counted for sniffing, diagnosed when it is not one.
RECORD_OPENER = re.compile(r"^<GC: +-?\d", re.MULTILINE)

OLD_REASONS = {
    0: "System.gc()",
    1: "Old Generation Full",
    2: "Permanent Generation Full",
    3: "Train Generation Full",
    4: "Old Generation Expanded On Last Scavenge",
    5: "Old Generation Too Full To Scavenge",
    6: "FullGCAlot",
}
NEW_REASONS = {
    1: "Allocation Failure",
    2: "System.gc()",
    3: "Tenured Generation Full",
    4: "Permanent Generation Full",
    5: "Train Generation Full",
    6: "CMS Generation Full",
    7: "Old Generation Expanded On Last Scavenge",
    8: "Old Generation Too Full To Scavenge",
    9: "FullGCAlot",
    10: "Allocation Profiler",
    11: "Last Ditch Collection",
    12: "Heap Dump Triggered",
    13: "GCLocker Initiated GC",
    14: "No GC cause specified",
}
CMS_REASONS = {
    1: "Occupancy > initiatingOccupancy",
    2: "Expanded recently",
    3: "Incremental collection will fail",
    4: "Linear allocation will fail",
    5: "Anticipated promotion",
}
KB = 1024.0


def sniff(head: str) -> float:
    """Lines of ``<GC: `` followed by 18 or 20 numbers."""
    openers = RECORD_OPENER.findall(head)
    if not openers:
        return 0.0
    records = sum(
        1
        for line in head.splitlines()
        if (match := RECORD.fullmatch(line.strip())) and len(match.group(1).split()) in (18, 20)
    )
    if records >= 2 or (records and records == len(openers)):
        return 0.95
    return 0.6 if records else 0.0


def _pause(fields: list[float], line_no: int, result: ParseResult, log: GcLog) -> None:
    if len(fields) == 18:
        code, uptime, number = int(fields[0]), fields[1], int(fields[2])
        sizes, stw_s, total_s = fields[5:17], fields[17], None
        pause_type = "young" if code == -1 else "full"
        cause = None if code == -1 else OLD_REASONS.get(code, f"reason {code}")
    else:
        code, detail, uptime, number = int(fields[0]), fields[1], fields[2], int(fields[3])
        sizes, stw_s, total_s = fields[6:18], fields[18], fields[19]
        if code == 1:
            pause_type, cause = "young", None
        elif code == 2:
            pause_type, cause = "full", NEW_REASONS.get(int(detail), f"reason {detail:g}")
        elif code in (3, 4):
            pause_type = "remark"
            cause = CMS_REASONS.get(int(detail), f"reason {detail:g}")
        else:
            result.diagnose(line_no, f"unknown HP-UX collection kind {code}")
            return
    eden_b, eden_a, eden_c, surv_b, surv_a, surv_c, old_b, old_a, old_c = sizes[:9]
    clock = Clock(None, uptime)
    log.see(clock)
    pause = Pause(
        clock,
        stw_s * 1000.0,
        COLLECTOR,
        pause_type,
        cause,
        heap_before_kb=(eden_b + surv_b + old_b) / KB,
        heap_after_kb=(eden_a + surv_a + old_a) / KB,
        heap_total_kb=(eden_c + surv_c + old_c) / KB,
        young_before_kb=(eden_b + surv_b) / KB,
        young_after_kb=(eden_a + surv_a) / KB,
        gc_id=number,
    )
    if pause_type == "remark" and total_s is not None:
        pause.detail = "background CMS cycle: its stop-the-world parts"
        phase = "cms_background" if code == 3 else "cms_background_incomplete"
        log.concurrents.append(Concurrent(clock, total_s * 1000.0, COLLECTOR, phase, number))
    log.pauses.append(pause)
    log.see(clock.shifted(stw_s * 1000.0 if total_s is None else total_s * 1000.0))


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    log = GcLog.empty()
    log.collector = COLLECTOR
    for line_no, raw in enumerate(iter_lines(text), 1):
        line = raw.strip()
        if not line:
            continue
        match = RECORD.fullmatch(line)
        if match is None:
            result.diagnose(line_no, f"not an HP-UX -Xverbosegc record: {line[:120]!r}")
            continue
        try:
            fields = [float(v) for v in match.group(1).split()]
        except ValueError:  # pragma: no cover - the pattern admits numbers only
            fields = []
        if len(fields) not in (18, 20):
            result.diagnose(
                line_no, f"HP-UX -Xverbosegc record with {len(fields)} fields (18 or 20 known)"
            )
            continue
        _pause(fields, line_no, result, log)
    if not log.pauses:
        result.diagnose(0, "no HP-UX -Xverbosegc records found")
        return result
    return build_result(KIND, log, context, result)
