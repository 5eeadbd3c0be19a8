"""thread_lock_contention: JVM-reported deadlocks, a pool queued on one lock, in how many dumps,
and which dumps lie in the slow period. Real dumps from the shared corpus (skipped when it is
absent) and jstack text written here, read through the real parser."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import pytest

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from rootline.detectors.data import MemoryIncidentData
from tests.detectors.net_incident import assert_well_formed
from tests.detectors.runtime_incident import (
    T0,
    Capture,
    corpus_incident,
    fixture_incident,
    incident,
    parsed,
    pool_capture,
)

ID = "thread_lock_contention"


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, registry.CHECKLISTS[ID].rule.thresholds)
    return finding


# --- jstack text written here -------------------------------------------------------------


def _stamp(at_s: float) -> str:
    moment = dt.datetime.fromtimestamp((T0 + at_s * 1000) / 1000, tz=dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _thread(name: str, state: str, lines: Sequence[str]) -> list[str]:
    header = {
        "BLOCKED": "waiting for monitor entry",
        "RUNNABLE": "runnable",
        "WAITING": "waiting on condition",
        "TIMED_WAITING": "waiting on condition",
    }[state]
    detail = {"BLOCKED": " (on object monitor)", "WAITING": " (parking)"}.get(state, "")
    if state == "TIMED_WAITING":
        detail = " (sleeping)"
    return [
        f'"{name}" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 {header}',
        f"   java.lang.Thread.State: {state}{detail}",
        *lines,
        "",
    ]


def dump(
    at_s: float,
    *,
    pool: str = "http-nio-8080-exec",
    size: int = 10,
    blocked: int = 0,
    locks: Sequence[str] | None = None,
    cls: str = "com.example.Cache",
    extra: Sequence[str] = (),
) -> list[str]:
    """One dump: ``size`` threads of ``pool``, the first ``blocked`` of them BLOCKED on
    ``locks[i]`` (one lock for all by default), each lock held by a RUNNABLE thread outside
    the pool; the rest of the pool idle (sleeping)."""
    locks = list(locks) if locks is not None else ["0x00000000c0ffee00"] * blocked
    lines = [_stamp(at_s), "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode):", ""]
    for holder, lock in enumerate(sorted(set(locks))):
        lines += _thread(
            f"cache-refresher-{holder}",
            "RUNNABLE",
            [
                "\tat java.net.SocketInputStream.socketRead0(Native Method)",
                "\tat com.example.Cache.reload(Cache.java:40)",
                f"\t- locked <{lock}> (a {cls})",
            ],
        )
    for i in range(size):
        if i < len(locks):
            lines += _thread(
                f"{pool}-{i + 1}",
                "BLOCKED",
                [
                    "\tat com.example.Cache.get(Cache.java:20)",
                    f"\t- waiting to lock <{locks[i]}> (a {cls})",
                ],
            )
        else:
            lines += _thread(
                f"{pool}-{i + 1}", "TIMED_WAITING", ["\tat java.lang.Thread.sleep(Native Method)"]
            )
    return [*lines, *extra]


def jstack(tmp_path: Path, *dumps: list[str], name: str = "jstack.txt") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(line for d in dumps for line in d) + "\n", encoding="utf-8")
    return path


def dumps_incident(
    tmp_path: Path, *dumps: list[str], others: Sequence[Capture] = ()
) -> IncidentData:
    path = jstack(tmp_path, *dumps)
    return MemoryIncidentData([parsed(path, "h1"), *(c.artifact() for c in others)])


DEADLOCK_SECTION = [
    "Found one Java-level deadlock:",
    "=============================",
    '"main":',
    "  waiting to lock monitor 0x00007f0001 (object 0x00000000aaaa0001, a com.example.Ledger),",
    '  which is held by "Timer-0"',
    '"Timer-0":',
    "  waiting for ownable synchronizer 0x00000000bbbb0002, (a java.util.concurrent.locks.ReentrantLock$NonfairSync),",
    '  which is held by "main"',
    "",
    "Java stack information for the threads listed above:",
    "===================================================",
    '"main":',
    "\tat com.example.Ledger.post(Ledger.java:10)",
    "\t- waiting to lock <0x00000000aaaa0001> (a com.example.Ledger)",
    '"Timer-0":',
    "\tat jdk.internal.misc.Unsafe.park(Native Method)",
    "",
    "Found 1 deadlock.",
]


# --- real dumps ---------------------------------------------------------------------------


def test_corpus_deadlock_is_confirmed_with_its_cycle_and_time() -> None:
    finding = check(corpus_incident("threads/jdk25-jstack-java-level-deadlock-jthreaddump.txt"))
    assert finding.verdict == "confirmed"
    # Named by what the dump says of it: the JVM's version (no host, no pid), and the file.
    assert finding.entity == (
        "the JVM (OpenJDK 25+36-LTS) in the dump jdk25-jstack-java-level-deadlock-jthreaddump.txt"
    )
    assert (
        "the JVM reported 1 Java-level deadlock in the dump at 2025-12-21T11:28:04Z:"
        ' "DeadlockThread-A" and "DeadlockThread-B" each wait for a lock another of them holds'
    ) in finding.summary
    # The cycle, lock by lock, is stated once: in the explanation.
    cycle = (
        '"DeadlockThread-A" waits for <0x000000052c830070> (a java.lang.Object) held by'
        ' "DeadlockThread-B", "DeadlockThread-B" waits for <0x000000052c830078>'
        ' (a java.lang.Object) held by "DeadlockThread-A"'
    )
    texts = [finding.summary, *(e.summary for e in finding.evidence), *finding.remedies]
    assert cycle in finding.explanation and not any("waits for" in t for t in texts)
    lead = finding.evidence[0]
    assert lead.met and lead.event_kind == "thread_dump"
    assert lead.from_ms == lead.to_ms == 1_766_316_484_000  # the dump's own time
    # The deadlock's remedy only: no thread queued on a lock, so no hot lock to replace.
    assert [r.split(":")[0] for r in finding.remedies] == [
        'Break the deadlock of "DeadlockThread-A" and "DeadlockThread-B"'
    ]


def test_deadlocks_repeated_in_every_later_dump_are_counted_once() -> None:
    """Two real deadlocks (two monitors, two ReentrantLocks), each reported again in the second
    jstack -l 2 s later: 2 deadlocks, not 4 (a deadlock never resolves, so a JVM dumped n times
    reports it n times)."""
    finding = check(fixture_incident("thread_dump/two-deadlocks-jdk17-jstack-l-2-dumps.txt"))
    assert finding.verdict == "confirmed"
    assert (
        "the JVM reported 2 Java-level deadlocks in the dump at 2026-11-28T01:03:10Z"
        " (and in 2 dumps in all):"
    ) in finding.summary
    assert "more deadlock" not in finding.summary
    lead = finding.evidence[0]
    assert lead.observed == 2
    for name in ("ledger-writer", "audit-writer", "cache-loader", "cache-evictor"):
        assert f'"{name}" waits for' in finding.explanation
    assert finding.explanation.count("waits for") == 4


def test_corpus_readwritelock_dump_reports_three_deadlocks_and_parked_readers() -> None:
    """Beside the read-write lock the generator left three deadlocks the JVM reports; the
    read-lock waiters are parked (WAITING) on the lock held by a thread asleep with it."""
    finding = check(corpus_incident("threads/jdk25-readwritelock-contention-jthreaddump.txt"))
    assert finding.verdict == "confirmed"
    assert "3 Java-level deadlocks" in finding.summary
    assert '"DeadlockThread-C" waits for <0x0000000540e324c8>' in finding.explanation
    contention = next(e for e in finding.evidence if e.threshold_name == "blocked_share_min")
    assert contention.met
    assert "3 of the 3 threads of pool ReadLockWaiter (100 %) were parked (WAITING)" in (
        contention.summary
    )
    assert 'ReentrantReadWriteLock$NonfairSync) held by "WriteLockHolder" (TIMED_WAITING)' in (
        contention.summary
    )


def test_corpus_heritrix_crawler_threads_queued_on_the_frontier_are_likely() -> None:
    """30 of Heritrix's 42 ToeThreads BLOCKED on the FrontierScheduler monitor held by one
    RUNNABLE ToeThread: contention, in the one dump there is."""
    finding = check(corpus_incident("threads/jdk6-server-heritrix-rmi-monitor-contention-tda.log"))
    assert finding.verdict == "likely"
    assert "30 of the 42 threads of pool ToeThread (71 %) were BLOCKED waiting to lock" in (
        finding.summary
    )
    assert 'FrontierScheduler) held by "ToeThread #18' in finding.summary
    single = next(e for e in finding.evidence if e.threshold_name == "persist_min_dumps")
    assert single.met is False and "contention in 1 dump of the 1 dump judged" in single.summary


@pytest.mark.parametrize(
    ("rel", "dumps"),
    [
        ("threads/jdk6-client-vm-multiple-dumps-tda.log", 3),
        ("threads/jdk7-jboss-ajp-runnable-thread-pool-famaridon.log", 1),
    ],
)
def test_corpus_healthy_dumps_rule_locks_out(rel: str, dumps: int) -> None:
    finding = check(corpus_incident(rel))
    assert finding.verdict == "ruled_out"
    assert f"{dumps} dump{'s' if dumps > 1 else ''} judged" in finding.summary
    assert "no deadlock reported" in finding.summary
    assert "no thread waited for a lock" in finding.summary


# --- no dump --------------------------------------------------------------------------------


def test_no_thread_dump_asks_for_three_jstack_l() -> None:
    finding = check(incident(pool_capture([8] * 10, max_threads=8)))
    assert finding.verdict == "insufficient_data"
    [hint] = finding.missing
    assert "jstack -l <pid>" in hint.command and "jcmd <pid> Thread.print -l" in hint.command
    assert "for i in 1 2 3" in hint.command and "3 a few seconds apart" in hint.artifact


# --- pool size, dumps in a row, locks -----------------------------------------------------


def test_half_a_pool_of_10_on_one_lock_in_3_dumps_is_confirmed(tmp_path: Path) -> None:
    data = dumps_incident(tmp_path, *(dump(i * 5, size=10, blocked=5) for i in range(3)))
    finding = check(data)
    assert finding.verdict == "confirmed"
    assert "5 of the 10 threads of pool http-nio-8080-exec (50 %) were BLOCKED" in finding.summary
    assert "queued on a com.example.Cache in 3 dumps in a row" in finding.summary
    assert 'held by "cache-refresher-0" (RUNNABLE)' in finding.summary


def test_the_same_5_threads_in_a_pool_of_400_are_ruled_out(tmp_path: Path) -> None:
    data = dumps_incident(tmp_path, *(dump(i * 5, size=400, blocked=5) for i in range(3)))
    finding = check(data)
    assert finding.verdict == "ruled_out"
    assert "5 of the 400 threads of pool http-nio-8080-exec" in finding.summary
    assert "3 dumps judged" in finding.summary and "no deadlock reported" in finding.summary
    # 100 of 400 is a quarter of the pool: contention again
    data = dumps_incident(tmp_path, *(dump(i * 5, size=400, blocked=100) for i in range(3)))
    assert check(data).verdict == "confirmed"


def test_contention_in_one_dump_of_three_is_likely(tmp_path: Path) -> None:
    data = dumps_incident(tmp_path, dump(0, blocked=0), dump(5, blocked=6), dump(10, blocked=0))
    finding = check(data)
    assert finding.verdict == "likely"
    assert "6 of the 10 threads" in finding.summary
    assert "contention in 1 dump of the 3 dumps judged, never 2 dumps in a row" in " ".join(
        e.summary for e in finding.evidence
    )


def test_threads_blocked_on_different_locks_are_no_contention(tmp_path: Path) -> None:
    locks = [f"0x00000000c0ffee{i:02d}" for i in range(6)]
    data = dumps_incident(tmp_path, *(dump(i * 5, blocked=6, locks=locks) for i in range(3)))
    finding = check(data)
    assert finding.verdict == "ruled_out"
    assert "1 of the 10 threads of pool http-nio-8080-exec" in finding.summary


def test_two_waiters_are_a_handoff_not_a_queue(tmp_path: Path) -> None:
    """blocked_min_threads: 2 of 4 is half the pool but no queue; 3 of 12 (25 %) is one."""
    data = dumps_incident(tmp_path, *(dump(i * 5, size=4, blocked=2) for i in range(3)))
    assert check(data).verdict == "ruled_out"
    data = dumps_incident(tmp_path, *(dump(i * 5, size=12, blocked=3) for i in range(3)))
    assert check(data).verdict == "confirmed"


def test_dumps_far_apart_are_not_in_a_row(tmp_path: Path) -> None:
    data = dumps_incident(tmp_path, dump(0, blocked=6), dump(600, blocked=6))
    finding = check(data)
    assert finding.verdict == "likely"
    assert "contention in 2 dumps of the 2 dumps judged, never 2 dumps in a row" in " ".join(
        e.summary for e in finding.evidence
    )


def test_a_deadlock_among_non_pool_threads_names_both_lock_kinds(tmp_path: Path) -> None:
    data = dumps_incident(tmp_path, dump(0, blocked=0, extra=DEADLOCK_SECTION))
    finding = check(data)
    assert finding.verdict == "confirmed"
    assert (
        '"main" waits for <0x00000000aaaa0001> (a com.example.Ledger) held by "Timer-0",'
        ' "Timer-0" waits for <0x00000000bbbb0002>'
        ' (a java.util.concurrent.locks.ReentrantLock$NonfairSync) held by "main"'
    ) in finding.explanation
    assert finding.entity == "the JVM (OpenJDK 17.0.15+6) on host h1"


def test_a_deadlock_forming_after_the_first_dump_is_counted_apart(tmp_path: Path) -> None:
    later = [
        line.replace('"main"', '"worker-a"').replace('"Timer-0"', '"worker-b"')
        for line in DEADLOCK_SECTION
    ]
    data = dumps_incident(
        tmp_path,
        dump(0, extra=DEADLOCK_SECTION),
        dump(2, extra=DEADLOCK_SECTION + later),
    )
    finding = check(data)
    assert finding.verdict == "confirmed"
    assert (
        "1 Java-level deadlock in the dump at 2026-11-18T11:06:40Z (and in 2 dumps in all),"
        " 1 more deadlock first in later dumps:"
    ) in finding.summary
    assert '"worker-a" waits for' in finding.explanation


# --- the slow period ------------------------------------------------------------------------


def test_dumps_outside_the_slow_period_are_left_aside(tmp_path: Path) -> None:
    """Pool saturated 0-10 s: the dumps at 0 and 5 s are judged, the contended ones at 100 and
    105 s are not (another time of day), and said so."""
    pool = pool_capture([8] * 10 + [1] * 100, max_threads=8)
    data = dumps_incident(
        tmp_path,
        dump(0),
        dump(5),
        dump(100, blocked=6),
        dump(105, blocked=6),
        others=[pool],
    )
    finding = check(data)
    assert finding.verdict == "ruled_out"
    assert "2 dumps judged" in finding.summary
    assert any(
        "2 dumps in the slow period" in e.summary and "2 dumps outside it left aside" in e.summary
        for e in finding.evidence
    )


def test_only_dumps_outside_the_slow_period_rule_nothing_out(tmp_path: Path) -> None:
    pool = pool_capture([8] * 10, max_threads=8)
    data = dumps_incident(tmp_path, dump(300), dump(305), others=[pool])
    finding = check(data)
    assert finding.verdict == "insufficient_data"
    assert "none inside the slow period" in finding.summary


def test_contention_persisting_outside_the_slow_period_is_only_likely(tmp_path: Path) -> None:
    pool = pool_capture([8] * 10, max_threads=8)
    data = dumps_incident(tmp_path, dump(300, blocked=6), dump(305, blocked=6), others=[pool])
    assert check(data).verdict == "likely"


def test_a_deadlock_seen_before_the_slow_period_lasted_through_it(tmp_path: Path) -> None:
    pool = pool_capture([1] * 100 + [8] * 10, max_threads=8)
    before = dumps_incident(tmp_path, dump(0, extra=DEADLOCK_SECTION), others=[pool])
    assert check(before).verdict == "confirmed"
    pool = pool_capture([8] * 10, max_threads=8)
    after = dumps_incident(tmp_path, dump(300, extra=DEADLOCK_SECTION), others=[pool])
    finding = check(after)
    assert finding.verdict == "likely"
    assert "only after the slow period" in finding.summary


def test_undated_dumps_cannot_be_placed_in_the_slow_period(tmp_path: Path) -> None:
    """Dumps without a timestamp line land at the upload's default time, which here falls
    inside the saturation: they still cannot be said to be of the slow period."""
    pool = pool_capture([8] * 10, max_threads=8)
    undated = [line for line in dump(0) if line != _stamp(0)]
    finding = check(dumps_incident(tmp_path, undated, undated, others=[pool]))
    assert finding.verdict == "insufficient_data"
    assert "2 undated dumps among them" in " ".join(e.summary for e in finding.evidence)


# --- what it explains -------------------------------------------------------------------------


def _pool_item(data: IncidentData) -> Finding:
    return next(f for f in registry.run_all(data) if f.id == "threadpool_exhaustion")


def test_a_pool_saturated_while_its_threads_queue_on_a_lock_is_the_locks_symptom(
    tmp_path: Path,
) -> None:
    """Pool saturated 0-10 s, half of it queued on one lock in the dumps at 0 and 5 s: the
    lock held the threads, so the saturation is explained by it, not a second cause."""
    pool = pool_capture([8] * 10 + [1] * 100, max_threads=8)
    data = dumps_incident(tmp_path, dump(0, blocked=6), dump(5, blocked=6), others=[pool])
    locks = check(data)
    assert locks.verdict == "confirmed"
    held = next(e for e in locks.evidence if e.threshold_name is None and e.symptom)
    assert held.met and held.symptom == "pool_saturated@host:h1"
    assert held.summary.startswith(
        "2 dumps taken during the pools' saturation (pool biz saturated,"
    )
    assert "at worst 6 of the 10 threads of pool http-nio-8080-exec" in held.summary
    assert locks.explains == ["pool_saturated@host:h1"]
    pool_item = _pool_item(data)
    assert pool_item.verdict == "ruled_out" and pool_item.explained_by == [ID]
    assert pool_item.summary.startswith('Explained by "Thread lock contention and deadlocks"')


@pytest.mark.parametrize(
    ("dumps", "why"),
    [
        ([dump(0), dump(5)], "no thread queued on a lock while the pool was saturated"),
        ([dump(0, blocked=2), dump(5, blocked=2)], "two waiters are a handoff, not a queue"),
        ([dump(300, blocked=6), dump(305, blocked=6)], "the queue was at another time"),
    ],
)
def test_a_pool_saturated_without_a_lock_queue_then_stands_on_its_own(
    tmp_path: Path, dumps: list[list[str]], why: str
) -> None:
    pool = pool_capture([8] * 10 + [1] * 100, max_threads=8)
    data = dumps_incident(tmp_path, *dumps, others=[pool])
    assert check(data).explains == [], why
    pool_item = _pool_item(data)
    assert pool_item.verdict != "ruled_out" and not pool_item.explained_by, why


def test_dumps_only_a_pool_full_of_one_locks_queue_is_the_locks_symptom() -> None:
    """Three real jstack -l of a pool of 8 whose workers take one ReentrantLock and sleep 50 ms
    under it: 7 parked on it, the 8th holding it, in every dump. Without pool metrics the dumps
    are the pool's only reading, and threadpool_exhaustion reads it 8 of 8 busy: the lock's
    queue, not the load, so it is this cause's symptom and not a second cause."""
    data = fixture_incident("thread_dump/rlock-queue-jdk17-jstack-l-3-dumps.txt")
    locks = check(data)
    assert locks.verdict == "confirmed"
    held = next(e for e in locks.evidence if e.threshold_name is None and e.symptom)
    assert held.met and held.symptom == "pool_saturated@host:"
    assert (
        "3 dumps show a pool full of the lock's queue: 7 of the 8 threads of pool order-exec"
        ' waiting for one lock held by "order-exec-7", another of them'
    ) in held.summary
    assert locks.explains == ["pool_saturated@host:"]
    pool_item = _pool_item(data)
    assert pool_item.verdict == "ruled_out" and pool_item.explained_by == [ID]
    assert "8 of 8 threads busy" in pool_item.summary


def test_dumps_only_a_pool_busy_beside_a_small_lock_queue_stands_on_its_own(
    tmp_path: Path,
) -> None:
    # 4 of 10 queued on a lock held outside the pool, 6 sleeping in tasks: contention, but
    # the pool is not full of the lock's queue; its 10 of 10 busy is not the lock's alone.
    data = dumps_incident(tmp_path, dump(0, blocked=4), dump(5, blocked=4))
    locks = check(data)
    assert locks.verdict == "confirmed" and locks.explains == []
    assert not any("full of the lock's queue" in e.summary for e in locks.evidence)


def test_a_lock_queue_on_another_host_explains_nothing_here(tmp_path: Path) -> None:
    pool = pool_capture([8] * 10 + [1] * 100, max_threads=8, host="h2")
    data = dumps_incident(tmp_path, dump(0, blocked=6), dump(5, blocked=6), others=[pool])
    assert check(data).explains == []
    assert not _pool_item(data).explained_by
