"""``tcp_retransmissions``: segments sent again because they (or their ACKs) were lost.

Mechanism. Every retransmission means a loss the sender noticed, by duplicate ACKs / SACK
(fast retransmit: the congestion window is cut) or by the retransmission timer expiring
(RTO: the window falls to one segment and the connection waits at least 200 ms, doubling
each time). Loss-based congestion control caps a connection near
MSS / RTT x 1.22 / sqrt(p) (Mathis et al.), so at a loss rate p of 1 % one connection moves
about 12 segments per round trip and at 3 % about 7, whatever the link could do. Healthy
data-centre paths retransmit well under 0.1 % of segments.

Inputs: kernel counters ``netstat.TcpRetransSegs`` and ``netstat.TcpOutSegs`` (``nstat -az``,
``netstat -s``, ``/proc/net/snmp``), ``TcpExtTCPSynRetrans`` (SYN / SYN+ACK retransmissions,
counted in TcpRetransSegs too: they belong to connection set-up, e.g. an overflowing accept
queue, and are taken out of the data rate), ``TcpExtTCPTimeouts`` (RTO events),
``TcpExtTCPLostRetransmit``; per connection from ``ss -ti``: ``tcp.conn.retrans`` (total
retransmitted segments), ``tcp.conn.segs_out``, ``tcp.conn.bytes_retrans``, ``tcp.conn.lost``.

Thresholds (module constants, shown in each evidence item):

- ``RETRANS_PCT_LIKELY`` = 1 %: past it throughput per connection is visibly loss-bound
  (~12 segments per RTT).
- ``RETRANS_PCT_CONFIRMED`` = 3 % over the whole capture (sustained, not one burst): ~7
  segments per RTT, and RTO stalls become frequent.
- ``WINDOW_S`` = 30 s: the window in which a burst is measured.
- ``MIN_OUT_SEGMENTS`` = 1000 segments sent in the capture (``MIN_WINDOW_OUT_SEGMENTS`` =
  300 in a window): below that a percentage is noise (3 of 100).

Verdicts, per host (the worst reported): ``confirmed`` when data retransmissions reach 3 %
of segments sent over the capture with enough traffic; ``likely`` when they reach 1 %, or
3 % in one window, or only ss socket data shows >= 1 %; ``ruled_out`` below those with
the rate and volume stated; ``insufficient_data`` without counters captured twice or
per-connection retransmission counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rootline.detectors.base import Evidence, Finding, IncidentData, Missing, parameters_of
from rootline.detectors.quantities import (
    by_host,
    connection_of,
    counter_increments,
    fmt_count,
    fmt_pct,
    full_windows,
    increments_on,
)

ID = "tcp_retransmissions"
TITLE = "TCP retransmissions"

# 1 % loss: a loss-based sender is capped near 12 segments per RTT (Mathis: 1.22 / sqrt(p)).
RETRANS_PCT_LIKELY = 1.0
# 3 % sustained over the capture: ~7 segments per RTT, RTO stalls (>= 200 ms) become common.
RETRANS_PCT_CONFIRMED = 3.0
# A burst is measured over this many seconds.
WINDOW_S = 30
# Below these volumes a percentage is noise (3 retransmits of 100 segments is "3 %").
MIN_OUT_SEGMENTS = 1000
MIN_WINDOW_OUT_SEGMENTS = 300

PARAMETERS = [
    "RETRANS_PCT_LIKELY",
    "RETRANS_PCT_CONFIRMED",
    "WINDOW_S",
    "MIN_OUT_SEGMENTS",
    "MIN_WINDOW_OUT_SEGMENTS",
]

MISSING = [
    Missing(
        "kernel counters over time (TcpRetransSegs, TcpOutSegs, TCPTimeouts)",
        'while sleep 1; do echo "=== $(date -Is) ==="; nstat -az; done > nstat.txt',
    ),
    Missing(
        "per-connection TCP info (retrans, lost)",
        'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
    ),
    Missing("everything at once", "rootline-collect.sh --interval 1 --duration 60"),
]

REMEDIES = [
    "Find where packets are lost: NIC and qdisc drops (ip -s link, tc -s qdisc, ethtool -S "
    "ethX | grep -i drop), switch port errors, a saturated link or a policer.",
    "Receive-side drops under bursts: larger ring buffers (ethtool -G ethX rx 4096), "
    "net.core.netdev_max_backlog=16384, spread interrupts (RPS/RSS, irqbalance).",
    "Modern loss recovery: keep net.ipv4.tcp_sack=1 and RACK (net.ipv4.tcp_recovery=1); "
    "consider BBR (net.ipv4.tcp_congestion_control=bbr with net.core.default_qdisc=fq) on "
    "lossy long paths.",
    "If the retransmissions are SYN / SYN+ACK: look at the accept queue (somaxconn, "
    "backlog) and SYN floods, not at the path.",
    "Application side: shorter RPC timeouts hide nothing; retries multiply load on a lossy "
    "path: cap them and add jitter.",
]


@dataclass(slots=True)
class _CounterResult:
    host: str | None
    out_segments: float
    data_retrans: float
    syn_retrans: float
    pct: float
    window_pct: float | None
    window: tuple[int, int]
    window_out: float
    seconds: float
    timeouts: float | None
    lost: float | None
    source_artifact: str
    verdict: str = "ruled_out"


@dataclass(slots=True)
class _SocketResult:
    host: str | None
    connections: int
    retrans_growth: float
    segs_out_growth: float
    pct: float | None
    worst: tuple[str, str, float, float] | None  # local, peer, retrans growth, segs growth
    window: tuple[int, int]
    artifact: str
    verdict: str = "ruled_out"


def _windows(
    end_ms: np.ndarray, interval_s: np.ndarray, out: np.ndarray, retrans: np.ndarray
) -> tuple[float | None, tuple[int, int], float]:
    """Highest retransmission percentage over WINDOW_S windows with enough traffic."""
    if not len(end_ms):
        return None, (0, 0), 0.0
    first, stop = full_windows(end_ms, interval_s, WINDOW_S)
    cum_out = np.concatenate(([0.0], np.cumsum(out)))
    cum_re = np.concatenate(([0.0], np.cumsum(retrans)))
    win_out = cum_out[stop] - cum_out[first]
    win_re = cum_re[stop] - cum_re[first]
    ok = win_out >= MIN_WINDOW_OUT_SEGMENTS
    whole = (int(end_ms[0] - interval_s[0] * 1000), int(end_ms[-1]))
    if not np.any(ok):
        return None, whole, 0.0
    pct = np.where(ok, win_re / np.maximum(win_out, 1.0) * 100.0, -1.0)
    best = int(np.argmax(pct))
    i0, i1 = int(first[best]), int(stop[best]) - 1
    span = (int(end_ms[i0] - interval_s[i0] * 1000), int(end_ms[i1]))
    return float(pct[best]), span, float(win_out[best])


def _counters(data: IncidentData) -> list[_CounterResult]:
    out_all = counter_increments(data, "TcpOutSegs")
    re_all = counter_increments(data, "TcpRetransSegs")
    syn_all = counter_increments(data, "TcpExtTCPSynRetrans")
    to_all = counter_increments(data, "TcpExtTCPTimeouts")
    lost_all = counter_increments(data, "TcpExtTCPLostRetransmit")
    results = []
    for host, out in out_all.items():
        re = re_all.get(host)
        if re is None:
            continue
        retrans = increments_on(out.end_ms, re)
        syn = increments_on(out.end_ms, syn_all[host]) if host in syn_all else np.zeros(len(out))
        data_retrans = np.clip(retrans - syn, 0.0, None)
        total_out = float(np.sum(out.increments))
        total_re = float(np.sum(data_retrans))
        pct = total_re / total_out * 100.0 if total_out > 0 else 0.0
        window_pct, window, window_out = _windows(
            out.end_ms, out.interval_s, out.increments, data_retrans
        )
        result = _CounterResult(
            host=host,
            out_segments=total_out,
            data_retrans=total_re,
            syn_retrans=float(np.sum(syn)),
            pct=pct,
            window_pct=window_pct,
            window=window,
            window_out=window_out,
            seconds=out.seconds,
            timeouts=to_all[host].total if host in to_all else None,
            lost=lost_all[host].total if host in lost_all else None,
            source_artifact=out.source.artifact,
        )
        enough = total_out >= MIN_OUT_SEGMENTS
        if enough and pct >= RETRANS_PCT_CONFIRMED:
            result.verdict = "confirmed"
        elif (pct >= RETRANS_PCT_LIKELY and total_re > 0) or (
            window_pct is not None and window_pct >= RETRANS_PCT_CONFIRMED
        ):
            result.verdict = "likely"
        results.append(result)
    return results


def _sockets(data: IncidentData) -> list[_SocketResult]:
    results = []
    segs_by_key = {}
    for s in data.series("tcp.conn.segs_out"):
        key = connection_of(s.labels)
        if s.name == "tcp.conn.segs_out" and key is not None and len(s) >= 2:
            segs_by_key[(s.host, *key)] = s
    for host, items in by_host(
        s for s in data.series("tcp.conn.retrans") if s.name == "tcp.conn.retrans"
    ).items():
        growth_total = 0.0
        segs_total = 0.0
        connections = 0
        worst = None
        t0, t1 = None, None
        artifact = ""
        for s in items:
            key = connection_of(s.labels)
            if key is None or len(s) < 2:
                continue
            segs = segs_by_key.get((host, *key))
            if segs is None:
                continue
            connections += 1
            growth = float(max(s.values[-1] - s.values[0], 0.0))
            # segments sent over the same span as the retrans readings
            lo = np.searchsorted(segs.times_ms, s.times_ms[0])
            hi = np.searchsorted(segs.times_ms, s.times_ms[-1], side="right") - 1
            seg_growth = float(max(segs.values[hi] - segs.values[lo], 0.0)) if hi > lo else 0.0
            growth_total += growth
            segs_total += seg_growth
            if growth > 0 and (worst is None or growth > worst[2]):
                worst = (key[0], key[1], growth, seg_growth)
                artifact = s.artifact
                t0, t1 = int(s.times_ms[0]), int(s.times_ms[-1])
        if not connections:
            continue
        pct = growth_total / segs_total * 100.0 if segs_total > 0 else None
        result = _SocketResult(
            host=host,
            connections=connections,
            retrans_growth=growth_total,
            segs_out_growth=segs_total,
            pct=pct,
            worst=worst,
            window=(t0 or 0, t1 or 0),
            artifact=artifact,
        )
        if pct is not None and pct >= RETRANS_PCT_LIKELY and segs_total >= MIN_WINDOW_OUT_SEGMENTS:
            result.verdict = "likely"
        results.append(result)
    return results


_RANK = {"confirmed": 0, "likely": 1, "ruled_out": 2}


def _where(host: str | None) -> str:
    return f" on host {host}" if host else ""


def _counter_evidence(r: _CounterResult) -> list[Evidence]:
    threshold = RETRANS_PCT_CONFIRMED if r.pct >= RETRANS_PCT_LIKELY else RETRANS_PCT_LIKELY
    items = [
        Evidence(
            summary=(
                f"{fmt_count(r.data_retrans)} data retransmissions for {fmt_count(r.out_segments)} "
                f"segments sent over {r.seconds:.0f} s{_where(r.host)}: {fmt_pct(r.pct)}"
            ),
            observed=round(r.pct, 4),
            threshold=threshold,
            unit="%",
            from_ms=r.window[0],
            to_ms=r.window[1],
            series="netstat.TcpRetransSegs",
            artifact=r.source_artifact,
            host=r.host,
        )
    ]
    if r.window_pct is not None:
        items.append(
            Evidence(
                summary=(
                    f"worst {WINDOW_S} s window: {fmt_pct(r.window_pct)} of "
                    f"{fmt_count(r.window_out)} segments retransmitted"
                ),
                observed=round(r.window_pct, 4),
                threshold=RETRANS_PCT_CONFIRMED,
                unit="%",
                from_ms=r.window[0],
                to_ms=r.window[1],
                series="netstat.TcpRetransSegs",
                host=r.host,
            )
        )
    if r.syn_retrans > 0:
        items.append(
            Evidence(
                summary=(
                    f"{fmt_count(r.syn_retrans)} SYN / SYN+ACK retransmissions (TCPSynRetrans) "
                    "left out of the data rate: connection set-up, see accept_queue_overflow"
                ),
                observed=r.syn_retrans,
                unit="count",
                series="netstat.TcpExtTCPSynRetrans",
                host=r.host,
            )
        )
    if r.timeouts:
        items.append(
            Evidence(
                summary=f"{fmt_count(r.timeouts)} retransmission timer expiries (TCPTimeouts: RTO events, SYN retries included)",
                observed=r.timeouts,
                unit="count",
                from_ms=r.window[0],
                to_ms=r.window[1],
                series="netstat.TcpExtTCPTimeouts",
                host=r.host,
            )
        )
    return items


def _socket_evidence(r: _SocketResult) -> list[Evidence]:
    pct_text = f": {fmt_pct(r.pct)}" if r.pct is not None else ""
    items = [
        Evidence(
            summary=(
                f"{fmt_count(r.retrans_growth)} segments retransmitted for "
                f"{fmt_count(r.segs_out_growth)} sent on {r.connections} connections seen in "
                f"ss{_where(r.host)}{pct_text}"
            ),
            observed=round(r.pct, 4) if r.pct is not None else None,
            threshold=RETRANS_PCT_LIKELY,
            unit="%",
            from_ms=r.window[0] or None,
            to_ms=r.window[1] or None,
            series="tcp.conn.retrans",
            host=r.host,
        )
    ]
    if r.worst is not None:
        local, peer, growth, segs = r.worst
        items.append(
            Evidence(
                summary=(
                    f"most retransmissions on {local} -> {peer}: {fmt_count(growth)} of "
                    f"{fmt_count(segs)} segments"
                ),
                observed=growth,
                unit="segments",
                from_ms=r.window[0],
                to_ms=r.window[1],
                series="tcp.conn.retrans",
                labels={"local": local, "peer": peer},
                artifact=r.artifact,
                host=r.host,
            )
        )
    return items


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    counters = _counters(data)
    sockets = _sockets(data)
    counter_hosts = {r.host for r in counters}
    socket_only = [r for r in sockets if r.host not in counter_hosts]
    if not counters and not socket_only:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary=(
                "No retransmission counters captured twice (TcpRetransSegs / TcpOutSegs) "
                "and no per-connection retrans counts."
            ),
            missing=list(MISSING),
            remedies=list(REMEDIES),
            parameters=params,
        )
    counters.sort(key=lambda r: (_RANK[r.verdict], -r.pct))
    socket_only.sort(key=lambda r: (_RANK[r.verdict], -(r.pct or 0.0)))
    sockets_by_host = {r.host: r for r in sockets}
    head_counter = counters[0] if counters else None
    head_socket = socket_only[0] if socket_only else None
    use_counter = head_counter is not None and (
        head_socket is None or _RANK[head_counter.verdict] <= _RANK[head_socket.verdict]
    )

    evidence: list[Evidence] = []
    if use_counter and head_counter is not None:
        r = head_counter
        verdict = r.verdict
        evidence.extend(_counter_evidence(r))
        if r.host in sockets_by_host:
            evidence.extend(_socket_evidence(sockets_by_host[r.host]))
        where = _where(r.host)
        low_volume = (
            f" (only {fmt_count(r.out_segments)} segments sent, below {fmt_count(MIN_OUT_SEGMENTS)})"
            if r.out_segments < MIN_OUT_SEGMENTS
            else ""
        )
        if verdict == "ruled_out":
            summary = (
                f"{fmt_pct(r.pct)} of {fmt_count(r.out_segments)} segments were retransmitted "
                f"over {r.seconds:.0f} s{where} (threshold {fmt_pct(RETRANS_PCT_LIKELY)})"
                + (
                    f", worst {WINDOW_S} s window {fmt_pct(r.window_pct)}"
                    if r.window_pct is not None
                    else ""
                )
                + "."
            )
        else:
            summary = (
                f"{fmt_pct(r.pct)} of {fmt_count(r.out_segments)} segments were retransmitted "
                f"over {r.seconds:.0f} s{where}"
                + (
                    f", {fmt_pct(r.window_pct)} in the worst {WINDOW_S} s window"
                    if r.window_pct is not None
                    else ""
                )
                + (f", {fmt_count(r.timeouts)} RTO timeouts" if r.timeouts else "")
                + low_volume
                + "."
            )
        pct = r.pct
    else:
        assert head_socket is not None
        r2 = head_socket
        verdict = r2.verdict
        evidence.extend(_socket_evidence(r2))
        pct = r2.pct or 0.0
        summary = (
            f"Sockets in ss retransmitted {fmt_count(r2.retrans_growth)} of "
            f"{fmt_count(r2.segs_out_growth)} segments sent on {r2.connections} connections"
            f"{_where(r2.host)}"
            + (f" ({fmt_pct(r2.pct)})" if r2.pct is not None else "")
            + (
                f", too few segments to judge (threshold {fmt_count(MIN_WINDOW_OUT_SEGMENTS)})"
                if r2.segs_out_growth < MIN_WINDOW_OUT_SEGMENTS
                else ""
            )
            + "; no kernel counters to measure the whole host."
        )
    for other in counters[1:5] if use_counter else counters[:4]:
        evidence.extend(_counter_evidence(other)[:1])

    per_rtt = 1.22 / np.sqrt(pct / 100.0) if pct > 0 else float("inf")
    explanation = (
        "Each retransmission is a loss the sender noticed, by duplicate ACKs (the congestion "
        "window is cut) or by the retransmission timer (RTO: the window falls to one segment "
        "and the connection waits >= 200 ms, doubling each time). A loss-based sender is "
        f"capped near MSS / RTT x 1.22 / sqrt(p): at p = {fmt_pct(pct)} that is "
        + (f"~{per_rtt:.0f} segments per round trip" if np.isfinite(per_rtt) else "no cap")
        + f" (at {fmt_pct(RETRANS_PCT_LIKELY)} ~12, at {fmt_pct(RETRANS_PCT_CONFIRMED)} ~7)."
        " SYN / SYN+ACK retransmissions are counted apart: they come from connection set-up "
        "(an accept queue that overflows, a SYN flood), not from the data path."
    )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,  # type: ignore[arg-type]
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=list(REMEDIES),
        parameters=params,
    )
