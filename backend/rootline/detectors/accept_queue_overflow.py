"""Quantities of ``accept_queue_overflow`` (rule: ``rules/accept_queue_overflow.toml``), per host.

Inputs: the kernel's own count of the event, ``TcpExtListenOverflows`` (else
``TcpExtListenDrops``), read from one source per host (:func:`counter_increments`: never
``nstat`` + ``netstat -s`` summed), or a since-boot value when captured once; the listening
sockets of ``ss -lnt`` (``tcp.listen.recvq``: the accept queue now; ``tcp.listen.backlog``: the
LISTEN row's Send-Q, the queue's limit, min(application backlog, somaxconn)); that host's
sysctl facts only (:func:`host_fact`: the client's somaxconn says nothing of the server's
queue): ``net.core.somaxconn``, ``net.ipv4.tcp_abort_on_overflow``; supporting counters
``TcpExtTCPSynRetrans`` and ``TcpOutRsts``.

Quantities:

- ``overflows``: how many completed handshakes the kernel dropped during the capture
  (``overflow_counter`` names the counter), ``counter_snapshots`` / ``counter_s``;
  ``since_boot`` when only a single reading exists;
- the fullest listener of the host: ``listen_port``, ``max_queue`` (peak Recv-Q),
  ``queue_limit`` (its Send-Q), ``full_snapshots`` (Recv-Q at or past the limit) of
  ``listen_snapshots``, taken every ``listen_interval_s`` over ``listen_s`` (absent for a
  single listing); ``max_queue_share``: the highest peak Recv-Q over its limit of any listener
  of the host (a LISTEN queue seen empty in one snapshot says nothing of a burst: only a loop
  rules an overflow out, or the counter);
- ``somaxconn`` (this host's), ``queue_cap``: which of the two limits the queue's
  ``queue_limit`` is (``the application's listen backlog`` when below somaxconn);
- ``syn_retrans``, ``out_rsts``, ``abort_on_overflow``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    CounterIncrements,
    by_host,
    counter_increments,
    fact_ints,
    host_fact,
    host_measurement,
    single_counter_value,
    typical_interval_ms,
    values_at,
)

_NAMES = (
    "overflows", "overflow_counter", "counter_snapshots", "counter_s", "since_boot",
    "listen_port", "max_queue", "queue_limit", "full_snapshots", "listen_snapshots",
    "listeners", "listen_s", "listen_interval_s", "max_queue_share",
    "somaxconn", "queue_cap", "syn_retrans", "out_rsts", "abort_on_overflow",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Listener:
    port: str
    recvq: SeriesView
    limit: float | None
    full: np.ndarray  # bool per Recv-Q snapshot


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    overflows = counter_increments(data, "TcpExtListenOverflows")
    drops = counter_increments(data, "TcpExtListenDrops")
    boot = single_counter_value(data, "TcpExtListenOverflows")
    boot_drops = single_counter_value(data, "TcpExtListenDrops")
    syn_retrans = counter_increments(data, "TcpExtTCPSynRetrans")
    out_rsts = counter_increments(data, "TcpOutRsts")
    listeners = _listeners(data, float(params["queue_full_ratio"]))
    hosts = set(overflows) | set(drops) | set(listeners) | set(boot) | set(boot_drops)
    out = []
    for host in sorted(hosts, key=lambda h: h or ""):
        values: dict[str, float | int | str | bool | None] = dict.fromkeys(_NAMES)
        anchors: dict[str, Anchor] = {}
        default = Anchor(host=host)
        inc, name = overflows.get(host), "TcpExtListenOverflows"
        if inc is None:
            inc, name = drops.get(host), "TcpExtListenDrops"
        values["overflow_counter"] = name
        if inc is not None:
            values["overflows"] = inc.total
            values["counter_snapshots"] = len(inc) + 1
            values["counter_s"] = inc.seconds
            default = anchors["overflows"] = _counter_anchor(inc, host)
        else:
            since = boot.get(host, boot_drops.get(host))
            values["since_boot"] = since
        for key, counter in (("syn_retrans", syn_retrans), ("out_rsts", out_rsts)):
            if host in counter:
                values[key] = counter[host].total
        host_listeners = listeners.get(host, [])
        if host_listeners:
            worst = max(
                host_listeners,
                key=lambda x: (int(x.full.sum()), float(np.max(x.recvq.values)), x.port),
            )
            values.update(
                listen_port=worst.port,
                max_queue=float(np.max(worst.recvq.values)),
                queue_limit=worst.limit,
                full_snapshots=int(worst.full.sum()) if worst.limit is not None else None,
                listen_snapshots=len(worst.recvq),
                listeners=len(host_listeners),
            )
            # How the listing was sampled: a few snapshots see a drained queue; a loop every
            # second or two across a reconnect sees a burst that fills it (see the rule).
            instants = np.unique(worst.recvq.times_ms)
            if len(instants) > 1:
                values["listen_s"] = float(instants[-1] - instants[0]) / 1000.0
                values["listen_interval_s"] = typical_interval_ms(instants) / 1000.0
            shares = [
                float(np.max(x.recvq.values)) / x.limit
                for x in host_listeners
                if x.limit is not None and x.limit > 0
            ]
            if shares:
                values["max_queue_share"] = max(shares)
            times = worst.recvq.times_ms
            full_times = times[worst.full] if worst.full.any() else times
            anchors["full_snapshots"] = Anchor(
                "tcp.listen.recvq",
                dict(worst.recvq.labels),
                int(full_times[0]),
                int(full_times[-1]),
                host,
                worst.recvq.artifact,
            )
            if inc is None:
                default = anchors["full_snapshots"]
        somaxconn_fact = host_fact(data, "net.core.somaxconn", host)
        somaxconn = fact_ints(somaxconn_fact)
        if somaxconn:
            values["somaxconn"] = somaxconn[0]
            anchors["somaxconn"] = Anchor(
                None, {}, None, None, host, somaxconn_fact.artifact if somaxconn_fact else None
            )
            limit = values["queue_limit"]
            if isinstance(limit, float):
                values["queue_cap"] = (
                    "net.core.somaxconn"
                    if limit >= somaxconn[0]
                    else "the application's listen backlog"
                )
        abort = fact_ints(host_fact(data, "net.ipv4.tcp_abort_on_overflow", host))
        if abort:
            values["abort_on_overflow"] = abort[0]
        out.append(host_measurement(host, values, anchor=default, anchors=anchors))
    return out


def _counter_anchor(inc: CounterIncrements, host: str | None) -> Anchor:
    """The intervals in which the counter rose (the whole capture when it never did)."""
    moved = np.flatnonzero(inc.increments > 0)
    first, last = (int(moved[0]), int(moved[-1])) if len(moved) else (0, len(inc) - 1)
    start = int(inc.end_ms[first] - inc.interval_s[first] * 1000)
    return Anchor(inc.source.name, {}, start, int(inc.end_ms[last]), host, inc.source.artifact)


def _listeners(data: IncidentData, full_ratio: float) -> dict[str | None, list[_Listener]]:
    """Per host, each LISTEN socket's queue and the limit ss printed beside it."""
    backlogs: dict[tuple[str | None, str, str], SeriesView] = {}
    for s in data.series("tcp.listen.backlog"):
        if s.name == "tcp.listen.backlog" and len(s):
            backlogs[(s.host, s.labels.get("local", ""), s.labels.get("port", ""))] = s
    out: dict[str | None, list[_Listener]] = {}
    queues = [s for s in data.series("tcp.listen.recvq") if s.name == "tcp.listen.recvq"]
    for host, items in by_host(queues).items():
        found = []
        for s in items:
            if not len(s):
                continue
            key = (host, s.labels.get("local", ""), s.labels.get("port", ""))
            backlog = backlogs.get(key)
            if backlog is None:
                found.append(_Listener(key[2], s, None, np.zeros(len(s), dtype=bool)))
                continue
            # the limit ss printed in the same snapshot (the last one at or before it)
            limits = values_at(backlog, s.times_ms, mode="last", default=np.nan)
            full = np.isfinite(limits) & (limits > 0) & (s.values >= full_ratio * limits)
            found.append(_Listener(key[2], s, float(np.max(backlog.values)), full))
        out[host] = found
    return out
