"""Quantities of ``time_wait_storm`` (rule: ``rules/time_wait_storm.toml``), per host.

Inputs: the TIME-WAIT and ESTABLISHED counts (``tcp.state.time-wait`` / ``tcp.state.estab``
from ``ss -s``, ``ss -tan``, ``netstat -nat``, ``/proc/net/sockstat``; ``netstat.TcpCurrEstab``
for ESTABLISHED), the kernel counters of that host read from one source each
(``TcpExtTW``: sockets entering TIME-WAIT, i.e. closes in which this host closed first;
``TcpActiveOpens`` / ``TcpPassiveOpens``; ``TcpExtTWRecycled``: TIME-WAIT ports taken over
by ``tcp_tw_reuse``; ``TcpExtTCPTimeWaitOverflow``), its listening ports and listed
connections (``ss -lnt``, ``ss -ti``), and its sysctl facts (never another host's):
``ip_local_port_range``, ``tcp_tw_reuse``, ``tcp_max_tw_buckets``.

Quantities:

- ``tw_peak``, ``tw_first``, ``estab_at_peak``, ``tw_per_estab``: the count, and how many
  TIME-WAIT sockets per ESTABLISHED one at the peak (replaced, not reused, connections);
- ``tw_entries``, ``close_rate``, ``tw_steady``: the kernel's count of closes this host did
  first, per second while they happened, and x the 60 s TIME-WAIT = the count they sustain;
- ``closer`` (``server`` / ``client`` / ``both`` / ``unknown``) and ``side_share``: which side
  of its connections this host is, so which side its TIME-WAIT sits on. From the open counters
  (``passive_share`` = accepted / all opens) when they moved, else from the local ports of its
  listed connections (a listening port: server side; an ephemeral port of its
  ``ip_local_port_range``: client side). ``closes_per_open`` = TcpExtTW / opens;
- client side only (server-side TIME-WAIT holds no ephemeral port): ``port_range``,
  ``destinations`` (distinct peer ``addr:port`` of its client connections: a 4-tuple needs a
  local port unique per destination), ``port_share`` = TIME-WAIT per destination over the
  range (the busiest destination holds at least this share), ``port_share_max`` (all of it
  towards one destination);
- ``tw_bucket_share`` (of ``tcp_max_tw_buckets``), ``tw_overflow``, ``tw_recycled``.
"""

from __future__ import annotations

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params
from rootline.detectors.quantities import (
    CounterIncrements,
    counter_increments,
    fact_ints,
    host_fact,
    host_series,
    span_near_peak,
    values_at,
)
from rootline.detectors.socket_roles import (
    Opens,
    SocketRoles,
    incident_key,
    listening_ports,
    opens_by_host,
    port_range,
    socket_roles,
)

# Every quantity the rule's templates may name: unmeasured ones stay None (rendered n/a).
_NAMES = (
    "tw_peak", "tw_first", "tw_snapshots", "estab_at_peak", "tw_per_estab", "tw_entries",
    "close_rate", "tw_steady", "listen_ports", "active_opens", "passive_opens", "side_basis",
    "closes_per_open", "server_conns", "client_conns", "side_share", "closer", "port_lo",
    "port_hi", "port_range", "port_share_max", "destinations", "destination", "port_share",
    "tw_reuse", "tw_buckets", "tw_bucket_share", "tw_overflow", "tw_recycled",
)  # fmt: skip


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    time_wait = host_series(data, "tcp.state.time-wait", prefer="peak")
    estab = host_series(data, "tcp.state.estab", prefer="peak")
    curr_estab = host_series(data, "netstat.TcpCurrEstab")
    entries = counter_increments(data, "TcpExtTW")
    recycled = counter_increments(data, "TcpExtTWRecycled")
    overflow = counter_increments(data, "TcpExtTCPTimeWaitOverflow")
    opens = opens_by_host(data)
    roles = socket_roles(data)
    out = []
    for host in sorted(set(time_wait) | set(entries), key=lambda h: h or ""):
        values: dict[str, float | int | str | bool | None] = dict.fromkeys(_NAMES)
        anchors: dict[str, Anchor] = {}
        where = f"host {host}" if host else "the capture"
        tw = time_wait.get(host)
        default = Anchor(host=host)
        if tw is not None:
            peak_index = int(np.argmax(tw.values))
            peak_ms = int(tw.times_ms[peak_index])
            span = span_near_peak(tw.times_ms, tw.values, 0.9)
            default = Anchor(tw.name, {}, span[0], span[1], host, tw.artifact)
            values.update(
                tw_peak=float(tw.values[peak_index]),
                tw_first=float(tw.values[0]),
                tw_snapshots=len(tw),
            )
            established = estab.get(host) or curr_estab.get(host)
            if established is not None:
                at = values_at(established, np.array([peak_ms], dtype=np.int64), mode="last")[0]
                # ESTABLISHED first sampled after the peak: its first value stands for it
                estab_at_peak = float(at) if np.isfinite(at) else float(established.values[0])
                values["estab_at_peak"] = estab_at_peak
                values["tw_per_estab"] = float(tw.values[peak_index]) / max(estab_at_peak, 1.0)
                anchors["tw_per_estab"] = Anchor(
                    established.name, {}, span[0], span[1], host, established.artifact
                )
        _close_rate(entries.get(host), params, values, anchors, host)
        _side(data, host, opens, roles, params, values, anchors)
        _ports(data, host, roles, values)
        _buckets(data, host, values, recycled, overflow)
        out.append(
            Measurement(
                entity=where,
                key=incident_key(),
                values=values,
                anchor=default,
                anchors=anchors,
            )
        )
    return out


def _close_rate(
    inc: CounterIncrements | None,
    params: Params,
    values: dict[str, float | int | str | bool | None],
    anchors: dict[str, Anchor],
    host: str | None,
) -> None:
    """Closes this host did first (TcpExtTW), per second over the span in which they happened."""
    if inc is None or inc.seconds <= 0:
        return
    values["tw_entries"] = inc.total
    moving = np.flatnonzero(inc.increments > 0)
    if not len(moving):
        values["close_rate"] = 0.0
        values["tw_steady"] = 0.0
        return
    first, last = int(moving[0]), int(moving[-1])
    seconds = float(np.sum(inc.interval_s[first : last + 1]))
    rate = inc.total / seconds if seconds > 0 else 0.0
    values["close_rate"] = rate
    values["tw_steady"] = rate * float(params["time_wait_len_s"])
    start = int(inc.end_ms[first] - inc.interval_s[first] * 1000)
    anchors["tw_steady"] = Anchor(
        inc.source.name, {}, start, int(inc.end_ms[last]), host, inc.source.artifact
    )


def _side(
    data: IncidentData,
    host: str | None,
    opens: dict[str | None, Opens],
    roles: dict[str | None, SocketRoles],
    params: Params,
    values: dict[str, float | int | str | bool | None],
    anchors: dict[str, Anchor],
) -> None:
    """Which side of its connections this host is: the side its TIME-WAIT sits on."""
    minimum = float(params["side_share_min"])
    listening = sorted(listening_ports(data, host))
    values["listen_ports"] = ", ".join(str(p) for p in listening[:5]) or "none"
    server_share: float | None = None
    host_opens = opens.get(host)
    if host_opens is not None and host_opens.total > 0:
        values["active_opens"] = host_opens.active or 0.0
        values["passive_opens"] = host_opens.passive or 0.0
        server_share = host_opens.passive_share
        values["side_basis"] = "counters"
        source = host_opens.passive_source or host_opens.active_source
        if source is not None:
            anchors["side_share"] = Anchor(
                source.source.name, {}, None, None, host, source.source.artifact
            )
        entries = values.get("tw_entries")
        if isinstance(entries, float):
            values["closes_per_open"] = entries / host_opens.total
    else:
        host_roles = roles.get(host)
        if host_roles is not None and host_roles.server + host_roles.client > 0:
            values["server_conns"] = host_roles.server
            values["client_conns"] = host_roles.client
            server_share = host_roles.server / (host_roles.server + host_roles.client)
            values["side_basis"] = "sockets"
    closer = "unknown"
    if server_share is not None:
        if server_share >= minimum:
            closer, values["side_share"] = "server", server_share
        elif 1.0 - server_share >= minimum:
            closer, values["side_share"] = "client", 1.0 - server_share
        else:
            closer, values["side_share"] = "both", max(server_share, 1.0 - server_share)
    values["closer"] = closer


def _ports(
    data: IncidentData,
    host: str | None,
    roles: dict[str | None, SocketRoles],
    values: dict[str, float | int | str | bool | None],
) -> None:
    """Local port range pressure: client-side TIME-WAIT only, per destination."""
    bounds = port_range(data, host)
    if bounds is not None:
        values["port_lo"], values["port_hi"] = bounds
        values["port_range"] = bounds[1] - bounds[0] + 1
    peak = values.get("tw_peak")
    if values.get("closer") != "client" or bounds is None or not isinstance(peak, float):
        return
    size = bounds[1] - bounds[0] + 1
    values["port_share_max"] = peak / size
    host_roles = roles.get(host)
    if host_roles is not None and host_roles.destinations:
        count = len(host_roles.destinations)
        values["destinations"] = count
        only = sorted(host_roles.destinations)[0]
        values["destination"] = only if count == 1 else f"{count} destinations"
        values["port_share"] = peak / count / size


def _buckets(
    data: IncidentData,
    host: str | None,
    values: dict[str, float | int | str | bool | None],
    recycled: dict[str | None, CounterIncrements],
    overflow: dict[str | None, CounterIncrements],
) -> None:
    reuse = host_fact(data, "net.ipv4.tcp_tw_reuse", host)
    values["tw_reuse"] = reuse.value.strip() if reuse is not None else None
    buckets = fact_ints(host_fact(data, "net.ipv4.tcp_max_tw_buckets", host))
    peak = values.get("tw_peak")
    if buckets and buckets[0] > 0 and isinstance(peak, float):
        values["tw_buckets"] = buckets[0]
        values["tw_bucket_share"] = peak / buckets[0]
    if host in overflow:
        values["tw_overflow"] = overflow[host].total
    if host in recycled:
        values["tw_recycled"] = recycled[host].total
