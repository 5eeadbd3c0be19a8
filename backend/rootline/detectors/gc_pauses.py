"""Quantities of ``gc_pauses`` (rule: ``rules/gc_pauses.toml``), per GC log (one JVM).

Inputs: events ``gc_pause`` (``duration_ms``; attrs ``type``, ``cause``, ``heap_total_mb``,
``to_space_exhausted``), ``gc_allocation_stall``, ``gc_to_space_exhausted``; facts
``gc.collector``, ``gc.allocation_rate_mb_s``, ``gc.promotion_rate_mb_s`` (gc_unified /
gc_legacy parsers, and alike from other JVMs' logs: gc_ibm_xml, gc_ibm_text, gc_jrockit,
gc_hpux). The slow period: the thread pools' saturation
(:func:`quantities.pool_saturation_windows`, the one definition of a saturated pool) and
``rpc_timeout`` events of application logs (one second either side).

A log is one JVM's: the files of a rotated log (``gc.log``, ``gc.log.0`` ..., -Xlog's
``filecount`` / ``filesize``, 5 x 20 MB by default) are one log when they state the same JVM
start (fact ``jvm.start_time``, within ``_SAME_START_MS``) or, without it, share a name but the
rotation's suffix, and their pauses follow one another in time (:func:`_rotations`); the
span they cover is their spans added.

Per log:

- ``max_pause_ms`` (its type, cause, instant), ``p99_ms`` (nearest rank), ``total_ms``;
  ``window_share_pct``: the share of the densest ``share_window_ms`` window spent in pauses
  (pauses are sequential, a pause longer than the window counts the window); no window runs
  past the log's end (the last pause's end plus the fact ``gc.log_tail_ms``), where nothing is
  known: a burst in the log's last seconds is read over the log's last window, not over
  seconds it does not cover. ``span_ms`` from the first pause to the end of the last and
  ``span_share_pct`` the pauses' share of it; ``log_span_ms`` the time the log covers (fact
  ``gc.log_span_ms``: a log shorter than the window gives a lower bound of its share);
  ``short_log_ms`` the same, only for such a log (it rules nothing out without a signature).
- ``full_gc_count`` / ``longest_full_ms`` (full and degenerated collections),
  ``to_space_count`` (evacuation failures), ``stall_count`` / ``stall_max_ms`` (ZGC
  allocation stalls: a thread waiting for memory the collector has not freed yet) and
  ``relocation_stall_count`` / ``relocation_stall_max_ms`` (ZGC relocation stalls: a thread
  waiting for an object the collector is moving), kept apart. ``stall_share_pct``: the
  densest ``share_window_ms`` window of the thread whose allocation stalls fill one most
  (``stall_share_thread``, ``stall_share_ms`` from ``stall_share_from``): a thread stalls in
  one allocation at a time, so its stalls add up over its own time as the JVM's pauses do
  over everyone's (a real ZGC heap at 99 % stalled ``main`` 1.4 s in its last 1.5 s before
  the OutOfMemoryError, in stalls of 26-160 ms).
- A GC log of which no pause or stall was read (fact ``gc.pause_count`` without events) is
  a measurement with ``pause_count`` 0 and nothing else: not judgeable.
- ``gc_in_slow_ms`` / ``gc_in_slow_share``: pause time inside the slow period of the same
  host (merged, so two pools' overlapping windows count once); absent when there is no slow
  period or the log carries JVM uptime only (``anchored`` false: it cannot be placed).
  ``pauses_apart``: every pause lies before the slow period, or every one after it (a log
  of another day); ``pauses_from`` / ``pauses_to`` the span of its pauses.
- ``pool_gc_share``: pause time over the time the host's pools were saturated, each window
  taken from ``pool_lookback_ms`` before it (a pool fills right after a pause with the
  requests that waited in the socket buffers while the JVM stood still): how much of the
  pool's saturation the pauses account for.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import numpy as np

from rootline.detectors.base import (
    Anchor,
    EventView,
    IncidentData,
    Measurement,
    Params,
    Quantity,
)
from rootline.detectors.quantities import (
    SlowPeriod,
    densest_window,
    first_fact_number,
    host_key,
    nearest_rank_percentile,
    period_files,
    slow_periods,
)

# GC logs anchored only by JVM uptime sit near epoch 0: not a threshold, a validity check
# (no wall-clock capture is older than 2000-01-01T00:00:00Z).
UNANCHORED_BEFORE_MS = 946_684_800_000

_FULL_TYPES = {"full", "degenerated"}


@dataclass(slots=True)
class _Log:
    host: str | None
    artifact: str
    pauses: list[EventView] = field(default_factory=list)
    stalls: list[EventView] = field(default_factory=list)
    to_space: int = 0
    # The files of one JVM's rotated log, oldest first (``artifact`` is the first); one file
    # for a log not rotated.
    files: list[str] = field(default_factory=list)

    def artifacts(self) -> list[str]:
        return self.files or [self.artifact]


# Rotated files of one log: JDK 9+ -Xlog keeps gc.log and moves older parts to gc.log.0 ..
# gc.log.4 (filecount=5, filesize=20M by default); JDK 8 -XX:+UseGCLogFileRotation writes
# gc.log.0 .. gc.log.N with the current one ending in ".current".
_ROTATED_SUFFIX = re.compile(r"\.\d+(?:\.current)?$")
# The JVM start (time - uptime) of two files of one JVM, each read to the millisecond.
_SAME_START_MS = 50


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    logs = _rotations(data, _logs(data))
    read = {(log.host, artifact) for log in logs for artifact in log.artifacts()}
    # A GC log of which no pause was read (a shutdown summary only, lines of a format no parser
    # knows, a log cut before its first collection) rules nothing out: it is measured as such,
    # with no pause quantity, so it cannot be judged.
    unread = [
        Measurement(
            f"the GC log {_label(_Log(f.host, f.artifact))}",
            host_key(f.host),
            {"pause_count": 0, "stall_count": 0},
            anchor=Anchor(None, {}, None, None, f.host, f.artifact),
        )
        for f in data.facts("gc.pause_count")
        if f.key == "gc.pause_count" and (f.host, f.artifact) not in read
    ]
    periods = slow_periods(data)
    saturated = [p for p in periods if p.pool]
    return [_measure(data, log, periods, saturated, params) for log in logs] + unread


def _logs(data: IncidentData) -> list[_Log]:
    logs: dict[tuple[str | None, str], _Log] = {}
    for event in data.events("gc_pause"):
        key = (event.host, event.artifact)
        logs.setdefault(key, _Log(*key)).pauses.append(event)
    for event in data.events("gc_allocation_stall"):
        key = (event.host, event.artifact)
        logs.setdefault(key, _Log(*key)).stalls.append(event)
    for event in data.events("gc_to_space_exhausted"):
        key = (event.host, event.artifact)
        logs.setdefault(key, _Log(*key)).to_space += 1
    return [logs[k] for k in sorted(logs, key=lambda k: (k[0] or "", k[1]))]


def _rotations(data: IncidentData, logs: list[_Log]) -> list[_Log]:
    """The files of one JVM's rotated log as one log: files of one host that share the JVM's
    start (a log decorated with both time and uptime states it: fact ``jvm.start_time``) or,
    without it, one name but the rotation's suffix (``gc.log``, ``gc.log.0`` ...), and whose
    pauses do not overlap in time (two JVMs started together run side by side; a file left
    by an earlier run of the JVM starts over at uptime 0). A burst of pauses cut by a rotation
    is one burst, and the log covers what its files cover together."""
    starts: dict[tuple[str | None, str], float] = {}
    for fact in data.facts("jvm.start_time"):
        if fact.key != "jvm.start_time":
            continue
        try:
            moment = dt.datetime.fromisoformat(str(fact.value))
        except ValueError:
            continue
        starts[(fact.host, fact.artifact)] = moment.timestamp() * 1000.0
    by_start: list[tuple[str | None, float, list[_Log]]] = []  # (host, JVM start, files)
    by_name: dict[tuple[str | None, str], list[_Log]] = {}
    for log in logs:
        start = starts.get((log.host, log.artifact))
        if start is None:
            stem = _ROTATED_SUFFIX.sub("", log.artifact)
            by_name.setdefault((log.host, stem), []).append(log)
            continue
        group = next(
            (
                files
                for host, other, files in by_start
                if host == log.host and abs(other - start) <= _SAME_START_MS
            ),
            None,
        )
        if group is None:
            group = []
            by_start.append((log.host, start, group))
        group.append(log)
    out: list[_Log] = []
    for members in [*(files for _, _, files in by_start), *by_name.values()]:
        out.extend(_chain(members))
    return sorted(out, key=lambda g: (g.host or "", g.artifact))


def _span(log: _Log) -> tuple[int, int]:
    events = log.pauses + log.stalls
    first = min(e.time_ms for e in events)
    last = max(e.time_ms + round(e.duration_ms or 0.0) for e in events)
    return first, last


def _chain(members: list[_Log]) -> list[_Log]:
    """Files whose pauses follow one another in time, merged oldest first; a file overlapping
    the one before it is another JVM's (or another run's) and stays apart."""
    if len(members) == 1:
        return members
    spans = {id(log): _span(log) for log in members}
    ordered = sorted(members, key=lambda log: spans[id(log)])
    chains: list[list[_Log]] = []
    for log in ordered:
        for chain in chains:
            if spans[id(chain[-1])][1] <= spans[id(log)][0]:
                chain.append(log)
                break
        else:
            chains.append([log])
    merged = []
    for chain in chains:
        if len(chain) == 1:
            merged.append(chain[0])
            continue
        one = _Log(chain[0].host, chain[0].artifact, files=[c.artifact for c in chain])
        for part in chain:
            one.pauses.extend(part.pauses)
            one.stalls.extend(part.stalls)
            one.to_space += part.to_space
        one.pauses.sort(key=lambda e: e.time_ms)
        one.stalls.sort(key=lambda e: e.time_ms)
        merged.append(one)
    return merged


def _label(log: _Log) -> str:
    names = [PurePosixPath(a.rsplit("!", 1)[-1]).name for a in log.artifacts()]
    name = (
        names[0]
        if len(names) == 1
        else f"{names[-1]} (rotated, {len(names)} files: {names[0]} .. {names[-1]})"
    )
    return f"{name} on {log.host}" if log.host else name


def _measure(
    data: IncidentData,
    log: _Log,
    periods: list[SlowPeriod],
    saturated: list[SlowPeriod],
    params: Params,
) -> Measurement:
    host = log.host
    window_ms = int(params["share_window_ms"])
    allocation = [s for s in log.stalls if s.attrs.get("stall") != "relocation"]
    relocation = [s for s in log.stalls if s.attrs.get("stall") == "relocation"]
    events = log.pauses + log.stalls
    starts = np.array([e.time_ms for e in events], dtype=np.int64)
    durations = np.array([e.duration_ms or 0.0 for e in events], dtype=np.float64)
    anchored = bool(len(starts)) and int(starts.min()) >= UNANCHORED_BEFORE_MS
    values: dict[str, Quantity] = {
        "pause_count": len(log.pauses),
        "anchored": anchored,
        "to_space_count": log.to_space
        or sum(1 for p in log.pauses if p.attrs.get("to_space_exhausted")),
        "stall_count": len(allocation),
        "relocation_stall_count": len(relocation),
    }
    anchors: dict[str, Anchor] = {}

    def at(event: EventView, kind: str) -> Anchor:
        end = event.time_ms + round(event.duration_ms or 0.0)
        return Anchor(None, {}, event.time_ms, end, host, event.artifact, kind)

    log_span_ms = _log_fact(data, log, "gc.log_span_ms")
    end_ms: int | None = None
    if log.pauses:
        pause_ms = np.array([p.duration_ms or 0.0 for p in log.pauses], dtype=np.float64)
        pause_at = np.array([p.time_ms for p in log.pauses], dtype=np.int64)
        longest = log.pauses[int(np.argmax(pause_ms))]
        span_ms = float((pause_at + pause_ms).max() - pause_at.min())
        if log_span_ms is not None and log_span_ms >= window_ms:
            # The log ends at its last line: the end of its last pause when no tail is known
            # (data parsed before gc.log_tail_ms), which the log covers at least.
            tail_ms = _log_fact(data, log, "gc.log_tail_ms") or 0.0
            end_ms = int(np.ceil((pause_at + pause_ms).max() + tail_ms))
        window_from, in_window = densest_window(pause_at, pause_ms, window_ms, end_ms=end_ms)
        values.update(
            max_pause_ms=float(pause_ms.max()),
            max_pause_type=str(longest.attrs.get("type", "?")),
            max_pause_cause=str(longest.attrs.get("cause") or "cause not logged"),
            max_pause_at=longest.time_ms,
            p99_ms=nearest_rank_percentile(pause_ms, 99),
            total_ms=float(pause_ms.sum()),
            window_share_pct=min(100.0, 100.0 * in_window / window_ms) if window_ms else None,
            window_from=window_from,
            span_ms=span_ms,
            span_share_pct=100.0 * float(pause_ms.sum()) / span_ms if span_ms > 0 else None,
        )
        anchors["max_pause_ms"] = at(longest, "gc_pause")
        anchors["p99_ms"] = Anchor(
            None, {}, int(pause_at.min()), int(pause_at.max()), host, log.artifact, "gc_pause"
        )
        anchors["window_share_pct"] = Anchor(
            "gc.pause_ms", {}, window_from, window_from + window_ms, host, log.artifact
        )
        full = [p for p in log.pauses if str(p.attrs.get("type", "")) in _FULL_TYPES]
        values["full_gc_count"] = len(full)
        if full:
            longest_full = max(full, key=lambda p: p.duration_ms or 0.0)
            values["longest_full_ms"] = float(longest_full.duration_ms or 0.0)
            values["longest_full_at"] = longest_full.time_ms
            anchors["longest_full_ms"] = at(longest_full, "gc_pause")
    if allocation:
        stall = max(allocation, key=lambda s: s.duration_ms or 0.0)
        values.update(stall_max_ms=float(stall.duration_ms or 0.0), stall_at=stall.time_ms)
        anchors["stall_count"] = anchors["stall_max_ms"] = at(stall, "gc_allocation_stall")
        _stall_share(values, anchors, allocation, window_ms, end_ms, host, log.artifact)
    if relocation:
        stall = max(relocation, key=lambda s: s.duration_ms or 0.0)
        values.update(
            relocation_stall_max_ms=float(stall.duration_ms or 0.0),
            relocation_stall_at=stall.time_ms,
        )
        anchors["relocation_stall_count"] = at(stall, "gc_allocation_stall")
        anchors["relocation_stall_max_ms"] = anchors["relocation_stall_count"]
    if values["to_space_count"]:
        anchors["to_space_count"] = Anchor(
            None, {}, None, None, host, log.artifact, "gc_to_space_exhausted"
        )

    mine = [p for p in periods if p.host is None or host is None or p.host == host]
    values["slow_period_known"] = bool(mine)
    if mine and anchored:
        merged = _merge([(p.from_ms, p.to_ms) for p in mine])
        inside, longest_inside = _inside(starts, durations, merged)
        period_ms = float(sum(b - a for a, b in merged)) or 1.0
        names = sorted({p.what for p in mine})
        values.update(
            slow_what=", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
            slow_from=merged[0][0],
            slow_to=merged[-1][1],
            slow_period_ms=period_ms,
            gc_in_slow_ms=inside,
            gc_in_slow_share=inside / period_ms,
            longest_in_slow_ms=longest_inside,
        )
        if len(starts):
            # Every pause before the slow period or every one after it: the log's pauses say
            # nothing of that period (a log of another day), which "0 ms" would not tell.
            first_ms, last_ms = int(starts.min()), int((starts + durations).max())
            apart = last_ms < merged[0][0] or first_ms > merged[-1][1]
            values.update(pauses_apart=apart, pauses_from=first_ms, pauses_to=last_ms)
        anchors["gc_in_slow_ms"] = Anchor(
            None, {}, merged[0][0], merged[-1][1], host, log.artifact, "gc_pause",
            period_files(mine),
        )  # fmt: skip
    pools = [p for p in saturated if p.host is None or host is None or p.host == host]
    if pools and anchored:
        lookback = int(params["pool_lookback_ms"])
        widened = _merge([(p.from_ms - lookback, p.to_ms) for p in pools])
        inside, _ = _inside(starts, durations, widened)
        total = float(sum(b - a for a, b in widened)) or 1.0
        values["pool_gc_share"] = inside / total
        values["pool_saturated_ms"] = float(sum(p.to_ms - p.from_ms for p in pools))
        anchors["pool_gc_share"] = Anchor(
            "threadpool.active", {}, widened[0][0], widened[-1][1], host, None, None,
            period_files(pools),
        )  # fmt: skip

    files = set(log.artifacts())
    collector = [f for f in data.facts("gc.collector", host=host) if f.artifact in files]
    if collector:
        values["collector"] = collector[0].value
    for key, name in (
        ("gc.allocation_rate_mb_s", "allocation_rate_mb_s"),
        ("gc.promotion_rate_mb_s", "promotion_rate_mb_s"),
    ):
        values[name] = _log_fact(data, log, key)
    values["log_span_ms"] = log_span_ms
    # Shorter than the window a share is judged over: its pauses say nothing of the rest of
    # the JVM's time, so without a signature of its own it rules nothing out.
    values["short_log_ms"] = (
        log_span_ms if log_span_ms is not None and log_span_ms < window_ms else None
    )
    heap = [
        float(p.attrs["heap_total_mb"])
        for p in log.pauses
        if isinstance(p.attrs.get("heap_total_mb"), int | float)
    ]
    if not heap:
        # Logs whose pause lines carry no heap (JRockit's -Xverbose:gcpause phases, ZGC's
        # cycles) give it on their collection lines, which the parser made the heap series.
        heap = [
            float(s.values.max())
            for s in data.series("gc.heap_total_mb", host=host)
            if s.artifact in files and s.name == "gc.heap_total_mb" and len(s)
        ]
    values["heap_max_mb"] = max(heap) if heap else None
    return Measurement(
        entity=f"the JVM of {_label(log)}",
        key=host_key(host),
        values=values,
        anchor=Anchor(None, {}, None, None, host, log.artifact, "gc_pause"),
        anchors=anchors,
    )


def _stall_share(
    values: dict[str, Quantity],
    anchors: dict[str, Anchor],
    stalls: list[EventView],
    window_ms: int,
    end_ms: int | None,
    host: str | None,
    artifact: str,
) -> None:
    """``stall_share_pct``: the share of the densest window one thread spent in allocation
    stalls. A thread's stalls follow one another (it waits in one at a time), so they add up
    as a JVM's pauses do, over that thread's time alone. No window runs past the log's end
    (``end_ms``, as for the pauses)."""
    by_thread: dict[str, list[EventView]] = {}
    for stall in stalls:
        by_thread.setdefault(str(stall.attrs.get("thread") or "?"), []).append(stall)
    best: tuple[float, int, str, float] | None = None
    for thread, mine in by_thread.items():
        starts = np.array([e.time_ms for e in mine], dtype=np.int64)
        lengths = np.array([e.duration_ms or 0.0 for e in mine], dtype=np.float64)
        window_from, in_window = densest_window(starts, lengths, window_ms, end_ms=end_ms)
        if best is None or in_window > best[0]:
            best = (in_window, window_from, thread, float(lengths.sum()))
    if best is None or not window_ms:
        return
    in_window, window_from, thread, total = best
    values.update(
        stall_share_pct=min(100.0, 100.0 * in_window / window_ms),
        stall_share_ms=in_window,
        stall_share_from=window_from,
        stall_share_thread=thread,
        stall_thread_total_ms=total,
    )
    anchors["stall_share_pct"] = Anchor(
        None, {}, window_from, window_from + window_ms, host, artifact, "gc_allocation_stall"
    )


def _log_fact(data: IncidentData, log: _Log, key: str) -> float | None:
    """A number the parser stated about this log (its artifact), or None. Of a rotated log:
    the time its files cover (``gc.log_span_ms``: theirs added, they follow one another), the
    tail of its newest file (``gc.log_tail_ms``), else what its newest file stated."""
    files = log.artifacts()
    if len(files) == 1:
        return first_fact_number(
            [f for f in data.facts(key, host=log.host) if f.artifact == log.artifact]
        )
    each = [
        first_fact_number([f for f in data.facts(key, host=log.host) if f.artifact == a])
        for a in files
    ]
    if key == "gc.log_span_ms":
        known = [v for v in each if v is not None]
        return float(sum(known)) if known else None
    return next((v for v in reversed(each) if v is not None), None)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _inside(
    starts: np.ndarray, durations: np.ndarray, spans: list[tuple[int, int]]
) -> tuple[float, float]:
    """(pause ms inside the spans, the longest pause touching them)."""
    if not len(starts):
        return 0.0, 0.0
    begin = starts.astype(np.float64)
    ends = begin + durations
    inside = 0.0
    hit = np.zeros(len(starts), dtype=bool)
    for a, b in spans:
        part = np.clip(np.minimum(ends, b) - np.maximum(begin, a), 0.0, None)
        inside += float(part.sum())
        hit |= (begin <= b) & (ends >= a) & ((part > 0) | (durations == 0))
    return inside, float(durations[hit].max()) if hit.any() else 0.0
