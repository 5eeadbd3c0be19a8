"""Receiver not reading fast enough: the reading side is the bottleneck (DOMAIN.md report A).

Mechanism: data a receiving application has not read yet waits in its socket's receive
queue (Recv-Q). When the reading thread is slow or stalled (one Netty I/O thread per
connection serving too much, a blocked handler, GC), the queue fills the receive buffer,
the advertised window shrinks to zero (``TCPToZeroWindowAdv``), and the sender stalls on the
peer's window: ``ss -ti`` counts that time as ``rwnd_limited`` (report A: 29.9 % of the busy
time of the jammed 20880 connection), its Send-Q fills and it sends zero-window probes.

Inputs: ``ss -tinm`` snapshots on the receiver (``tcp.conn.recvq.bytes``, ``tcp.conn.skmem_rb``)
and on the sender (``tcp.conn.rwnd_limited_ms`` / ``_pct``, ``busy_ms``), ``nstat`` / ``netstat -s``
zero-window counters (``TcpExtTCPToZeroWindowAdv``, ``TcpExtTCPWantZeroWindowAdv``,
``TcpExtTCPZeroWindowDrop``).

Three signs:

- *Recv-Q piling up*: a connection's Recv-Q >= RECVQ_FULL_RATIO of its receive buffer (``rb``;
  RECVQ_FULL_BYTES when ss ran without ``-m``) for at least MIN_FULL_SNAPSHOTS consecutive
  snapshots;
- *rwnd_limited*: a sender spent >= RWND_LIMITED_MIN_PCT of its busy time (at least
  MIN_BUSY_MS) waiting on the peer's window;
- *zero windows*: the zero-window counters rose by >= ZERO_WINDOW_MIN_EVENTS.

``confirmed``: two of the three. ``likely``: one. ``ruled_out``: per-connection ss data or the
counters were there and none of the signs, with the peaks seen. ``insufficient_data``: neither.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rootline.detectors.base import (
    Evidence,
    Finding,
    IncidentData,
    Missing,
    SeriesView,
    Verdict,
    parameters_of,
)
from rootline.detectors.quantities import (
    ConnectionKey,
    chrono_share_pct,
    connection_label,
    connection_series,
    counter_increase,
    exact_values_at,
    fmt_bytes,
    fmt_pct,
    longest_true_span,
)

ID = "receiver_not_reading"
TITLE = "Receiver not reading fast enough"

# With tcp_adv_win_scale=1 (report D's kernel) half of rb is the window: a Recv-Q at half the
# buffer means the advertised window is (nearly) closed.
RECVQ_FULL_RATIO = 0.5
# Without skmem (ss -tin): one full 64 KiB window left unread counts as a pile.
RECVQ_FULL_BYTES = 65536.0
# Persistent, not a snapshot that caught a burst on its way to the reader: 3 in a row.
MIN_FULL_SNAPSHOTS = 3
# Report A's jammed connection: rwnd_limited 29.9 % of busy time; a quarter is a real limit.
RWND_LIMITED_MIN_PCT = 25.0
MIN_BUSY_MS = 1000.0
# Any zero window advertised is a reader falling a whole buffer behind.
ZERO_WINDOW_MIN_EVENTS = 1.0

PARAMETERS = [
    "RECVQ_FULL_RATIO",
    "RECVQ_FULL_BYTES",
    "MIN_FULL_SNAPSHOTS",
    "RWND_LIMITED_MIN_PCT",
    "MIN_BUSY_MS",
    "ZERO_WINDOW_MIN_EVENTS",
]

ZERO_WINDOW_COUNTERS = (
    "TcpExtTCPToZeroWindowAdv",
    "TcpExtTCPWantZeroWindowAdv",
    "TcpExtTCPZeroWindowDrop",
)
FIELDS = (
    "recvq.bytes",
    "skmem_rb",
    "busy_ms",
    "rwnd_limited_ms",
    "rwnd_limited_pct",
    "rtt_ms",
)

MISSING = [
    Missing(
        "ss -tinm loop on the receiver and the sender (Recv-Q vs rb, rwnd_limited)",
        'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
    ),
    Missing(
        "nstat loop (zero-window counters)",
        'while sleep 1; do echo "=== $(date -Is) ==="; nstat -az; done > nstat.txt',
    ),
    Missing(
        "or all of it at once, on both hosts", "rootline-collect.sh --interval 1 --duration 60"
    ),
]


REMEDIES = [
    "Find what the reading thread is doing while Recv-Q grows (jstack at those times:"
    " I/O threads blocked in business code, locks, logging); move slow work off the I/O"
    " thread (Dubbo dispatcher=message / all, Netty: a separate EventExecutorGroup).",
    "Spread connections over more reader threads: Dubbo `iothreads` (default cores+1)"
    " and `connections` > 1 so one reader does not serve the whole load.",
    "Apply back-pressure instead of unbounded buffering: Netty"
    " writeBufferHighWaterMark/LowWaterMark and channel.isWritable() on the sender.",
    "A larger receive buffer only delays the stall: keep net.ipv4.tcp_rmem max >= the BDP"
    " and net.ipv4.tcp_moderate_rcvbuf=1, but fix the reader.",
]


@dataclass(slots=True)
class _Pile:
    key: ConnectionKey
    artifact: str
    peak: float
    buffer: float | None
    full_run: int
    span: tuple[int, int] | None


@dataclass(slots=True)
class _Window:
    key: ConnectionKey
    artifact: str
    pct: float
    busy_ms: float
    span: tuple[int, int]


def _piles(table: dict[ConnectionKey, dict[str, SeriesView]]) -> list[_Pile]:
    piles = []
    for key, row in table.items():
        recvq_series = row.get("recvq.bytes")
        if recvq_series is None:
            continue
        times = recvq_series.times_ms
        recvq = recvq_series.values
        buffer = None
        if "skmem_rb" in row:
            rb = exact_values_at(row["skmem_rb"], times, np.nan)
            limit = np.where(np.isnan(rb), RECVQ_FULL_BYTES, RECVQ_FULL_RATIO * rb)
            at_peak = rb[int(np.argmax(recvq))] if len(recvq) else np.nan
            buffer = float(at_peak) if np.isfinite(at_peak) else None
        else:
            limit = np.full(len(times), RECVQ_FULL_BYTES)
        full = (recvq > 0) & (recvq >= limit)
        span = longest_true_span(times, full)
        run = 0
        if span is not None:
            run = int(np.count_nonzero((times >= span[0]) & (times <= span[1])))
        piles.append(
            _Pile(key, recvq_series.artifact, float(np.max(recvq, initial=0.0)), buffer, run, span)
        )
    return piles


def _windows(table: dict[ConnectionKey, dict[str, SeriesView]]) -> list[_Window]:
    windows = []
    for key, row in table.items():
        if "busy_ms" not in row:
            continue
        times = row["busy_ms"].times_ms
        pct, busy = chrono_share_pct(row, times, "rwnd_limited", MIN_BUSY_MS)
        if pct is None:
            continue
        span = (int(times[0]), int(times[-1]))
        limited = row.get("rwnd_limited_ms")
        if limited is not None and len(limited) >= 2:
            growing = np.flatnonzero(np.diff(limited.values) > 0)
            if len(growing):
                span = (int(limited.times_ms[growing[0]]), int(limited.times_ms[growing[-1] + 1]))
        windows.append(_Window(key, row["busy_ms"].artifact, pct, busy, span))
    return windows


def _zero_windows(data: IncidentData) -> tuple[dict[str, float], Evidence | None]:
    totals: dict[str, float] = {}
    best: tuple[float, str, str | None] | None = None
    hosts = {s.host for s in data.series("netstat.TcpExt*")} or {None}
    for host in hosts:
        for counter in ZERO_WINDOW_COUNTERS:
            rise = counter_increase(data, counter, host)
            if rise is None:
                continue
            totals[counter] = totals.get(counter, 0.0) + rise
            if best is None or rise > best[0]:
                best = (rise, counter, host)
    evidence = None
    if best is not None:
        rise, counter, host = best
        series = [s for s in data.series(f"netstat.{counter}", host=host) if len(s)]
        span = None
        if series:
            moving = np.flatnonzero(series[0].values > 0)
            if len(moving):
                span = (int(series[0].times_ms[moving[0]]), int(series[0].times_ms[moving[-1]]))
        evidence = Evidence(
            summary=", ".join(f"{name} +{value:.0f}" for name, value in totals.items()),
            observed=sum(totals.values()),
            threshold=ZERO_WINDOW_MIN_EVENTS,
            unit="events",
            from_ms=span[0] if span else None,
            to_ms=span[1] if span else None,
            series=f"netstat.{counter}",
            artifact=series[0].artifact if series else None,
            host=host,
        )
    return totals, evidence


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    table = connection_series(data, FIELDS)
    piles = _piles(table)
    windows = _windows(table)
    zero_totals, zero_evidence = _zero_windows(data)
    if not table and not zero_totals:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="Neither per-connection socket data (ss -tinm: Recv-Q, rwnd_limited) nor"
            " zero-window counters (nstat) were captured.",
            missing=MISSING,
            remedies=REMEDIES,
            parameters=params,
        )
    pile = max(piles, key=lambda p: (p.full_run, p.peak), default=None)
    # The strongest stall among senders busy long enough to judge, else the busiest sender.
    window = max(windows, key=lambda w: (w.busy_ms >= MIN_BUSY_MS, w.pct, w.busy_ms), default=None)
    zero_events = sum(zero_totals.values())
    piled = pile is not None and pile.full_run >= MIN_FULL_SNAPSHOTS
    stalled = (
        window is not None and window.busy_ms >= MIN_BUSY_MS and window.pct >= RWND_LIMITED_MIN_PCT
    )
    zeroed = bool(zero_totals) and zero_events >= ZERO_WINDOW_MIN_EVENTS

    evidence: list[Evidence] = []
    facts: list[str] = []
    if pile is not None:
        host, local, peer = pile.key
        of_buffer = (
            f" ({pile.peak / pile.buffer:.0%} of the {fmt_bytes(pile.buffer)} receive buffer)"
            if pile.buffer
            else ""
        )
        threshold = (
            f"{RECVQ_FULL_RATIO:.0%} of rb" if pile.buffer else f"{fmt_bytes(RECVQ_FULL_BYTES)}"
        )
        facts.append(
            f"Recv-Q on {connection_label(pile.key)} peaked at {fmt_bytes(pile.peak)}{of_buffer},"
            f" at >= {threshold} for {pile.full_run} snapshots in a row"
        )
        evidence.append(
            Evidence(
                summary=facts[-1],
                observed=pile.full_run,
                threshold=MIN_FULL_SNAPSHOTS,
                unit="snapshots",
                from_ms=pile.span[0] if pile.span else None,
                to_ms=pile.span[1] if pile.span else None,
                series="tcp.conn.recvq.bytes",
                labels={"local": local, "peer": peer},
                artifact=pile.artifact,
                host=host,
            )
        )
    if window is not None:
        host, local, peer = window.key
        facts.append(
            f"sender {connection_label(window.key)} was rwnd_limited {fmt_pct(window.pct)} of"
            f" {window.busy_ms / 1000:.1f} s busy"
        )
        evidence.append(
            Evidence(
                summary=facts[-1],
                observed=round(window.pct, 1),
                threshold=RWND_LIMITED_MIN_PCT,
                unit="percent",
                from_ms=window.span[0],
                to_ms=window.span[1],
                series="tcp.conn.rwnd_limited_pct",
                labels={"local": local, "peer": peer},
                artifact=window.artifact,
                host=host,
            )
        )
    if zero_evidence is not None:
        facts.append(f"zero-window counters rose by {zero_events:.0f}")
        evidence.append(zero_evidence)

    signs = sum((piled, stalled, zeroed))
    if signs == 0:
        numbers = []
        if pile is not None:
            numbers.append(
                f"Recv-Q stayed below the pile threshold (peak {fmt_bytes(pile.peak)}, at most"
                f" {pile.full_run} snapshots in a row >= {RECVQ_FULL_RATIO:.0%} of rb; threshold"
                f" {MIN_FULL_SNAPSHOTS})"
            )
        elif table:
            numbers.append("no connection ever had a non-zero Recv-Q")
        if window is not None:
            numbers.append(
                f"rwnd_limited peaked at {fmt_pct(window.pct)} of busy time (threshold"
                f" {fmt_pct(RWND_LIMITED_MIN_PCT)})"
            )
        if zero_totals:
            numbers.append(f"zero-window counters +{zero_events:.0f}")
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary="Receivers kept up: " + "; ".join(numbers) + ".",
            evidence=evidence,
            explanation="A receiver that does not read fills its receive queue, closes its"
            " window (zero-window advertisements) and stalls the sender (rwnd_limited). None"
            " of that was seen.",
            remedies=REMEDIES,
            parameters=params,
        )
    verdict: Verdict = "confirmed" if signs >= 2 else "likely"
    shown = []
    if piled and pile is not None:
        shown.append(facts[0])
    if stalled and window is not None:
        shown.append(next(f for f in facts if f.startswith("sender")))
    if zeroed:
        shown.append(f"zero-window counters rose by {zero_events:.0f}")
    summary = "; ".join(shown) + f" ({signs} of 3 signs)."
    summary = summary[0].upper() + summary[1:]
    explanation = (
        "Bytes the application has not read wait in the receive queue; once they fill the"
        " receive buffer the receiver advertises a zero window and the sender stops, waiting"
        " on the peer's window (rwnd_limited) with its own Send-Q full. The bottleneck is the"
        " reading thread (one Netty I/O thread per connection, a blocked handler, a GC pause),"
        " not the network. Here: " + "; ".join(facts) + "."
    )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=REMEDIES,
        missing=MISSING[:2] if signs < 2 else [],
        parameters=params,
    )
