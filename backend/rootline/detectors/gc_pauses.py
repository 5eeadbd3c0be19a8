"""GC pauses: stop-the-world collections long or frequent enough to stall requests.

Mechanism. A stop-the-world pause halts every application thread: requests arriving during
a 2 s full GC wait 2 s, queues fill behind it, callers time out. Many short pauses stall a
service as well when they take a large share of wall time (10 % of every 10 s is 1 s of
every 10 s lost). Full GCs, G1 "to-space exhausted" evacuation failures and ZGC allocation
stalls are the usual roads to long stalls. A postmortem needs the negative as much
(DOMAIN.md report C: GC logs and jstack were clean, which ruled GC out before the network
was blamed), and whether the pauses overlap the slow period: a long pause an hour before
the incident explains nothing.

Inputs (per host and GC log): events ``gc_pause`` (``duration_ms``, attrs ``type``,
``cause``, ``collector``, heap sizes, ``to_space_exhausted``), ``gc_allocation_stall``,
``gc_to_space_exhausted``; facts ``gc.collector``, ``gc.allocation_rate_mb_s``,
``gc.promotion_rate_mb_s``, ``gc.pause_count`` (from the gc_unified / gc_legacy parsers).
The slow period comes from the thread pools
(:func:`rootline.detectors.threadpool_exhaustion.pool_saturation_windows`) and
``rpc_timeout`` events of app logs.

Thresholds (module constants, in ``Finding.parameters``):

- ``CONFIRMED_MAX_PAUSE_MS`` = 1000 and ``CONFIRMED_WINDOW_SHARE_PCT`` = 10: a pause (or
  allocation stall) of 1 s, or pauses taking 10 % of a ``SHARE_WINDOW_MS`` = 10 s window,
  confirm. Dubbo's default timeout is 1000 ms: a 1 s pause times out every call in flight.
- ``LIKELY_P99_MS`` = 200: p99 pause >= 200 ms (or a pause >= ``RULED_OUT_MAX_PAUSE_MS``, a
  full GC that long, to-space exhaustion, an allocation stall) makes it likely.
- ``RULED_OUT_MAX_PAUSE_MS`` = 200 and ``RULED_OUT_WINDOW_SHARE_PCT`` = 2: a GC log whose
  longest pause is < 200 ms and whose worst 10 s window is < 2 % GC rules it out (report C's
  "gc durations and intervals normal").
- A confirmed finding whose pauses all miss a known slow period (pool saturation, RPC
  timeouts) drops to ``likely``: the pauses happened, but not when the service was slow.

``insufficient_data`` when there is no GC log: ``missing`` gives the JVM flags to add.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rootline.detectors.base import (
    EventView,
    Evidence,
    Finding,
    IncidentData,
    Missing,
    Verdict,
    parameters_of,
)
from rootline.detectors.quantities import (
    densest_window,
    first_fact_number,
    fmt_duration_ms,
    fmt_number,
    iso_ms,
    nearest_rank_percentile,
    pool_saturation_windows,
)

ID = "gc_pauses"
TITLE = "Long GC pauses"

# 1 s stops every call in flight past Dubbo's default 1000 ms timeout.
CONFIRMED_MAX_PAUSE_MS = 1000.0
# 10 % of wall time in pauses: every request waits on average 10 % longer and the tail far more.
CONFIRMED_WINDOW_SHARE_PCT = 10.0
# A p99 of 200 ms is already above most RPC latency budgets (report C: P99 191 ms at worst).
LIKELY_P99_MS = 200.0
# Below 200 ms longest pause and 2 % GC time, GC is not what callers felt (report C's clean log).
RULED_OUT_MAX_PAUSE_MS = 200.0
RULED_OUT_WINDOW_SHARE_PCT = 2.0
# Windows of 10 s: long enough to hold a burst of young pauses, short enough not to dilute it.
SHARE_WINDOW_MS = 10_000
# GC logs anchored only by JVM uptime sit near epoch 0; overlap with wall-clock signals is moot.
UNANCHORED_BEFORE_MS = 946_684_800_000  # 2000-01-01T00:00:00Z

PARAMETERS = [
    "CONFIRMED_MAX_PAUSE_MS",
    "CONFIRMED_WINDOW_SHARE_PCT",
    "LIKELY_P99_MS",
    "RULED_OUT_MAX_PAUSE_MS",
    "RULED_OUT_WINDOW_SHARE_PCT",
    "SHARE_WINDOW_MS",
]

_FULL_TYPES = {"full", "degenerated"}

_MISSING = [
    Missing(
        "JVM GC log covering the incident (JDK 9+ unified logging)",
        "java -Xlog:gc*:file=gc.log:time,uptime,level,tags:filecount=5,filesize=20m ...   "
        "# running JVM: jcmd PID VM.log output=gc.log what=gc*=info decorators=time,uptime,level,tags",
    ),
    Missing(
        "JVM GC log (JDK 8 and older)",
        "java -XX:+PrintGCDetails -XX:+PrintGCDateStamps -XX:+PrintGCApplicationStoppedTime "
        "-Xloggc:gc.log ...",
    ),
]


@dataclass(slots=True)
class GcLog:
    """The pauses of one GC log (one JVM) on one host."""

    host: str
    artifact: str
    pauses: list[EventView] = field(default_factory=list)
    stalls: list[EventView] = field(default_factory=list)
    to_space: int = 0
    count: int = 0
    max_pause: EventView | None = None
    p99_ms: float = 0.0
    total_ms: float = 0.0
    window_from: int = 0
    window_share_pct: float = 0.0
    full_gcs: list[EventView] = field(default_factory=list)
    longest_full_ms: float = 0.0
    longest_stall: EventView | None = None
    span_ms: float = 0.0
    anchored: bool = True

    @property
    def label(self) -> str:
        return f"{self.artifact} on {self.host}" if self.host else self.artifact

    @property
    def max_ms(self) -> float:
        return float(self.max_pause.duration_ms or 0.0) if self.max_pause else 0.0

    @property
    def stall_max_ms(self) -> float:
        return float(self.longest_stall.duration_ms or 0.0) if self.longest_stall else 0.0


def _logs(data: IncidentData) -> list[GcLog]:
    logs: dict[tuple[str, str], GcLog] = {}
    for event in data.events("gc_pause"):
        key = (event.host or "", event.artifact)
        logs.setdefault(key, GcLog(*key)).pauses.append(event)
    for event in data.events("gc_allocation_stall"):
        key = (event.host or "", event.artifact)
        logs.setdefault(key, GcLog(*key)).stalls.append(event)
    for event in data.events("gc_to_space_exhausted"):
        key = (event.host or "", event.artifact)
        logs.setdefault(key, GcLog(*key)).to_space += 1
    for log in logs.values():
        durations = np.array([p.duration_ms or 0.0 for p in log.pauses], dtype=np.float64)
        starts = np.array([p.time_ms for p in log.pauses], dtype=np.int64)
        log.count = len(log.pauses)
        if log.count:
            log.max_pause = log.pauses[int(np.argmax(durations))]
            log.p99_ms = nearest_rank_percentile(durations, 99)
            log.total_ms = float(durations.sum())
            log.window_from, in_window = densest_window(starts, durations, SHARE_WINDOW_MS)
            log.window_share_pct = min(100.0, 100.0 * in_window / SHARE_WINDOW_MS)
            log.span_ms = float((starts + durations).max() - starts.min())
            log.anchored = int(starts.min()) >= UNANCHORED_BEFORE_MS
        log.full_gcs = [p for p in log.pauses if str(p.attrs.get("type", "")) in _FULL_TYPES]
        log.longest_full_ms = max((p.duration_ms or 0.0 for p in log.full_gcs), default=0.0)
        if not log.to_space:
            log.to_space = sum(1 for p in log.pauses if p.attrs.get("to_space_exhausted"))
        if log.stalls:
            log.longest_stall = max(log.stalls, key=lambda s: s.duration_ms or 0.0)
            if log.count == 0:
                log.anchored = int(log.stalls[0].time_ms) >= UNANCHORED_BEFORE_MS
    return [logs[k] for k in sorted(logs)]


def _grade(log: GcLog) -> tuple[str, list[str]]:
    """``confirmed`` / ``likely`` / ``ruled_out`` for one log, with the reasons."""
    confirmed: list[str] = []
    likely: list[str] = []
    if log.max_ms >= CONFIRMED_MAX_PAUSE_MS:
        confirmed.append(f"a {fmt_duration_ms(log.max_ms)} pause")
    if log.window_share_pct >= CONFIRMED_WINDOW_SHARE_PCT:
        confirmed.append(f"{log.window_share_pct:.1f} % GC time in a 10 s window")
    if log.stall_max_ms >= CONFIRMED_MAX_PAUSE_MS:
        confirmed.append(f"a {fmt_duration_ms(log.stall_max_ms)} allocation stall")
    if confirmed:
        return "confirmed", confirmed
    if log.p99_ms >= LIKELY_P99_MS:
        likely.append(f"p99 pause {fmt_duration_ms(log.p99_ms)}")
    elif log.max_ms >= RULED_OUT_MAX_PAUSE_MS:
        likely.append(f"a {fmt_duration_ms(log.max_ms)} pause")
    if log.window_share_pct >= RULED_OUT_WINDOW_SHARE_PCT:
        likely.append(f"{log.window_share_pct:.1f} % GC time in a 10 s window")
    # A full GC of a small heap (13 ms) stops nothing a caller feels; count the long ones.
    if log.longest_full_ms >= RULED_OUT_MAX_PAUSE_MS:
        likely.append(
            f"{len(log.full_gcs)} full GCs (longest {fmt_duration_ms(log.longest_full_ms)})"
        )
    if log.to_space:
        likely.append(f"{log.to_space} to-space exhausted")
    if log.stalls:
        likely.append(f"{len(log.stalls)} allocation stalls")
    return ("likely", likely) if likely else ("ruled_out", [])


@dataclass(slots=True)
class SlowPeriod:
    what: str
    host: str
    from_ms: int
    to_ms: int


def _slow_periods(data: IncidentData) -> list[SlowPeriod]:
    periods = [
        SlowPeriod(f"pool {w.pool} saturated", w.host or "", w.from_ms, w.to_ms)
        for w in pool_saturation_windows(data)
    ]
    for event in data.events("rpc_timeout"):
        periods.append(
            SlowPeriod("RPC timeout", event.host or "", event.time_ms - 1000, event.time_ms + 1000)
        )
    return periods


def _overlap(log: GcLog, periods: list[SlowPeriod]) -> tuple[float, float, str] | None:
    """(GC ms inside the slow periods, their total length ms, a sentence) or None."""
    relevant = [p for p in periods if not p.host or not log.host or p.host == log.host]
    if not relevant or not log.anchored:
        return None
    first = min(p.from_ms for p in relevant)
    last = max(p.to_ms for p in relevant)
    # Merge the periods so overlapping windows of two pools are not counted twice.
    merged: list[list[int]] = []
    for p in sorted(relevant, key=lambda p: p.from_ms):
        if merged and p.from_ms <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], p.to_ms)
        else:
            merged.append([p.from_ms, p.to_ms])
    period_ms = float(sum(b - a for a, b in merged)) or 1.0
    events = log.pauses + log.stalls
    starts = np.array([e.time_ms for e in events], dtype=np.float64)
    durations = np.array([e.duration_ms or 0.0 for e in events], dtype=np.float64)
    ends = starts + durations
    hit = np.zeros(len(events), dtype=bool)
    inside = 0.0
    for a, b in merged:
        part = np.clip(np.minimum(ends, b) - np.maximum(starts, a), 0.0, None)
        inside += float(part.sum())
        hit |= (starts <= b) & (ends >= a) & ((part > 0) | (durations == 0))
    longest_inside = float(durations[hit].max()) if hit.any() else 0.0
    names = sorted({p.what for p in relevant})
    what = ", ".join(names[:3])
    sentence = (
        f"The slow period ({what}, {iso_ms(first)} .. {iso_ms(last)}, "
        f"{fmt_duration_ms(period_ms)} in all) holds {fmt_duration_ms(inside)} of GC pauses "
        f"({100.0 * inside / period_ms:.1f} % of it, longest {fmt_duration_ms(longest_inside)})."
    )
    return inside, period_ms, sentence


def _evidence(log: GcLog, data: IncidentData) -> list[Evidence]:
    host = log.host or None
    items: list[Evidence] = []
    if log.max_pause is not None:
        pause = log.max_pause
        kind = str(pause.attrs.get("type", "?"))
        cause = pause.attrs.get("cause")
        items.append(
            Evidence(
                summary=f"{log.label}: longest pause {fmt_duration_ms(log.max_ms)} ({kind}"
                f"{', ' + str(cause) if cause else ''}) at {iso_ms(pause.time_ms)}; "
                f"p99 {fmt_duration_ms(log.p99_ms)} over {log.count} pauses",
                observed=round(log.max_ms, 3),
                threshold=f"confirmed >= {CONFIRMED_MAX_PAUSE_MS:g} ms, ruled out < "
                f"{RULED_OUT_MAX_PAUSE_MS:g} ms",
                unit="ms",
                from_ms=pause.time_ms,
                to_ms=pause.time_ms + round(pause.duration_ms or 0.0),
                event_kind="gc_pause",
                artifact=log.artifact,
                host=host,
            )
        )
        items.append(
            Evidence(
                summary=f"{log.label}: worst 10 s window from {iso_ms(log.window_from)} spent "
                f"{log.window_share_pct:.1f} % in pauses; {fmt_duration_ms(log.total_ms)} of "
                f"pauses over a {fmt_duration_ms(log.span_ms)} log",
                observed=round(log.window_share_pct, 3),
                threshold=f"confirmed >= {CONFIRMED_WINDOW_SHARE_PCT:g} %, ruled out < "
                f"{RULED_OUT_WINDOW_SHARE_PCT:g} %",
                unit="%",
                from_ms=log.window_from,
                to_ms=log.window_from + SHARE_WINDOW_MS,
                series="gc.pause_ms",
                artifact=log.artifact,
                host=host,
            )
        )
        items.append(
            Evidence(
                summary=f"{log.label}: p99 pause {fmt_duration_ms(log.p99_ms)}",
                observed=round(log.p99_ms, 3),
                threshold=f"likely >= {LIKELY_P99_MS:g} ms",
                unit="ms",
                event_kind="gc_pause",
                artifact=log.artifact,
                host=host,
            )
        )
    if log.full_gcs:
        longest = max(log.full_gcs, key=lambda p: p.duration_ms or 0.0)
        items.append(
            Evidence(
                summary=f"{log.label}: {len(log.full_gcs)} full / degenerated GCs, longest "
                f"{fmt_duration_ms(log.longest_full_ms)} at {iso_ms(longest.time_ms)}",
                observed=len(log.full_gcs),
                threshold=f"likely when one lasts >= {RULED_OUT_MAX_PAUSE_MS:g} ms",
                unit="pauses",
                from_ms=longest.time_ms,
                to_ms=longest.time_ms + round(longest.duration_ms or 0.0),
                event_kind="gc_pause",
                artifact=log.artifact,
                host=host,
            )
        )
    if log.to_space:
        items.append(
            Evidence(
                summary=f"{log.label}: {log.to_space} evacuation failures (to-space exhausted)",
                observed=log.to_space,
                threshold="> 0",
                unit="events",
                event_kind="gc_to_space_exhausted",
                artifact=log.artifact,
                host=host,
            )
        )
    if log.longest_stall is not None:
        stall = log.longest_stall
        items.append(
            Evidence(
                summary=f"{log.label}: {len(log.stalls)} allocation stalls, longest "
                f"{fmt_duration_ms(log.stall_max_ms)} at {iso_ms(stall.time_ms)}",
                observed=len(log.stalls),
                threshold=f"> 0 (confirmed when one lasts >= {CONFIRMED_MAX_PAUSE_MS:g} ms)",
                unit="stalls",
                from_ms=stall.time_ms,
                to_ms=stall.time_ms + round(stall.duration_ms or 0.0),
                event_kind="gc_allocation_stall",
                artifact=log.artifact,
                host=host,
            )
        )
    facts = []
    for key, unit in (
        ("gc.collector", ""),
        ("gc.allocation_rate_mb_s", " MB/s allocated"),
        ("gc.promotion_rate_mb_s", " MB/s promoted"),
    ):
        found = [f for f in data.facts(key, host=host) if f.artifact == log.artifact]
        if found:
            value = first_fact_number(found) if unit else None
            facts.append(f"{fmt_number(value)}{unit}" if value is not None else found[0].value)
    heap = [
        float(p.attrs["heap_total_mb"])
        for p in log.pauses
        if isinstance(p.attrs.get("heap_total_mb"), int | float)
    ]
    if heap:
        facts.append(f"heap up to {fmt_number(float(max(heap)))} MB")
    if facts:
        items.append(
            Evidence(
                summary=f"{log.label}: " + ", ".join(facts),
                observed=", ".join(facts),
                artifact=log.artifact,
                host=host,
            )
        )
    return items


def detect(data: IncidentData) -> Finding:
    parameters = parameters_of(globals(), PARAMETERS)
    logs = _logs(data)
    has_gc_log = bool({"gc_unified", "gc_legacy"} & data.artifact_kinds())
    if not logs:
        if has_gc_log:
            return Finding(
                id=ID,
                title=TITLE,
                verdict="ruled_out",
                summary="The GC log holds no stop-the-world pause and no allocation stall.",
                explanation="A GC log without pauses means no collection stopped the "
                "application while it was written.",
                parameters=parameters,
            )
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No GC log: pauses can neither be confirmed nor ruled out.",
            explanation="GC pauses are read from the JVM's own GC log; thread dumps and pool "
            "metrics do not show them.",
            missing=list(_MISSING),
            parameters=parameters,
        )

    graded = [(log, *_grade(log)) for log in logs]
    order = {"confirmed": 0, "likely": 1, "ruled_out": 2}
    graded.sort(key=lambda g: (order[g[1]], -g[0].max_ms))
    lead, lead_grade, reasons = graded[0]
    periods = _slow_periods(data)
    overlap = _overlap(lead, periods)

    evidence: list[Evidence] = []
    for log, _, _ in graded:
        evidence.extend(_evidence(log, data))

    verdict: Verdict
    verdict = "confirmed" if lead_grade == "confirmed" else "likely"
    if lead_grade == "ruled_out":
        verdict = "ruled_out"
    overlap_text = ""
    if overlap is not None:
        inside, _, overlap_text = overlap
        evidence.insert(
            1,
            Evidence(
                summary=overlap_text,
                observed=round(inside, 3),
                threshold="pauses inside the slow period",
                unit="ms",
                from_ms=min(p.from_ms for p in periods),
                to_ms=max(p.to_ms for p in periods),
                event_kind="gc_pause",
                artifact=lead.artifact,
                host=lead.host or None,
            ),
        )
        if verdict == "confirmed" and inside <= 0:
            verdict = "likely"
            reasons.append("but none of it inside the slow period")
    elif periods and not lead.anchored:
        overlap_text = (
            "The GC log carries JVM uptime only and no start time, so it cannot be placed "
            "against the slow period; give the JVM start time at upload (--jvm-start)."
        )

    numbers = (
        f"max pause {fmt_duration_ms(lead.max_ms)}, p99 {fmt_duration_ms(lead.p99_ms)}, worst "
        f"10 s window {lead.window_share_pct:.1f} % GC over {lead.count} pauses"
    )
    if len(logs) > 1:
        numbers += f" (worst of {len(logs)} GC logs: {lead.label})"
    if verdict == "ruled_out":
        summary = (
            f"GC pauses stayed short: {numbers}, below {RULED_OUT_MAX_PAUSE_MS:g} ms and "
            f"{RULED_OUT_WINDOW_SHARE_PCT:g} %."
        )
        if lead.full_gcs:
            summary = summary[:-1] + (
                f"; {len(lead.full_gcs)} full GCs, longest {fmt_duration_ms(lead.longest_full_ms)}."
            )
    else:
        opening = "GC stalled the JVM" if verdict == "confirmed" else "GC may have stalled the JVM"
        summary = f"{opening}: {'; '.join(reasons)} ({numbers})."

    explanation = (
        "Every stop-the-world pause halts all application threads: requests arriving during "
        "it wait for it to end and queues fill behind it. "
        f"Here the longest pause was {fmt_duration_ms(lead.max_ms)} and the worst 10 s window "
        f"spent {lead.window_share_pct:.1f} % of its time in pauses "
        f"({fmt_duration_ms(lead.total_ms)} of pauses in all)."
    )
    if lead.full_gcs:
        explanation += (
            f" {len(lead.full_gcs)} full GCs collected the whole heap, the longest for "
            f"{fmt_duration_ms(lead.longest_full_ms)}."
        )
    if overlap_text:
        explanation += " " + overlap_text
    if verdict == "ruled_out":
        explanation += " GC is not what callers felt."
    remedies = []
    if verdict != "ruled_out":
        remedies = [
            "Size the heap for the live set plus headroom (-Xms = -Xmx, e.g. -Xmx8g) so old "
            "generation never fills; check the allocation and promotion rates above.",
            "Bound pauses: G1 with -XX:MaxGCPauseMillis=100 (default 200), or a concurrent "
            "collector (-XX:+UseZGC, JDK 21: -XX:+UseZGC -XX:+ZGenerational; or Shenandoah) for "
            "heaps where G1 cannot meet the target.",
            "Full GCs / to-space exhausted: raise -XX:G1ReservePercent (default 10) and start "
            "marking earlier with -XX:InitiatingHeapOccupancyPercent=35; remove System.gc() "
            "calls (-XX:+ExplicitGCInvokesConcurrent).",
            "ZGC allocation stalls: more heap headroom (-Xmx) or -XX:ConcGCThreads; cut the "
            "allocation rate (object pooling of large buffers, fewer temporary copies).",
        ]
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=remedies,
        parameters=parameters,
    )
