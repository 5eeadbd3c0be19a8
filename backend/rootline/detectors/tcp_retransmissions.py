"""Quantities of ``tcp_retransmissions`` (rule: ``rules/tcp_retransmissions.toml``), per host.

Inputs: the kernel's counters of that host, each read from one source (:func:`counter_increments`:
never ``nstat`` + ``netstat -s`` summed): ``TcpRetransSegs`` and ``TcpOutSegs``;
``TcpExtTCPSynRetrans`` (SYN / SYN+ACK retransmissions, counted in TcpRetransSegs too: they
belong to connection set-up, an overflowing accept queue for one, and are taken out of the
data rate); ``TcpExtTCPTimeouts`` (retransmission timer expiries: RTO events);
``TcpExtTCPLostRetransmit``. Per connection from ``ss -ti``: ``tcp.conn.retrans`` (total
retransmitted segments) and ``tcp.conn.segs_out``.

Quantities:

- ``retrans_pct``: data retransmissions / segments sent over the capture (``data_retrans``,
  ``out_segments``, ``counter_s``), ``syn_retrans`` apart;
- ``data_pct``: the same retransmissions over the data segments the peers acknowledged
  (``TcpExtTCPDelivered``, ``data_segments``). TcpOutSegs counts pure ACKs too, which are
  never resent: on a host that mostly receives (an RPC client reading large replies) they are
  nearly all it sends, and its lost requests read as a twentieth of their rate (independent
  reproduction: 2 % of the packets towards a server dropped, its client resent 2.2 % of its
  data segments, 0.097 % of TcpOutSegs). ``loss_pct`` / ``loss_segments`` are what the verdict
  reads: ``data_pct`` / ``data_segments`` where the kernel counted deliveries, else
  ``retrans_pct`` / ``out_segments``;
- ``window_pct``: the worst ``window_s`` window with at least ``min_window_out_segments``
  sent (``window_out``);
- ``timeouts``: RTO events (each a stall of at least the 200 ms minimum RTO, the window
  back to one segment), ``lost_retrans``;
- ``segs_per_rtt``: what a loss-based sender can keep in flight at that loss rate, Mathis et
  al. 1.22 / sqrt(p);
- from ``ss`` when no counters: ``socket_pct`` over ``socket_connections`` (only from
  ``min_window_out_segments`` sent, ``socket_segs_out``: data segments, ``data_segs_out``,
  where ss printed them, for the reason of ``data_pct``), and the worst
  connection (``worst_conn``, ``worst_retrans``);
- ``unaccepted_share``: of the retransmissions ss listed on established connections, the
  share on connections the peer had not accepted (``bytes_acked`` 1, the SYN only, or a peer
  listener whose host's accept queue overflowed: no socket there receives the data),
  ``unaccepted_retrans`` of ``listed_retrans`` on ``unaccepted_conns`` connections, most to
  ``unaccepted_peer``; past ``unaccepted_max_share`` the retransmissions are not loss on the
  path (see :func:`_unaccepted`);
- ``loss_bound_ratio``: whether the loss is what limits a connection. A loss-based sender
  (Reno, CUBIC) at loss rate p moves at most about MSS / RTT x 1.22 / sqrt(p) (Mathis et al.,
  1997); per connection ss lists twice or more with ``min_window_out_segments`` sent, its
  throughput (``bytes_acked`` over the intervals data moved) over that cap at its own loss
  rate (``retrans`` / ``data_segs_out``, else ``segs_out``), ``mss`` and ``rtt``; the largest (``loss_bound_conn``,
  ``loss_bound_rate``, ``loss_cap_rate``, ``loss_bound_pct``). A connection running at the
  cap its loss allows is held by the loss; lossless connections have no cap, and neither
  have senders whose congestion control is not loss-based: bbr paces at the bandwidth and
  RTT it measures, its rate is not set by the loss rate, and a Mathis ratio of a bbr
  connection is chance (independent reproduction: a bbr bulk sender at 1.5 % loss moved
  24 MiB/s, 42x the cap). Those are left out (``model_based_conns``, their congestion control
  read from ss); a connection whose congestion control ss did not name is kept.
"""

from __future__ import annotations

import math

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    by_host,
    congestion_controls,
    connection_label,
    connection_of,
    connection_series,
    counter_increments,
    full_windows,
    host_measurement,
    increments_on,
    split_endpoint,
)

# Congestion controls that pace at a measured bandwidth and RTT rather than back off on loss:
# no Mathis cap applies to them.
MODEL_BASED_CONGESTION_CONTROLS = ("bbr", "bbr2", "bbr3")

_NAMES = (
    "retrans_pct", "data_retrans", "out_segments", "counter_s", "syn_retrans", "window_pct",
    "data_pct", "data_segments", "loss_pct", "loss_segments",
    "window_out", "timeouts", "lost_retrans", "segs_per_rtt", "socket_pct", "socket_retrans",
    "socket_segs_out", "socket_connections", "worst_conn", "worst_retrans",
    "loss_bound_ratio", "loss_bound_conn", "loss_bound_rate", "loss_cap_rate", "loss_bound_pct",
    "model_based_conns",
    "unaccepted_share", "unaccepted_retrans", "listed_retrans", "unaccepted_conns",
    "unaccepted_peer",
)  # fmt: skip


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    out_all = counter_increments(data, "TcpOutSegs")
    re_all = counter_increments(data, "TcpRetransSegs")
    syn_all = counter_increments(data, "TcpExtTCPSynRetrans")
    to_all = counter_increments(data, "TcpExtTCPTimeouts")
    lost_all = counter_increments(data, "TcpExtTCPLostRetransmit")
    delivered_all = counter_increments(data, "TcpExtTCPDelivered")
    sockets = _sockets(data, float(params["min_window_out_segments"]))
    loss_bound = _loss_bound(data, float(params["min_window_out_segments"]))
    unaccepted = _unaccepted(data)
    hosts = {h for h in out_all if h in re_all} | set(sockets)
    result = []
    for host in sorted(hosts, key=lambda h: h or ""):
        values: dict[str, float | int | str | bool | None] = dict.fromkeys(_NAMES)
        anchors: dict[str, Anchor] = {}
        default = Anchor(host=host)
        out, re = out_all.get(host), re_all.get(host)
        if out is not None and re is not None:
            retrans = increments_on(out.end_ms, re)
            syn = (
                increments_on(out.end_ms, syn_all[host]) if host in syn_all else np.zeros(len(out))
            )
            data_retrans = np.clip(retrans - syn, 0.0, None)
            total_out = float(np.sum(out.increments))
            total_re = float(np.sum(data_retrans))
            pct = total_re / total_out * 100.0 if total_out > 0 else 0.0
            values.update(
                retrans_pct=pct,
                data_retrans=total_re,
                out_segments=total_out,
                counter_s=out.seconds,
                syn_retrans=float(np.sum(syn)),
                loss_pct=pct,
                loss_segments=total_out,
            )
            if host in delivered_all:
                delivered = float(np.sum(increments_on(out.end_ms, delivered_all[host])))
                if delivered > 0:
                    data_pct = total_re / delivered * 100.0
                    values.update(
                        data_pct=data_pct,
                        data_segments=delivered,
                        loss_pct=data_pct,
                        loss_segments=delivered,
                    )
            loss = float(values["loss_pct"] or 0.0)
            values["segs_per_rtt"] = 1.22 / math.sqrt(loss / 100.0) if loss > 0 else None
            whole = (int(out.end_ms[0] - out.interval_s[0] * 1000), int(out.end_ms[-1]))
            default = Anchor(re.source.name, {}, whole[0], whole[1], host, re.source.artifact)
            window = _worst_window(out.end_ms, out.interval_s, out.increments, data_retrans, params)
            if window is not None:
                values["window_pct"], values["window_out"] = window[0], window[2]
                anchors["window_pct"] = Anchor(
                    re.source.name, {}, window[1][0], window[1][1], host, re.source.artifact
                )
            if host in to_all:
                values["timeouts"] = to_all[host].total
                src = to_all[host].source
                anchors["timeouts"] = Anchor(src.name, {}, whole[0], whole[1], host, src.artifact)
            if host in lost_all:
                values["lost_retrans"] = lost_all[host].total
        if host in loss_bound:
            bound_values, bound_anchor = loss_bound[host]
            values.update(bound_values)
            anchors["loss_bound_ratio"] = bound_anchor
        if host in unaccepted:
            values.update(unaccepted[host][0])
            anchors["unaccepted_share"] = unaccepted[host][1]
        if host in sockets:
            socket_values, anchor = sockets[host]
            values.update(socket_values)
            anchors["socket_pct"] = anchor
            if out is None or re is None:
                default = anchor
        result.append(host_measurement(host, values, anchor=default, anchors=anchors))
    return result


def _worst_window(
    end_ms: np.ndarray,
    interval_s: np.ndarray,
    out: np.ndarray,
    retrans: np.ndarray,
    params: Params,
) -> tuple[float, tuple[int, int], float] | None:
    """The highest retransmission percentage over ``window_s`` windows with enough traffic."""
    if not len(end_ms):
        return None
    first, stop = full_windows(end_ms, interval_s, float(params["window_s"]))
    cum_out = np.concatenate(([0.0], np.cumsum(out)))
    cum_re = np.concatenate(([0.0], np.cumsum(retrans)))
    win_out = cum_out[stop] - cum_out[first]
    win_re = cum_re[stop] - cum_re[first]
    ok = win_out >= float(params["min_window_out_segments"])
    if not np.any(ok):
        return None
    pct = np.where(ok, win_re / np.maximum(win_out, 1.0) * 100.0, -1.0)
    best = int(np.argmax(pct))
    i0, i1 = int(first[best]), int(stop[best]) - 1
    span = (int(end_ms[i0] - interval_s[i0] * 1000), int(end_ms[i1]))
    return float(pct[best]), span, float(win_out[best])


def _unaccepted(
    data: IncidentData,
) -> dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]]:
    """Per host, of the retransmissions ss listed on established connections (``retrans``
    with a ``bytes_acked``: the handshake was acknowledged), how many were on connections to a
    peer that had not accepted them: the peer never acknowledged a data byte (``bytes_acked``
    1: the SYN only), or the peer is a listener of another captured host whose accept queue
    overflowed (:func:`_overflowing_listeners`; a connection it let in after its client had
    resent the request a few times shows ``bytes_acked`` past 1 by the time ss lists it). A
    peer whose accept queue dropped the completed handshake (``tcp_abort_on_overflow`` 0)
    ignores the data, so the client resends into a socket that does not exist: no loss on
    the path (report C's consumers that believed they were connected). None for a host none
    of whose retransmitting connections is like that."""
    overflowing = _overflowing_listeners(data)
    acked: dict[tuple[str | None, str, str], float] = {}
    for s in data.series("tcp.conn.bytes_acked"):
        key = connection_of(s.labels)
        if s.name == "tcp.conn.bytes_acked" and key is not None and len(s):
            acked[(s.host, *key)] = float(np.nanmax(s.values))
    out: dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]] = {}
    series = [s for s in data.series("tcp.conn.retrans") if s.name == "tcp.conn.retrans"]
    for host, items in by_host(series).items():
        listed = never = 0.0
        conns = 0
        peers: dict[str, float] = {}
        first = last = None
        artifact = None
        for s in items:
            key = connection_of(s.labels)
            if key is None or not len(s) or (host, *key) not in acked:
                continue
            count = float(np.nanmax(s.values))
            listed += count
            peer_addr, peer_port = split_endpoint(key[1])
            to_overflow = (_plain(peer_addr), peer_port) in overflowing.get(host, set())
            if count > 0 and (acked[(host, *key)] <= 1.0 or to_overflow):
                never += count
                conns += 1
                peers[key[1]] = peers.get(key[1], 0.0) + count
                first = int(s.times_ms[0]) if first is None else min(first, int(s.times_ms[0]))
                last = int(s.times_ms[-1]) if last is None else max(last, int(s.times_ms[-1]))
                artifact = s.artifact
        if never <= 0 or listed <= 0:
            continue
        values: dict[str, float | int | str | bool | None] = {
            "unaccepted_share": never / listed,
            "unaccepted_retrans": never,
            "listed_retrans": listed,
            "unaccepted_conns": conns,
            "unaccepted_peer": max(peers, key=lambda p: peers[p]),
        }
        out[host] = (values, Anchor("tcp.conn.retrans", {}, first, last, host, artifact))
    return out


def _plain(address: str) -> str:
    """An IPv4-mapped IPv6 address as its IPv4 form (``::ffff:10.0.0.1`` -> ``10.0.0.1``)."""
    return address[7:] if address.lower().startswith("::ffff:") else address


def _overflowing_listeners(data: IncidentData) -> dict[str | None, set[tuple[str, int | None]]]:
    """Per host, the (address, port) endpoints of the listeners of *other* captured hosts whose
    accept queue overflowed during the capture (``TcpExtListenOverflows`` rose there): a
    host's address is any local address of its ss connections, a listener any port ss -lnt
    showed there. A connection of this host to one of them may have been dropped by that
    queue after its handshake: its retransmissions went to a socket that did not exist."""
    overflows = counter_increments(data, "TcpExtListenOverflows")
    hosts = {h for h, inc in overflows.items() if inc.total > 0}
    if not hosts:
        return {}
    ports: dict[str | None, set[int]] = {h: set() for h in hosts}
    for series in data.series("tcp.listen.backlog"):
        if series.host in hosts:
            port = series.labels.get("port") or str(
                split_endpoint(series.labels.get("local", ""))[1] or ""
            )
            if port.isdigit():
                ports[series.host].add(int(port))
    addresses: dict[str | None, set[str]] = {h: set() for h in hosts}
    for series in data.series("tcp.conn.bytes_received"):
        key = connection_of(series.labels)
        if series.host in hosts and key is not None:
            addresses[series.host].add(_plain(split_endpoint(key[0])[0]))
    out: dict[str | None, set[tuple[str, int | None]]] = {}
    for host in {s.host for s in data.series("tcp.conn.retrans")}:
        out[host] = {
            (address, port)
            for other in hosts - {host}
            for address in addresses[other]
            for port in ports[other]
        }
    return out


def _sockets(
    data: IncidentData, min_segments: float
) -> dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]]:
    """Per host, retransmitted vs sent data segments of the connections ss listed twice or
    more (``data_segs_out``; ``segs_out``, which counts pure ACKs too, where ss printed no
    ``data_segs_out``: a connection that mostly receives sends mostly ACKs, never resent)."""
    segs_by_key: dict[tuple[str | None, str, str], SeriesView] = {}
    for name in ("tcp.conn.data_segs_out", "tcp.conn.segs_out"):
        for s in data.series(name):
            key = connection_of(s.labels)
            if s.name == name and key is not None and len(s) >= 2:
                segs_by_key.setdefault((s.host, *key), s)
    out: dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]] = {}
    series = [s for s in data.series("tcp.conn.retrans") if s.name == "tcp.conn.retrans"]
    for host, items in by_host(series).items():
        growth_total = segs_total = 0.0
        connections = 0
        worst: tuple[str, str, float] | None = None
        anchor = Anchor(host=host)
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
                worst = (key[0], key[1], growth)
                anchor = Anchor(
                    "tcp.conn.retrans",
                    {"local": key[0], "peer": key[1]},
                    int(s.times_ms[0]),
                    int(s.times_ms[-1]),
                    host,
                    s.artifact,
                )
        if not connections:
            continue
        values: dict[str, float | int | str | bool | None] = {
            "socket_connections": connections,
            "socket_retrans": growth_total,
            "socket_segs_out": segs_total,
            # a percentage of too few segments is noise: none below the volume threshold
            "socket_pct": growth_total / segs_total * 100.0
            if segs_total >= min_segments and segs_total > 0
            else None,
        }
        if worst is not None:
            # the measurement names the host: the connection without it (not "on h1 ... on h1")
            values["worst_conn"] = connection_label((None, worst[0], worst[1]))
            values["worst_retrans"] = worst[2]
        out[host] = (values, anchor)
    return out


def _loss_bound(
    data: IncidentData, min_segments: float
) -> dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]]:
    """Per host, the loss-based connection running closest to the cap its own loss rate allows."""
    table = connection_series(
        data, ("retrans", "segs_out", "data_segs_out", "bytes_acked", "rtt_ms", "mss")
    )
    controls = congestion_controls(data)
    best: dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]] = {}
    model_based: dict[str | None, int] = {}
    for (host, local, peer), row in table.items():
        if not all(name in row for name in ("retrans", "segs_out", "bytes_acked", "rtt_ms", "mss")):
            continue
        # the loss rate of the data it sent: pure ACKs (in segs_out) are never resent
        sent = row["data_segs_out"] if len(row.get("data_segs_out", ())) >= 2 else row["segs_out"]
        lost, acked = row["retrans"], row["bytes_acked"]
        if len(sent) < 2 or len(lost) < 2 or len(acked) < 2:
            continue
        segments = float(sent.values[-1] - sent.values[0])
        resent = float(max(lost.values[-1] - lost.values[0], 0.0))
        if segments < min_segments or resent <= 0:
            continue
        if controls.get((host, local, peer)) in MODEL_BASED_CONGESTION_CONTROLS:
            model_based[host] = model_based.get(host, 0) + 1
            continue
        seconds = np.diff(acked.times_ms) / 1000.0
        moved = np.diff(acked.values)
        active = (seconds > 0) & (moved > 0)
        rtt_s = float(np.median(row["rtt_ms"].values)) / 1000.0
        mss = float(np.median(row["mss"].values))
        if not active.any() or rtt_s <= 0 or mss <= 0:
            continue
        rate = float(moved[active].sum() / seconds[active].sum())
        loss = resent / segments
        cap = mss / rtt_s * 1.22 / math.sqrt(loss)
        ratio = rate / cap
        if host in best and float(best[host][0]["loss_bound_ratio"] or 0.0) >= ratio:
            continue
        best[host] = (
            {
                "loss_bound_ratio": ratio,
                "loss_bound_conn": connection_label((None, local, peer)),
                "loss_bound_rate": rate,
                "loss_cap_rate": cap,
                "loss_bound_pct": loss * 100.0,
            },
            Anchor(
                "tcp.conn.retrans",
                {"local": local, "peer": peer},
                int(acked.times_ms[0]),
                int(acked.times_ms[-1]),
                host,
                acked.artifact,
            ),
        )
    for host, count in model_based.items():
        if host not in best:
            best[host] = ({}, Anchor(host=host))
        best[host][0]["model_based_conns"] = count
    return best
