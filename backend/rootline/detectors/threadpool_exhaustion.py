"""Quantities of ``threadpool_exhaustion`` (rule: ``rules/threadpool_exhaustion.toml``), per pool.

Inputs (per host and pool): ``threadpool.active``, ``threadpool.max``, ``threadpool.queue``,
``threadpool.queue_capacity``, ``threadpool.rejected`` (cumulative) /
``threadpool.rejected_per_s``, ``threadpool.completed_per_s`` (CSV / JSON metrics,
Prometheus); events ``threadpool_rejected`` (app logs: Dubbo "Thread pool is EXHAUSTED!",
RejectedExecutionException, Tomcat "All threads are currently busy"); ``jvm.threads.pool``
and ``jvm.threads.pool_state{pool,state}`` (jstack).

Saturation is the quantities layer's one definition (:func:`quantities.pool_saturation`:
active >= max or queue >= capacity at a reading). Per pool:

- ``saturated_ms``: the longest run of saturated readings, first to last (readings are
  instants); ``saturated_samples`` / ``queue_full_samples`` count the readings at
  active >= max and at a full queue; ``active_share`` / ``queue_share`` the peaks over the
  limits.
- ``rejected_in_capture``: rises of the cumulative rejection counter during the capture (a
  counter going down is a restart), else the rate times the interval;
  ``rejected_before_capture`` what it held at its first reading; ``rejection_lines`` the
  application log's rejection lines for the pool, ``logged_active`` / ``logged_max`` /
  ``logged_queue`` what the first of them reports.
- ``dump_busy_share``: in the thread dump where it is highest, the share of the pool's
  threads occupied, as the pool sees them: a worker inside a task cannot take another,
  whatever the JVM calls its state. Busy: RUNNABLE (a socket or stream read included: the
  connection it serves or the downstream it called holds it) or BLOCKED, and WAITING /
  TIMED_WAITING inside a task (``dump_in_task_waits``, :func:`waiting_in_task`: ``Thread.sleep``,
  ``Object.wait`` or ``LockSupport.park`` called by application code, ``FutureTask.get``,
  ``CompletableFuture.get``, a latch or a lock; from the dump event's
  ``pool_waiting_stacks``). Idle: waiting for new work, in the pool's own wait for its next
  task (``dump_queue_waits``: ``ThreadPoolExecutor.getTask`` over a blocking queue's take /
  poll, Tomcat's ``TaskQueue``, ``ForkJoinPool.awaitWork``, Jetty's ``idleJobPoll`` ...) or
  RUNNABLE in native code accepting a connection, listening for a call or polling a selector
  (``dump_input_waits``: the JVM reports RUNNABLE for any thread in native code; ``accept0``,
  ``socketAccept``, ``listen`` / ``RfcListen``, ``epollWait``, ``poll``, ``select`` among the
  top frames, from ``pool_runnable_stacks``). A waiting worker whose kept frames show neither
  (``dump_unplaced_waits``) is not counted busy. I/O selector and JVM pools, and the
  unnamed ``Thread-N`` threads (no pool), are skipped by name; only pools of at least
  ``dump_min_pool_threads`` threads.
- ``timing``: whether the pool saturated ``under_load`` or ``after_load`` (report A: the pool
  filled only after the traffic was cut, draining requests that sat in socket buffers), from
  the request rate of the pool's host around the saturation window (the longest run, else the
  span of the rejections): incoming TCP segments (kernel counter), else the busiest
  interface's packets in (nmon), else the pool's intake (completed + rejected per second). A
  network signal whose peak stays below ``load_signal_min_per_s`` is background noise.
  ``load_ratio`` is the mean rate during the window over its peak before it (over the peak
  so far when the capture starts inside the window); after the load when the peak before it
  is known and the ratio is <= ``load_drop_ratio``, else under load. From the pool's intake
  the timing stays ``unknown`` (its numbers are shown): the intake is what reached the pool,
  and a backlog drained after the traffic stopped reaches it as load does (a real drain of
  1,200 requests held 12 s read "under load" from it, 1.0x its peak).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
    Anchor,
    EventView,
    IncidentData,
    Measurement,
    Params,
    Quantity,
    SeriesView,
)
from rootline.detectors.quantities import (
    PoolSaturation,
    counter_increments,
    host_key,
    merged_series,
    pool_saturation,
    pool_series,
    step_values_at,
    typical_interval_ms,
)

# Netty / NIO selector and acceptor threads sit RUNNABLE in epollWait: not busy workers.
_IO_POOL_RE = re.compile(
    r"I/O|EventLoop|epoll|selector|poller|acceptor|boss|NettyServerWorker|NettyClientWorker|"
    r"CompilerThread|GC |G1 |VM Thread",
    re.IGNORECASE,
)

# Thread names that group threads without making them a pool: java.lang.Thread's default
# "Thread-N" names every thread started without a name, whatever it does.
_NOT_POOLS = frozenset({"Thread"})

# What a worker in a thread dump is doing, from its state and top frames (matched on
# ``Class.method``). From the pool's point of view a worker is idle only while it waits for
# new work; a worker inside a task is occupied whatever the JVM calls its state: sleeping,
# waiting on a future, a latch or a lock, or reading a socket, it cannot take a task.

# A RUNNABLE thread in native code waiting for new work: accepting a connection, listening
# for a call (SAP JCo's RfcListen), polling a selector for events.
_NEW_WORK_NATIVE_RE = re.compile(r"accept|listen|epoll|kevent|select|^poll$", re.IGNORECASE)
# A RUNNABLE thread in native code reading a socket or a stream: the connection it serves or
# the downstream it called holds it (JDK 13+ blocking reads park in Net.poll under
# NioSocketImpl.timedRead, so the read frame decides, wherever it is among the top frames).
_READ_NATIVE_RE = re.compile(r"socketRead|^read0$|^readBytes$|^recv|implRead|timedRead|^read$")

# The pool's own wait for its next task: the queue it takes tasks from or the loop handing
# them out (java.util.concurrent, Tomcat, ForkJoinPool, Jetty, JBoss threads, Quartz,
# WebLogic, GlassFish, SAP J2EE, Eclipse Jobs, java.util.Timer).
_POOL_WAIT_RE = re.compile(
    r"(^|[.$])("
    r"ThreadPoolExecutor\.getTask|TaskQueue\.(take|poll)|ForkJoinPool\.awaitWork"
    r"|QueuedThreadPool(\$Runner)?\.idleJobPoll|ReservedThread\.reservedWait"
    r"|EnhancedQueueExecutor\$PoolThreadNode\.park|JIoEndpoint\$Worker\.await"
    r"|SimpleThreadPool\.getNextRunnable|ExecuteThread\.waitForRequest|\w*Pipeline\.getTask"
    r"|WaitQueue\.dequeue|WorkerPool\.(sleep|startJob)|TimerThread\.mainLoop"
    r")$"
)
# A JDK blocking queue's take / poll: the pool's queue unless application code called it.
_JDK_QUEUE_RE = re.compile(
    r"^java\.util\.concurrent\.(LinkedBlockingQueue|ArrayBlockingQueue|LinkedBlockingDeque"
    r"|PriorityBlockingQueue|DelayQueue|SynchronousQueue|LinkedTransferQueue"
    r"|ScheduledThreadPoolExecutor\$DelayedWorkQueue)(\$\w+)*\.\w+$"
)
# JDK calls a task makes and a pool never makes to wait for work: a future's result, a
# latch, a barrier, a permit, another thread's end, a lock.
_TASK_WAIT_RE = re.compile(
    r"^java\.util\.concurrent\.(FutureTask\.(get|awaitDone)"
    r"|CompletableFuture\.(get|join|waitingGet|timedGet)|CountDownLatch\.await"
    r"|ExecutorCompletionService\.(take|poll)|AbstractExecutorService\.invoke(All|Any)"
    r"|CyclicBarrier\.(await|dowait)|Semaphore\.acquire\w*|Phaser\.\w+|Exchanger\.exchange"
    r"|locks\.(ReentrantLock|ReentrantReadWriteLock)(\$\w+)*\.lock\w*"
    r"|locks\.StampedLock\.\w*[lL]ock)$"
    r"|^java\.lang\.Thread\.join$"
)
# A pool running a task: below these frames the thread is inside a task (a worker in its
# pool's wait has the wait frame above them, matched first).
_TASK_RUN_RE = re.compile(
    r"(^|[.$])(ThreadPoolExecutor\.runWorker|FutureTask\.run(AndReset)?|ForkJoinTask\.doExec"
    r"|ForkJoinPool\.topLevelExec|QueuedThreadPool\.runJob|SingleThread\.execute"
    r"|JobRunShell\.run)$"
)
# The JVM's own wait machinery above the frame that decided to wait.
_WAIT_PRIMITIVE_RE = re.compile(
    r"^(java\.lang\.Object\.wait0?|java\.lang\.Thread\.(sleep|sleep0|sleepNanos|sleepNanos0)"
    r"|(jdk\.internal\.misc|sun\.misc)\.Unsafe\.park|java\.util\.concurrent\.locks\.[\w$.]+"
    r"|java\.util\.concurrent\.ForkJoinPool\.(managedBlock|unmanagedBlock)|jrockit\.vm\.[\w$.]+)$"
)
_JDK_PREFIXES = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "jrockit.")

PoolKey = tuple[str | None, str]


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    series = pool_series(data)
    saturation = {(p.host, p.pool): p for p in pool_saturation(data)}
    logs = _log_rejections(data)
    dumps = _busiest_dumps(data, params)
    keys = sorted(
        set(series) | set(saturation) | set(logs) | set(dumps), key=lambda k: (k[0] or "", k[1])
    )
    return [
        _pool(data, key, series.get(key, {}), saturation.get(key), logs.get(key, []),
              dumps.get(key), params)
        for key in keys
    ]  # fmt: skip


def _pool(
    data: IncidentData,
    key: PoolKey,
    named: dict[str, list[SeriesView]],
    sat: PoolSaturation | None,
    lines: list[EventView],
    dump: _Dump | None,
    params: Params,
) -> Measurement:
    host, pool = key
    values: dict[str, Quantity] = {"pool": pool, "timing": "unknown"}
    anchors: dict[str, Anchor] = {}
    labels = {"pool": pool}
    window: tuple[int, int] | None = None
    artifact = sat.artifact if sat else None

    if sat is not None:
        step = int(typical_interval_ms(sat.times_ms))
        span = (int(sat.times_ms[0]), int(sat.times_ms[-1]) + step)
        values.update(
            samples=len(sat.times_ms),
            metrics_judgeable=sat.judgeable,
            peak_active=sat.peak_active,
            max_threads=sat.max_threads,
            active_share=_share(sat.peak_active, sat.max_threads),
            peak_queue=sat.peak_queue,
            queue_capacity=sat.queue_capacity,
            queue_share=_share(sat.peak_queue, sat.queue_capacity),
            saturated_samples=sat.active_full,
            queue_full_samples=sat.queue_full,
            saturated_ms=0.0 if sat.judgeable else None,
        )
        anchors["active_share"] = Anchor("threadpool.active", labels, *span, host, artifact)
        anchors["queue_share"] = Anchor("threadpool.queue", labels, *span, host, artifact)
        run = sat.longest_run()
        if run is not None:
            first, last = run
            window = (first, last + step)
            values.update(saturated_ms=float(last - first), saturated_from=first)
            anchors["saturated_ms"] = Anchor(
                "threadpool.active", labels, first, last + step, host, artifact
            )

    rejected = _rejections(
        named.get("threadpool.rejected", []), named.get("threadpool.rejected_per_s", [])
    )
    if rejected is not None:
        in_capture, before, peak_rate, first_ms, last_ms, source = rejected
        values.update(
            rejected_in_capture=in_capture,
            rejected_before_capture=before,
            rejected_peak_rate=peak_rate,
        )
        where = Anchor(source.name, labels, first_ms, last_ms, host, source.artifact)
        anchors["rejected_in_capture"] = anchors["rejected_before_capture"] = where
        if window is None and first_ms is not None and last_ms is not None:
            window = (first_ms, last_ms)

    if lines:
        first_line, last_line = lines[0], lines[-1]
        values.update(
            rejection_lines=len(lines),
            rejection_first=first_line.time_ms,
            rejection_last=last_line.time_ms,
            rejection_message=_excerpt(str(first_line.attrs.get("message", ""))),
            logged_active=_number(first_line.attrs.get("active")),
            logged_max=_number(first_line.attrs.get("max")),
            logged_queue=_number(first_line.attrs.get("queue")),
        )
        anchors["rejection_lines"] = Anchor(
            None, labels, first_line.time_ms, last_line.time_ms, host, first_line.artifact,
            "threadpool_rejected",
        )  # fmt: skip
        anchors["logged_active"] = anchors["rejection_lines"]
        if window is None:
            window = (first_line.time_ms, last_line.time_ms)
        artifact = artifact or first_line.artifact

    if dump is not None:
        values.update(
            dump_busy=dump.busy,
            dump_input_waits=dump.input_waits,
            dump_in_task_waits=dump.in_task_waits,
            dump_queue_waits=dump.queue_waits,
            dump_unplaced_waits=dump.unplaced_waits or None,
            dump_threads=dump.total,
            dump_busy_share=dump.busy / dump.total if dump.total else None,
            dump_at=dump.time_ms,
        )
        anchors["dump_busy_share"] = Anchor(
            "jvm.threads.pool_state", labels, dump.time_ms, dump.time_ms, host, dump.artifact
        )
        artifact = artifact or dump.artifact

    if window is not None:
        load = _load_signal(data, host, named, window, params)
        if load is not None:
            values.update(_timing(load, window, params))
            anchors["load_ratio"] = Anchor(load.series, load.labels, *window, host, load.artifact)
            anchors["full_after_load_fell_ms"] = anchors["load_ratio"]
            anchors["load_during"] = anchors["load_ratio"]
        values["window_from"], values["window_to"] = window

    return Measurement(
        entity=f"{pool} on {host}" if host else pool,
        key=host_key(host),
        values=values,
        anchor=Anchor("threadpool.active", labels, None, None, host, artifact),
        anchors=anchors,
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _share(peak: float | None, limit: float | None) -> float | None:
    if peak is None or limit is None or limit <= 0:
        return None
    return peak / limit


def _rejections(
    cumulative: Sequence[SeriesView], rates: Sequence[SeriesView]
) -> tuple[float, float, float, int | None, int | None, SeriesView] | None:
    """(rejected during the capture, already counted at its start, peak rate /s, first rise,
    last rise, the series read); None without rejection series."""
    in_capture = before = peak_rate = 0.0
    first: int | None = None
    last: int | None = None
    source: SeriesView | None = None
    for s in cumulative:
        values = np.asarray(s.values, dtype=np.float64)
        if not len(values):
            continue
        source = source or s
        before = max(before, float(values[0]))
        steps = np.diff(values)
        rising = steps > 0  # a counter going down is a restart, not negative rejections
        in_capture += float(steps[rising].sum())
        if rising.any():
            at = s.times_ms[1:][rising]
            first = int(at[0]) if first is None else min(first, int(at[0]))
            last = int(at[-1]) if last is None else max(last, int(at[-1]))
    for s in rates:
        values = np.asarray(s.values, dtype=np.float64)
        if not len(values):
            continue
        source = source or s
        peak_rate = max(peak_rate, float(values.max()))
        positive = values > 0
        if positive.any() and not cumulative:
            dt_s = typical_interval_ms(s.times_ms) / 1000.0 or 1.0
            in_capture += float(values[positive].sum() * dt_s)
            at = s.times_ms[positive]
            first = int(at[0]) if first is None else min(first, int(at[0]))
            last = int(at[-1]) if last is None else max(last, int(at[-1]))
    if source is None:
        return None
    return in_capture, before, peak_rate, first, last, source


# --- under load or after it ---------------------------------------------------------------


@dataclass(slots=True)
class _Load:
    name: str
    series: str
    labels: dict[str, str]
    artifact: str
    times_ms: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]


# The last load signal: the pool's own intake (completed + rejected per second).
INTAKE_SERIES = "threadpool.completed_per_s"


def _covers(times: npt.NDArray[np.int64], window: tuple[int, int]) -> bool:
    """Whether a signal has a point inside the window and one at or before its start."""
    inside = (times >= window[0]) & (times <= window[1])
    return bool(inside.any() and (times <= window[0]).any())


def _load_signal(
    data: IncidentData,
    host: str | None,
    named: dict[str, list[SeriesView]],
    window: tuple[int, int],
    params: Params,
) -> _Load | None:
    """The request-rate signal of the pool's host covering the window, network first.

    Only the pool's own host; a pool reported without a host takes the network signal of
    the incident's one host when there is exactly one.
    """
    noise = float(params["load_signal_min_per_s"])
    segments = counter_increments(data, "TcpInSegs")
    own = segments.get(host)
    if own is None and host is None and len(segments) == 1:
        own = next(iter(segments.values()))
    if own is not None and len(own):
        rates = own.increments / np.maximum(own.interval_s, 1e-9)
        if _covers(own.end_ms, window) and float(rates.max()) >= noise:
            return _Load(
                "incoming TCP segments", own.source.name, {}, own.source.artifact, own.end_ms,
                rates.astype(np.float64),
            )  # fmt: skip
    packets = [s for s in data.series("net.packets_in") if s.name == "net.packets_in" and len(s)]
    hosts = {s.host for s in packets}
    mine = [
        s
        for s in packets
        if (s.host == host or (host is None and len(hosts) == 1)) and _covers(s.times_ms, window)
    ]
    if mine:
        busiest = max(mine, key=lambda s: float(np.sum(s.values)))
        if float(busiest.values.max()) >= noise:
            iface = busiest.labels.get("if", "?")
            return _Load(
                f"packets in on {iface}", "net.packets_in", {"if": iface}, busiest.artifact,
                busiest.times_ms, np.asarray(busiest.values, dtype=np.float64),
            )  # fmt: skip
    completed = named.get("threadpool.completed_per_s", [])
    completed_t, completed_v = merged_series(completed)
    if len(completed_t) >= 2:
        rejected_t, rejected_v = merged_series(named.get("threadpool.rejected_per_s", []))
        intake = completed_v.copy()
        if len(rejected_t):
            intake = intake + np.nan_to_num(step_values_at(rejected_t, rejected_v, completed_t))
        return _Load(
            "pool intake (completed + rejected tasks)", INTAKE_SERIES,
            {"pool": completed[0].labels.get("pool", "")}, completed[0].artifact, completed_t,
            intake,
        )  # fmt: skip
    return None


def _timing(load: _Load, window: tuple[int, int], params: Params) -> dict[str, Quantity]:
    t, v = load.times_ms, load.values
    from_ms, to_ms = window
    before = v[t < from_ms]
    during = v[(t >= from_ms) & (t <= to_ms)]
    if not len(during):
        during = step_values_at(t, v, np.array([from_ms, to_ms], dtype=np.int64))
    mean_during = float(np.mean(during))
    peak_before = float(before.max()) if len(before) else None
    peak = float(v[t <= to_ms].max()) if (t <= to_ms).any() else mean_during
    drop = float(params["load_drop_ratio"])
    out: dict[str, Quantity] = {
        "load_name": load.name,
        "load_during": mean_during,
        "load_peak_before": peak_before,
        "load_peak": peak,
        # over the peak before the window; a capture that starts inside it: the peak so far
        "load_ratio": mean_during / (peak_before or peak) if (peak_before or peak) else None,
    }
    if load.series == INTAKE_SERIES:
        # The pool's own intake is what reached the pool, not what was offered: a backlog
        # draining out of socket buffers after the traffic stopped (report A) arrives as
        # intake as new load does, so neither timing can be read from it.
        out["timing"] = "unknown"
        return out
    if peak_before and mean_during <= drop * peak_before:
        out["timing"] = "after_load"
        return out
    out["timing"] = "under_load"
    if peak > 0:
        high = (t >= from_ms) & (t <= to_ms) & (v > drop * peak)
        if high.any():
            fell_at = int(t[high][-1])
            out["load_fell_at"] = fell_at
            out["full_after_load_fell_ms"] = float(to_ms - fell_at)
    return out


# --- logs and thread dumps ----------------------------------------------------------------


def _log_rejections(data: IncidentData) -> dict[PoolKey, list[EventView]]:
    grouped: dict[PoolKey, list[EventView]] = {}
    for event in data.events("threadpool_rejected"):
        grouped.setdefault((event.host, str(event.attrs.get("pool", "?"))), []).append(event)
    return {k: sorted(v, key=lambda e: e.time_ms) for k, v in grouped.items()}


@dataclass(slots=True)
class _Dump:
    busy: float
    total: float
    time_ms: int
    artifact: str
    input_waits: float = 0.0  # RUNNABLE in native code waiting for new work: idle
    in_task_waits: float = 0.0  # waiting inside a task: counted busy
    queue_waits: float = 0.0  # waiting in the pool's wait for its next task: idle
    unplaced_waits: float = 0.0  # waiting, the frames kept do not say where: not counted


def _method(frame: str) -> str:
    """``java.net.PlainSocketImpl.socketAccept(Native Method)`` -> ``socketAccept``."""
    return frame.split("(", 1)[0].rsplit(".", 1)[-1].rsplit("/", 1)[-1]


def _qualified(frame: str) -> str:
    """``jrockit/vm/Locks.wait(Locks.java:1)`` -> ``jrockit.vm.Locks.wait``."""
    return frame.split("(", 1)[0].replace("/", ".").strip()


def waits_for_input(frames: Sequence[str]) -> bool:
    """Whether a RUNNABLE thread with these top frames waits in native code for new work (a
    connection, a call, a selector event) rather than running: a top frame that is native,
    a wait for new work among the top frames and no socket or stream read (a read holds the
    thread for the connection it serves or the downstream it called)."""
    if not frames or "Native Method" not in frames[0]:
        return False
    methods = [_method(frame) for frame in frames]
    if any(_READ_NATIVE_RE.search(m) for m in methods):
        return any(re.search("accept|listen", m, re.IGNORECASE) for m in methods)
    return any(_NEW_WORK_NATIVE_RE.search(m) for m in methods)


def waiting_in_task(frames: Sequence[str], deeper: bool) -> bool | None:
    """Whether a WAITING / TIMED_WAITING worker with these top frames is inside a task (True:
    occupied), in its pool's wait for the next task (False: idle), or neither can be told
    from the frames kept (None).

    In its pool's wait: a pool's wait frame (``ThreadPoolExecutor.getTask``, Tomcat's
    ``TaskQueue.take``, ``ForkJoinPool.awaitWork`` ...), or a JDK blocking queue's take / poll
    called by the pool (not by application code). Inside a task: a JDK call a task makes to
    wait (``FutureTask.get``, ``CompletableFuture.get``, ``CountDownLatch.await``, a lock), a
    pool frame running a task below the wait (``ThreadPoolExecutor.runWorker``, not under
    ``getTask``), or application code that called the wait (``Thread.sleep``, ``Object.wait``,
    ``LockSupport.park``) in a stack that goes on below the frames kept: a pool's own idle
    loop is a few frames deep, a request handler is not.
    """
    names = [_qualified(frame) for frame in frames]
    for i, name in enumerate(names):
        if _POOL_WAIT_RE.search(name):
            return False
        if _JDK_QUEUE_RE.match(name):
            caller = next((n for n in names[i + 1 :] if not _JDK_QUEUE_RE.match(n)), None)
            if caller is None or _POOL_WAIT_RE.search(caller):
                return False
    if any(_TASK_WAIT_RE.search(name) or _TASK_RUN_RE.search(name) for name in names):
        return True
    waiter = next(
        (n for n in names if not _WAIT_PRIMITIVE_RE.match(n) and not _JDK_QUEUE_RE.match(n)), None
    )
    if waiter is not None and deeper and not waiter.startswith(_JDK_PREFIXES):
        return True
    return None


@dataclass(slots=True)
class _Waits:
    """One pool in one dump: threads waiting, by what the frames say."""

    for_work: float = 0.0  # RUNNABLE in native code waiting for new work: idle
    in_task: float = 0.0  # WAITING / TIMED_WAITING inside a task: busy
    in_queue: float = 0.0  # WAITING / TIMED_WAITING in the pool's wait: idle
    unplaced: float = 0.0  # WAITING / TIMED_WAITING, the frames kept do not say


def _dump_waits(data: IncidentData) -> dict[tuple[str | None, str, int], _Waits]:
    """Per (host, pool, dump time): the pool's waiting threads by what their frames say,
    from the dump event's ``pool_runnable_stacks`` and ``pool_waiting_stacks`` (a dump read
    before the second existed counts no waiting thread as inside a task)."""
    out: dict[tuple[str | None, str, int], _Waits] = {}
    for event in data.events("thread_dump"):
        for attr in ("pool_runnable_stacks", "pool_waiting_stacks"):
            stacks = event.attrs.get(attr)
            if not isinstance(stacks, dict):
                continue
            for pool, items in stacks.items():
                waits = out.setdefault((event.host, str(pool), int(event.time_ms)), _Waits())
                for item in items:
                    if not isinstance(item, dict):
                        continue
                    count = float(item.get("count", 0))
                    frames = [str(f) for f in item.get("frames") or []]
                    if attr == "pool_runnable_stacks":
                        waits.for_work += count if waits_for_input(frames) else 0.0
                        continue
                    placed = waiting_in_task(frames, bool(item.get("deeper")))
                    if placed is True:
                        waits.in_task += count
                    elif placed is False:
                        waits.in_queue += count
                    else:
                        waits.unplaced += count
    return out


def _busiest_dumps(data: IncidentData, params: Params) -> dict[PoolKey, _Dump]:
    """Per worker pool of at least ``dump_min_pool_threads`` threads, the dump in which the
    largest share of it was busy: RUNNABLE (less those waiting in native code for new work),
    BLOCKED, or WAITING / TIMED_WAITING inside a task (see :func:`waiting_in_task`)."""
    totals: dict[tuple[str | None, str, int], tuple[float, str]] = {}
    for s in data.series("jvm.threads.pool"):
        if s.name != "jvm.threads.pool":
            continue
        pool = s.labels.get("pool", "")
        for t, v in zip(s.times_ms, s.values, strict=True):
            totals[(s.host, pool, int(t))] = (float(v), s.artifact)
    by_state: dict[tuple[str | None, str, int], dict[str, float]] = {}
    for s in data.series("jvm.threads.pool_state"):
        if s.name != "jvm.threads.pool_state":
            continue
        pool, state = s.labels.get("pool", ""), s.labels.get("state", "")
        for t, v in zip(s.times_ms, s.values, strict=True):
            states = by_state.setdefault((s.host, pool, int(t)), {})
            states[state] = states.get(state, 0.0) + float(v)
    waits = _dump_waits(data)
    smallest = float(params["dump_min_pool_threads"])
    best: dict[PoolKey, _Dump] = {}
    for (host, pool, time_ms), (total, artifact) in totals.items():
        if _IO_POOL_RE.search(pool) or pool in _NOT_POOLS or total < smallest:
            continue
        key = (host, pool, time_ms)
        states = by_state.get(key, {})
        found = waits.get(key, _Waits())
        runnable = states.get("runnable", 0.0)
        waiting = states.get("waiting", 0.0) + states.get("timed_waiting", 0.0)
        for_work = min(found.for_work, runnable)
        in_task = min(found.in_task, waiting)
        in_queue = min(found.in_queue, waiting - in_task)
        busy = runnable - for_work + states.get("blocked", 0.0) + in_task
        dump = _Dump(
            busy, total, time_ms, artifact, for_work, in_task, in_queue,
            waiting - in_task - in_queue,
        )  # fmt: skip
        seen = best.get((host, pool))
        if seen is None or (dump.busy / dump.total, -dump.time_ms) > (
            seen.busy / seen.total,
            -seen.time_ms,
        ):
            best[(host, pool)] = dump
    return best


def _excerpt(message: str, limit: int = 120) -> str:
    """The log message as quoted in a sentence: cut at a word past ``limit`` characters with
    an ellipsis, no dangling punctuation before the sentence's own."""
    message = " ".join(message.split())
    if len(message) > limit:
        message = message[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"
    return message.rstrip(".,;:")
