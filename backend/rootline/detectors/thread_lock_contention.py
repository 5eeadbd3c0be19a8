"""Quantities of ``thread_lock_contention`` (rule: ``rules/thread_lock_contention.toml``), per JVM.

Inputs (thread_dump parser, per dump): events ``thread_dump`` (``total``, ``by_pool``,
``dated``, ``dump_index``), ``thread_contention`` (one per lock that threads wait to acquire:
``monitor``, ``class``, ``owner``, ``owner_state``, ``waiters``, ``waiters_by_pool``,
``pool_threads``) and ``thread_deadlock`` (one per "Found one Java-level deadlock" section:
``cycle`` of ``thread`` / ``monitor`` / ``class`` / ``held_by``). The slow period: the thread
pools' saturation (:func:`quantities.pool_saturation_windows`) and ``rpc_timeout`` events of
application logs (one second either side), as ``gc_pauses`` reads it, widened by
``slow_period_margin_ms`` (a dump is an instant; a capture loop starts when someone notices).

The dumps of one host are one JVM (a host-less upload is one group: ``jstack`` run three
times gives three files), in time order, named by its host (or, without one, its dump file)
with the JVM's version and pid when the dumps give them (:func:`_label`). Waiting for a lock is either BLOCKED on a monitor
(``- waiting to lock <0x..>``, ``synchronized``) or WAITING parked on a
``java.util.concurrent`` lock's ``Sync`` (``- parking to wait for <0x..> (a
...ReentrantLock$NonfairSync)``): the JVM names the states apart, the mechanism is the same.

Per JVM:

- ``deadlock_count``: deadlocks the JVM itself reported (it walks the lock graph at the
  dump: a cycle is certain, not inferred) in the first dump that shows one; a deadlock never
  resolves, so every later dump reports it again: ``deadlock_later`` counts only the cycles
  (by their threads) that first appear in a later dump; ``deadlock_cycle`` all of them as
  "A waits for <lock> held by B" (stated once, in the explanation), ``deadlock_threads_named``
  their threads by name (what the other texts say); ``deadlock_at`` that dump's time; ``deadlock_before_slow_end``
  whether a deadlock was seen at or before the end of the slow period (a Java-level deadlock
  never resolves by itself: seen before the slow period, it lasted through it; seen only
  after it, it may have formed later).
- Judged dumps: those inside the slow period when one is known and some dump lies in it,
  else every dump (``dumps_outside_slow`` counts the others; ``all_outside_slow`` when no
  dump lies in it). Undated dumps cannot be placed and count as outside.
- Per judged dump, per lock and per pool of its waiters: ``blocked`` threads of that pool
  waiting for that lock over ``pool_threads`` threads of that pool in the dump. Contention is
  ``blocked >= blocked_min_threads`` and ``blocked / pool_threads >= blocked_share_min``.
  ``blocked_*`` describe the worst such (the highest share, then the most threads);
  ``contended_dumps`` how many judged dumps show any.
- ``persist_dumps``: the longest run of consecutive dumps of one pool (the JVM's dumps in
  which that pool has threads, no two further apart than ``persist_max_gap_ms``) in which its
  threads contend for a lock of the same class (an object's address may move in a GC; its
  class does not) at or past both thresholds; ``persist_*`` its pool, lock class and span.
- ``pool_lock_dumps``: of the dumps taken while a thread pool of the same host was saturated
  (its window widened by ``slow_period_margin_ms``), those showing contention at or past
  both thresholds; ``pool_lock_*`` the worst of them. The pool's threads were held by a lock,
  not busy with the load: the pool's saturation (``pool_saturated``, which
  ``threadpool_exhaustion`` observes) is this cause's symptom.
- ``pool_held_dumps``: when no pool's saturation is known from metrics or rejection lines
  (a capture of thread dumps only: the dumps are the pool's only reading), the judged dumps in
  which at least ``pool_held_share`` of a pool's threads queue on one lock, ``pool_held_*``
  the worst: that pool reads full in the dump because of the lock's queue, the same symptom.
- ``most_blocked`` / ``most_blocked_pool_threads`` / ``most_blocked_pool``: the most threads of
  one pool waiting for one lock in any judged dump, thresholds aside (what a ruling-out
  quotes); ``no_waiters`` says it in words when no thread waited for any lock.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from rootline.detectors.base import Anchor, EventView, IncidentData, Measurement, Params, Quantity
from rootline.detectors.quantities import (
    SlowPeriod,
    host_key,
    iso_ms,
    period_files,
    slow_periods,
)
from rootline.parsers.thread_dump import pool_of

# Cycles quoted in full in a finding; a dump holding more says how many.
CYCLES_SHOWN = 3

_DumpKey = tuple[str, int]  # (artifact, dump index)


@dataclass(slots=True)
class _Dump:
    event: EventView
    contention: list[EventView] = field(default_factory=list)
    deadlocks: list[EventView] = field(default_factory=list)

    @property
    def time_ms(self) -> int:
        return self.event.time_ms

    @property
    def dated(self) -> bool:
        return self.event.attrs.get("dated") is not False


@dataclass(frozen=True, slots=True)
class _Wait:
    """Threads of one pool waiting for one lock in one dump."""

    pool: str
    blocked: int
    pool_threads: int | None
    lock: str
    lock_class: str
    owner: str | None
    owner_state: str | None
    dump: _Dump

    @property
    def share(self) -> float | None:
        return self.blocked / self.pool_threads if self.pool_threads else None


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    jvms = _jvms(data)
    periods = slow_periods(data)
    return [_measure(host, dumps, periods, params) for host, dumps in jvms.items()]


def _jvms(data: IncidentData) -> dict[str | None, list[_Dump]]:
    dumps: dict[_DumpKey, _Dump] = {}
    hosts: dict[_DumpKey, str | None] = {}
    for event in data.events("thread_dump"):
        key = (event.artifact, int(event.attrs.get("dump_index", 0)))
        dumps[key] = _Dump(event)
        hosts[key] = event.host
    for kind in ("thread_contention", "thread_deadlock"):
        for event in data.events(kind):
            found = dumps.get((event.artifact, int(event.attrs.get("dump_index", 0))))
            if found is not None:
                (found.contention if kind == "thread_contention" else found.deadlocks).append(event)
    by_host: dict[str | None, list[_Dump]] = defaultdict(list)
    for key, dump in dumps.items():
        by_host[hosts[key]].append(dump)
    return {
        host: sorted(
            found, key=lambda d: (d.time_ms, d.event.artifact, d.event.attrs.get("dump_index", 0))
        )
        for host, found in sorted(by_host.items(), key=lambda item: item[0] or "")
    }


def _label(host: str | None, dumps: list[_Dump]) -> str:
    """The JVM as a reader knows it: its host, with the JVM's version and pid when its dumps
    agree on them ("the JVM (OpenJDK 25+36-LTS, pid 3862) on host app-1"); without a host,
    the dump file it was read from ("the JVM (OpenJDK 25+36-LTS) in the dump jstack.txt")."""
    about = [
        f"{prefix}{values.pop()}"
        for prefix, key in (("", "vm"), ("pid ", "pid"))
        if len(values := {d.event.attrs.get(key) for d in dumps}) == 1 and None not in values
    ]
    jvm = f"the JVM ({', '.join(about)})" if about else "the JVM"
    if host:
        return f"{jvm} on host {host}"
    artifacts = sorted({d.event.artifact for d in dumps})
    if len(artifacts) == 1:
        return f"{jvm} in the dump {PurePosixPath(artifacts[0].rsplit('!', 1)[-1]).name}"
    return f"{jvm} in {len(artifacts)} thread-dump files"


def _anchor(dump: _Dump, host: str | None) -> Anchor:
    return Anchor(None, {}, dump.time_ms, dump.time_ms, host, dump.event.artifact, "thread_dump")


def _measure(
    host: str | None, dumps: list[_Dump], periods: list[SlowPeriod], params: Params
) -> Measurement:
    margin = int(params["slow_period_margin_ms"])
    mine = [p for p in periods if p.host is None or host is None or p.host == host]
    values: dict[str, Quantity] = {
        "dump_count": len(dumps),
        "dump_from": dumps[0].time_ms,
        "dump_to": dumps[-1].time_ms,
        "slow_period_known": bool(mine),
        "all_outside_slow": False,
        "dumps_outside_slow": 0,
    }
    anchors: dict[str, Anchor] = {}
    judged = dumps
    slow_end: int | None = None
    if mine:
        spans = [(p.from_ms - margin, p.to_ms + margin) for p in mine]
        slow_end = max(b for _, b in spans)
        inside = [d for d in dumps if d.dated and any(a <= d.time_ms <= b for a, b in spans)]
        names = sorted({p.what for p in mine})
        values.update(
            slow_what=", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
            slow_from=min(p.from_ms for p in mine),
            slow_to=max(p.to_ms for p in mine),
            dumps_in_slow=len(inside),
            dumps_outside_slow=len(dumps) - len(inside),
            all_outside_slow=not inside,
            dumps_undated=sum(1 for d in dumps if not d.dated) or None,
        )
        if inside:
            judged = inside
    values["dumps_taken"] = (
        f"the dump was taken at {iso_ms(dumps[0].time_ms)}"
        if len(dumps) == 1
        else f"the {len(dumps)} dumps were taken {iso_ms(dumps[0].time_ms)}"
        f" .. {iso_ms(dumps[-1].time_ms)}"
    )
    values["dumps_judged"] = len(judged)
    values["judged_from"] = judged[0].time_ms
    values["judged_to"] = judged[-1].time_ms
    values["judged_when"] = (
        f"at {iso_ms(judged[0].time_ms)}"
        if judged[0].time_ms == judged[-1].time_ms
        else f"{iso_ms(judged[0].time_ms)} .. {iso_ms(judged[-1].time_ms)}"
    )
    anchors["dumps_judged"] = Anchor(
        None, {}, judged[0].time_ms, judged[-1].time_ms, host, judged[0].event.artifact,
        "thread_dump", period_files(mine),
    )  # fmt: skip

    # Deadlocks: every dump (a deadlock never resolves by itself).
    # It is reported again in every later dump of the JVM: a cycle (its threads) counts once.
    with_deadlock = [d for d in dumps if d.deadlocks]
    values["deadlock_count"] = 0
    if with_deadlock:
        first = with_deadlock[0]
        seen = {_cycle_key(e) for e in first.deadlocks}
        later: list[EventView] = []
        for dump in with_deadlock[1:]:
            for event in dump.deadlocks:
                if _cycle_key(event) not in seen:
                    seen.add(_cycle_key(event))
                    later.append(event)
        values.update(
            deadlock_count=len(first.deadlocks),
            deadlock_later=len(later) or None,
            deadlock_at=first.time_ms,
            deadlock_dumps=len(with_deadlock) if len(with_deadlock) > 1 else None,
            deadlock_cycle=_cycles(first.deadlocks + later),
            deadlock_threads_named=_cycle_threads(first.deadlocks + later),
            deadlock_threads=sum(len(_cycle_of(e)) for e in first.deadlocks + later),
            deadlock_before_slow_end=slow_end is None
            or any(d.dated and d.time_ms <= slow_end for d in with_deadlock),
        )
        anchors["deadlock_count"] = _anchor(first, host)

    # Contention: the judged dumps only.
    min_threads = int(params["blocked_min_threads"])
    min_share = float(params["blocked_share_min"])
    waits = [w for d in judged for w in _waits(d)]
    contended = [w for w in waits if w.blocked >= min_threads and (w.share or 0.0) >= min_share]
    values["contended_dumps"] = len({id(w.dump) for w in contended})
    if waits:
        most = max(waits, key=lambda w: (w.blocked, w.share or 0.0, -w.dump.time_ms))
        values.update(
            most_blocked=most.blocked,
            most_blocked_pool=most.pool,
            most_blocked_pool_threads=most.pool_threads,
            most_blocked_at=most.dump.time_ms,
        )
        anchors["most_blocked"] = _anchor(most.dump, host)
        of = f"of the {most.pool_threads:,} " if most.pool_threads else ""
        noun = "thread" if (most.pool_threads or most.blocked) == 1 else "threads"
        values["most_blocked_text"] = (
            f"the most threads of one pool waiting for one lock {most.blocked:,} {of}{noun}"
            f" of pool {most.pool}"
        )
    else:
        values["no_waiters"] = "no thread waited for a lock"
        values["most_blocked_text"] = "no thread waited for a lock"
    if contended:
        worst = max(contended, key=lambda w: (w.share or 0.0, w.blocked, -w.dump.time_ms))
        values.update(
            blocked_share=worst.share,
            blocked_threads=worst.blocked,
            blocked_pool=worst.pool,
            blocked_pool_threads=worst.pool_threads,
            blocked_lock=_lock_text(worst.lock, worst.lock_class),
            blocked_owner=_owner_text(worst.owner, worst.owner_state),
            blocked_at=worst.dump.time_ms,
            blocked_how=_how(worst.lock_class),
        )
        anchors["blocked_share"] = _anchor(worst.dump, host)
    _pool_held(values, anchors, host, [p for p in mine if p.pool], contended, margin)
    if not any(p.pool for p in mine):
        _pool_full_of_waiters(values, anchors, host, contended, float(params["pool_held_share"]))
    run = _longest_run(judged, contended, int(params["persist_max_gap_ms"]))
    values["persist_dumps"] = run[0] if run else (1 if contended else 0)
    if run:
        _length, pool, lock_class, first_ms, last_ms, artifact = run
        undated = any(not d.dated for d in judged if first_ms <= d.time_ms <= last_ms)
        values.update(
            persist_note="undated dumps, in the order of their file" if undated else None,
            persist_pool=pool,
            persist_lock_class=lock_class,
            persist_from=first_ms,
            persist_to=last_ms,
        )
        anchors["persist_dumps"] = Anchor(
            None, {}, first_ms, last_ms, host, artifact, "thread_dump"
        )
    return Measurement(
        entity=_label(host, dumps),
        key=host_key(host),
        values=values,
        anchor=_anchor(judged[-1], host),
        anchors=anchors,
    )


def _pool_held(
    values: dict[str, Quantity],
    anchors: dict[str, Anchor],
    host: str | None,
    saturated: list[SlowPeriod],
    contended: list[_Wait],
    margin_ms: int,
) -> None:
    """``pool_lock_dumps``: the dumps taken while a pool of this JVM's host was saturated (its
    window widened by ``margin_ms``) that show a pool queued on one lock at or past both
    thresholds; ``pool_lock_*`` the worst of them and the windows. The threads were held by
    the lock, not busy with the load: the pool's saturation is this cause's symptom."""
    if not saturated:
        return
    spans = [(p.from_ms - margin_ms, p.to_ms + margin_ms) for p in saturated]
    inside = [
        w for w in contended if w.dump.dated and any(a <= w.dump.time_ms <= b for a, b in spans)
    ]
    values["pool_lock_dumps"] = len({id(w.dump) for w in inside})
    if not inside:
        return
    worst = max(inside, key=lambda w: (w.share or 0.0, w.blocked, -w.dump.time_ms))
    names = sorted({p.what for p in saturated})
    values.update(
        pool_lock_what=", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
        pool_lock_from=min(p.from_ms for p in saturated),
        pool_lock_to=max(p.to_ms for p in saturated),
        pool_lock_blocked=worst.blocked,
        pool_lock_pool=worst.pool,
        pool_lock_pool_threads=worst.pool_threads,
        pool_lock_at=worst.dump.time_ms,
    )
    anchors["pool_lock_dumps"] = _anchor(worst.dump, host)
    anchors["pool_lock_dumps"].against = period_files(saturated)


def _pool_full_of_waiters(
    values: dict[str, Quantity],
    anchors: dict[str, Anchor],
    host: str | None,
    contended: list[_Wait],
    held_share: float,
) -> None:
    """``pool_held_dumps``: with no pool metrics or rejection lines to say when a pool was
    saturated, the dumps themselves are the pool's only reading (threadpool_exhaustion reads a
    pool full from a dump): those where at least ``held_share`` of a pool's threads queue on
    one lock or hold it. That pool reads full because of the lock's queue, not the load: the pool's
    saturation is this cause's symptom. ``pool_held_*`` the worst of them."""
    held = [w for w in contended if (_held_share(w) or 0.0) >= held_share]
    values["pool_held_dumps"] = len({id(w.dump) for w in held})
    if not held:
        return
    worst = max(held, key=lambda w: (_held_share(w) or 0.0, w.blocked, -w.dump.time_ms))
    values.update(
        pool_held_blocked=worst.blocked,
        pool_held_holder=f'"{_short(worst.owner)}"'
        if worst.owner and _holder_in_pool(worst)
        else None,
        pool_held_pool=worst.pool,
        pool_held_pool_threads=worst.pool_threads,
        pool_held_at=worst.dump.time_ms,
    )
    anchors["pool_held_dumps"] = _anchor(worst.dump, host)


def _holder_in_pool(wait: _Wait) -> bool:
    return bool(wait.owner) and pool_of(str(wait.owner)) == wait.pool


def _held_share(wait: _Wait) -> float | None:
    """The share of the pool's threads the lock holds: its waiters, and its holder when the
    holder is a thread of the same pool (busy with the lock, not with other work)."""
    if not wait.pool_threads:
        return None
    return (wait.blocked + (1 if _holder_in_pool(wait) else 0)) / wait.pool_threads


def _waits(dump: _Dump) -> list[_Wait]:
    """Per lock of the dump and per pool of its waiters, how many wait and of how many."""
    by_pool = dump.event.attrs.get("by_pool") or {}
    out = []
    for event in dump.contention:
        a = event.attrs
        waiters_by_pool = a.get("waiters_by_pool")
        sizes: dict[str, Any] = dict(a.get("pool_threads") or {})
        if not isinstance(waiters_by_pool, dict):
            # Events stored before the parser counted waiters per pool: the first names only.
            names = [str(n) for n in a.get("waiter_names") or []]
            pools = {pool_of(n) for n in names}
            waiters_by_pool = (
                {pools.pop(): int(a.get("waiters") or len(names))} if len(pools) == 1 else {}
            )
        for pool, blocked in waiters_by_pool.items():
            size = sizes.get(pool, by_pool.get(pool))
            out.append(
                _Wait(
                    pool=str(pool),
                    blocked=int(blocked),
                    pool_threads=int(size) if isinstance(size, int | float) and size else None,
                    lock=str(a.get("monitor") or "?"),
                    lock_class=str(a.get("class") or ""),
                    owner=a.get("owner") if isinstance(a.get("owner"), str) else None,
                    owner_state=a.get("owner_state")
                    if isinstance(a.get("owner_state"), str)
                    else None,
                    dump=dump,
                )
            )
    return out


def _longest_run(
    dumps: list[_Dump], contended: list[_Wait], max_gap_ms: int
) -> tuple[int, str, str, int, int, str] | None:
    """(dumps, pool, lock class, first, last, artifact) of the longest run of consecutive
    dumps of one pool contending for a lock of one class; None below two dumps."""
    passing: dict[tuple[str, str], set[int]] = defaultdict(set)
    share: dict[tuple[str, str, int], float] = {}
    for w in contended:
        passing[(w.pool, w.lock_class)].add(id(w.dump))
        key = (w.pool, w.lock_class, id(w.dump))
        share[key] = max(share.get(key, 0.0), w.share or 0.0)
    best: tuple[int, str, str, int, int, str] | None = None
    best_rank: tuple[int, float] = (0, 0.0)
    for (pool, lock_class), hits in sorted(passing.items()):
        # The dumps in which the pool has threads: a dump of another JVM does not break a run.
        present = [d for d in dumps if id(d) in hits or _has_pool(d, pool)]
        run: list[_Dump] = []
        for dump in present:
            if id(dump) in hits and (not run or dump.time_ms - run[-1].time_ms <= max_gap_ms):
                run.append(dump)
            elif id(dump) in hits:
                run = [dump]
            else:
                run = []
            # The longest run; between runs as long, the one whose pool was the most held up.
            if len(run) < 2:
                continue
            rank = (len(run), max(share[(pool, lock_class, id(d))] for d in run))
            if rank > best_rank:
                best_rank = rank
                best = (len(run), pool, lock_class, run[0].time_ms, run[-1].time_ms,
                        run[-1].event.artifact)  # fmt: skip
    return best


def _has_pool(dump: _Dump, pool: str) -> bool:
    if pool in (dump.event.attrs.get("by_pool") or {}):
        return True
    return any(pool in (e.attrs.get("pool_threads") or {}) for e in dump.contention)


def _cycle_of(event: EventView) -> list[dict[str, Any]]:
    cycle = event.attrs.get("cycle")
    if isinstance(cycle, list) and cycle:
        return [c for c in cycle if isinstance(c, dict)]
    # Events stored before the parser kept the cycle: the JVM lists it in order, each thread
    # held up by the next, the last by the first.
    threads = [str(t) for t in event.attrs.get("threads") or []]
    monitors = [str(m) for m in event.attrs.get("monitors") or []]
    return [
        {
            "thread": t,
            "monitor": monitors[i] if i < len(monitors) else None,
            "class": None,
            "held_by": threads[(i + 1) % len(threads)],
        }
        for i, t in enumerate(threads)
    ]


def _cycle_key(event: EventView) -> frozenset[str]:
    """A deadlock's identity across dumps: its threads (lock addresses may move in a GC)."""
    return frozenset(str(c.get("thread")) for c in _cycle_of(event))


def _cycles(events: list[EventView]) -> str:
    texts = []
    for event in events[:CYCLES_SHOWN]:
        steps = [
            f'"{c.get("thread")}" waits for '
            f"{_lock_text(str(c.get('monitor') or '?'), str(c.get('class') or ''))}"
            f' held by "{c.get("held_by") or "?"}"'
            for c in _cycle_of(event)
        ]
        texts.append(", ".join(steps))
    more = len(events) - CYCLES_SHOWN
    text = "; ".join(texts)
    return text + (f"; and {more} more" if more > 0 else "")


def _cycle_threads(events: list[EventView], shown: int = 6) -> str:
    """The deadlocked threads by name, once each ('"A" and "B"'), for the texts that name the
    deadlock again after its cycle was stated."""
    names = list(dict.fromkeys(str(c.get("thread")) for e in events for c in _cycle_of(e)))
    quoted = [f'"{n}"' for n in names[:shown]]
    if len(names) > shown:
        quoted.append(f"{len(names) - shown} more")
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _lock_text(monitor: str, cls: str) -> str:
    return f"<{monitor}> (a {cls})" if cls else f"<{monitor}>"


def _owner_text(owner: str | None, state: str | None) -> str:
    if not owner:
        return "a holder the dump does not name"
    return f'"{_short(owner)}" ({state.upper()})' if state else f'"{_short(owner)}"'


def _short(name: str, limit: int = 60) -> str:
    return name if len(name) <= limit else name[:limit].rstrip() + " …"


def _how(lock_class: str) -> str:
    if lock_class.endswith("Sync"):
        return "parked (WAITING) to acquire"
    return "BLOCKED waiting to lock"
