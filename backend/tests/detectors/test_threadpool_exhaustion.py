"""threadpool_exhaustion: saturation, rejections, and whether it came under load or after."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from rootline.detectors.data import MemoryIncidentData
from rootline.detectors.quantities import pool_saturation, pool_saturation_windows
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

ID = "threadpool_exhaustion"


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, registry.CHECKLISTS[ID].rule.thresholds)
    return finding


def test_confirmed_on_the_saturating_jdk17_pool() -> None:
    finding = check(fixture_incident("threadpool_metrics/pool-saturation-jdk17.csv"))
    assert finding.verdict == "confirmed"
    assert finding.summary.startswith("Pool order-service was exhausted")
    assert "8 of max 8" in finding.summary and "1,355 tasks rejected" in finding.summary
    # Pool metrics alone: its intake cannot say whether the load was still there.
    assert "under load" not in finding.summary
    lead = finding.evidence[0]
    assert lead.series == "threadpool.active" and lead.labels == {"pool": "order-service"}
    assert lead.met and lead.threshold_name == "saturation_min_duration_ms"
    # The saturation window of the capture: 07:27:27.5 .. 07:27:51 (bursts, then the drain).
    assert lead.from_ms == 1795246047554
    assert lead.to_ms is not None and lead.to_ms - lead.from_ms > 20_000
    assert any(e.summary.startswith("under load or after it, unknown") for e in finding.evidence)


def test_confirmed_from_the_rejection_log_alone() -> None:
    finding = check(fixture_incident("app_log/pool-saturation-jdk17-rejections.log"))
    assert finding.verdict == "confirmed"
    assert "123 rejection lines" in finding.summary
    assert finding.evidence[0].event_kind == "threadpool_rejected"


def test_confirmed_from_dubbo_exhausted_line() -> None:
    data = corpus_incident(
        "threads/dubbo-2.6.5-threadpool-exhausted-warn-with-stacktrace-xinsblog.log"
    )
    finding = check(data)
    assert finding.verdict == "confirmed"
    assert "DubboServerHandler" in finding.summary
    assert any("active 300 of max 300" in e.summary for e in finding.evidence)


def report_a(active_after_cut: float = 500.0) -> IncidentData:
    """Report A: 30 s of traffic, then traffic cut; the pool (max 500, 300 busy during the
    jam) fills only afterwards, draining what sat in the socket buffers."""
    segments = [800.0] * 30 + [5.0] * 30
    nstat = Capture("nstat").series("netstat.TcpInSegs", segments, unit="per_s")
    active = [300.0] * 30 + [active_after_cut] * 25 + [200.0] * 5
    pool = pool_capture(active, max_threads=500, pool="DubboServerHandler-10.0.0.1:20880")
    return incident(nstat, pool)


def test_saturation_after_the_load_was_removed_is_called_a_draining_backlog() -> None:
    finding = check(report_a())
    assert finding.verdict == "confirmed"
    assert "AFTER the load was removed" in finding.summary
    assert "backlog draining out of socket buffers" in finding.summary
    assert "connections" in finding.remedies[0]  # network remedies first
    timing = next(e for e in finding.evidence if e.threshold_name == "load_drop_ratio")
    assert timing.series == "netstat.TcpInSegs" and timing.met
    assert timing.observed == round(5.0 / 800.0, 4) and timing.from_ms == T0 + 30_000


def test_report_a_during_the_jam_the_pool_was_not_full() -> None:
    # The same capture cut before the drain: 300 of 500 is not exhaustion (nor near it).
    finding = check(report_a(active_after_cut=300.0))
    assert finding.verdict == "ruled_out"
    assert "active peak 300 of max 500" in finding.summary


def test_saturation_under_load_keeps_pool_remedies_first() -> None:
    nstat = Capture("nstat").series("netstat.TcpInSegs", [800.0] * 60, unit="per_s")
    pool = pool_capture([100.0] * 20 + [200.0] * 40, max_threads=200)
    finding = check(incident(nstat, pool))
    assert finding.verdict == "confirmed" and "under load" in finding.summary
    assert finding.remedies[0].startswith("Dubbo: size the provider pool")


def test_network_noise_is_not_used_as_a_load_signal() -> None:
    # 3 segments/s is an idle host: too weak to say anything, the pool intake is used instead.
    nstat = Capture("nstat").series("netstat.TcpInSegs", [3.0] * 10 + [0.5] * 20, unit="per_s")
    pool = pool_capture([2.0] * 10 + [8.0] * 20, completed_per_s=[20.0] * 29)
    finding = check(incident(nstat, pool))
    assert any("pool intake" in e.summary for e in finding.evidence)


def test_another_hosts_traffic_is_not_this_pools_load() -> None:
    # The client's traffic stops while the provider's pool fills: that says nothing of the
    # provider's own load, so the timing falls back to the provider pool's intake.
    client = Capture("nstat", host="client").series(
        "netstat.TcpInSegs", [800.0] * 10 + [5.0] * 20, unit="per_s"
    )
    pool = pool_capture([2.0] * 10 + [8.0] * 20, completed_per_s=[20.0] * 29, host="provider")
    finding = check(incident(client, pool))
    assert finding.verdict == "confirmed"
    assert not any(e.series == "netstat.TcpInSegs" for e in finding.evidence)
    # (and the pool's own intake cannot say under load or after it)
    assert any(e.summary.startswith("under load or after it, unknown") for e in finding.evidence)


def test_the_pools_own_intake_cannot_tell_a_drained_backlog_from_load() -> None:
    # A real pool that saturated only after the traffic stopped: its reader sat on a jammed
    # inbox for 12 s (intake 0), then drained 1,198 requests at once. Its intake during the
    # saturation is the drain itself, so it reads as load whatever happened: no timing.
    finding = check(fixture_incident("threadpool_metrics/pool-drained-after-jam-jdk17.jsonl"))
    assert finding.verdict == "confirmed"
    assert "under load" not in finding.summary and "AFTER the load" not in finding.summary
    timing = next(e for e in finding.evidence if e.summary.startswith("under load or after it"))
    assert "the only load signal is the pool intake (completed + rejected tasks)" in (
        timing.summary
    )
    assert "nstat" in timing.summary and timing.met is None
    # pool remedies stay, with the network one offered as the question to ask
    assert any(r.startswith("If the pool fills only after traffic drops") for r in finding.remedies)


def test_likely_when_near_full() -> None:
    finding = check(incident(pool_capture([2, 5, 9, 9, 6], max_threads=10)))
    assert finding.verdict == "likely"
    assert "active threads peaked at 9 of max 10" in finding.summary


def test_likely_when_counter_already_held_rejections() -> None:
    finding = check(incident(pool_capture([1, 2, 1], rejected=[37, 37, 37])))
    assert finding.verdict == "likely"
    assert any("already stood at 37" in e.summary for e in finding.evidence)


def test_ruled_out_names_the_peaks() -> None:
    pool = pool_capture([1, 3, 5, 4, 2], queue=[0, 0, 0, 0, 0], rejected=[0] * 5)
    finding = check(incident(pool))
    assert finding.verdict == "ruled_out"
    assert "active peak 5 of max 8" in finding.summary and "queue peak 0 of 50" in finding.summary
    assert "0 rejected over 5 readings" in finding.summary


def test_boundary_saturation_duration() -> None:
    # 200 ms sampler: 6 saturated readings span exactly 1000 ms, 5 span 800 ms.
    at_limit = pool_capture([4] + [8] * 6 + [4], step_s=0.2)
    below = pool_capture([4] + [8] * 5 + [4], step_s=0.2)
    assert check(incident(at_limit)).verdict == "confirmed"
    short = check(incident(below))
    assert short.verdict == "likely"
    assert "saturated for 800 ms" in short.summary
    # One saturated reading of a 10 s scrape is a moment, not 10 s.
    single = check(incident(pool_capture([100, 200, 150], max_threads=200, step_s=10)))
    assert single.verdict == "likely"


def test_boundary_near_full_ratio() -> None:
    assert check(incident(pool_capture([9], max_threads=10))).verdict == "likely"
    assert check(incident(pool_capture([8.9], max_threads=10))).verdict == "ruled_out"


def test_queue_full_alone_confirms() -> None:
    pool = pool_capture([6] * 5, queue=[10, 50, 50, 50, 20], max_threads=8)
    assert check(incident(pool)).verdict == "confirmed"


def test_a_zero_capacity_queue_is_no_queue_to_fill() -> None:
    # Dubbo queues=0 (a SynchronousQueue) reports capacity 0: an empty queue is not "full".
    pool = pool_capture([3] * 5, queue=[0] * 5, capacity=0, max_threads=8)
    assert check(incident(pool)).verdict == "ruled_out"


def test_busy_thread_dump_is_likely_and_io_pools_are_ignored() -> None:
    dump = Capture("thread_dump")
    for pool, state in (("biz-exec", "runnable"), ("New I/O server worker #1", "runnable")):
        dump.series("jvm.threads.pool", [10], unit="threads", labels={"pool": pool})
        dump.series(
            "jvm.threads.pool_state", [10], unit="threads", labels={"pool": pool, "state": state}
        )
    finding = check(incident(dump))
    assert finding.verdict == "likely"
    assert "biz-exec" in finding.summary
    assert all("I/O" not in e.summary for e in finding.evidence)


def _dump(tmp_path, frames: list[str], n: int = 20):  # type: ignore[no-untyped-def]
    """A jstack dump through the real parser: a pool of ``n`` RUNNABLE threads in ``frames``."""
    lines = ["2026-11-21 07:27:34", "Full thread dump OpenJDK 64-Bit Server VM (17 mixed mode):"]
    for i in range(n):
        lines += ["", f'"worker-{i}" #{i + 9} prio=5 tid=0x{i:x} nid=0x{i:x} runnable  [0x0]']
        lines += ["   java.lang.Thread.State: RUNNABLE", *(f"\tat {f}" for f in frames)]
    path = tmp_path / "jstack.txt"
    path.write_text("\n".join(lines) + "\n")
    return MemoryIncidentData([parsed(path)])


def test_threads_runnable_in_a_native_wait_for_input_are_not_busy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Corpus SAP dump: 35 of 35 JCO.ServerThreads RUNNABLE in RfcListen -> native accept:
    idle, waiting for the next call. The JVM says RUNNABLE for any thread in native code."""
    listening = [
        "com.sap.mw.rfc.driver.CpicDriver.nativeSAP_CMACCPTP([BII)I(Native Method)",
        "com.sap.mw.rfc.driver.CpicDriver.SAP_CMACCPTP([BII)I(CpicDriver.java:1086)",
        "com.sap.mw.rfc.driver.RfcTypeRegisterCpic.cosaccepttp(I)I(RfcTypeRegisterCpic.java:250)",
        "com.sap.mw.rfc.driver.RfcTypeRegisterCpic.listen([BI[II)I(RfcTypeRegisterCpic.java:40)",
    ]
    for frames in (
        listening,
        ["sun.nio.ch.EPoll.wait(java.base@17/Native Method)",
         "sun.nio.ch.EPollSelectorImpl.doSelect(java.base@17/EPollSelectorImpl.java:118)"],
        ["sun.nio.ch.Net.accept(java.base@17/Native Method)",
         "sun.nio.ch.NioSocketImpl.accept(java.base@17/NioSocketImpl.java:755)"],
    ):  # fmt: skip
        finding = check(_dump(tmp_path, frames))
        assert finding.verdict == "insufficient_data", frames[0]
    busy = check(_dump(tmp_path, ["org.example.Codec.encode(Codec.java:88)"]))
    assert busy.verdict == "likely"
    # native code that is not a wait for input (compression, a JNI call) is on CPU
    inflating = ["java.util.zip.Inflater.inflateBytes(java.base@17/Native Method)",
                 "java.util.zip.Inflater.inflate(java.base@17/Inflater.java:378)",
                 "java.util.zip.GZIPInputStream.read(java.base@17/GZIPInputStream.java:117)"]  # fmt: skip
    assert check(_dump(tmp_path, inflating)).verdict == "likely"
    # a socket read holds the thread for the connection it serves or the downstream it
    # called: occupied, not waiting for new work (it was counted idle before)
    reading = ["java.net.SocketInputStream.socketRead0(java.base@11/Native Method)",
               "java.net.SocketInputStream.socketRead(java.base@11/SocketInputStream.java:115)"]  # fmt: skip
    assert check(_dump(tmp_path, reading)).verdict == "likely"


def test_input_waits_are_said_beside_the_busy_count(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lines = ["2026-11-21 07:27:34", "Full thread dump OpenJDK 64-Bit Server VM (17 mixed mode):"]
    for i in range(20):
        top = (
            "org.example.Codec.encode(Codec.java:88)"
            if i < 19
            else ("java.net.PlainSocketImpl.socketAccept(java.base@11/Native Method)")
        )
        lines += ["", f'"worker-{i}" #{i + 9} prio=5 tid=0x{i:x} nid=0x{i:x} runnable  [0x0]']
        lines += ["   java.lang.Thread.State: RUNNABLE", f"\tat {top}"]
    path = tmp_path / "jstack.txt"
    path.write_text("\n".join(lines) + "\n")
    finding = check(MemoryIncidentData([parsed(path)]))
    assert finding.verdict == "likely"  # 19 of 20 busy = 95 %
    assert "19 of 20 threads busy" in finding.summary
    assert "1 RUNNABLE in native accept, listen or poll" in finding.summary


def test_insufficient_without_pool_metrics() -> None:
    # (The committed PoolSaturation dump used to be the example here: its 8 workers sleep
    # inside their tasks, which read as idle; they are busy, see
    # test_the_real_saturated_pool_dump_shows_its_workers_busy_in_tasks.)
    finding = check(incident())
    assert finding.verdict == "insufficient_data"
    assert any("jstack" in m.command for m in finding.missing)


def test_pools_on_several_hosts_are_judged_apart() -> None:
    busy = pool_capture([8] * 5, host="provider-1")
    idle = pool_capture([8] * 5, max_threads=100, host="provider-2")
    finding = check(incident(busy, idle))
    assert finding.verdict == "confirmed"
    assert "biz on provider-1" in finding.summary
    assert finding.evidence[0].host == "provider-1"


def test_rejection_counter_alone_confirms() -> None:
    capture = Capture("prometheus").series(
        "threadpool.rejected", [0, 5, 40], unit="tasks", labels={"pool": "http-nio-8080-exec"}
    )
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    assert finding.summary.startswith("Pool http-nio-8080-exec on h1 was exhausted: 40 tasks")


def test_one_definition_of_a_saturated_pool() -> None:
    """Issue 11: the quantities layer says when a pool was saturated, for every id."""
    data = fixture_incident("threadpool_metrics/pool-saturation-jdk17.csv")
    (pool,) = pool_saturation(data)
    assert pool.pool == "order-service" and pool.judgeable
    windows = [w for w in pool_saturation_windows(data) if w.why == "saturated"]
    longest = max(windows, key=lambda w: w.to_ms - w.from_ms)
    assert longest.to_ms - longest.from_ms > 20_000
    # the finding's longest run is the same window
    lead = check(data).evidence[0]
    assert (lead.from_ms, lead.to_ms) == (longest.from_ms, longest.to_ms)
    # a rejection counter rising and a logged rejection are saturation too
    counter = Capture("prometheus").series(
        "threadpool.rejected", [0, 0, 5, 9, 9], unit="tasks", labels={"pool": "p"}
    )
    log = Capture("app_log").event("threadpool_rejected", 3.0, pool="p")
    found = pool_saturation_windows(incident(counter, log))
    assert [(w.why, w.from_ms - T0, w.to_ms - T0) for w in found] == [
        ("rejected", 1000, 3000),
        ("rejection logged", 3000, 3000),
    ]


values = st.lists(st.floats(min_value=-5, max_value=1e6, allow_nan=False), max_size=30)


@settings(max_examples=60, deadline=None)
@given(active=values, maximum=values, queue=values, times=st.lists(st.integers(0, 5), max_size=30))
def test_never_raises_on_odd_series(active, maximum, queue, times) -> None:  # type: ignore[no-untyped-def]
    capture = Capture("threadpool_metrics", host=None)
    for name, points in (
        ("threadpool.active", active),
        ("threadpool.max", maximum),
        ("threadpool.queue", queue),
        ("threadpool.queue_capacity", maximum),
        ("threadpool.rejected", queue),
    ):
        for i, value in enumerate(points):
            at = times[i] if i < len(times) else i  # duplicate and unordered times
            capture.points.add(name, {"pool": "p"}, "", T0 + at * 1000, value)
    finding = registry.judge(ID, incident(capture))
    assert finding.verdict in {"confirmed", "likely", "ruled_out", "insufficient_data"}


# --- what a waiting worker is doing: inside a task (busy) or in its pool's wait (idle) ----

JDK = "java.base@17.0.15"


def _jstack(tmp_path, workers: list[tuple[str, list[str]]], pool: str = "biz-exec"):  # type: ignore[no-untyped-def]
    """A jstack dump through the real parser: one ``pool`` thread per (state line, frames)."""
    lines = ["2026-11-21 07:27:34", "Full thread dump OpenJDK 64-Bit Server VM (17 mixed mode):"]
    for i, (state, frames) in enumerate(workers):
        lines += ["", f'"{pool}-{i + 1}" #{i + 9} prio=5 tid=0x{i:x} nid=0x{i:x} waiting  [0x0]']
        lines += [f"   java.lang.Thread.State: {state}", *(f"\tat {f}" for f in frames)]
    path = tmp_path / "jstack.txt"
    path.write_text("\n".join(lines) + "\n")
    return MemoryIncidentData([parsed(path)])


RUN_WORKER = [
    f"java.util.concurrent.ThreadPoolExecutor.runWorker({JDK}/ThreadPoolExecutor.java:1136)",
    f"java.util.concurrent.ThreadPoolExecutor$Worker.run({JDK}/ThreadPoolExecutor.java:635)",
    f"java.lang.Thread.run({JDK}/Thread.java:840)",
]
# A request handler's stack: far deeper than the 8 frames a dump event keeps.
HANDLER = [f"org.example.web.Layer{i}.handle(Layer{i}.java:{i + 10})" for i in range(14)]
PARK = [
    f"jdk.internal.misc.Unsafe.park({JDK}/Native Method)",
    f"java.util.concurrent.locks.LockSupport.park({JDK}/LockSupport.java:341)",
]
PARK_NANOS = [
    f"jdk.internal.misc.Unsafe.park({JDK}/Native Method)",
    f"java.util.concurrent.locks.LockSupport.parkNanos({JDK}/LockSupport.java:252)",
]
CONDITION_AWAIT = [
    *PARK,
    f"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionNode.block({JDK}/AbstractQueuedSynchronizer.java:506)",
    f"java.util.concurrent.ForkJoinPool.unmanagedBlock({JDK}/ForkJoinPool.java:3465)",
    f"java.util.concurrent.ForkJoinPool.managedBlock({JDK}/ForkJoinPool.java:3436)",
    f"java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await({JDK}/AbstractQueuedSynchronizer.java:1623)",
]
GET_TASK = [
    f"java.util.concurrent.ThreadPoolExecutor.getTask({JDK}/ThreadPoolExecutor.java:1062)",
    *RUN_WORKER,
]

IN_TASK: dict[str, tuple[str, list[str]]] = {
    "Thread.sleep in a task": (
        "TIMED_WAITING (sleeping)",
        [f"java.lang.Thread.sleep({JDK}/Native Method)",
         "org.example.OrderService.reserve(OrderService.java:88)",
         "org.example.OrderService$$Lambda$12/0x0000000801001a28.run(Unknown Source)",
         *RUN_WORKER],
    ),
    "Thread.sleep deep in a handler": (
        "TIMED_WAITING (sleeping)",
        [f"java.lang.Thread.sleep({JDK}/Native Method)", "org.example.Retry.backoff(Retry.java:40)",
         *HANDLER],
    ),
    "FutureTask.get": (
        "WAITING (parking)",
        [*PARK,
         f"java.util.concurrent.FutureTask.awaitDone({JDK}/FutureTask.java:447)",
         f"java.util.concurrent.FutureTask.get({JDK}/FutureTask.java:190)",
         "org.example.Fanout.collect(Fanout.java:31)", *HANDLER],
    ),
    "CompletableFuture.get": (
        "WAITING (parking)",
        [*PARK,
         f"java.util.concurrent.CompletableFuture$Signaller.block({JDK}/CompletableFuture.java:1864)",
         f"java.util.concurrent.ForkJoinPool.unmanagedBlock({JDK}/ForkJoinPool.java:3465)",
         f"java.util.concurrent.ForkJoinPool.managedBlock({JDK}/ForkJoinPool.java:3436)",
         f"java.util.concurrent.CompletableFuture.waitingGet({JDK}/CompletableFuture.java:1898)",
         f"java.util.concurrent.CompletableFuture.get({JDK}/CompletableFuture.java:2072)",
         "org.example.PriceClient.quote(PriceClient.java:57)", *HANDLER],
    ),
    "Object.wait from application code": (
        "WAITING (on object monitor)",
        [f"java.lang.Object.wait({JDK}/Native Method)", f"java.lang.Object.wait({JDK}/Object.java:338)",
         "org.example.Gate.pass(Gate.java:19)", *HANDLER],
    ),
    "LockSupport.park from application code": (
        "WAITING (parking)",
        [*PARK, "org.example.Throttle.acquire(Throttle.java:71)", *HANDLER],
    ),
    "a lock": (
        "WAITING (parking)",
        [*PARK,
         f"java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire({JDK}/AbstractQueuedSynchronizer.java:715)",
         f"java.util.concurrent.locks.ReentrantLock.lock({JDK}/ReentrantLock.java:322)",
         "org.example.Ledger.post(Ledger.java:12)", *RUN_WORKER],
    ),
    "its own queue, taken by application code": (
        "WAITING (parking)",
        [*CONDITION_AWAIT,
         f"java.util.concurrent.LinkedBlockingQueue.take({JDK}/LinkedBlockingQueue.java:435)",
         "org.example.BatchConsumer.next(BatchConsumer.java:23)", *HANDLER],
    ),
    "a socket read to a downstream (JDK 8-12)": (
        "RUNNABLE",
        ["java.net.SocketInputStream.socketRead0(Native Method)",
         "java.net.SocketInputStream.socketRead(SocketInputStream.java:116)",
         "java.net.SocketInputStream.read(SocketInputStream.java:171)",
         "java.net.SocketInputStream.read(SocketInputStream.java:141)",
         "com.mysql.cj.protocol.ReadAheadInputStream.fill(ReadAheadInputStream.java:107)",
         "com.mysql.cj.protocol.ReadAheadInputStream.read(ReadAheadInputStream.java:186)",
         *HANDLER],
    ),
    "a socket read to a downstream (JDK 13+)": (
        "RUNNABLE",
        [f"sun.nio.ch.Net.poll({JDK}/Native Method)",
         f"sun.nio.ch.NioSocketImpl.park({JDK}/NioSocketImpl.java:186)",
         f"sun.nio.ch.NioSocketImpl.timedRead({JDK}/NioSocketImpl.java:290)",
         f"sun.nio.ch.NioSocketImpl.implRead({JDK}/NioSocketImpl.java:314)",
         f"sun.nio.ch.NioSocketImpl.read({JDK}/NioSocketImpl.java:355)",
         f"java.net.Socket$SocketInputStream.read({JDK}/Socket.java:976)",
         *HANDLER],
    ),
}  # fmt: skip

IN_QUEUE: dict[str, tuple[str, list[str]]] = {
    "LinkedBlockingQueue.take (JDK 17)": (
        "WAITING (parking)",
        [*CONDITION_AWAIT,
         f"java.util.concurrent.LinkedBlockingQueue.take({JDK}/LinkedBlockingQueue.java:435)",
         *GET_TASK],
    ),
    "SynchronousQueue.poll (JDK 17)": (
        "TIMED_WAITING (parking)",
        [*PARK_NANOS,
         f"java.util.concurrent.SynchronousQueue$TransferStack.awaitFulfill({JDK}/SynchronousQueue.java:462)",
         f"java.util.concurrent.SynchronousQueue$TransferStack.transfer({JDK}/SynchronousQueue.java:361)",
         f"java.util.concurrent.SynchronousQueue.poll({JDK}/SynchronousQueue.java:937)",
         *GET_TASK],
    ),
    "LinkedTransferQueue under SynchronousQueue (JDK 21)": (
        "TIMED_WAITING (parking)",
        [*PARK_NANOS,
         "java.util.concurrent.LinkedTransferQueue$DualNode.await(java.base@21/LinkedTransferQueue.java:458)",
         "java.util.concurrent.LinkedTransferQueue.xfer(java.base@21/LinkedTransferQueue.java:613)",
         "java.util.concurrent.SynchronousQueue.xfer(java.base@21/SynchronousQueue.java:257)",
         "java.util.concurrent.SynchronousQueue.poll(java.base@21/SynchronousQueue.java:193)",
         *GET_TASK],
    ),
    "Tomcat TaskQueue.take, getTask beyond the kept frames": (
        "WAITING (parking)",
        [*CONDITION_AWAIT,
         f"java.util.concurrent.LinkedBlockingQueue.take({JDK}/LinkedBlockingQueue.java:435)",
         "org.apache.tomcat.util.threads.TaskQueue.take(TaskQueue.java:141)",
         "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask(ThreadPoolExecutor.java:1114)",
         "org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1176)",
         "org.apache.tomcat.util.threads.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:659)",
         "org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:61)",
         f"java.lang.Thread.run({JDK}/Thread.java:840)"],
    ),
    "ForkJoinPool.awaitWork": (
        "WAITING (parking)",
        [f"jdk.internal.misc.Unsafe.park({JDK}/Native Method)",
         f"java.util.concurrent.ForkJoinPool.awaitWork({JDK}/ForkJoinPool.java:1724)",
         f"java.util.concurrent.ForkJoinPool.runWorker({JDK}/ForkJoinPool.java:1623)",
         f"java.util.concurrent.ForkJoinWorkerThread.run({JDK}/ForkJoinWorkerThread.java:165)"],
    ),
    "RUNNABLE in a native accept": (
        "RUNNABLE",
        [f"sun.nio.ch.Net.accept({JDK}/Native Method)",
         f"sun.nio.ch.NioSocketImpl.accept({JDK}/NioSocketImpl.java:755)",
         f"java.net.ServerSocket.implAccept({JDK}/ServerSocket.java:675)",
         "org.example.Listener.run(Listener.java:30)"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("size", [8, 20, 200])
@pytest.mark.parametrize("how", list(IN_TASK))
def test_a_worker_waiting_inside_a_task_is_busy(tmp_path, how: str, size: int) -> None:  # type: ignore[no-untyped-def]
    """From the pool's point of view a worker inside a task is occupied, sleeping or waiting
    on a downstream as much as on CPU: every one of them in a task is a full pool."""
    finding = check(_jstack(tmp_path, [IN_TASK[how]] * size))
    assert finding.verdict == "likely", (how, finding.summary)
    assert f"{size} of {size} threads busy (100 %" in finding.summary


@pytest.mark.parametrize("size", [8, 20, 200])
@pytest.mark.parametrize("how", list(IN_QUEUE))
def test_a_worker_in_its_pools_wait_is_idle(tmp_path, how: str, size: int) -> None:  # type: ignore[no-untyped-def]
    """Healthy contrast: only a worker waiting for new work is free."""
    finding = check(_jstack(tmp_path, [IN_QUEUE[how]] * size))
    assert finding.verdict == "insufficient_data", (how, finding.summary)
    text = " ".join(e.summary for e in finding.evidence)
    assert f"0 of {size} threads busy" in text


@pytest.mark.parametrize(("in_task", "idle", "verdict"), [(19, 1, "likely"), (18, 2, "likely"),
                                                          (17, 3, "insufficient_data"),
                                                          (10, 10, "insufficient_data")])  # fmt: skip
def test_the_busy_share_counts_tasks_against_queue_waits(  # type: ignore[no-untyped-def]
    tmp_path, in_task: int, idle: int, verdict: str
) -> None:
    workers = [IN_TASK["CompletableFuture.get"]] * in_task
    workers += [IN_QUEUE["LinkedBlockingQueue.take (JDK 17)"]] * idle
    finding = check(_jstack(tmp_path, workers))
    assert finding.verdict == verdict
    dump = next(e.summary for e in finding.evidence if e.summary.startswith("thread dump"))
    assert f"{in_task} of {in_task + idle} threads busy" in dump
    assert f"waiting inside a task ({in_task}:" in dump
    assert f"{idle} in the pool's wait for its next task" in dump
    assert "do not say" not in dump


def test_a_wait_the_frames_do_not_place_is_not_counted_busy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A pool whose idle loop Rootline does not know (a short stack, the wait called by the
    worker's own run loop) is not taken for a busy one: not counted, and said."""
    own_loop = ("WAITING (on object monitor)",
                [f"java.lang.Object.wait({JDK}/Native Method)",
                 "org.example.pool.MiniPool$Worker.run(MiniPool.java:52)",
                 f"java.lang.Thread.run({JDK}/Thread.java:840)"])  # fmt: skip
    finding = check(_jstack(tmp_path, [own_loop] * 20))
    assert finding.verdict == "insufficient_data"
    dump = next(e.summary for e in finding.evidence if e.summary.startswith("thread dump"))
    assert "0 of 20 threads busy" in dump
    assert "not counted busy: 20 waiting where the frames kept do not say" in dump


def test_selector_threads_keep_their_old_reading(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Netty / NIO selector threads are not workers: skipped by name, and a generically named
    thread RUNNABLE in epoll is waiting for events."""
    epoll = ("RUNNABLE",
             [f"sun.nio.ch.EPoll.wait({JDK}/Native Method)",
              f"sun.nio.ch.EPollSelectorImpl.doSelect({JDK}/EPollSelectorImpl.java:118)",
              f"sun.nio.ch.SelectorImpl.lockAndDoSelect({JDK}/SelectorImpl.java:129)",
              f"sun.nio.ch.SelectorImpl.select({JDK}/SelectorImpl.java:146)",
              "io.netty.channel.nio.NioEventLoop.select(NioEventLoop.java:813)",
              "io.netty.channel.nio.NioEventLoop.run(NioEventLoop.java:460)"])  # fmt: skip
    named = check(_jstack(tmp_path, [epoll] * 20, pool="nioEventLoopGroup-2"))
    assert named.verdict == "insufficient_data" and not named.evidence
    generic = check(_jstack(tmp_path, [epoll] * 20, pool="io-worker"))
    assert generic.verdict == "insufficient_data"
    assert any("0 of 20 threads busy" in e.summary for e in generic.evidence)


def test_the_real_saturated_pool_dump_shows_its_workers_busy_in_tasks() -> None:
    """The committed jstack of PoolSaturation.java (tests/fixtures/thread_dump/README.md): the
    pool is saturated (active 8 of 8, queue 50 of 50) and all 8 order-service workers sleep
    inside their tasks (TIMED_WAITING in Thread.sleep under ThreadPoolExecutor.runWorker).
    Reading a sleeping worker as idle called this pool free; it is full."""
    finding = check(fixture_incident("thread_dump/pool-saturation-jdk17-jstack-3-dumps.txt"))
    assert finding.verdict == "likely"
    assert finding.summary.startswith("Pool order-service ran near its limits")
    assert "8 of 8 threads busy (100 %" in finding.summary
    assert "waiting inside a task (8:" in finding.summary


def test_unnamed_threads_are_not_a_pool(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """java.lang.Thread names every thread started without a name "Thread-N": twenty of them
    busy in their own work are no pool to exhaust (a named pool alike is, the contrast)."""
    sleeping = IN_TASK["Thread.sleep in a task"]
    unnamed = check(_jstack(tmp_path, [sleeping] * 20, pool="Thread"))
    assert unnamed.verdict == "insufficient_data" and not unnamed.evidence
    assert check(_jstack(tmp_path, [sleeping] * 20, pool="report-pool")).verdict == "likely"
