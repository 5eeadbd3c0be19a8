"""``heartbeat_storm``: thousands of connections whose heartbeats arrive together, every period.

Mechanism (DOMAIN.md report C, first failure). RPC frameworks keep idle long connections
alive with heartbeats (Dubbo: a 17-byte packet each way every 60 s per connection). With
thousands of consumers whose timers line up (they all connected at the same restart), the
provider's few I/O threads (Netty workers = cores + 1) receive and answer a wave of
heartbeats every period; requests that land in the wave wait behind it. In report C, 7000
consumers on one 8-core provider: every ~60 s all 9 Netty workers were busy, nmon showed CPU
and packet-count spikes every ~60 s, ``ss`` showed queues building at those moments, and
requests waited 2 s+ before and after processing (GC and thread dumps were clean).

Signature, per host: a connection count in the thousands (``tcp.state.estab`` from ``ss``,
or ``netstat.TcpCurrEstab``) and a periodic spike with a period between
``MIN_PERIOD_S`` and ``MAX_PERIOD_S`` in at least one signal family:

- ``cpu``: ``cpu.user_pct`` + ``cpu.sys_pct`` (nmon);
- ``packets``: ``net.packets_in`` / ``net.packets_out`` summed over interfaces (nmon), or the
  kernel's ``netstat.IpInReceives`` / ``TcpInSegs`` / ``TcpOutSegs`` per second;
- ``queue``: ``tcp.recvq.bytes`` / ``tcp.sendq.bytes`` summed over sockets (``ss``).

The period comes from the autocorrelation of the evenly resampled, detrended series
(:func:`~rootline.detectors.quantities.dominant_period`): the first clear autocorrelation peak,
its height the period's strength. A family counts when its best signal has a strength of at
least ``PERIOD_STRENGTH_MIN``, repeats at least ``MIN_CYCLES`` times in the capture, and
spikes (the per-cycle peaks average ``SPIKE_RATIO_MIN`` x the median). Families agree when
their periods differ by at most ``PERIOD_AGREEMENT`` (relative) or one sample step.

Thresholds (module constants, shown in each evidence item):

- ``MIN_CONNECTIONS`` = 1000 ESTABLISHED: "thousands" (report C: 7000; 1000 connections at a
  60 s heartbeat already make ~33 packets/s arriving in one burst).
- ``MIN_PERIOD_S`` = 5 s, ``MAX_PERIOD_S`` = 300 s: heartbeat and keep-alive intervals in
  use (Dubbo 60 s, SOFA-RPC / Netty idle handlers 15-90 s, gRPC keepalive minutes).
- ``MIN_CYCLES`` = 3: a period seen twice could be chance.
- ``PERIOD_STRENGTH_MIN`` = 0.5: autocorrelation of pure noise over n points stays near
  2 / sqrt(n) (0.26 at 60 points); a real spike train scores 0.6-0.9.
- ``SPIKE_RATIO_MIN`` = 1.5: the wave stands 50 % above the typical level.
- ``PERIOD_AGREEMENT`` = 0.15: two signals repeat "at the same period".

Verdicts (worst host reported): ``confirmed`` with >= ``MIN_CONNECTIONS`` and periodic spikes
in two families at agreeing periods; ``likely`` with >= ``MIN_CONNECTIONS`` and one periodic
family, or two agreeing families with no connection count; ``ruled_out`` when the connection
count stays below ``MIN_CONNECTIONS``, or when it reaches it but no family repeats over a
capture long enough to hold ``MIN_CYCLES`` periods of 60 s; ``insufficient_data`` otherwise.
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
    parameters_of,
)
from rootline.detectors.quantities import (
    Periodicity,
    by_host,
    dominant_period,
    fmt_count,
    host_series,
    last_values_at,
)

ID = "heartbeat_storm"
TITLE = "Heartbeat storm"

# "Thousands" of connections (DOMAIN.md C: 7000 consumers on one provider).
MIN_CONNECTIONS = 1000
# Heartbeat / keep-alive intervals in use: Dubbo 60 s, Netty idle handlers 15-90 s, gRPC minutes.
MIN_PERIOD_S = 5.0
MAX_PERIOD_S = 300.0
# A period seen only twice could be chance.
MIN_CYCLES = 3.0
# Noise autocorrelation stays near 2/sqrt(n) (0.26 at 60 points); spike trains score 0.6-0.9.
PERIOD_STRENGTH_MIN = 0.5
# The wave stands 50 % above the typical level of the signal.
SPIKE_RATIO_MIN = 1.5
# Two signals repeat "at the same period" within 15 % (or one sample step).
PERIOD_AGREEMENT = 0.15
# The classic heartbeat interval: a capture must hold MIN_CYCLES of it to rule a storm out.
TYPICAL_HEARTBEAT_S = 60.0

PARAMETERS = [
    "MIN_CONNECTIONS",
    "MIN_PERIOD_S",
    "MAX_PERIOD_S",
    "MIN_CYCLES",
    "PERIOD_STRENGTH_MIN",
    "SPIKE_RATIO_MIN",
    "PERIOD_AGREEMENT",
]

MISSING = [
    Missing(
        "nmon recording (CPU and packet counts every second)",
        "nmon -f -t -s 1 -c 600",
    ),
    Missing(
        "kernel counters and socket summary over several heartbeat periods",
        'while sleep 1; do echo "=== $(date -Is) ==="; nstat -az; ss -s; done > nstat-ss.txt',
    ),
    Missing(
        "socket queues over time",
        'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
    ),
    Missing(
        "everything at once (at least 3 heartbeat periods)",
        "rootline-collect.sh --interval 1 --duration 300 --nmon",
    ),
]

REMEDIES = [
    "Spread the heartbeats: add jitter to each connection's heartbeat timer so they do not "
    "fire together after a restart (or randomise the first delay).",
    "Make heartbeats cheaper: answer them on the I/O thread without dispatching to the "
    "business pool; skip the heartbeat when the connection carried traffic within the "
    "interval (Dubbo 'heartbeat' parameter, Netty IdleStateHandler on reads only).",
    "More I/O threads for many connections: Dubbo iothreads (default cores + 1), Netty "
    "worker group size; or fewer connections per provider (consumer-side connection sharing).",
    "A longer heartbeat interval when connections are many (Dubbo heartbeat=60000 -> "
    "120000 ms), relying on TCP keepalive (net.ipv4.tcp_keepalive_time) for dead peers.",
]


@dataclass(slots=True)
class _Signal:
    family: str
    name: str
    label: str
    period: Periodicity
    series: SeriesView
    duration_s: float

    @property
    def strong(self) -> bool:
        return (
            self.period.strength >= PERIOD_STRENGTH_MIN
            and self.period.cycles >= MIN_CYCLES
            and self.period.spike_ratio >= SPIKE_RATIO_MIN
        )


@dataclass(slots=True)
class _HostResult:
    host: str | None
    verdict: str
    connections: float | None
    connections_series: SeriesView | None
    signals: list[_Signal]
    agreeing: list[_Signal]
    longest_s: float
    examined: int


def _sum_series(items: list[SeriesView], name: str, label: str) -> SeriesView | None:
    """Several series of one host summed on the union of their times (last known values)."""
    items = [s for s in items if len(s)]
    if not items:
        return None
    if len(items) == 1:
        s = items[0]
        return SeriesView(name, {"sum": label}, s.unit, s.host, s.artifact, s.times_ms, s.values)
    times = np.unique(np.concatenate([s.times_ms for s in items]))
    total = np.zeros(len(times))
    for s in items:
        total += np.nan_to_num(last_values_at(times, s), nan=0.0)
    return SeriesView(
        name, {"sum": label}, items[0].unit, items[0].host, items[0].artifact, times, total
    )


def _candidates(data: IncidentData) -> dict[str | None, list[tuple[str, str, str, SeriesView]]]:
    """Per host: (family, series name shown, label, series) to test for a period."""
    out: dict[str | None, list[tuple[str, str, str, SeriesView]]] = {}

    def add(host: str | None, family: str, name: str, label: str, s: SeriesView | None) -> None:
        if s is not None and len(s) >= 6:
            out.setdefault(host, []).append((family, name, label, s))

    user = host_series(data, "cpu.user_pct")
    system = host_series(data, "cpu.sys_pct")
    for host in set(user) | set(system):
        parts = [s for s in (user.get(host), system.get(host)) if s is not None]
        add(
            host,
            "cpu",
            "cpu.user_pct",
            "user + sys CPU",
            _sum_series(parts, "cpu.user_pct", "user+sys"),
        )
    for metric in ("net.packets_in", "net.packets_out"):
        for host, items in by_host(s for s in data.series(metric) if s.name == metric).items():
            add(
                host,
                "packets",
                metric,
                f"{metric} (all interfaces)",
                _sum_series(items, metric, "all"),
            )
    for counter in ("IpInReceives", "TcpInSegs", "TcpOutSegs"):
        for host, s in host_series(data, f"netstat.{counter}").items():
            if s.unit == "per_s":
                add(host, "packets", s.name, f"{counter} per second", s)
    for metric, label in (("tcp.recvq.bytes", "Recv-Q bytes"), ("tcp.sendq.bytes", "Send-Q bytes")):
        for host, s in host_series(data, metric).items():
            add(host, "queue", metric, f"{label} (all sockets)", s)
    return out


def _connections(data: IncidentData) -> dict[str | None, SeriesView]:
    found = host_series(data, "tcp.state.estab", prefer="peak")
    for host, s in host_series(data, "netstat.TcpCurrEstab").items():
        if host not in found or float(np.max(s.values)) > float(np.max(found[host].values)):
            found[host] = s
    return found


def _agree(a: _Signal, b: _Signal) -> bool:
    tolerance = max(
        PERIOD_AGREEMENT * max(a.period.period_s, b.period.period_s),
        a.period.sample_s,
        b.period.sample_s,
    )
    return abs(a.period.period_s - b.period.period_s) <= tolerance


def _assess(data: IncidentData) -> list[_HostResult]:
    candidates = _candidates(data)
    connections = _connections(data)
    results = []
    for host in sorted(set(candidates) | set(connections), key=lambda h: h or ""):
        signals: list[_Signal] = []
        longest = 0.0
        for family, name, label, s in candidates.get(host, []):
            duration = float(s.times_ms[-1] - s.times_ms[0]) / 1000.0
            longest = max(longest, duration)
            found = dominant_period(
                s.times_ms,
                s.values,
                min_period_s=MIN_PERIOD_S,
                max_period_s=MAX_PERIOD_S,
                min_cycles=MIN_CYCLES,
            )
            if found is not None:
                signals.append(_Signal(family, name, label, found, s, duration))
        strong = [sig for sig in signals if sig.strong]
        best_per_family: dict[str, _Signal] = {}
        for sig in sorted(strong, key=lambda x: -x.period.strength):
            best_per_family.setdefault(sig.family, sig)
        # the largest group of families whose periods agree with one another
        agreeing: list[_Signal] = []
        for anchor in best_per_family.values():
            group = [anchor]
            for family in best_per_family:
                if family != anchor.family:
                    alternatives = [x for x in strong if x.family == family and _agree(anchor, x)]
                    if alternatives:
                        group.append(max(alternatives, key=lambda x: x.period.strength))
            if len(group) > len(agreeing) or (
                len(group) == len(agreeing)
                and sum(x.period.strength for x in group) > sum(x.period.strength for x in agreeing)
            ):
                agreeing = group
        conn_series = connections.get(host)
        conns = float(np.max(conn_series.values)) if conn_series is not None else None
        many = conns is not None and conns >= MIN_CONNECTIONS
        if many and len(agreeing) >= 2:
            verdict = "confirmed"
        elif (many and agreeing) or (conns is None and len(agreeing) >= 2):
            verdict = "likely"
        elif (conns is not None and not many) or (
            many and longest >= MIN_CYCLES * TYPICAL_HEARTBEAT_S
        ):
            verdict = "ruled_out"
        else:
            verdict = "insufficient_data"
        results.append(
            _HostResult(
                host,
                verdict,
                conns,
                conn_series,
                signals,
                agreeing,
                longest,
                len(candidates.get(host, [])),
            )
        )
    return results


_RANK = {"confirmed": 0, "likely": 1, "ruled_out": 2, "insufficient_data": 3}


def _where(host: str | None) -> str:
    return f" on host {host}" if host else ""


def _signal_evidence(sig: _Signal, host: str | None) -> Evidence:
    p = sig.period
    peak_values = (
        last_values_at(np.array(p.peak_ms, dtype=np.int64), sig.series)
        if p.peak_ms
        else np.array([])
    )
    top = (
        int(np.nanargmax(peak_values))
        if len(peak_values) and np.any(np.isfinite(peak_values))
        else None
    )
    centre = p.peak_ms[top] if top is not None else int(sig.series.times_ms[0])
    half = int(max(p.sample_s, p.period_s / 4) * 1000)
    ratio = (
        "spikes well above a zero median"
        if not np.isfinite(p.spike_ratio)
        else f"spikes {p.spike_ratio:.1f}x the median"
    )
    details = f"autocorrelation {p.strength:.2f}, {p.cycles:.1f} cycles, {ratio}"
    if sig.strong:
        text = f"{sig.label} repeats every {p.period_s:.0f} s ({details})"
    else:
        text = f"{sig.label}: no clear period; best candidate {p.period_s:.0f} s ({details})"
    return Evidence(
        summary=text + _where(host),
        observed=round(p.period_s, 1),
        threshold=f"strength >= {PERIOD_STRENGTH_MIN}, spikes >= {SPIKE_RATIO_MIN}x, >= {MIN_CYCLES:.0f} cycles",
        unit="s",
        from_ms=centre - half,
        to_ms=centre + half,
        series=sig.name,
        labels={k: v for k, v in sig.series.labels.items() if k != "sum"},
        artifact=sig.series.artifact,
        host=host,
    )


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    results = _assess(data)
    if not results:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No connection count and no CPU, packet or queue series to look for a period in.",
            missing=list(MISSING),
            remedies=list(REMEDIES),
            parameters=params,
        )
    results.sort(key=lambda r: (_RANK[r.verdict], -(r.connections or 0.0), -len(r.agreeing)))
    worst = results[0]
    where = _where(worst.host)
    evidence: list[Evidence] = []
    if worst.connections is not None and worst.connections_series is not None:
        s = worst.connections_series
        peak = int(np.argmax(s.values))
        evidence.append(
            Evidence(
                summary=f"{fmt_count(worst.connections)} ESTABLISHED connections at most{where}",
                observed=worst.connections,
                threshold=MIN_CONNECTIONS,
                unit="connections",
                from_ms=int(s.times_ms[peak]),
                to_ms=int(s.times_ms[peak]),
                series=s.name,
                artifact=s.artifact,
                host=worst.host,
            )
        )
    shown = list(worst.agreeing)
    others = sorted(
        (sig for sig in worst.signals if sig not in shown),
        key=lambda x: -x.period.strength,
    )
    evidence.extend(_signal_evidence(sig, worst.host) for sig in shown)
    evidence.extend(_signal_evidence(sig, worst.host) for sig in others[:2])

    conn_text = (
        f"{fmt_count(worst.connections)} ESTABLISHED connections"
        if worst.connections is not None
        else "an unknown number of connections"
    )
    few = worst.connections is not None and worst.connections < MIN_CONNECTIONS
    if worst.agreeing:
        period = float(np.median([sig.period.period_s for sig in worst.agreeing]))
        families = " and ".join(sorted({sig.family for sig in worst.agreeing}))
        if few:
            summary = (
                f"Only {conn_text}{where} (threshold {fmt_count(MIN_CONNECTIONS)}), although "
                f"{families} spike every ~{period:.0f} s: too few connections for a heartbeat "
                "wave to matter."
            )
        else:
            summary = f"{conn_text}{where} and {families} spiking every ~{period:.0f} s."
    else:
        period = TYPICAL_HEARTBEAT_S
        best = max(worst.signals, key=lambda x: x.period.strength, default=None)
        if (
            worst.verdict == "ruled_out"
            and worst.connections is not None
            and worst.connections < MIN_CONNECTIONS
        ):
            summary = (
                f"Only {fmt_count(worst.connections)} ESTABLISHED connections at most{where} "
                f"(threshold {fmt_count(MIN_CONNECTIONS)})"
                + (
                    f"; strongest period {best.period.period_s:.0f} s in {best.label} "
                    f"(autocorrelation {best.period.strength:.2f})"
                    if best is not None
                    else ""
                )
                + "."
            )
        elif worst.verdict == "ruled_out":
            summary = (
                f"{conn_text}{where} but no CPU, packet or queue signal repeats between "
                f"{MIN_PERIOD_S:.0f} and {MAX_PERIOD_S:.0f} s ({worst.examined} series over "
                f"{worst.longest_s:.0f} s"
                + (
                    f"; strongest {best.period.period_s:.0f} s at {best.period.strength:.2f}, "
                    f"threshold {PERIOD_STRENGTH_MIN}"
                    if best is not None
                    else ""
                )
                + ")."
            )
        else:
            summary = (
                f"{conn_text[:1].upper()}{conn_text[1:]}{where}; "
                + (
                    f"the capture ({worst.longest_s:.0f} s) is too short to hold "
                    f"{MIN_CYCLES:.0f} heartbeat periods of {TYPICAL_HEARTBEAT_S:.0f} s"
                    if worst.examined
                    else "no CPU, packet or queue series to look for a period in"
                )
                + "."
            )
    summary = summary[:1].upper() + summary[1:]
    per_second = (worst.connections or 0.0) / period if period > 0 else 0.0
    explanation = (
        "Idle long connections are kept alive by heartbeats, one small packet each way per "
        "connection per interval. When thousands of connections share the same timer phase "
        "(they all reconnected at one restart), the provider's few I/O threads get the whole "
        "wave at once every period"
        + (
            f": {fmt_count(worst.connections or 0)} connections / {period:.0f} s = "
            f"~{per_second:.0f} heartbeats/s on average, arriving as one burst"
            if worst.connections
            else ""
        )
        + ". Requests landing in the burst queue behind it on the I/O threads, before "
        "processing and again before their reply is written. The field report behind this "
        "check: 7000 consumers, 60 s heartbeats, all 9 Netty workers busy every ~60 s with "
        "CPU and packet spikes, 2 s+ delays on both sides of the processing."
    )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=worst.verdict,  # type: ignore[arg-type]
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=list(REMEDIES),
        missing=list(MISSING) if worst.verdict == "insufficient_data" else [],
        parameters=params,
    )
