"""``accept_queue_overflow``: completed handshakes dropped because the accept queue was full.

Mechanism (DOMAIN.md report C, second failure). A listening socket queues completed
connections until the application calls ``accept()``; the queue holds
min(listen backlog, ``net.core.somaxconn``) entries (``ss -lnt`` shows that limit as the
LISTEN row's Send-Q and the current queue as its Recv-Q). When it is full the kernel drops
the client's final ACK and counts ``TcpExtListenOverflows`` / ``TcpExtListenDrops``; the client
believes it is connected while the server retries its SYN+ACK 5 times (1, 2, 4 ... s, about
31 s) and then forgets the connection, so the client's first request is answered by RST
(or at once, with ``net.ipv4.tcp_abort_on_overflow = 1``). In report C, 7000 consumers
reconnecting after a provider restart hit a queue of min(somaxconn 128, backlog 50) = 50:
1-2 minutes of RSTs while ESTABLISHED climbed slowly back.

Inputs: ``netstat.TcpExtListenOverflows`` and ``netstat.TcpExtListenDrops`` (``nstat -az``,
``netstat -s``, ``/proc/net/netstat``: absolute snapshots, increments or rates);
``tcp.listen.recvq`` / ``tcp.listen.backlog`` per listener (labels ``local``, ``port``:
``ss -lnt``; ``netstat -nat`` gives the queue without its limit); supporting counters
``TcpExtTCPSynRetrans`` and ``TcpOutRsts``; sysctl facts ``net.core.somaxconn``,
``net.ipv4.tcp_max_syn_backlog``, ``net.ipv4.tcp_abort_on_overflow``.

Thresholds (module constants, shown in each evidence item):

- ``OVERFLOWS_CONFIRMED`` = 10 overflows during the capture: each one costs a client at
  least a 1 s SYN+ACK retry, and ten are not a one-off.
- ``OVERFLOWS_LIKELY`` = 1: any overflow in the window is part of the signature.
- ``LISTEN_QUEUE_FULL_FRACTION`` = 1.0: a LISTEN socket whose Recv-Q reaches its backlog
  (the kernel overflows when the queue exceeds the limit, so ss shows up to backlog + 1).

Verdicts, per host, the worst host reported: ``confirmed`` when the overflow counter rose
by ``OVERFLOWS_CONFIRMED`` or more, or by at least one while a listener was seen full;
``likely`` when it rose by less, or a listener was full with no counters to tell;
``ruled_out`` when the counters were captured over two snapshots or more without rising
(or read 0 since boot) and no listener was full; ``insufficient_data`` otherwise (no
counters, or only a since-boot total that cannot be placed in time).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    CounterIncrements,
    by_host,
    counter_increments,
    fact_ints,
    fmt_count,
    host_fact,
    single_counter_value,
)

ID = "accept_queue_overflow"
TITLE = "Accept queue overflow"

# Ten dropped handshakes in the capture: each costs a client >= 1 s (SYN+ACK retry), not a one-off.
OVERFLOWS_CONFIRMED = 10
# Any overflow at all inside the incident window is part of the signature.
OVERFLOWS_LIKELY = 1
# Recv-Q of a LISTEN socket at (or past) its backlog: the queue is full.
LISTEN_QUEUE_FULL_FRACTION = 1.0

PARAMETERS = ["OVERFLOWS_CONFIRMED", "OVERFLOWS_LIKELY", "LISTEN_QUEUE_FULL_FRACTION"]

MISSING = [
    Missing(
        "kernel counters over time (ListenOverflows / ListenDrops)",
        'while sleep 1; do echo "=== $(date -Is) ==="; nstat -az; done > nstat.txt',
    ),
    Missing(
        "listening sockets (accept queue vs backlog)",
        'while sleep 1; do echo "=== $(date -Is) ==="; ss -lnt; done > ss-lnt.txt',
    ),
    Missing("listen queue limits", "sysctl net.core.somaxconn net.ipv4 > sysctl.txt"),
    Missing("everything at once", "rootline-collect.sh --interval 1 --duration 60"),
]

REMEDIES = [
    "Raise the kernel cap: sysctl -w net.core.somaxconn=4096 (containers have their own "
    "net namespace value: set it in the pod/container sysctls too).",
    "Raise the application's listen backlog, which defaults low: Netty "
    "ServerBootstrap.option(ChannelOption.SO_BACKLOG, 1024) (Dubbo 'accepts' limits "
    "connections, not the backlog); Tomcat acceptCount (default 100); Java "
    "new ServerSocket(port, backlog) (default 50); nginx listen ... backlog=.",
    "Accept faster: more acceptor/boss threads (Netty boss group, Tomcat acceptorThreadCount) "
    "and no blocking work on the accept loop.",
    "For SYN floods of reconnects: sysctl -w net.ipv4.tcp_max_syn_backlog=8192.",
    "Spread reconnects: clients reconnect with jittered back-off after a server restart, "
    "instead of all at once every 2 s.",
    "Optionally sysctl -w net.ipv4.tcp_abort_on_overflow=1 so clients get an immediate RST "
    "instead of a half-open connection they believe in (fail fast, then retry).",
]


@dataclass(slots=True)
class _Listener:
    host: str | None
    local: str
    port: str
    recvq: SeriesView
    backlog: SeriesView | None
    limit: float | None
    max_queue: float
    full_times: list[int] = field(default_factory=list)

    @property
    def snapshots(self) -> int:
        return len(self.recvq)


@dataclass(slots=True)
class _HostResult:
    host: str | None
    verdict: str
    overflows: CounterIncrements | None
    overflow_count: float | None
    counter_name: str
    since_boot: float | None
    listeners: list[_Listener]
    full: list[_Listener]


def _listeners(data: IncidentData) -> dict[str | None, list[_Listener]]:
    backlogs: dict[tuple[str | None, str, str], SeriesView] = {}
    for s in data.series("tcp.listen.backlog"):
        if s.name == "tcp.listen.backlog" and len(s):
            backlogs[(s.host, s.labels.get("local", ""), s.labels.get("port", ""))] = s
    out: dict[str | None, list[_Listener]] = {}
    for host, items in by_host(
        s for s in data.series("tcp.listen.recvq") if s.name == "tcp.listen.recvq"
    ).items():
        listeners = []
        for s in items:
            if not len(s):
                continue
            key = (host, s.labels.get("local", ""), s.labels.get("port", ""))
            backlog = backlogs.get(key)
            limit = float(np.max(backlog.values)) if backlog is not None else None
            listener = _Listener(
                host=host,
                local=key[1],
                port=key[2],
                recvq=s,
                backlog=backlog,
                limit=limit,
                max_queue=float(np.max(s.values)),
            )
            if backlog is not None:
                # the limit at each queue snapshot (same ss snapshot, so same times)
                idx = np.clip(
                    np.searchsorted(backlog.times_ms, s.times_ms, side="right") - 1, 0, None
                )
                limits = backlog.values[idx]
                full = (limits > 0) & (s.values >= LISTEN_QUEUE_FULL_FRACTION * limits)
                listener.full_times = [int(t) for t in s.times_ms[full]]
            listeners.append(listener)
        out[host] = listeners
    return out


def _assess(data: IncidentData) -> list[_HostResult]:
    overflow_counters = counter_increments(data, "TcpExtListenOverflows")
    drop_counters = counter_increments(data, "TcpExtListenDrops")
    since_boot = single_counter_value(data, "TcpExtListenOverflows")
    since_boot_drops = single_counter_value(data, "TcpExtListenDrops")
    listeners = _listeners(data)
    hosts = set(overflow_counters) | set(drop_counters) | set(listeners) | set(since_boot)
    hosts |= set(since_boot_drops)
    results = []
    for host in sorted(hosts, key=lambda h: h or ""):
        inc = overflow_counters.get(host)
        name = "TcpExtListenOverflows"
        if inc is None:
            inc = drop_counters.get(host)
            name = "TcpExtListenDrops"
        count = inc.total if inc is not None else None
        boot = since_boot.get(host)
        if inc is None and boot is None and host in since_boot_drops:
            boot = since_boot_drops[host]
        elif inc is None:
            name = "TcpExtListenOverflows"
        host_listeners = listeners.get(host, [])
        full = [item for item in host_listeners if item.full_times]
        if count is not None:
            if count >= OVERFLOWS_CONFIRMED or (count >= OVERFLOWS_LIKELY and full):
                verdict = "confirmed"
            elif count >= OVERFLOWS_LIKELY or full:
                verdict = "likely"
            else:
                verdict = "ruled_out"
        elif full:
            verdict = "likely"
        elif boot is not None and boot == 0:
            verdict = "ruled_out"
        else:
            verdict = "insufficient_data"
        results.append(_HostResult(host, verdict, inc, count, name, boot, host_listeners, full))
    return results


_RANK = {"confirmed": 0, "likely": 1, "ruled_out": 2, "insufficient_data": 3}


def _where(host: str | None) -> str:
    return f" on host {host}" if host else ""


def _counter_evidence(r: _HostResult) -> list[Evidence]:
    inc = r.overflows
    if inc is None or r.overflow_count is None:
        if r.since_boot is None:
            return []
        return [
            Evidence(
                summary=(
                    f"{r.counter_name} = {fmt_count(r.since_boot)} since boot{_where(r.host)} "
                    "(one snapshot: when they happened is unknown)"
                ),
                observed=r.since_boot,
                threshold=OVERFLOWS_CONFIRMED,
                unit="count",
                series=None,
                host=r.host,
            )
        ]
    moved = np.nonzero(inc.increments > 0)[0]
    if len(moved):
        start = int(inc.end_ms[moved[0]] - inc.interval_s[moved[0]] * 1000)
        end = int(inc.end_ms[moved[-1]])
        rates = inc.increments / np.maximum(inc.interval_s, 1e-9)
        peak = int(np.argmax(rates))
        text = (
            f"{r.counter_name} rose by {fmt_count(r.overflow_count)} over "
            f"{inc.seconds:.0f} s{_where(r.host)}, in {len(moved)} of {len(inc)} intervals, "
            f"peaking at {rates[peak]:.1f}/s"
        )
    else:
        start, end = int(inc.end_ms[0] - inc.interval_s[0] * 1000), int(inc.end_ms[-1])
        text = (
            f"{r.counter_name} did not move over {len(inc) + 1} snapshots "
            f"({inc.seconds:.0f} s){_where(r.host)}"
        )
    return [
        Evidence(
            summary=text,
            observed=r.overflow_count,
            threshold=OVERFLOWS_CONFIRMED,
            unit="count",
            from_ms=start,
            to_ms=end,
            series=inc.source.name,
            artifact=inc.source.artifact,
            host=r.host,
        )
    ]


def _listener_evidence(item: _Listener) -> Evidence:
    if item.full_times:
        text = (
            f"listener {item.local} (port {item.port}) had {fmt_count(item.max_queue)} "
            f"connections waiting for accept() with a backlog of {fmt_count(item.limit or 0)}: "
            f"full in {len(item.full_times)} of {item.snapshots} snapshots"
        )
        start, end = item.full_times[0], item.full_times[-1]
    else:
        limit = f" of a backlog of {fmt_count(item.limit)}" if item.limit is not None else ""
        text = (
            f"listener {item.local} (port {item.port}): at most {fmt_count(item.max_queue)} "
            f"connections waiting{limit} over {item.snapshots} snapshots"
        )
        peak = int(np.argmax(item.recvq.values))
        start = end = int(item.recvq.times_ms[peak])
    return Evidence(
        summary=text,
        observed=item.max_queue,
        threshold=item.limit * LISTEN_QUEUE_FULL_FRACTION if item.limit is not None else None,
        unit="connections",
        from_ms=start,
        to_ms=end,
        series="tcp.listen.recvq",
        labels=dict(item.recvq.labels),
        artifact=item.recvq.artifact,
        host=item.host,
    )


def _supporting(data: IncidentData, r: _HostResult) -> list[Evidence]:
    items: list[Evidence] = []
    if r.overflows is None:
        return items
    moved = np.nonzero(r.overflows.increments > 0)[0]
    if not len(moved):
        return items
    start = int(r.overflows.end_ms[moved[0]] - r.overflows.interval_s[moved[0]] * 1000)
    end = int(r.overflows.end_ms[moved[-1]])
    for counter, meaning in (
        ("TcpExtTCPSynRetrans", "SYN / SYN+ACK retransmissions"),
        ("TcpOutRsts", "RSTs sent"),
    ):
        inc = counter_increments(data, counter).get(r.host)
        if inc is None:
            continue
        inside = (inc.end_ms >= start) & (inc.end_ms <= end)
        total = float(np.sum(inc.increments[inside]))
        if total <= 0:
            continue
        items.append(
            Evidence(
                summary=f"{fmt_count(total)} {meaning} ({counter}) while the queue overflowed",
                observed=total,
                unit="count",
                from_ms=start,
                to_ms=end,
                series=inc.source.name,
                artifact=inc.source.artifact,
                host=r.host,
            )
        )
    return items


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    results = _assess(data)
    if not results:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No listen-queue counters (ListenOverflows) and no listening sockets in the capture.",
            missing=list(MISSING),
            remedies=list(REMEDIES),
            parameters=params,
        )
    results.sort(key=lambda r: (_RANK[r.verdict], -(r.overflow_count or 0), -len(r.full)))
    worst = results[0]
    evidence = _counter_evidence(worst)
    ranked = sorted(
        worst.listeners,
        key=lambda item: (
            -len(item.full_times),
            -(item.max_queue / item.limit if item.limit else 0.0),
            -item.max_queue,
        ),
    )
    evidence.extend(_listener_evidence(item) for item in ranked[:3])
    evidence.extend(_supporting(data, worst))
    for other in results[1:5]:
        evidence.extend(_counter_evidence(other)[:1])

    somaxconn = fact_ints(host_fact(data, "net.core.somaxconn", worst.host))
    abort = fact_ints(host_fact(data, "net.ipv4.tcp_abort_on_overflow", worst.host))
    syn_backlog = fact_ints(host_fact(data, "net.ipv4.tcp_max_syn_backlog", worst.host))
    limit_text = ""
    top = ranked[0] if ranked else None
    if top is not None and top.limit is not None:
        if somaxconn:
            capped = (
                "net.core.somaxconn caps it"
                if top.limit >= somaxconn[0]
                else ("the application's listen backlog is the limit")
            )
            limit_text = (
                f" Port {top.port}'s queue holds min(listen backlog, somaxconn "
                f"{fmt_count(somaxconn[0])}) = {fmt_count(top.limit)}: {capped}."
            )
            evidence.append(
                Evidence(
                    summary=(
                        f"port {top.port}: accept queue limit {fmt_count(top.limit)} vs "
                        f"net.core.somaxconn = {fmt_count(somaxconn[0])}"
                    ),
                    observed=top.limit,
                    threshold=somaxconn[0],
                    unit="connections",
                    host=worst.host,
                )
            )
        else:
            limit_text = f" Port {top.port}'s accept queue holds {fmt_count(top.limit)}."

    where = _where(worst.host)
    if worst.verdict in ("confirmed", "likely"):
        parts = []
        if worst.overflow_count is not None:
            parts.append(
                f"the accept queue overflowed {fmt_count(worst.overflow_count)} times"
                f" ({worst.counter_name}) during the capture{where}"
            )
        if worst.full:
            item = max(worst.full, key=lambda x: len(x.full_times))
            parts.append(
                f"port {item.port} had {fmt_count(item.max_queue)} queued on a backlog of "
                f"{fmt_count(item.limit or 0)} in {len(item.full_times)} of {item.snapshots} "
                "snapshots"
            )
        joined = "; ".join(parts)
        summary = joined[:1].upper() + joined[1:] + "."
    elif worst.verdict == "ruled_out":
        if worst.overflows is not None:
            summary = (
                f"{worst.counter_name} stayed flat over {len(worst.overflows) + 1} snapshots "
                f"({worst.overflows.seconds:.0f} s){where}"
            )
        else:
            summary = f"{worst.counter_name} is 0 since boot{where}"
        if worst.listeners:
            fullest = max(
                worst.listeners,
                key=lambda x: x.max_queue / x.limit if x.limit else 0.0,
            )
            summary += (
                f"; no listener reached its backlog (fullest: port {fullest.port} with "
                f"{fmt_count(fullest.max_queue)}"
                + (f" of {fmt_count(fullest.limit)}" if fullest.limit is not None else "")
                + ")"
            )
        summary += "."
    else:
        summary = (
            "Listen-queue overflows cannot be placed in time: "
            + (
                f"{worst.counter_name} = {fmt_count(worst.since_boot)} since boot from one snapshot"
                if worst.since_boot is not None
                else "no ListenOverflows counters"
            )
            + (
                f", and none of {len(worst.listeners)} listeners was full in the ss snapshots"
                if worst.listeners
                else ""
            )
            + "."
        )

    explanation = (
        "A listening socket keeps completed handshakes in its accept queue until the "
        "application calls accept(); the queue holds min(listen backlog, net.core.somaxconn)."
        + limit_text
        + " When it is full the kernel drops the client's final ACK and counts "
        "ListenOverflows; the client thinks it is connected while the server resends its "
        "SYN+ACK 5 times (1, 2, 4 ... s, ~31 s) and then drops the connection, so the "
        "client's first request meets an RST or a timeout."
        + (
            " tcp_abort_on_overflow = 1 here: overflowing clients get an RST at once."
            if abort and abort[0] == 1
            else ""
        )
        + (f" tcp_max_syn_backlog = {syn_backlog[0]}." if syn_backlog else "")
        + " In the field report behind this check, 7000 consumers reconnecting after a "
        "restart hit a queue of min(128, 50) = 50 and saw 1-2 minutes of RSTs."
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
