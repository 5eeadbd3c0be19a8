"""One long connection carries the load (DOMAIN.md report A).

Mechanism: Dubbo's default protocol (and many Netty RPC stacks) multiplexes every request
between a consumer and a provider over ONE long connection (``connections=1``), and each
connection is bound to one I/O thread. Past a few megabytes per second (Dubbo's FAQ: ~7 MB/s
per connection) that thread, or the connection's buffers, are the bottleneck: requests wait
in the socket queues (Send-Q on the writer, Recv-Q on the reader), response time balloons,
while CPU stays low (report A: provider CPU peaked at 66 %, pool of 500 at 300) and the
pool's intake alternates between 0 and bursts as the stalled connection drains.

Inputs: ``ss`` snapshots (per connection ``tcp.conn.sendq.bytes`` / ``recvq.bytes``, presence
from ``rtt_ms`` / ``skmem_rb``; listening ports from ``tcp.listen.*``), thread-pool metrics
(``threadpool.active``, ``threadpool.completed_per_s``), nmon CPU (``cpu.user_pct`` +
``cpu.sys_pct``).

Connections are grouped per host and service: on the serving side by (local port, peer
address), on the calling side by (peer address:port). A group of at most
FEW_CONNECTIONS_MAX connections whose Send-Q or Recv-Q is non-zero in at least
QUEUE_BUSY_MIN_SHARE of its snapshots (at least MIN_SNAPSHOTS) has the queue signature.

``confirmed``: queue signature, and concurrency high (peak ``threadpool.active`` per connection
of the group >= ACTIVE_PER_CONNECTION_MIN), and CPU low (median of user+sys <=
CPU_LOW_MAX_PCT), or, without CPU data, the pool's intake alternating (share of zero
seconds >= INTAKE_ZERO_MIN_SHARE and coefficient of variation >= INTAKE_CV_MIN).
``likely``: the queue signature while the concurrency or CPU data are missing, or CPU is high.
``ruled_out``: ss data was there and no few-connection group kept its queues busy, or the
pool shows too little concurrency for one connection to matter.
``insufficient_data``: no per-connection ss data.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

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
    coefficient_of_variation,
    connection_series,
    exact_values_at,
    fmt_pct,
    longest_true_span,
    split_endpoint,
)

ID = "single_connection_bottleneck"
TITLE = "One long connection carries the load"

# Report A: one connection per consumer-provider pair (Dubbo connections=1); 2 connections
# with 32 KB buffers already halved the response time (430 -> 205 ms): "few" is 1 or 2.
FEW_CONNECTIONS_MAX = 2
# Queues are normally empty at a random instant; non-zero in half of the snapshots is a jam.
QUEUE_BUSY_MIN_SHARE = 0.5
MIN_SNAPSHOTS = 3
# Report A: 300 busy business threads (800 client threads in the lab) behind one connection.
# 32 requests in flight per connection is far past what one I/O thread interleaves smoothly
# and well below the reports' figures.
ACTIVE_PER_CONNECTION_MIN = 32.0
# Report A: provider CPU peaked at 66 % (8 vCPU) and 40 % during the jam: "low" is below 70 %.
# Judged on the median sample: the question is whether the host had headroom through the
# jam, and on a small (2-core lab) or shared host single samples spike to 90 % regardless.
CPU_LOW_MAX_PCT = 70.0
CPU_PERCENTILE = 50.0
# Report A: intake per second "alternated between 0 and large bursts" (never 0 in daytime).
INTAKE_ZERO_MIN_SHARE = 0.2
INTAKE_CV_MIN = 1.0

PARAMETERS = [
    "FEW_CONNECTIONS_MAX",
    "QUEUE_BUSY_MIN_SHARE",
    "MIN_SNAPSHOTS",
    "ACTIVE_PER_CONNECTION_MIN",
    "CPU_LOW_MAX_PCT",
    "CPU_PERCENTILE",
    "INTAKE_ZERO_MIN_SHARE",
    "INTAKE_CV_MIN",
]

PRESENCE_FIELDS = ("recvq.bytes", "sendq.bytes", "rtt_ms", "skmem_rb", "cwnd")

MISSING_SS = Missing(
    "ss loop (per-connection Send-Q / Recv-Q)",
    'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
)
MISSING_POOL = Missing(
    "thread-pool metrics (active, max, completed per second)",
    "log ThreadPoolExecutor getActiveCount/getMaximumPoolSize/getCompletedTaskCount every"
    " second as CSV (timestamp_ms,pool,active,max,queue,completed,rejected), or Dubbo's"
    " `status` telnet command / Micrometer executor metrics",
)
MISSING_CPU = Missing("nmon CPU", "nmon -f -t -s 1 -c 120   # or rootline-collect.sh --nmon")


REMEDIES = [
    "Open more connections per consumer-provider pair: Dubbo"
    ' <dubbo:reference connections="4"/> (at least the CPU core count), or a'
    " connection pool in the RPC/HTTP client (JDK http.maxConnections, Netty channel pool).",
    'More I/O threads to serve them: Dubbo <dubbo:protocol iothreads="..."/> (default'
    " cores+1), Netty worker group size.",
    "Keep socket buffers large enough (net.ipv4.tcp_wmem / tcp_rmem max 4 MB or more; no"
    " small SO_SNDBUF/SO_RCVBUF); Dubbo `payload` limits and smaller responses for large"
    " replies.",
    "Size the business pool for the drain after a jam (Dubbo `threads`, `queues`,"
    " dispatcher=message) so a backlog does not become rejections.",
]


@dataclass(slots=True)
class _Group:
    host: str | None
    label: str
    connections: list[ConnectionKey] = field(default_factory=list)
    snapshots: int = 0
    busy_snapshots: int = 0
    best_snapshots: int = 0
    best_key: ConnectionKey | None = None
    best_share: float = 0.0
    best_series: str = "tcp.conn.recvq.bytes"
    span: tuple[int, int] | None = None
    peak_queue: float = 0.0
    artifact: str | None = None

    @property
    def few(self) -> bool:
        return len(self.connections) <= FEW_CONNECTIONS_MAX

    @property
    def queue_signature(self) -> bool:
        return (
            self.few
            and self.busy_snapshots >= MIN_SNAPSHOTS
            and self.best_share >= QUEUE_BUSY_MIN_SHARE
        )


def _listening_ports(data: IncidentData) -> dict[str | None, set[int]]:
    ports: dict[str | None, set[int]] = defaultdict(set)
    for series in data.series("tcp.listen.backlog"):
        port = series.labels.get("port")
        if port is None and "local" in series.labels:
            port = str(split_endpoint(series.labels["local"])[1] or "")
        if port and port.isdigit():
            ports[series.host].add(int(port))
    return ports


def _groups(data: IncidentData) -> list[_Group]:
    table = connection_series(data, PRESENCE_FIELDS)
    listening = _listening_ports(data)
    groups: dict[tuple[str | None, str], _Group] = {}
    for key, row in table.items():
        host, local, peer = key
        _, local_port = split_endpoint(local)
        peer_addr, peer_port = split_endpoint(peer)
        host_ports = listening.get(host, set())
        serving = local_port in host_ports or (
            not host_ports
            and local_port is not None
            and peer_port is not None
            and local_port < peer_port
        )
        label = f"{peer_addr} -> local :{local_port}" if serving else f"-> {peer_addr}:{peer_port}"
        group = groups.setdefault((host, label), _Group(host=host, label=label))
        group.connections.append(key)
        anchor = max(row.values(), key=len)
        times = anchor.times_ms
        sendq = (
            exact_values_at(row["sendq.bytes"], times, 0.0)
            if "sendq.bytes" in row
            else np.zeros(len(times))
        )
        recvq = (
            exact_values_at(row["recvq.bytes"], times, 0.0)
            if "recvq.bytes" in row
            else np.zeros(len(times))
        )
        busy = (sendq > 0) | (recvq > 0)
        share = float(busy.mean()) if len(busy) else 0.0
        group.snapshots += len(times)
        if share > group.best_share or group.best_key is None:
            group.best_key = key
            group.best_share = share
            group.busy_snapshots = int(busy.sum())
            group.best_snapshots = len(times)
            group.best_series = (
                "tcp.conn.recvq.bytes" if recvq.sum() >= sendq.sum() else "tcp.conn.sendq.bytes"
            )
            group.span = longest_true_span(times, busy)
            group.peak_queue = float(max(recvq.max(initial=0.0), sendq.max(initial=0.0)))
            group.artifact = anchor.artifact
    return list(groups.values())


def _pick_host(series: list[SeriesView], host: str | None) -> list[SeriesView]:
    own = [s for s in series if s.host == host]
    return own or [s for s in series if s.host is None] or series


def _pool_concurrency(data: IncidentData, host: str | None) -> tuple[float, SeriesView] | None:
    series = _pick_host(list(data.series("threadpool.active")), host)
    series = [s for s in series if len(s)]
    if not series:
        return None
    top = max(series, key=lambda s: float(np.max(s.values)))
    return float(np.max(top.values)), top


def _intake(data: IncidentData, host: str | None) -> tuple[float, float, SeriesView] | None:
    """(share of zero-intake samples, coefficient of variation, series) of the busiest pool."""
    series = [
        s for s in _pick_host(list(data.series("threadpool.completed_per_s")), host) if len(s)
    ]
    if not series:
        return None
    top = max(series, key=lambda s: float(np.sum(s.values)))
    values = top.values
    if not len(values) or float(np.sum(values)) <= 0:
        return None
    # Judge the part of the capture with traffic: from the first to the last non-zero sample.
    nonzero = np.flatnonzero(values > 0)
    window = values[nonzero[0] : nonzero[-1] + 1]
    zero_share = float(np.mean(window == 0))
    cv = coefficient_of_variation(window) or 0.0
    return zero_share, cv, top


def _cpu(data: IncidentData, host: str | None) -> tuple[float, SeriesView] | None:
    users = [s for s in data.series("cpu.user_pct") if len(s)]
    if not users:
        return None
    user = _pick_host(users, host)[0]
    systems = [s for s in data.series("cpu.sys_pct", host=user.host) if len(s)]
    busy = user.values.copy()
    if systems:
        busy = busy + exact_values_at(systems[0], user.times_ms, 0.0)
    return float(np.percentile(busy, CPU_PERCENTILE)), user


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    groups = _groups(data)
    if not groups:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No per-connection socket data (ss -tinm / ss -tan with queues) was"
            " captured, so connections per peer and their queues are unknown.",
            missing=[MISSING_SS, MISSING_POOL, MISSING_CPU],
            remedies=REMEDIES,
            parameters=params,
        )
    groups.sort(key=lambda g: (g.queue_signature, g.few, g.best_share), reverse=True)
    group = groups[0]
    evidence = [_queue_evidence(group)]
    if not group.queue_signature:
        few = [g for g in groups if g.few]
        best_few = max((g.best_share for g in few), default=0.0)
        spread = [g for g in groups if not g.few and g.best_share >= QUEUE_BUSY_MIN_SHARE]
        reason = (
            f"Send-Q/Recv-Q was non-zero in at most {best_few:.0%} of snapshots on a peer's"
            f" only {FEW_CONNECTIONS_MAX} or fewer connections (threshold"
            f" {QUEUE_BUSY_MIN_SHARE:.0%})"
            if few
            else f"every peer used more than {FEW_CONNECTIONS_MAX} connections"
        )
        if spread:
            reason += (
                f"; where queues stayed busy the load was spread over"
                f" {max(len(g.connections) for g in spread)} connections"
            )
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary=f"No peer was squeezed through one or two connections: {reason}; over"
            f" {len(groups)} peer groups and {sum(len(g.connections) for g in groups)}"
            " connections.",
            evidence=evidence,
            explanation="One multiplexed connection becomes the bottleneck when requests queue"
            " in its socket buffers faster than its single I/O thread moves them; the queues"
            " then stay non-zero on that one connection. That was not seen here.",
            remedies=REMEDIES,
            parameters=params,
        )

    connections = len(group.connections)
    concurrency = _pool_concurrency(data, group.host)
    cpu = _cpu(data, group.host)
    intake = _intake(data, group.host)
    missing: list[Missing] = []
    per_connection = None
    if concurrency is not None:
        peak, pool_series = concurrency
        per_connection = peak / connections
        peak_at = int(pool_series.times_ms[int(np.argmax(pool_series.values))])
        evidence.append(
            Evidence(
                summary=f"pool {pool_series.labels.get('pool', '?')} peaked at {peak:.0f} active"
                f" threads = {per_connection:.0f} per connection of the group",
                observed=round(per_connection, 1),
                threshold=ACTIVE_PER_CONNECTION_MIN,
                unit="threads per connection",
                from_ms=peak_at,
                to_ms=peak_at,
                series="threadpool.active",
                labels=dict(pool_series.labels),
                artifact=pool_series.artifact,
                host=pool_series.host,
            )
        )
    else:
        missing.append(MISSING_POOL)
    if cpu is not None:
        cpu_p, cpu_series = cpu
        evidence.append(
            Evidence(
                summary=f"CPU user+sys p{CPU_PERCENTILE:.0f} (median) {fmt_pct(cpu_p)} over the capture",
                observed=round(cpu_p, 1),
                threshold=CPU_LOW_MAX_PCT,
                unit="percent",
                from_ms=int(cpu_series.times_ms[0]),
                to_ms=int(cpu_series.times_ms[-1]),
                series="cpu.user_pct",
                labels=dict(cpu_series.labels),
                artifact=cpu_series.artifact,
                host=cpu_series.host,
            )
        )
    else:
        missing.append(MISSING_CPU)
    alternating = False
    if intake is not None:
        zero_share, cv, intake_series = intake
        alternating = zero_share >= INTAKE_ZERO_MIN_SHARE and cv >= INTAKE_CV_MIN
        evidence.append(
            Evidence(
                summary=f"pool intake per second: zero in {zero_share:.0%} of samples, coefficient"
                f" of variation {cv:.2f}"
                + (" (alternating between 0 and bursts)" if alternating else ""),
                observed=round(cv, 2),
                threshold=INTAKE_CV_MIN,
                unit="cv",
                from_ms=int(intake_series.times_ms[0]),
                to_ms=int(intake_series.times_ms[-1]),
                series="threadpool.completed_per_s",
                labels=dict(intake_series.labels),
                artifact=intake_series.artifact,
                host=intake_series.host,
            )
        )

    high_concurrency = per_connection is not None and per_connection >= ACTIVE_PER_CONNECTION_MIN
    cpu_low = cpu is not None and cpu[0] <= CPU_LOW_MAX_PCT
    where = f"{group.label}{f' on {group.host}' if group.host else ''}"
    head = (
        f"{connections} connection{'s' if connections > 1 else ''} ({where}) had Send-Q/Recv-Q"
        f" non-zero in {group.best_share:.0%} of snapshots (peak {group.peak_queue:.0f} bytes)"
    )
    if per_connection is not None and not high_concurrency:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary=f"{head}, but the pool peaked at only {per_connection:.0f} active threads per"
            f" connection (threshold {ACTIVE_PER_CONNECTION_MIN:.0f}): too few requests share"
            " it for the connection to be the bottleneck.",
            evidence=evidence,
            explanation="The queue is a transfer's, not many multiplexed requests'; see"
            " small_send_buffer and receiver_not_reading for a connection held back by its"
            " buffers or its reader.",
            remedies=REMEDIES,
            parameters=params,
        )
    confirmed = high_concurrency and (cpu_low or (cpu is None and alternating))
    verdict: Verdict = "confirmed" if confirmed else "likely"
    parts = [head]
    if per_connection is not None:
        parts.append(f"{per_connection:.0f} active pool threads per connection")
    if cpu is not None:
        parts.append(f"CPU p{CPU_PERCENTILE:.0f} {fmt_pct(cpu[0])}")
    if intake is not None and alternating:
        parts.append(f"pool intake zero in {intake[0]:.0%} of seconds")
    summary = ", ".join(parts) + "."
    if cpu is not None and not cpu_low:
        summary += " CPU was high too, so it may be the limit instead (see cpu_saturation)."
    explanation = (
        "RPC stacks such as Dubbo multiplex all requests between two hosts over one long"
        " connection bound to one I/O thread (Netty NioWorker); when it cannot keep up, or its"
        " socket buffer is full (the write spins writeSpinCount=16 times, then waits for"
        " OP_WRITE), everything queued behind it waits. Here "
        + head
        + (
            f" while {concurrency[0]:.0f} requests were in the pool at the peak"
            if concurrency is not None
            else ""
        )
        + (f" and CPU stayed at p{CPU_PERCENTILE:.0f} {fmt_pct(cpu[0])}" if cpu is not None else "")
        + ": the connection, not the hosts, was the limit. Report A's lab: 800 threads over"
        " 1 connection answered in 430 ms, over 4 connections in 160 ms."
    )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=REMEDIES,
        missing=missing if verdict != "confirmed" else [],
        parameters=params,
    )


def _queue_evidence(group: _Group) -> Evidence:
    key = group.best_key
    labels = {"local": key[1], "peer": key[2]} if key else {}
    span = group.span
    return Evidence(
        summary=f"{len(group.connections)} connection(s) {group.label}: queue non-zero in"
        f" {group.busy_snapshots} of {group.best_snapshots} snapshots",
        observed=round(group.best_share, 3),
        threshold=QUEUE_BUSY_MIN_SHARE,
        unit="share of snapshots",
        from_ms=span[0] if span else None,
        to_ms=span[1] if span else None,
        series=group.best_series,
        labels=labels,
        artifact=group.artifact,
        host=group.host,
    )
