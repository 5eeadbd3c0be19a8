"""Quantities of ``time_wait_storm`` (rule: ``rules/time_wait_storm.toml``), per host.

Inputs: the TIME-WAIT and ESTABLISHED counts (``tcp.state.time-wait`` / ``tcp.state.estab``
from ``ss -s``, ``ss -tan``, ``netstat -nat``, ``/proc/net/sockstat``; ``netstat.TcpCurrEstab``
for ESTABLISHED, else ``sockstat.tcp.inuse`` (+ ``sockstat.tcp6.inuse``) as its upper bound:
every TCP socket but TIME-WAIT ones), the kernel counters of that host read from one source each
(``TcpExtTW``: sockets entering TIME-WAIT, i.e. closes in which this host closed first;
``TcpActiveOpens`` / ``TcpPassiveOpens``; ``TcpExtTWRecycled``: TIME-WAIT ports taken over
by ``tcp_tw_reuse``; ``TcpExtTCPTimeWaitOverflow``), its listening ports and listed
connections (``ss -lnt``, ``ss -ti``), and its sysctl facts (never another host's):
``ip_local_port_range``, ``tcp_tw_reuse``, ``tcp_max_tw_buckets``.

Quantities:

- ``tw_peak``, ``tw_first``, ``estab_at_peak``, ``tw_per_estab``: the count, and how many
  TIME-WAIT sockets per ESTABLISHED one at the peak (replaced, not reused, connections). The
  ESTABLISHED count comes from the TIME-WAIT peak's own listing first (one snapshot), else
  from the host's; ``estab_basis`` says whether it is a count (``count``) or sockstat's
  ``inuse``, an upper bound (``bound``: the ratio is then a lower bound);
- ``tw_rise``: how much TIME-WAIT grew up to its peak during the capture (peak minus the
  lowest reading before it): that many connections this host closed first within the
  capture, i.e. churn seen in the count itself;
- ``tw_entries``, ``close_rate``, ``tw_steady``: the kernel's count of closes this host did
  first, per second while they happened, and x the 60 s TIME-WAIT = the count they sustain
  (when they went on for ``close_sustain_min_s`` or through every interval of the capture;
  a burst sustains only its own count); ``close_span_s`` how long they went on, and
  ``close_burst`` whether they were such a burst;
- ``closer`` (``server`` / ``client`` / ``both`` / ``unknown``, ``none`` when the host held
  no TIME-WAIT socket and the kernel counted no close into it: nothing to place) and
  ``side_share``: which side of its connections this host is, so which side its TIME-WAIT
  sits on. From the open counters
  (``passive_share`` = accepted / all opens) when they moved, else from the local ports of its
  listed connections (a listening port: server side; an ephemeral port of its
  ``ip_local_port_range``: client side). ``closes_per_open`` = TcpExtTW / opens;
- ``tw_listed``, ``tw_on_listen_port``, ``tw_on_other_ports``, ``tw_server_share`` /
  ``tw_client_share``: the TIME-WAIT sockets a listing shows (``ss -tan``, ``netstat -nat``,
  ``/proc/net/tcp``), by local port, at its snapshot with the most: on a listening port
  (server side) or on other local ports (client side; ``tw_other_where`` says ephemeral
  when they all sit inside ``ip_local_port_range``). Computed whenever a listing has them:
  beside the counters they corroborate; without the counters, or when the counters show a
  host that both accepts and opens, they place the side (``side_basis`` "TIME-WAIT
  sockets"), before the listed connections;
- client side only (server-side TIME-WAIT holds no ephemeral port): ``port_range``,
  ``destinations`` (distinct peer ``addr:port`` of its client connections: a 4-tuple needs a
  local port unique per destination), ``port_share`` = TIME-WAIT per destination over the
  range (the busiest destination holds at least this share), ``port_share_max`` (all of it
  towards one destination);
- ``tw_bucket_share`` (of ``tcp_max_tw_buckets``), ``tw_overflow``, ``tw_recycled``.
"""

from __future__ import annotations

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
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
    "tw_peak", "tw_first", "tw_snapshots", "tw_rise", "estab_at_peak", "estab_basis",
    "tw_per_estab", "tw_entries",
    "close_rate", "tw_steady", "listen_ports", "active_opens", "passive_opens", "side_basis",
    "closes_per_open", "server_conns", "client_conns", "side_share", "closer", "port_lo",
    "port_hi", "port_range", "port_share_max", "destinations", "destination", "port_share",
    "tw_reuse", "tw_buckets", "tw_bucket_share", "tw_overflow", "tw_recycled",
    "tw_listed", "tw_listed_at", "tw_on_listen_port", "tw_listen_ports", "tw_on_other_ports",
    "tw_other_where", "tw_other_lo", "tw_other_hi", "tw_server_share", "tw_client_share",
)  # fmt: skip


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    time_wait = host_series(data, "tcp.state.time-wait", prefer="peak")
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
                tw_rise=float(tw.values[peak_index] - np.min(tw.values[: peak_index + 1])),
            )
            found = _established_at(data, host, tw.artifact, peak_ms)
            if found is not None:
                estab_at_peak, basis, established = found
                values["estab_at_peak"] = estab_at_peak
                values["estab_basis"] = basis
                values["tw_per_estab"] = float(tw.values[peak_index]) / max(estab_at_peak, 1.0)
                anchors["tw_per_estab"] = Anchor(
                    established.name, {}, span[0], span[1], host, established.artifact
                )
        _close_rate(entries.get(host), params, values, anchors, host)
        _time_wait_ports(data, host, values, anchors)
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


# Where the ESTABLISHED count at the TIME-WAIT peak comes from, best first: counts of that
# state, then sockstat's ``inuse`` (every TCP socket not in TIME-WAIT: LISTEN, ESTABLISHED,
# CLOSE-WAIT ...), an upper bound of ESTABLISHED.
_ESTAB_SOURCES = (
    ("tcp.state.estab", "count"),
    ("netstat.TcpCurrEstab", "count"),
    ("sockstat.tcp.inuse", "bound"),
)


def _established_at(
    data: IncidentData, host: str | None, artifact: str, peak_ms: int
) -> tuple[float, str, SeriesView] | None:
    """(ESTABLISHED at the TIME-WAIT peak, ``count`` or ``bound``, the series read).

    A count before a bound, and the listing that gave the peak before the host's other
    ones; files without a host may come from other machines, so for them the peak's own
    listing goes first, bound included. Among several, the one with the most (a filtered
    listing undercounts). sockstat's IPv6 ``inuse`` (``sockstat.tcp6.inuse``) is added to
    the IPv4 one when the same artifact has it: ``tw`` counts both families.
    """
    order = [(name, basis, same) for same in (True, False) for name, basis in _ESTAB_SOURCES]
    if host is not None:  # every file of a named host is that machine: counts first
        order.sort(key=lambda item: item[1] == "bound")
    for name, basis, same_listing in order:
        found = [
            s
            for s in data.series(name)
            if s.name == name
            and s.host == host
            and len(s)
            and (s.artifact == artifact or not same_listing)
        ]
        if found:
            best = max(found, key=lambda s: (float(np.max(s.values)), len(s), s.artifact))
            value = _value_at(best, peak_ms)
            if basis == "bound":
                value += sum(
                    _value_at(s, peak_ms)
                    for s in data.series("sockstat.tcp6.inuse")
                    if s.name == "sockstat.tcp6.inuse"
                    and s.host == host
                    and s.artifact == best.artifact
                    and len(s)
                )
            return value, basis, best
    return None


def _value_at(series: SeriesView, time_ms: int) -> float:
    """The reading at or before ``time_ms``; one first taken after it stands for it."""
    at = values_at(series, np.array([time_ms], dtype=np.int64), mode="last")[0]
    return float(at) if np.isfinite(at) else float(series.values[0])


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
    values["close_span_s"] = seconds
    # The rate x 60 s is the count a load sustains; a burst (300 clients closing within a
    # second or two, then none for the rest of the capture) sustains nothing, and leaves as
    # many TIME-WAIT sockets as it closed. Closes in every interval of a short capture are a
    # load as far as it shows.
    throughout = len(inc.increments) >= 2 and bool(np.all(inc.increments > 0))
    sustained = throughout or seconds >= float(params["close_sustain_min_s"])
    values["close_burst"] = not sustained
    values["tw_steady"] = rate * float(params["time_wait_len_s"]) if sustained else float(inc.total)
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
    listed_share = values.get("tw_server_share")
    if isinstance(listed_share, float) and (
        server_share is None or minimum > max(server_share, 1.0 - server_share)
    ):
        # The TIME-WAIT sockets themselves, by local port, where the counters say nothing or
        # that this host both accepts and opens: which side holds TIME-WAIT is then read off
        # the sockets (the counters, when they place it, stay first; see _time_wait_ports).
        # They come before the host's other listed connections, which only say which side
        # it mostly is: a desktop's one loopback server row beside forty HTTPS client
        # connections must not outvote its four TIME-WAIT sockets on ephemeral ports.
        server_share = listed_share
        values["side_basis"] = "TIME-WAIT sockets"
        anchors["side_share"] = anchors.get("tw_server_share", Anchor(host=host))
    elif server_share is None:
        host_roles = roles.get(host)
        if host_roles is not None and host_roles.server + host_roles.client > 0:
            values["server_conns"] = host_roles.server
            values["client_conns"] = host_roles.client
            server_share = host_roles.server / (host_roles.server + host_roles.client)
            values["side_basis"] = "sockets"
    closer = "unknown"
    if not _holds_time_wait(values):
        # The side that closes first is the side holding TIME-WAIT: with no socket in it and
        # no close counted into it, there is nothing to place (the opens stay as facts).
        values["side_basis"] = None
        values["closes_per_open"] = None
        closer = "none"
    elif server_share is not None:
        if server_share >= minimum:
            closer, values["side_share"] = "server", server_share
        elif 1.0 - server_share >= minimum:
            closer, values["side_share"] = "client", 1.0 - server_share
        else:
            closer, values["side_share"] = "both", max(server_share, 1.0 - server_share)
    values["closer"] = closer


def _time_wait_ports(
    data: IncidentData,
    host: str | None,
    values: dict[str, float | int | str | bool | None],
    anchors: dict[str, Anchor],
) -> None:
    """The TIME-WAIT sockets a listing of the host shows (``ss -tan``, ``netstat -nat``,
    ``/proc/net/tcp``), by local port, at the snapshot where it lists the most: on a
    listening port (server side) or on other local ports (client side: ephemeral when inside
    ``ip_local_port_range``). Computed whenever such a listing exists; when the counters
    place the side they stay the primary evidence and these corroborate them."""
    others = [
        s
        for s in data.series("tcp.time_wait.other_ports")
        if s.name == "tcp.time_wait.other_ports" and s.host == host and len(s)
    ]
    best: tuple[float, SeriesView, list[SeriesView], int] | None = None
    for other in others:
        shared = [
            s
            for s in data.series("tcp.time_wait.local_port")
            if s.name == "tcp.time_wait.local_port"
            and s.host == host
            and s.artifact == other.artifact
            and len(s)
        ]
        totals = np.asarray(other.values, dtype=np.float64).copy()
        for s in shared:
            totals += values_at(s, other.times_ms, mode="exact", default=0.0)
        at = int(np.argmax(totals))
        if best is None or totals[at] > best[0]:
            best = (float(totals[at]), other, shared, at)
    if best is None or best[0] <= 0:
        return
    listed, other, shared, at = best
    time_ms = int(other.times_ms[at])
    listening = listening_ports(data, host)
    on_listen = 0.0
    server_ports: list[int] = []
    bounds: list[int] = []  # local ports of the client-side TIME-WAIT sockets
    for s in shared:
        port = int(s.labels.get("port", "-1"))
        count = float(values_at(s, other.times_ms[at : at + 1], mode="exact", default=0.0)[0])
        # A local port many TIME-WAIT sockets share is a listening port's (accepted
        # connections); where no listing of the listening ports says otherwise, it is taken
        # for one.
        if count > 0 and (port in listening or not listening):
            on_listen += count
            server_ports.append(port)
        elif count > 0:
            bounds.append(port)
    on_other = listed - on_listen
    for name in ("tcp.time_wait.other_port_min", "tcp.time_wait.other_port_max"):
        for s in data.series(name):
            if s.name == name and s.host == host and s.artifact == other.artifact:
                found = values_at(s, other.times_ms[at : at + 1], mode="exact")[0]
                if np.isfinite(found):
                    bounds.append(int(found))
    values.update(
        tw_listed=listed,
        tw_listed_at=time_ms,
        tw_on_listen_port=on_listen,
        tw_listen_ports=", ".join(str(p) for p in sorted(server_ports)[:5]) or "none",
        tw_on_other_ports=on_other,
        tw_server_share=on_listen / listed,
        tw_client_share=on_other / listed,
    )
    # Without the port range, a local port the host is known not to listen on is still its
    # connecting end: said so rather than "other".
    where = "local ports it does not listen on" if listening else "other local ports"
    if bounds:
        values["tw_other_lo"], values["tw_other_hi"] = min(bounds), max(bounds)
        ephemeral = port_range(data, host)
        if ephemeral is not None and ephemeral[0] <= min(bounds) <= max(bounds) <= ephemeral[1]:
            where = f"ephemeral ports of ip_local_port_range {ephemeral[0]}-{ephemeral[1]}"
    values["tw_other_where"] = where
    anchor = Anchor(other.name, {}, time_ms, time_ms, host, other.artifact)
    anchors["tw_server_share"] = anchors["tw_client_share"] = anchor


def _holds_time_wait(values: dict[str, float | int | str | bool | None]) -> bool:
    """Whether the host held a TIME-WAIT socket (a count above 0) or the kernel counted a
    close into TIME-WAIT (TcpExtTW); unmeasured both ways counts as held, so the opens or
    the listed connections may still place it."""
    peak, entries = values.get("tw_peak"), values.get("tw_entries")
    if peak is None and entries is None:
        return True
    return any(isinstance(v, int | float) and v > 0 for v in (peak, entries))


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
