"""Java thread dumps: ``jstack <pid>``, ``kill -3`` output, ``jcmd <pid> Thread.dump_to_file``.

Input: one or several dumps per file, each opened by ``Full thread dump ...`` (HotSpot, SAP
JVM, HP-UX, VisualVM) or ``===== FULL THREAD DUMP`` (JRockit), usually after a timestamp line
(``jstack`` writes one, capture loops add ``date -Is``); also JDK 21+ JSON
(``jcmd <pid> Thread.dump_to_file -format=json``). Sample lines:

    2026-11-21 07:27:34
    Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):
    "order-service-thread-3" #15 prio=5 os_prio=0 cpu=2.10ms elapsed=10.52s tid=0x... nid=0x2a waiting on condition  [0x...]
       java.lang.Thread.State: TIMED_WAITING (sleeping)
        at java.lang.Thread.sleep(java.base@17.0.15/Native Method)
        - waiting to lock <0x000000052c830070> (a java.lang.Object)

Per dump, at the dump's time:

==========================================  ========  ======================================
series / event                              unit      what
==========================================  ========  ======================================
``jvm.threads{state}``                      threads   Java threads per state (runnable,
                                                      blocked, waiting, timed_waiting, new,
                                                      terminated), zeros included
``jvm.threads.pool{pool}``                  threads   threads per pool, the
                                                      :data:`TOP_POOLS` biggest
``jvm.threads.pool_state{pool,state}``      threads   the :data:`TOP_POOL_STATES` biggest
                                                      pools split by state (non-zero only)
event ``thread_dump``                                 total, vm_threads, by_state, by_pool
                                                      (top 20), top_stacks (top 10: frames
                                                      (first 8), count), states_inferred,
                                                      pool_runnable_stacks,
                                                      pool_waiting_stacks (see below),
                                                      vm (the JVM and its version, when the
                                                      dump names them: :func:`vm_of`),
                                                      pid (JSON's processId)
event ``thread_contention``                           monitor, class, owner, owner_state,
                                                      waiters, waiter_names (first 10),
                                                      waiters_by_pool (every waiter),
                                                      pool_threads (those pools' sizes)
event ``thread_deadlock``                             threads, monitors, cycle (per thread:
                                                      thread, monitor, class, held_by)
==========================================  ========  ======================================

Counting: when a dump has ``java.lang.Thread.State:`` lines, threads without one are VM
internals (GC, compiler threads) and only counted in ``vm_threads``; dumps without any (JDK 5,
JRockit, HP-UX, the JMX ``id=N in STATE`` form) take the state from the header (see
:func:`state_from_header`), and JDK 21 JSON from the top frame (``states_inferred``).
A pool is the thread name without its trailing number (:func:`pool_of`).

``thread_contention``: one event per lock that threads wait to acquire, BLOCKED on a monitor
(``waiting to lock``) or parked on a ``java.util.concurrent`` lock's ``Sync`` (``parking to
wait for``). ``waiters_by_pool`` counts every waiter per pool, ``pool_threads`` how many
threads those pools hold in the dump (counted threads, as ``by_pool``), so that a share of a
pool can be told for any pool, not only the :data:`TOP_POOLS` biggest.

``thread_deadlock``: one event per ``Found one Java-level deadlock`` section. ``cycle``
lists its threads in the JVM's order, each with the lock it waits for (``monitor``, the
object's address, or an ownable synchronizer's; ``class``) and the thread holding it
(``held_by``): the JVM prints the cycle in order, each thread held up by the next.

``pool_runnable_stacks``: for each of the :data:`TOP_POOLS` pools, the top frames (first
:data:`RUNNABLE_STACK_FRAMES`) of its RUNNABLE threads, as ``{pool: [{"frames": [...],
"count": n}, ...]}``, the :data:`RUNNABLE_STACKS_PER_POOL` most common stacks first. RUNNABLE
is also what the JVM reports for a thread blocked in native code (``socketAccept``,
``socketRead0``, ``epollWait``): the top frames tell a thread on CPU from one waiting for
input.

``pool_waiting_stacks``: for each of the :data:`TOP_POOL_STATES` pools (those split by state),
the top frames (first :data:`STACK_FRAMES`) of its WAITING and TIMED_WAITING threads, as
``{pool: [{"frames": [...], "count": n, "deeper": bool}, ...]}``, the
:data:`WAITING_STACKS_PER_POOL` most common stacks first; ``deeper`` says the threads' stacks
go on below the frames kept. A waiting worker may be idle in its pool's queue
(``LinkedBlockingQueue.take`` under ``ThreadPoolExecutor.getTask``) or inside a task
(``Thread.sleep``, ``FutureTask.get`` called from application code): the frames tell which.

:func:`read_threads` reads the same dumps again with every thread and its whole stack (up to
:data:`VIEW_FRAMES` frames) for the thread-dump view; nothing of it is stored.

Dump time: the last timestamp line since the previous dump (zone-less in ``context.timezone``),
JRockit's date line right after its header, JSON's ``time``; a dump with none is placed at
``context.default_time_ms`` plus one second per dump before it in the file, so several
undated dumps keep their order.

Line rules (every line is tested in this order; text outside a thread, such as class
histograms, heap summaries, SMR lists, JNI counts or the log a ``kill -3`` dump sits in, is a
known no-op; a line inside a thread that no rule knows is a diagnostic):

================  =================================================  =========================
rule              pattern                                            handler
================  =================================================  =========================
dump_start        ``Full thread dump`` / ``FULL THREAD DUMP``        opens a dump
thread_header     ``"name" ...`` (HotSpot, VisualVM, JRockit, JMX)   opens a thread
deadlock          ``Found one Java-level deadlock:`` .. ``Found N``  thread_deadlock event
state             ``java.lang.Thread.State: STATE``                  the thread's state
frame             ``at pkg.Class.method(...)``                       the thread's stack
lock              ``- waiting to lock`` / ``- locked`` / JRockit     contention bookkeeping
                  ``-- Blocked trying to get lock`` ``^-- Holding``
timestamp         a line holding only a date-time                    the next dump's time
================  =================================================  =========================
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections import Counter
from typing import Any

from rootline.parsers.base import EventData, ParseContext, ParseResult, SeriesSet, iter_lines
from rootline.parsers.logtime import DATETIME_RE, HourCache, match_to_ms

KIND = "thread_dump"

STATES = ("runnable", "blocked", "waiting", "timed_waiting", "new", "terminated")
TOP_POOLS = 20
TOP_POOL_STATES = 5
TOP_STACKS = 10
STACK_FRAMES = 8
RUNNABLE_STACK_FRAMES = 6
RUNNABLE_STACKS_PER_POOL = 5
WAITING_STACKS_PER_POOL = 10
WAITER_NAMES = 10
# One second between undated dumps of one file.
UNDATED_DUMP_SPACING_MS = 1000

# "Full thread dump OpenJDK 64-Bit Server VM (25+36-LTS mixed mode, sharing):", "... Client VM
# 1.6.0_03-b05": the VM's name up to "VM", then its version (the first word, in brackets or not).
VM_HEADER_RE = re.compile(r"Full thread dump (?P<name>.*?\bVM)\s*\(?(?P<version>[\w.+-]+)")
THREAD_HEADER_RE = re.compile(r'"(?P<name>.*?)"(?P<rest>(?:[\s:].*)?)$')
STATE_LINE_PREFIX = "java.lang.Thread.State:"
JMX_STATE_RE = re.compile(r"\bin (RUNNABLE|BLOCKED|WAITING|TIMED_WAITING|NEW|TERMINATED)\b")
WAITING_TO_LOCK_RE = re.compile(
    r'waiting to lock <?(?P<monitor>[^>\s]+)>?(?: \(a (?P<cls>[^)]+)\))?(?: owned by "(?P<owner>[^"]*)")?'
)
LOCKED_RE = re.compile(r"locked <?(?P<monitor>[^>\s]+)>?(?: \(a (?P<cls>[^)]+)\))?")
MONITOR_ADDRESS_RE = re.compile(r"<(?P<monitor>[^>]+)>(?: \(a (?P<cls>[^)]+)\))?")
JROCKIT_LOCK_RE = re.compile(
    r"(?P<kind>Blocked trying to get lock|Holding lock): (?P<cls>[^@]+)@(?P<monitor>\S+?)\["
)
DEADLOCK_WAIT_RE = re.compile(
    r"waiting to lock (?:monitor \S+ \(object (?P<object>[^,]+), a (?P<cls>[^)]+)\)|(?P<sync>.+?)),?$"
)
DEADLOCK_SYNCHRONIZER_RE = re.compile(
    r"waiting for ownable synchronizer (?P<sync>[^,\s]+),? \(a (?P<cls>[^)]+)\),?$"
)
DEADLOCK_HELD_RE = re.compile(r'which is held by "(?P<owner>[^"]*)"')
CDATE_RE = re.compile(
    r"(?:[A-Z][a-z]{2} )?(?P<mon>[A-Z][a-z]{2}) +(?P<day>\d{1,2}) (?P<clock>\d{2}:\d{2}:\d{2})(?: (?P<zone>[A-Z]{2,5}))? (?P<year>\d{4})"
)
MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
# A member number followed by what the thread is doing: "ToeThread #73: http://host/path".
DESCRIBED_MEMBER_RE = re.compile(r"^(?P<member>.*?[-#_ ]\d+):(?:\s.*)?$")
# The thread-name suffix that numbers a pool's members: "-thread-42", "-7", "#3", " [12]", "Thread0".
POOL_SUFFIX_RE = re.compile(r"(?:\s*\[[^\]]*\]|(?:[-_ ]thread)?[-#_ ]\d+|(?<=[A-Za-z])\d+)$")
QUOTED_NUMBER_RE = re.compile(r"'\d+'")
# JRockit's state words; "native_waiting" / "native_blocked" are threads in native code (runnable).
BLOCKED_WORD_RE = re.compile(r"\bblocked\b")
WAITING_WORD_RE = re.compile(r"\bwaiting\b")

# Lines outside threads that are part of the format, by prefix (after stripping).
KNOWN_PREFIXES = (
    "Threads class SMR info",
    "_java_thread_list",
    "0x",
    "}",
    "JNI global",
    "Heap",
    "Locked ownable synchronizers",
    "Locked synchronizers",
    "No compile task",
    "Mounted virtual thread",
    "Carrying virtual thread",
    "<EndOfDump>",
    "--- End of stack trace",
    "-- end of trace",
    "-- Waiting for notification",
    "^-- Lock released",
    "Compiling:",
)


@functools.lru_cache(maxsize=65536)
def pool_of(name: str) -> str:
    """The pool a thread belongs to: its name without the member number.

    >>> pool_of("DubboServerHandler-10.0.0.1:20880-thread-42")
    'DubboServerHandler-10.0.0.1:20880'
    >>> pool_of("http-nio-8080-exec-7"), pool_of("pool-3-thread-9"), pool_of("GC Thread#0")
    ('http-nio-8080-exec', 'pool-3', 'GC Thread')
    >>> pool_of("ToeThread #73: http://example.com/robots.txt")
    'ToeThread'
    """
    stripped = name.strip()
    described = (
        DESCRIBED_MEMBER_RE.match(stripped) if ": " in stripped or stripped.endswith(":") else None
    )
    if described:
        stripped = described["member"]
    pool = POOL_SUFFIX_RE.sub("", QUOTED_NUMBER_RE.sub("'*'", stripped)).strip()
    return pool or name


def state_from_header(rest: str) -> str:
    """A thread's state from its header alone (dumps without ``Thread.State`` lines)."""
    if " in " in rest:
        jmx = JMX_STATE_RE.search(rest)
        if jmx:
            return jmx[1].lower()
    low = rest.lower()
    if "waiting for monitor entry" in low or ("blocked" in low and BLOCKED_WORD_RE.search(low)):
        return "blocked"
    if "sleeping" in low:
        return "timed_waiting"
    if (
        "object.wait()" in low
        or "waiting on condition" in low
        or ("waiting" in low and WAITING_WORD_RE.search(low))
    ):
        return "waiting"
    return "runnable"


def _state_from_top_frame(frames: list[str]) -> str:
    top = frames[0] if frames else ""
    if "Thread.sleep" in top or "parkNanos" in (frames[1] if len(frames) > 1 else ""):
        return "timed_waiting"
    if "Object.wait" in top or ".park(" in top or "Unsafe.park" in top:
        return "waiting"
    return "runnable"


def sniff(head: str) -> float:
    if "Full thread dump" in head or "===== FULL THREAD DUMP" in head:
        return 0.95
    stripped = head.lstrip()
    if stripped.startswith("{") and '"threadDump"' in head[:2000]:
        return 0.95
    # A dump cut before its header: several thread headers with states and frames.
    if head.count(STATE_LINE_PREFIX) >= 3 and head.count("\tat ") + head.count("    at ") >= 3:
        return 0.85
    return 0.0


class _Thread:
    __slots__ = (
        "daemon",
        "frame_count",
        "frames",
        "has_state_line",
        "locked",
        "name",
        "parked_on",
        "state",
        "waiting_on",
        "waiting_to_lock",
    )

    def __init__(self, name: str, state: str) -> None:
        self.name = name
        self.state = state
        self.daemon = False
        self.has_state_line = False
        self.frames: list[str] = []
        self.frame_count = 0
        self.locked: dict[str, str] = {}
        self.waiting_on: set[str] = set()
        self.waiting_to_lock: tuple[str, str, str | None] | None = None
        self.parked_on: tuple[str, str] | None = None


def vm_of(header: str) -> str | None:
    """The JVM a ``Full thread dump`` header names, short: its maker and version.

    >>> vm_of("Full thread dump OpenJDK 64-Bit Server VM (25+36-LTS mixed mode, sharing):")
    'OpenJDK 25+36-LTS'
    >>> vm_of("Full thread dump Java HotSpot(TM) Client VM 1.6.0_03-b05")
    'Java HotSpot 1.6.0_03-b05'
    >>> vm_of("===== FULL THREAD DUMP ===============") is None
    True
    """
    match = VM_HEADER_RE.search(header)
    if match is None:
        return None
    name = re.sub(r"\((?:TM|R)\)", "", match["name"])
    name = re.sub(r"\s*(?:64-Bit\s+)?(?:Server|Client)\s+VM$", "", name).strip() or match["name"]
    return f"{name} {match['version']}"


class _Dump:
    __slots__ = (
        "deadlocks",
        "has_state_lines",
        "index",
        "inferred",
        "owned_synchronizers",
        "pid",
        "threads",
        "time_ms",
        "vm",
    )

    def __init__(self, index: int, time_ms: int | None, vm: str | None = None) -> None:
        self.index = index
        self.time_ms = time_ms
        self.vm = vm
        self.pid: str | None = None
        self.threads: list[_Thread] = []
        self.has_state_lines = False
        self.inferred = False
        self.deadlocks: list[dict[str, Any]] = []
        # synchronizer address -> owning thread name ("Locked ownable synchronizers" lists)
        self.owned_synchronizers: dict[str, str] = {}


class _Reader:
    """The line-by-line state machine for text dumps."""

    def __init__(
        self, context: ParseContext, result: ParseResult, frame_limit: int = STACK_FRAMES
    ) -> None:
        self.context = context
        self.result = result
        self.frame_limit = frame_limit
        self.hours = HourCache(context.timezone)
        self.dumps: list[_Dump] = []
        self.dump: _Dump | None = None
        self.thread: _Thread | None = None
        # The thread whose "Locked ownable synchronizers" list is being read.
        self.synchronizer_owner: _Thread | None = None
        self.pending_time: int | None = None
        self.deadlock: dict[str, Any] | None = None
        self.in_deadlock_stacks = False

    def open_dump(self, header: str = "") -> _Dump:
        dump = _Dump(len(self.dumps), self.pending_time, vm_of(header))
        self.pending_time = None
        self.dumps.append(dump)
        self.dump = dump
        self.thread = None
        self.synchronizer_owner = None
        self.deadlock = None
        self.in_deadlock_stacks = False
        return dump

    def read(self, text: str) -> None:
        frame_limit = self.frame_limit
        for line_no, raw in enumerate(iter_lines(text), 1):
            line = raw.strip()
            # Stack frames are most of a dump: handled inline, without a call.
            if line.startswith("at "):
                thread = self.thread
                if thread is not None:
                    if thread.frame_count < frame_limit:
                        thread.frames.append(line[3:])
                    thread.frame_count += 1
            elif line:
                self.line(line_no, line)
            else:
                self.thread = None

    def line(self, line_no: int, line: str) -> None:
        first = line[0]
        if first == "-" or first == "^":
            self.lock_line(line)
            return
        if first == '"':
            self.header_line(line_no, line)
            return
        if first == "j" and line.startswith(STATE_LINE_PREFIX):
            if self.thread is not None and self.dump is not None:
                self.thread.state = _state_word(line[len(STATE_LINE_PREFIX) :])
                self.thread.has_state_line = True
                self.dump.has_state_lines = True
            return
        if "Full thread dump" in line or "FULL THREAD DUMP" in line:
            self.open_dump(line)
            return
        if line.startswith("Found one Java-level deadlock") or line.startswith("Found a total of"):
            self.thread = None
            self.deadlock = {"threads": [], "monitors": [], "owners": [], "cycle": []}
            if self.dump is not None:
                self.dump.deadlocks.append(self.deadlock)
            self.in_deadlock_stacks = False
            return
        if self.deadlock is not None and self.deadlock_line(line):
            return
        stamp = self.timestamp(line)
        if stamp is not None:
            dump = self.dump
            if dump is not None and dump.time_ms is None and not dump.threads:
                dump.time_ms = stamp  # JRockit dates its dump on the line after the header
            else:
                self.pending_time = stamp
            self.thread = None
            return
        if line.startswith(KNOWN_PREFIXES):
            return
        if self.thread is not None:
            self.result.diagnose(
                line_no, f"unexpected line inside thread {self.thread.name!r}: {line[:80]!r}"
            )
            self.thread = None

    def header_line(self, line_no: int, line: str) -> None:
        match = THREAD_HEADER_RE.match(line)
        if match is None:
            self.result.diagnose(line_no, f"unreadable thread header: {line[:80]!r}")
            return
        rest = match["rest"]
        if self.deadlock is not None and rest.strip() in (":", ""):
            # '"name":' lines of a deadlock report: the thread is listed above, not a new one.
            if not self.in_deadlock_stacks:
                self.deadlock["threads"].append(match["name"])
                self.deadlock["cycle"].append(
                    {"thread": match["name"], "monitor": None, "class": None, "held_by": None}
                )
            self.thread = None
            return
        self.deadlock = None
        dump = self.dump if self.dump is not None else self.open_dump()
        thread = _Thread(match["name"], state_from_header(rest))
        thread.daemon = " daemon " in rest
        dump.threads.append(thread)
        self.thread = thread
        self.synchronizer_owner = thread

    def lock_line(self, line: str) -> None:
        thread = self.thread
        if thread is None:
            # "Locked ownable synchronizers:" entries: "- <0x...> (a ...ReentrantLock$NonfairSync)"
            owner = self.synchronizer_owner
            if owner is not None and self.dump is not None and line.startswith("- <"):
                address = MONITOR_ADDRESS_RE.search(line)
                if address:
                    self.dump.owned_synchronizers[address["monitor"]] = owner.name
            return
        body = line.lstrip("-^ ")
        if body.startswith("waiting to lock"):
            match = WAITING_TO_LOCK_RE.match(body)
            if match:
                thread.waiting_to_lock = (match["monitor"], match["cls"] or "", match["owner"])
        elif body.startswith("locked"):
            match = LOCKED_RE.match(body)
            if match:
                thread.locked.setdefault(match["monitor"], match["cls"] or "")
        elif body.startswith("waiting on"):
            match = MONITOR_ADDRESS_RE.search(body)
            if match:
                thread.waiting_on.add(match["monitor"])
        elif body.startswith("parking to wait for"):
            match = MONITOR_ADDRESS_RE.search(body)
            if match and match["cls"] and match["cls"].endswith("Sync"):  # a lock, not a Condition
                thread.parked_on = (match["monitor"], match["cls"])
        elif body.startswith(("Blocked trying to get lock", "Holding lock")):
            match = JROCKIT_LOCK_RE.match(body)
            if match:
                if match["kind"] == "Holding lock":
                    thread.locked.setdefault(match["monitor"], match["cls"])
                else:
                    thread.waiting_to_lock = (match["monitor"], match["cls"], None)

    def deadlock_line(self, line: str) -> bool:
        deadlock = self.deadlock
        assert deadlock is not None
        if line.startswith("Java stack information"):
            self.in_deadlock_stacks = True
            return True
        if line.startswith("Found ") and "deadlock" in line:
            self.deadlock = None
            return True
        if line[0] == "=":
            return True
        cycle = deadlock["cycle"]
        wait = DEADLOCK_WAIT_RE.match(line)
        if wait:
            deadlock["monitors"].append(wait["object"] or wait["sync"])
            if cycle:
                cycle[-1]["monitor"] = wait["object"] or wait["sync"]
                cycle[-1]["class"] = wait["cls"]
            return True
        synchronizer = DEADLOCK_SYNCHRONIZER_RE.match(line)
        if synchronizer:
            if cycle:
                cycle[-1]["monitor"] = synchronizer["sync"]
                cycle[-1]["class"] = synchronizer["cls"]
            return True
        held = DEADLOCK_HELD_RE.search(line)
        if held:
            deadlock["owners"].append(held["owner"])
            if cycle:
                cycle[-1]["held_by"] = held["owner"]
            return True
        return line.startswith(
            ("waiting for ownable synchronizer", "which is held", "in JNI, which is held")
        )

    def timestamp(self, line: str) -> int | None:
        if len(line) > 40:
            return None
        first = line[0]
        if first.isdigit():
            match = DATETIME_RE.fullmatch(line)
            return match_to_ms(match, self.hours) if match else None
        if first.isupper():
            match = CDATE_RE.fullmatch(line)
            if match:
                return self._cdate(match)
        return None

    def _cdate(self, match: re.Match[str]) -> int | None:
        month = MONTHS.get(match["mon"])
        if month is None:
            return None
        clock = match["clock"]
        zone = match["zone"]
        try:
            if zone in ("UTC", "GMT"):
                moment = dt.datetime(
                    int(match["year"]), month, int(match["day"]), int(clock[:2]), tzinfo=dt.UTC
                )
                hour_ms = int(moment.timestamp()) * 1000
            else:
                hour_ms = self.hours.hour_ms(
                    int(match["year"]), month, int(match["day"]), int(clock[:2])
                )
        except ValueError:
            return None
        return hour_ms + int(clock[3:5]) * 60_000 + int(clock[6:8]) * 1000


def _state_word(text: str) -> str:
    word = text.strip().split(" ", 1)[0]
    return word.lower() if word else "runnable"


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    if not text.strip():
        result.diagnose(0, "file is empty")
        return result
    if text.lstrip().startswith("{"):
        dumps = _read_json(text, context, result)
    else:
        reader = _Reader(context, result)
        reader.read(text)
        dumps = reader.dumps
    if not dumps:
        result.diagnose(
            0, "no thread dump found (no 'Full thread dump' header and no thread entries)"
        )
        return result
    series = SeriesSet()
    for dump in dumps:
        _summarise(dump, context, series, result)
    result.series.extend(series)
    return result


def _read_json(
    text: str, context: ParseContext, result: ParseResult, frame_limit: int = STACK_FRAMES
) -> list[_Dump]:
    try:
        document = json.loads(text)
        body = document["threadDump"]
        containers = body["threadContainers"]
    except (ValueError, KeyError, TypeError) as exc:
        result.diagnose(1, f"not a jcmd JSON thread dump: {type(exc).__name__}: {exc}")
        return []
    time_ms = None
    if isinstance(body.get("time"), str):
        match = DATETIME_RE.match(body["time"])
        time_ms = match_to_ms(match, HourCache(context.timezone)) if match else None
    version = body.get("runtimeVersion")
    dump = _Dump(0, time_ms, f"Java {version}" if isinstance(version, str) and version else None)
    pid = body.get("processId")
    dump.pid = str(pid) if isinstance(pid, str | int) and str(pid) else None
    for container in containers if isinstance(containers, list) else []:
        threads = container.get("threads") if isinstance(container, dict) else None
        for entry in threads if isinstance(threads, list) else []:
            if not isinstance(entry, dict):
                continue
            stack = [str(f) for f in entry.get("stack") or [] if isinstance(f, str)]
            frames = [f.replace("\\/", "/") for f in stack]
            state = entry.get("state")
            if isinstance(state, str) and state:
                thread = _Thread(str(entry.get("name", "")), state.lower())
            else:
                thread = _Thread(str(entry.get("name", "")), _state_from_top_frame(frames))
                dump.inferred = True
            thread.frames = frames[:frame_limit]
            thread.frame_count = len(frames)
            dump.threads.append(thread)
    return [dump]


def _summarise(dump: _Dump, context: ParseContext, series: SeriesSet, result: ParseResult) -> None:
    time_ms = dump.time_ms
    if time_ms is None:
        time_ms = context.default_time_ms + dump.index * UNDATED_DUMP_SPACING_MS
    counted = (
        [t for t in dump.threads if t.has_state_line] if dump.has_state_lines else dump.threads
    )
    vm_threads = len(dump.threads) - len(counted)
    by_state = Counter(t.state for t in counted)
    for state in STATES:
        series.add(
            "jvm.threads", {"state": state}, "threads", time_ms, float(by_state.get(state, 0))
        )
    pools = Counter(pool_of(t.name) for t in counted)
    ranked_pools = sorted(pools.items(), key=lambda item: (-item[1], item[0]))
    for pool, count in ranked_pools[:TOP_POOLS]:
        series.add("jvm.threads.pool", {"pool": pool}, "threads", time_ms, float(count))
    for pool, _count in ranked_pools[:TOP_POOL_STATES]:
        pool_states = Counter(t.state for t in counted if pool_of(t.name) == pool)
        for state, count in pool_states.items():
            series.add(
                "jvm.threads.pool_state",
                {"pool": pool, "state": state},
                "threads",
                time_ms,
                float(count),
            )
    stacks = Counter(tuple(t.frames) for t in counted if t.frames)
    top_stacks = [
        {"frames": list(frames), "count": count}
        for frames, count in sorted(stacks.items(), key=lambda item: (-item[1], item[0]))[
            :TOP_STACKS
        ]
    ]
    result.events.append(
        EventData(
            kind="thread_dump",
            time_ms=time_ms,
            attrs={
                "pool_runnable_stacks": _pool_runnable_stacks(
                    counted, [pool for pool, _ in ranked_pools[:TOP_POOLS]]
                ),
                "pool_waiting_stacks": _pool_waiting_stacks(
                    counted, [pool for pool, _ in ranked_pools[:TOP_POOL_STATES]]
                ),
                "total": len(counted),
                "vm_threads": vm_threads,
                "by_state": {s: by_state.get(s, 0) for s in STATES if by_state.get(s, 0)},
                "by_pool": dict(ranked_pools[:TOP_POOLS]),
                "top_stacks": top_stacks,
                "states_inferred": dump.inferred,
                "dump_index": dump.index,
                "dated": dump.time_ms is not None,
                "vm": dump.vm,
                "pid": dump.pid,
            },
        )
    )
    _contention_events(dump, time_ms, result, pools)
    for deadlock in dump.deadlocks:
        result.events.append(
            EventData(
                kind="thread_deadlock",
                time_ms=time_ms,
                attrs={
                    "threads": deadlock["threads"],
                    "monitors": deadlock["monitors"],
                    "cycle": deadlock["cycle"],
                    "dump_index": dump.index,
                },
            )
        )


def _pool_runnable_stacks(
    threads: list[_Thread], pools: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """Per pool, the top frames of its RUNNABLE threads and how many threads share them."""
    wanted = set(pools)
    stacks: dict[str, Counter[tuple[str, ...]]] = {}
    for thread in threads:
        if thread.state != "runnable" or not thread.frames:
            continue
        pool = pool_of(thread.name)
        if pool in wanted:
            stacks.setdefault(pool, Counter())[tuple(thread.frames[:RUNNABLE_STACK_FRAMES])] += 1
    return {
        pool: [
            {"frames": list(frames), "count": count}
            for frames, count in sorted(found.items(), key=lambda item: (-item[1], item[0]))[
                :RUNNABLE_STACKS_PER_POOL
            ]
        ]
        for pool, found in sorted(stacks.items())
    }


def _pool_waiting_stacks(
    threads: list[_Thread], pools: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """Per pool, the top frames of its WAITING / TIMED_WAITING threads, how many threads share
    them, and whether their stacks go on below the frames kept."""
    wanted = set(pools)
    stacks: dict[str, Counter[tuple[tuple[str, ...], bool]]] = {}
    for thread in threads:
        if thread.state not in ("waiting", "timed_waiting") or not thread.frames:
            continue
        pool = pool_of(thread.name)
        if pool in wanted:
            key = (tuple(thread.frames), thread.frame_count > len(thread.frames))
            stacks.setdefault(pool, Counter())[key] += 1
    return {
        pool: [
            {"frames": list(frames), "count": count, "deeper": deeper}
            for (frames, deeper), count in sorted(
                found.items(), key=lambda item: (-item[1], item[0])
            )[:WAITING_STACKS_PER_POOL]
        ]
        for pool, found in sorted(stacks.items())
    }


def _contention_events(dump: _Dump, time_ms: int, result: ParseResult, pools: Counter[str]) -> None:
    owners: dict[str, _Thread] = {}
    for thread in dump.threads:
        for monitor in thread.locked:
            if monitor not in thread.waiting_on:  # Object.wait() lists the monitor it released
                owners.setdefault(monitor, thread)
    by_name = {t.name: t for t in dump.threads}
    waiters: dict[str, list[_Thread]] = {}
    classes: dict[str, str] = {}
    named_owner: dict[str, str] = {}
    for thread in dump.threads:
        if thread.waiting_to_lock is not None:
            monitor, cls, owner = thread.waiting_to_lock
            waiters.setdefault(monitor, []).append(thread)
            classes.setdefault(monitor, cls)
            if owner:
                named_owner[monitor] = owner
        elif thread.parked_on is not None:
            monitor, cls = thread.parked_on
            waiters.setdefault(monitor, []).append(thread)
            classes.setdefault(monitor, cls)
    for monitor, waiting in sorted(waiters.items(), key=lambda item: (-len(item[1]), item[0])):
        owner_thread = owners.get(monitor)
        owner_name = (
            owner_thread.name
            if owner_thread
            else named_owner.get(monitor) or dump.owned_synchronizers.get(monitor)
        )
        if owner_thread is None and owner_name:
            owner_thread = by_name.get(owner_name)
        waiters_by_pool = Counter(pool_of(t.name) for t in waiting)
        result.events.append(
            EventData(
                kind="thread_contention",
                time_ms=time_ms,
                attrs={
                    "monitor": monitor,
                    "class": classes.get(monitor)
                    or (owner_thread.locked.get(monitor, "") if owner_thread else ""),
                    "owner": owner_name,
                    "owner_state": owner_thread.state if owner_thread else None,
                    "waiters": len(waiting),
                    "waiter_names": [t.name for t in waiting[:WAITER_NAMES]],
                    "waiters_by_pool": dict(
                        sorted(waiters_by_pool.items(), key=lambda item: (-item[1], item[0]))
                    ),
                    "pool_threads": {pool: pools.get(pool, 0) for pool in waiters_by_pool},
                    "dump_index": dump.index,
                },
            )
        )


# --- Every thread, for the thread-dump view ----------------------------------------------

#: Frames kept per thread by :func:`read_threads` (a runaway recursion is cut there).
VIEW_FRAMES = 1024


def read_threads(text: str, context: ParseContext) -> list[dict[str, Any]]:
    """Every dump of ``text`` with every thread, for reading a dump (``parse`` stores only
    summaries): per dump ``index``, ``time_ms`` (None when undated) and ``threads``, each with
    ``name``, ``pool`` (:func:`pool_of`), ``state``, ``daemon``, ``vm`` (a VM internal thread,
    not counted in the summaries), ``frames`` (top first, at most :data:`VIEW_FRAMES`),
    ``frame_count``, ``locked`` (monitors held), ``waiting_to_lock`` and ``parked_on``.

    >>> text = chr(10).join([
    ...     "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):",
    ...     '"worker-1" #15 daemon prio=5 os_prio=0 tid=0x1 nid=0x2a waiting on condition',
    ...     "   java.lang.Thread.State: TIMED_WAITING (sleeping)",
    ...     "    at java.lang.Thread.sleep(java.base@17.0.15/Native Method)",
    ...     "    at Demo.main(Demo.java:3)",
    ... ])
    >>> [thread] = read_threads(text, ParseContext.for_zone("UTC"))[0]["threads"]
    >>> thread["name"], thread["pool"], thread["state"], thread["daemon"], thread["frame_count"]
    ('worker-1', 'worker', 'timed_waiting', True, 2)
    """
    result = ParseResult(kind=KIND)
    if text.lstrip().startswith("{"):
        dumps = _read_json(text, context, result, frame_limit=VIEW_FRAMES)
    else:
        reader = _Reader(context, result, frame_limit=VIEW_FRAMES)
        reader.read(text)
        dumps = reader.dumps
    return [
        {
            "index": dump.index,
            "time_ms": dump.time_ms,
            "threads": [
                _thread_view(t, vm=dump.has_state_lines and not t.has_state_line)
                for t in dump.threads
            ],
        }
        for dump in dumps
    ]


def _thread_view(thread: _Thread, *, vm: bool) -> dict[str, Any]:
    waiting = thread.waiting_to_lock
    parked = thread.parked_on
    return {
        "name": thread.name,
        "pool": pool_of(thread.name),
        "state": thread.state,
        "daemon": thread.daemon,
        "vm": vm,
        "frames": thread.frames,
        "frame_count": thread.frame_count,
        "locked": [{"monitor": m, "class_name": cls} for m, cls in thread.locked.items()],
        "waiting_to_lock": None
        if waiting is None
        else {"monitor": waiting[0], "class_name": waiting[1], "owner": waiting[2]},
        "parked_on": None if parked is None else {"monitor": parked[0], "class_name": parked[1]},
    }
