"""Thread-dump parser: every corpus dump format, our jstack capture, pools, locks, deadlocks."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import thread_dump
from rootline.parsers.base import EventData, ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, sniff_scores
from tests.conftest import FIXTURES_DIR, corpus_files
from tests.parsers.jvm_parser_kit import foreign_files, head_of, mutated, text_of

JSTACK_FIXTURE = FIXTURES_DIR / "thread_dump" / "pool-saturation-jdk17-jstack-3-dumps.txt"
CORPUS_DUMPS = [p for p in corpus_files("threads") if not p.name.startswith("dubbo-")]
CHANGES_FIXTURE = FIXTURES_DIR / "thread_dump" / "dump-changes-jdk17-jstack-2-dumps.txt"
# jstack -l of lab/independent/jvm (two deadlocks; a pool queued on one ReentrantLock)
INDEPENDENT_DUMPS = [
    FIXTURES_DIR / "thread_dump" / "two-deadlocks-jdk17-jstack-l-2-dumps.txt",
    FIXTURES_DIR / "thread_dump" / "rlock-queue-jdk17-jstack-l-3-dumps.txt",
]
OWN_FILES = [JSTACK_FIXTURE, CHANGES_FIXTURE, *INDEPENDENT_DUMPS, *CORPUS_DUMPS]

STATE_LINE_RE = re.compile(r"java\.lang\.Thread\.State: ([A-Z_]+)")
# Thread headers, not the '"name":' lines of deadlock reports.
HEADER_RE = re.compile(r'^"[^\n]*"(?!:)[^\n]*$', re.MULTILINE)
JMX_HEADER_RE = re.compile(r'^"[^\n]*" id=\d+ in ([A-Z_]+)', re.MULTILINE)
# Dumps whose header state is the only state there is, with the independently counted totals.
DUMPS_PER_FILE = {
    "two-deadlocks-jdk17-jstack-l-2-dumps.txt": 2,
    "rlock-queue-jdk17-jstack-l-3-dumps.txt": 3,
    "jdk5-hpux-ia64-hotspot-two-dumps-crlf-tda.log": 2,
    "jdk6-client-vm-multiple-dumps-tda.log": 3,
    "jrockit-r26-jdk15-windows-dump-tda-fork.txt": 2,
    "sap-jvm-j2ee-engine-std-server-dump-tda-fork.log": 2,
    "pool-saturation-jdk17-jstack-3-dumps.txt": 3,
    "dump-changes-jdk17-jstack-2-dumps.txt": 2,
}


def _dump_events(result: ParseResult) -> list[EventData]:
    return [e for e in result.events if e.kind == "thread_dump"]


def _expected_states(text: str) -> Counter[str]:
    """Threads per state over all dumps, counted straight from the text."""
    states = STATE_LINE_RE.findall(text) or JMX_HEADER_RE.findall(text)
    return Counter(s.lower() for s in states)


@pytest.mark.corpus
@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_every_dump_parses_with_independently_counted_threads(path: Path) -> None:
    text = text_of(path)
    result = thread_dump.parse(text, ParseContext())
    assert result.status != "failed"
    events = _dump_events(result)
    assert len(events) == DUMPS_PER_FILE.get(path.name, 1)
    by_state: Counter[str] = Counter()
    for event in events:
        by_state.update(event.attrs["by_state"])
        assert sum(event.attrs["by_state"].values()) == event.attrs["total"]
    total = sum(e.attrs["total"] for e in events)
    expected = _expected_states(text)
    if path.suffix == ".json":
        containers = json.loads(text)["threadDump"]["threadContainers"]
        assert total == sum(len(c["threads"]) for c in containers) == 8
    elif expected:
        assert by_state == expected
    else:  # JDK 5, JRockit: every thread header is a thread
        assert total == len(HEADER_RE.findall(text.replace("\r", "")))
    # jvm.threads{state} points sum to the same totals
    state_points = sum(sum(s.values) for s in result.series if s.name == "jvm.threads")
    assert state_points == total


def test_jstack_capture_golden() -> None:
    text = JSTACK_FIXTURE.read_text()
    result = thread_dump.parse(text, ParseContext())
    assert result.status == "parsed"
    events = _dump_events(result)
    # Each dump is dated by jstack's own line, the last timestamp before "Full thread dump".
    stamps = re.findall(
        r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\nFull thread dump", text, re.MULTILINE
    )
    assert [e.time_ms for e in events] == [
        int(dt.datetime.fromisoformat(s).replace(tzinfo=dt.UTC).timestamp() * 1000) for s in stamps
    ]
    first = events[0].attrs
    assert (
        first["by_pool"]["order-service"]
        == len(re.findall(r'^"order-service-thread-\d+"', text, re.MULTILINE)) // 3
        == 8
    )
    assert first["top_stacks"][0]["count"] == 8
    assert first["top_stacks"][0]["frames"][0].startswith("java.lang.Thread.sleep")
    assert len(first["top_stacks"][0]["frames"]) <= thread_dump.STACK_FRAMES
    pool_series = [
        s
        for s in result.series
        if s.name == "jvm.threads.pool" and s.labels["pool"] == "order-service"
    ]
    assert list(pool_series[0].values) == [8.0, 8.0, 8.0]
    by_pool_state = {
        (s.labels["pool"], s.labels["state"])
        for s in result.series
        if s.name == "jvm.threads.pool_state"
    }
    assert ("order-service", "timed_waiting") in by_pool_state


@pytest.mark.corpus
def test_monitor_contention(corpus_dir: Path) -> None:
    path = corpus_dir / "threads" / "jdk6-server-heritrix-rmi-monitor-contention-tda.log"
    text = text_of(path)
    result = thread_dump.parse(text, ParseContext())
    contention = [e for e in result.events if e.kind == "thread_contention"]
    expected = Counter(re.findall(r"waiting to lock <(0x[0-9a-f]+)>", text))
    assert {e.attrs["monitor"]: e.attrs["waiters"] for e in contention} == dict(expected)
    top = contention[0].attrs
    assert (top["monitor"], top["waiters"]) == ("0xd5bada80", 30)
    assert top["class"] == "org.archive.crawler.postprocessor.FrontierScheduler"
    assert top["owner"].startswith("ToeThread #18") and top["owner_state"] == "runnable"
    # Every waiter counted per pool, beside the size of that pool in the dump: 30 of the 42
    # ToeThreads (named "ToeThread #N: <the URL it fetches>").
    assert top["waiters_by_pool"] == {"ToeThread": 30}
    assert top["pool_threads"] == {"ToeThread": 42}
    assert len(top["waiter_names"]) == 10  # the names stay the first ten


def test_contention_counts_every_waiter_per_pool() -> None:
    lines = ["Full thread dump OpenJDK 64-Bit Server VM (17 mixed mode):", ""]
    lines += ['"holder" #1 prio=5 tid=0x1 nid=0x1 runnable', "   java.lang.Thread.State: RUNNABLE",
              "\tat A.b(A.java:1)", "\t- locked <0x0000000000000abc> (a A)", ""]  # fmt: skip
    for pool, n in (("http-nio-8080-exec", 14), ("Scheduler", 3)):
        for i in range(n):
            lines += [f'"{pool}-{i}" #2 prio=5 tid=0x2 nid=0x2 waiting for monitor entry',
                      "   java.lang.Thread.State: BLOCKED (on object monitor)",
                      "\tat A.c(A.java:2)", "\t- waiting to lock <0x0000000000000abc> (a A)",
                      ""]  # fmt: skip
    for i in range(6):
        lines += [f'"http-nio-8080-exec-{14 + i}" #3 prio=5 tid=0x3 nid=0x3 waiting on condition',
                  "   java.lang.Thread.State: WAITING (parking)", "\tat A.d(A.java:3)", ""]  # fmt: skip
    result = thread_dump.parse("\n".join(lines), ParseContext())
    [event] = [e for e in result.events if e.kind == "thread_contention"]
    assert event.attrs["waiters"] == 17
    assert event.attrs["waiters_by_pool"] == {"http-nio-8080-exec": 14, "Scheduler": 3}
    assert event.attrs["pool_threads"] == {"http-nio-8080-exec": 20, "Scheduler": 3}


@pytest.mark.corpus
def test_deadlock(corpus_dir: Path) -> None:
    text = text_of(corpus_dir / "threads" / "jdk25-jstack-java-level-deadlock-jthreaddump.txt")
    result = thread_dump.parse(text, ParseContext())
    [deadlock] = [e for e in result.events if e.kind == "thread_deadlock"]
    assert deadlock.attrs["threads"] == ["DeadlockThread-A", "DeadlockThread-B"]
    assert deadlock.attrs["monitors"] == ["0x000000052c830070", "0x000000052c830078"]
    assert deadlock.attrs["cycle"] == [
        {"thread": "DeadlockThread-A", "monitor": "0x000000052c830070",
         "class": "java.lang.Object", "held_by": "DeadlockThread-B"},
        {"thread": "DeadlockThread-B", "monitor": "0x000000052c830078",
         "class": "java.lang.Object", "held_by": "DeadlockThread-A"},
    ]  # fmt: skip
    # The stacks repeated under "Java stack information" are not counted twice.
    assert _dump_events(result)[0].attrs["total"] == text.count("java.lang.Thread.State:") == 16


def test_deadlock_on_an_ownable_synchronizer_names_it_in_the_cycle() -> None:
    text = "\n".join(
        [
            "Full thread dump OpenJDK 64-Bit Server VM (17 mixed mode):",
            "",
            '"main" #1 prio=5 tid=0x1 nid=0x1 waiting for monitor entry',
            "   java.lang.Thread.State: BLOCKED (on object monitor)",
            "\tat A.b(A.java:1)",
            "",
            "Found one Java-level deadlock:",
            "=============================",
            '"main":',
            "  waiting to lock monitor 0x7f01 (object 0x00000000aaaa0001, a com.example.Ledger),",
            '  which is held by "Timer-0"',
            '"Timer-0":',
            "  waiting for ownable synchronizer 0x00000000bbbb0002, (a java.util.concurrent.locks.ReentrantLock$NonfairSync),",
            '  which is held by "main"',
            "",
            "Found 1 deadlock.",
        ]
    )
    [deadlock] = [
        e for e in thread_dump.parse(text, ParseContext()).events if e.kind == "thread_deadlock"
    ]
    assert deadlock.attrs["threads"] == ["main", "Timer-0"]
    assert deadlock.attrs["monitors"] == ["0x00000000aaaa0001"]  # unchanged: monitors only
    assert [(c["monitor"], c["class"], c["held_by"]) for c in deadlock.attrs["cycle"]] == [
        ("0x00000000aaaa0001", "com.example.Ledger", "Timer-0"),
        ("0x00000000bbbb0002", "java.util.concurrent.locks.ReentrantLock$NonfairSync", "main"),
    ]


def test_undated_dumps_are_spaced_from_the_default_time() -> None:
    dump = 'Full thread dump X:\n\n"main" prio=5 tid=0x1 nid=0x2 runnable\n\tat A.b(A.java:1)\n\n'
    result = thread_dump.parse(dump * 2, ParseContext(default_time_ms=10_000))
    assert [e.time_ms for e in _dump_events(result)] == [10_000, 11_000]
    assert [e.attrs["dated"] for e in _dump_events(result)] == [False, False]


def test_unknown_line_inside_a_thread_is_a_diagnostic() -> None:
    text = 'Full thread dump X:\n"main" prio=5 tid=0x1 nid=0x2 runnable\n\tat A.b(A.java:1)\n\tgarbage here\n'
    result = thread_dump.parse(text, ParseContext())
    assert result.status == "partial"
    assert result.diagnostics[0].line == 4


def test_empty_and_wrong_kind() -> None:
    assert thread_dump.parse("", ParseContext()).diagnostics[0].message == "file is empty"
    result = thread_dump.parse("hello\nworld\n", ParseContext())
    assert result.status == "failed" and "no thread dump found" in result.diagnostics[0].message


@pytest.mark.parametrize(
    ("name", "pool"),
    [
        ("DubboServerHandler-10.0.0.1:20880-thread-42", "DubboServerHandler-10.0.0.1:20880"),
        ("http-nio-8080-exec-7", "http-nio-8080-exec"),
        ("pool-3-thread-9", "pool-3"),
        ("GC Thread#3", "GC Thread"),
        ("C2 CompilerThread0", "C2 CompilerThread"),
        ("HTTP Worker [12]", "HTTP Worker"),
        ("ForkJoinPool-1-worker-3", "ForkJoinPool-1-worker"),
        (
            "ExecuteThread: '3' for queue: 'weblogic.kernel.Default'",
            "ExecuteThread: '*' for queue: 'weblogic.kernel.Default'",
        ),
        ("main", "main"),
        ("ToeThread #73: http://shopping.example.com/robots.txt", "ToeThread"),
        ("ToeThread #43:", "ToeThread"),
    ],
)
def test_pool_of(name: str, pool: str) -> None:
    assert thread_dump.pool_of(name) == pool


@pytest.mark.corpus
@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_registry_detects_dump(path: Path) -> None:
    assert detect_kind(head_of(path)) == "thread_dump"


@pytest.mark.corpus
@pytest.mark.parametrize("path", foreign_files(set(OWN_FILES)), ids=lambda p: p.name)
def test_does_not_claim_other_kinds(path: Path) -> None:
    assert sniff_scores(head_of(path))["thread_dump"] < 0.5


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(thread_dump.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= thread_dump.sniff(text) <= 1.0


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(st.data())
def test_never_raises_on_mutated_fixture(data: st.DataObject) -> None:
    text = data.draw(mutated(JSTACK_FIXTURE.read_text()))
    assert isinstance(thread_dump.parse(text, ParseContext()), ParseResult)
    json_dump = [p for p in CORPUS_DUMPS if p.suffix == ".json"]
    if json_dump:
        assert isinstance(
            thread_dump.parse(data.draw(mutated(text_of(json_dump[0]))), ParseContext()),
            ParseResult,
        )


def _jstack(threads: list[tuple[str, str, list[str]]]) -> str:
    """A jstack dump of (name, state, frames) threads."""
    out = [
        "2026-11-21 07:27:34",
        "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):",
        "",
    ]
    for i, (name, state, frames) in enumerate(threads):
        out.append(f'"{name}" #{i + 10} prio=5 os_prio=0 tid=0x{i:x} nid=0x{i:x} runnable  [0x0]')
        out.append(f"   java.lang.Thread.State: {state}")
        out.extend(f"\tat {frame}" for frame in frames)
        out.append("")
    return "\n".join(out) + "\n"


ACCEPT = [
    "java.net.PlainSocketImpl.socketAccept(java.base@17/Native Method)",
    "java.net.AbstractPlainSocketImpl.accept(java.base@17/AbstractPlainSocketImpl.java:474)",
    "java.net.ServerSocket.implAccept(java.base@17/ServerSocket.java:565)",
    "java.net.ServerSocket.accept(java.base@17/ServerSocket.java:533)",
    "org.example.Acceptor.run(Acceptor.java:12)",
    "java.lang.Thread.run(java.base@17/Thread.java:833)",
    "a.deeper.Frame(Frame.java:1)",
]
WORK = ["org.example.Codec.encode(Codec.java:88)", "org.example.Handler.run(Handler.java:20)"]


def test_runnable_top_frames_are_kept_per_pool() -> None:
    """RUNNABLE is what the JVM says for a thread in native code too: the top frames tell a
    thread waiting in accept() from one on CPU (pool_runnable_stacks)."""
    threads = [(f"rfc-{i}", "RUNNABLE", ACCEPT) for i in range(3)]
    threads += [("rfc-9", "RUNNABLE", WORK), ("rfc-10", "WAITING", WORK)]
    threads += [("other-1", "RUNNABLE", [])]
    result = thread_dump.parse(_jstack(threads), ParseContext())
    stacks = _dump_events(result)[0].attrs["pool_runnable_stacks"]
    assert stacks == {
        "rfc": [
            {"frames": ACCEPT[: thread_dump.RUNNABLE_STACK_FRAMES], "count": 3},
            {"frames": WORK, "count": 1},
        ]
    }
    json.dumps(stacks)  # stored as event attrs


QUEUE_WAIT = [
    "jdk.internal.misc.Unsafe.park(java.base@17/Native Method)",
    "java.util.concurrent.locks.LockSupport.park(java.base@17/LockSupport.java:341)",
    "java.util.concurrent.LinkedBlockingQueue.take(java.base@17/LinkedBlockingQueue.java:435)",
    "java.util.concurrent.ThreadPoolExecutor.getTask(java.base@17/ThreadPoolExecutor.java:1062)",
]
SLEEP_IN_TASK = [
    "java.lang.Thread.sleep(java.base@17/Native Method)",
    *(f"org.example.Deep.level{i}(Deep.java:{i})" for i in range(12)),
]


def test_waiting_top_frames_are_kept_per_pool() -> None:
    """A waiting worker is idle in its pool's queue or busy inside a task: the frames tell
    which, so the split pools keep them (pool_waiting_stacks), with whether the stack goes
    deeper than the frames kept."""
    threads = [(f"exec-{i}", "WAITING (parking)", QUEUE_WAIT) for i in range(3)]
    threads += [(f"exec-{i}", "TIMED_WAITING (sleeping)", SLEEP_IN_TASK) for i in range(3, 5)]
    threads += [("exec-9", "RUNNABLE", WORK), ("exec-10", "BLOCKED (on object monitor)", WORK)]
    result = thread_dump.parse(_jstack(threads), ParseContext())
    stacks = _dump_events(result)[0].attrs["pool_waiting_stacks"]
    assert stacks == {
        "exec": [
            {"frames": QUEUE_WAIT, "count": 3, "deeper": False},
            {"frames": SLEEP_IN_TASK[: thread_dump.STACK_FRAMES], "count": 2, "deeper": True},
        ]
    }
    json.dumps(stacks)  # stored as event attrs


def test_runnable_stacks_of_the_sap_dump_show_rfc_listen() -> None:
    path = next((p for p in CORPUS_DUMPS if p.name.startswith("sap-jvm")), None)
    if path is None:
        pytest.skip("corpus not available")
    result = thread_dump.parse(text_of(path), ParseContext())
    stacks = _dump_events(result)[0].attrs["pool_runnable_stacks"]["JCO.ServerThread"]
    assert stacks[0]["count"] == 35
    assert "nativeSAP_CMACCPTP" in stacks[0]["frames"][0]
    assert any("RfcListen" in f or ".listen(" in f for f in stacks[0]["frames"])


def test_read_threads_gives_every_thread_and_whole_stacks() -> None:
    """The thread-dump view's reading: the same dumps and threads as the parse, stacks uncut."""
    text = CHANGES_FIXTURE.read_text()
    dumps = thread_dump.read_threads(text, ParseContext())
    summaries = [
        e for e in thread_dump.parse(text, ParseContext()).events if e.kind == "thread_dump"
    ]
    assert [d["index"] for d in dumps] == [0, 1]
    for dump, summary in zip(dumps, summaries, strict=True):
        java = [t for t in dump["threads"] if not t["vm"]]
        assert len(java) == summary.attrs["total"]
        assert len(dump["threads"]) - len(java) == summary.attrs["vm_threads"]
    deep = max(dumps[0]["threads"], key=lambda t: t["frame_count"])
    assert len(deep["frames"]) == deep["frame_count"] > thread_dump.STACK_FRAMES  # uncut
    states = {t["name"]: t["state"] for t in dumps[0]["threads"]}
    later = {t["name"]: t["state"] for t in dumps[1]["threads"]}
    assert states["payment-2"] == "blocked" and later["payment-2"] == "timed_waiting"
    assert "order-pool-4" in states and "order-pool-4" not in later


@pytest.mark.parametrize(
    ("name", "vm", "pid"),
    [
        ("jdk25-jstack-java-level-deadlock-jthreaddump.txt", "OpenJDK 25+36-LTS", None),
        ("jdk11-eclipse-ide-hang-jstack-jstackfilter.txt", "Java HotSpot 11.0.6+8-LTS", None),
        ("jdk6-client-vm-multiple-dumps-tda.log", "Java HotSpot 1.6.0_03-b05", None),
        ("jdk21-jcmd-thread-dump-json-format-tda.json", "Java 21.0.10+7-LTS", "3862"),
        ("jrockit-jdk14-dump-tda-fork.txt", None, None),  # its header names no VM
    ],
)
def test_each_dump_names_its_jvm_and_pid_when_it_gives_them(
    corpus_dir: Path, name: str, vm: str | None, pid: str | None
) -> None:
    path = corpus_dir / "threads" / name
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    dumps = _dump_events(thread_dump.parse(text_of(path), ParseContext()))
    assert dumps and all(d.attrs["vm"] == vm and d.attrs["pid"] == pid for d in dumps)
