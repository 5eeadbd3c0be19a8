"""Quantities of ``single_connection_bottleneck`` (rule: ``rules/single_connection_bottleneck.toml``),
per peer group: the connections between one client address and one service endpoint.

Inputs: ``ss -tinm`` snapshots from either end (``tcp.conn.recvq.bytes`` / ``sendq.bytes``,
``skmem_r`` / ``skmem_rb`` the receive queue and buffer, ``skmem_w`` / ``skmem_tb`` the send
queue and buffer, all from the same kernel accounting; listening ports from
``tcp.listen.backlog``), the thread-pool samples of the receiving host
(``threadpool.active`` / ``threadpool.max``), nmon CPU of that host (``cpu.user_pct`` +
``cpu.sys_pct``).

A group is keyed by (service endpoint, client address): the service end is the one whose
port listens on its host (without a listing, the lower port). Both ends of one connection,
captured on two hosts, fall into the same group.

Quantities, for the group's most jammed connection (the one whose queue persisted longest):

- ``connections``: the group's ESTAB connections (Dubbo ``connections=1``: one);
  ``group_snapshots`` the snapshots that listed any of them (short-lived connections each
  appear once or twice: the group is judged on the capture, not on one of them);
- ``recv_jam_share``: share of its snapshots on a receiving end in which unread data held at
  least ``recv_fill_min_ratio`` of what the receiver can hold: the receive buffer (skmem
  ``r`` / ``rb``, truesize against truesize) or the window it offers at most (Recv-Q /
  ``rcv_ssthresh``, payload against payload), whichever is fuller; without either, any
  non-zero Recv-Q. A reader that keeps up empties the queue
  between two packets, so at a random instant it is empty; a queue that stays is requests
  waiting for the one reading thread;
- ``send_jam_share``: the same on a sending end: the send queue (skmem ``w``) holding at least
  ``send_fill_min_ratio`` of the send buffer ``tb``: requests waiting to be sent. Send-Q alone
  is not that (it counts data in flight, non-zero on any busy connection), nor is a full
  buffer on a bulk transfer moving at the path's pace: where ss gives the chrono stats, the
  kernel must say the peer's window or the buffer held the sender back
  (``rwnd_limited`` + ``sndbuf_limited`` >= ``send_held_min_pct`` of busy time:
  ``send_held_pct``);
- ``jam_share``: the larger of the two, and ``jam_side`` which (both read on the group's most
  jammed connection: the Recv-Q on its receiving end, the Send-Q on its sending end);
- ``reader_kept_reading_share``: the kernel's word on *how* the reader fell behind. With the
  receive buffer full, new bytes can only arrive as fast as the application reads them (the
  window it advertises is the space its reads freed). Of the intervals between consecutive
  snapshots in which the receive queue was jammed at both ends, the share in which the
  receiver's ``bytes_received`` grew (:class:`quantities.ReadingProgress`): a slow reader (one
  I/O thread decoding every frame for everyone: report A) keeps reading at a capped pace, in
  every interval; a stalled one (a GC pause, a blocked thread, an application that stops
  reading: receiver_not_reading) leaves it flat. Where only the sender was captured: the
  intervals its Send-Q was jammed at both ends and the peer's window held it back
  (``rwnd_limited`` at least ``send_held_min_pct`` of that interval's busy time), and its
  ``bytes_acked``. ``reader_rate`` is the pace the reader kept (bytes over those intervals'
  time), with ``reader_kept_intervals`` / ``reader_held_intervals``, ``reader_counter``;
- ``rwnd_limited_pct``: the sender's share of busy time held back by the peer's window
  (None under ``min_busy_ms``), and ``zero_window_events``: the zero windows the hosts of the
  connection counted (host-wide). Both are what the full queues do to the sender; the rule
  shows them so that, confirmed, this mechanism takes them over from receiver_not_reading;
- ``pool_headroom_share``: share of the jam snapshots in which the busiest pool of the host
  behind the queue (the receiving host) was not saturated (the quantities layer's one
  definition, :func:`quantities.pool_saturation`: active >= max or the queue full): an idle
  pool behind a full socket (report A: the pool filled only after the traffic was cut);
- ``cpu_busy_median``: median CPU user+sys of that host over the connection's capture
  (its samples within it only).

Concurrency is read where requests wait (the socket queues), never from the pool downstream:
the pool says only whether the hosts had room, which makes the connection the limit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    ConnectionKey,
    ReadingProgress,
    ZeroWindows,
    chrono_share_pct,
    conn_key,
    connection_label,
    connection_series,
    field_at,
    held_intervals,
    longest_true_span,
    median,
    pool_saturation,
    reading_progress,
    richest,
    split_endpoint,
    values_at,
    window_held_intervals,
    within,
    zero_windows,
)

FIELDS = (
    "recvq.bytes",
    "sendq.bytes",
    "skmem_r",
    "skmem_rb",
    "skmem_w",
    "skmem_tb",
    "rcv_ssthresh",
    "rtt_ms",
    "cwnd",
    "busy_ms",
    "rwnd_limited_ms",
    "rwnd_limited_pct",
    "sndbuf_limited_ms",
    "sndbuf_limited_pct",
    "bytes_received",
    "bytes_acked",
)


@dataclass(slots=True)
class _End:
    """One captured end of a connection and its per-snapshot jam masks."""

    key: ConnectionKey
    times: npt.NDArray[np.int64]
    recvq: npt.NDArray[np.float64]
    sendq: npt.NDArray[np.float64]
    recv_fill: npt.NDArray[np.float64]
    send_fill: npt.NDArray[np.float64]
    recv_jam: npt.NDArray[np.bool_]
    send_jam: npt.NDArray[np.bool_]
    rb: float | None
    tb: float | None
    held_pct: float | None
    rwnd_pct: float | None  # share of busy time held by the peer's window (enough busy time)
    row: dict[str, SeriesView]
    artifact: str


@dataclass(slots=True)
class _Group:
    service: str
    client: str
    connections: set[str] = field(default_factory=set)
    ends: list[_End] = field(default_factory=list)


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    table = connection_series(data, FIELDS)
    zero = zero_windows(data)
    listening = _listening_ports(data)
    groups: dict[tuple[str, str], _Group] = {}
    for key, row in table.items():
        end = _end(key, row, params)
        if end is None:
            continue
        host, local, peer = key
        service, client = _service_and_client(local, peer, listening.get(host, set()))
        group = groups.setdefault((service, client), _Group(service, client))
        group.connections.add(conn_key(host, local, peer))
        group.ends.append(end)
    return [_measure(data, group, zero, params) for group in groups.values()]


def _listening_ports(data: IncidentData) -> dict[str | None, set[int]]:
    ports: dict[str | None, set[int]] = defaultdict(set)
    for series in data.series("tcp.listen.backlog"):
        port = series.labels.get("port")
        if port is None and "local" in series.labels:
            port = str(split_endpoint(series.labels["local"])[1] or "")
        if port and port.isdigit():
            ports[series.host].add(int(port))
    return ports


def _service_and_client(local: str, peer: str, host_ports: set[int]) -> tuple[str, str]:
    local_addr, local_port = split_endpoint(local)
    peer_addr, peer_port = split_endpoint(peer)
    if host_ports:
        serving = local_port in host_ports
    else:
        serving = local_port is not None and peer_port is not None and local_port < peer_port
    if serving:
        return f"{local_addr}:{local_port}", peer_addr
    return f"{peer_addr}:{peer_port}", local_addr


def _fill(
    row: dict[str, SeriesView], used: str, size: str, times: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], float | None]:
    """(used / size per snapshot, NaN where unknown; median size) from skmem."""
    if size not in row:
        return np.full(len(times), np.nan), None
    limit = values_at(row[size], times, mode="exact")
    amount = (
        values_at(row[used], times, mode="exact", default=0.0)
        if used in row
        else np.full(len(times), np.nan)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        fill = np.where(limit > 0, amount / limit, np.nan)
    finite = limit[np.isfinite(limit) & (limit > 0)]
    return fill, median(finite) if len(finite) else None


def _end(key: ConnectionKey, row: dict[str, SeriesView], params: Params) -> _End | None:
    anchor = max(row.values(), key=len)
    times = anchor.times_ms
    if not len(times):
        return None
    recvq = field_at(row, "recvq.bytes", times)
    sendq = field_at(row, "sendq.bytes", times)
    recv_fill, rb = _fill(row, "skmem_r", "skmem_rb", times)
    send_fill, tb = _fill(row, "skmem_w", "skmem_tb", times)
    recv_min = float(params["recv_fill_min_ratio"])
    send_min = float(params["send_fill_min_ratio"])
    # The window a receiver offers is capped by the buffer (r against rb, truesize) and by
    # rcv_ssthresh (payload): unread data filling either cap is the sender held back.
    window_fill, _ = _fill(row, "recvq.bytes", "rcv_ssthresh", times)
    recv_fill = np.fmax(recv_fill, window_fill)
    # Without skmem (ss -tin) a receive queue that never empties still shows the reader behind.
    recv_jam = (recvq > 0) & np.where(np.isnan(recv_fill), True, recv_fill >= recv_min)
    send_jam = (sendq > 0) & np.nan_to_num(send_fill >= send_min, nan=False).astype(bool)
    # A full send buffer is requests waiting behind the connection only when the kernel says
    # the peer's window (or the buffer) held it back; a bulk transfer moving at the path's
    # pace (cwnd-limited) fills its buffer too.
    min_busy = float(params["min_busy_ms"])
    rwnd, busy = chrono_share_pct(row, times, "rwnd_limited", min_busy)
    sndbuf, _ = chrono_share_pct(row, times, "sndbuf_limited", min_busy)
    held = (rwnd or 0.0) + (sndbuf or 0.0) if rwnd is not None and busy >= min_busy else None
    if held is not None and held < float(params["send_held_min_pct"]):
        send_jam = np.zeros(len(times), dtype=bool)
    return _End(
        key,
        times,
        recvq,
        sendq,
        recv_fill,
        send_fill,
        recv_jam,
        send_jam,
        rb,
        tb,
        held,
        rwnd if rwnd is not None and busy >= min_busy else None,
        row,
        anchor.artifact,
    )


def _reader_lag(ends: list[_End]) -> tuple[float, _End] | None:
    """(the most of what it could hold that unread data took in any snapshot, that end) on
    the ends that received data (``bytes_received``: ss prints it once non-zero; its Recv-Q
    series only once non-zero, so an end without one had an empty queue). None when no
    receiving end was captured with skmem rb or rcv_ssthresh."""
    best: tuple[float, _End] | None = None
    for one in ends:
        received = one.row.get("bytes_received")
        if received is None or not len(received) or not float(np.nanmax(received.values)) > 0:
            continue
        if not np.isfinite(one.recv_fill).any():
            continue
        peak = float(np.nanmax(one.recv_fill))
        if best is None or peak > best[0]:
            best = (peak, one)
    return best


def _share(mask: npt.NDArray[np.bool_]) -> float:
    # count_nonzero, not mask.mean(): a tenth of the cost, asked ~10 times per connection.
    return np.count_nonzero(mask) / len(mask) if len(mask) else 0.0


def _median_where(values: npt.NDArray[np.float64], mask: npt.NDArray[np.bool_]) -> float | None:
    picked = values[mask & np.isfinite(values)]
    return median(picked) if len(picked) else None


def _measure(
    data: IncidentData,
    group: _Group,
    zero: dict[str | None, ZeroWindows],
    params: Params,
) -> Measurement:
    # The most jammed connection (the longest-persisting queue, receive side first on ties);
    # its Recv-Q is read on its receiving end, its Send-Q on its sending end.
    connections: dict[str, list[_End]] = defaultdict(list)
    for one in group.ends:
        connections[conn_key(*one.key)].append(one)

    def jam_key(ends: list[_End]) -> tuple[float, int, float]:
        recv = max(_share(e.recv_jam) for e in ends)
        send = max(_share(e.send_jam) for e in ends)
        return (max(recv, send), int(recv >= send), float(max(len(e.times) for e in ends)))

    ckey, ends = max(connections.items(), key=lambda item: jam_key(item[1]))
    receiving = max(ends, key=lambda e: (_share(e.recv_jam), bool(e.recvq.any()), len(e.times)))
    sending = max(
        ends,
        key=lambda e: (_share(e.send_jam), e.tb is not None and bool(e.sendq.any()), len(e.times)),
    )
    recv_share, send_share = _share(receiving.recv_jam), _share(sending.send_jam)
    side = "receive" if recv_share >= send_share else "send"
    end = receiving if side == "receive" else sending
    jam = end.recv_jam if side == "receive" else end.send_jam
    span = longest_true_span(end.times, jam) or (int(end.times[0]), int(end.times[-1]))
    # The host behind the queue: the reader of a Recv-Q is this host; of a Send-Q, the peer's.
    behind = end.key[0] if side == "receive" else _peer_host(group, end)
    pool = _pool_headroom(data, behind, end.times[jam], params)
    cpu = _cpu_busy_median(data, behind, (int(end.times[0]), int(end.times[-1])))
    reading = _reading(receiving, sending, params)
    window = max(
        (e for e in ends if e.rwnd_pct is not None), key=lambda e: e.rwnd_pct or 0.0, default=None
    )
    hosts = sorted({e.key[0] for e in ends}, key=lambda h: h or "")
    counted = [zero[h] for h in hosts if h in zero]
    lag = _reader_lag(ends)

    def at(one: _End, series: str, where: tuple[int, int] | None = None) -> Anchor:
        host, local, peer = one.key
        where = where or (int(one.times[0]), int(one.times[-1]))
        return Anchor(
            series, {"local": local, "peer": peer}, where[0], where[1], host, one.artifact
        )

    values: dict[str, float | int | str | bool | None] = {
        "connections": len(group.connections),
        "service": group.service,
        "client": group.client,
        "snapshots": len(end.times),
        "group_snapshots": len(np.unique(np.concatenate([e.times for e in group.ends]))),
        "jam_side": side,
        "jam_share": max(recv_share, send_share),
        "jam_snapshots": int(jam.sum()),
        "recv_snapshots": len(receiving.times),
        "recv_jam_share": recv_share if receiving.recvq.any() else None,
        "recv_jam_snapshots": int(receiving.recv_jam.sum()),
        "recvq_median": _median_where(receiving.recvq, receiving.recv_jam),
        "recv_fill_median": _median_where(receiving.recv_fill, receiving.recv_jam),
        "rb": receiving.rb,
        "send_snapshots": len(sending.times),
        "send_jam_share": (send_share if sending.tb is not None and sending.sendq.any() else None),
        "send_jam_snapshots": int(sending.send_jam.sum()),
        "sendq_median": _median_where(sending.sendq, sending.send_jam),
        "send_fill_median": _median_where(sending.send_fill, sending.send_jam),
        "send_held_pct": max((e.held_pct for e in ends if e.held_pct is not None), default=None),
        "tb": sending.tb,
        "reader_kept_reading_share": reading[0].grew_share if reading else None,
        "reader_kept_intervals": reading[0].grew if reading else None,
        "reader_held_intervals": reading[0].intervals if reading else None,
        "reader_held_s": reading[0].held_ms / 1000.0 if reading else None,
        "reader_rate": reading[0].rate if reading else None,
        "reader_counter": reading[0].counter if reading else None,
        "reader_end": connection_label(reading[1].key) if reading else None,
        "reader_end_other": _other_end(reading[1].key, end.key) if reading else None,
        "reader_lag_peak": lag[0] if lag else None,
        "reader_lag_end": connection_label(lag[1].key) if lag else None,
        "reader_lag_end_other": _other_end(lag[1].key, end.key) if lag else None,
        "rwnd_limited_pct": window.rwnd_pct if window else None,
        "rwnd_sender": connection_label(window.key) if window else None,
        "rwnd_sender_other": _other_end(window.key, end.key) if window else None,
        "zero_window_events": sum(z.events for z in counted) if counted else None,
        "zero_window_adv": sum(z.advertised for z in counted) if counted else None,
        "zero_window_probes": sum(z.probes for z in counted) if counted else None,
        "behind_host": behind,
        "pool": pool[0] if pool else None,
        "pool_peak_active": pool[1] if pool else None,
        "pool_max": pool[2] if pool else None,
        "pool_headroom_share": pool[3] if pool else None,
        "cpu_busy_median": cpu[0] if cpu else None,
    }
    recv_span = longest_true_span(receiving.times, receiving.recv_jam)
    send_span = longest_true_span(sending.times, sending.send_jam)
    anchors = {
        "recv_jam_share": at(receiving, "tcp.conn.recvq.bytes", recv_span),
        "send_jam_share": at(sending, "tcp.conn.sendq.bytes", send_span),
        "connections": at(end, "tcp.conn.rtt_ms"),
    }
    if reading:
        anchors["reader_kept_reading_share"] = at(
            reading[1], f"tcp.conn.{reading[0].counter}", reading[0].span
        )
    if window:
        anchors["rwnd_limited_pct"] = at(window, "tcp.conn.rwnd_limited_pct")
    if counted:
        shown = max(counted, key=lambda z: z.events)
        source = shown.shown.source
        anchors["zero_window_events"] = Anchor(
            source.name, {}, *shown.span, source.host, source.artifact
        )
    if pool:
        anchors["pool_headroom_share"] = Anchor(
            "threadpool.active", {"pool": pool[0]}, span[0], span[1], behind, pool[4]
        )
    if cpu:
        whole = (int(end.times[0]), int(end.times[-1]))
        anchors["cpu_busy_median"] = Anchor("cpu.user_pct", {}, whole[0], whole[1], behind, cpu[1])
    return Measurement(
        entity=f"{group.client} -> {group.service} ({connection_label(end.key)})",
        key=ckey,
        values=values,
        anchor=at(
            end, "tcp.conn.recvq.bytes" if side == "receive" else "tcp.conn.sendq.bytes", span
        ),
        anchors=anchors,
    )


def _other_end(key: ConnectionKey, shown: ConnectionKey) -> str | None:
    """An end as the evidence names it: not at all when it is the connection the finding
    names already (``shown``), without its host when on the same host (a sentence names a
    connection and a host once)."""
    if key == shown:
        return None
    return connection_label((None, key[1], key[2]) if key[0] == shown[0] else key)


def _reading(receiving: _End, sending: _End, params: Params) -> tuple[ReadingProgress, _End] | None:
    """How the reader progressed while the connection was jammed: the receiver's
    ``bytes_received`` over the intervals its Recv-Q was jammed at both ends; where the
    receiver was not captured (or its queue never jammed twice in a row), the sender's
    ``bytes_acked`` over the intervals its Send-Q was jammed at both ends and the peer's
    window held it back (a sender held by its own buffer says nothing about the reader)."""
    received = reading_progress(
        receiving.row, "bytes_received", receiving.times, held_intervals(receiving.recv_jam)
    )
    if received is not None:
        return received, receiving
    held = held_intervals(sending.send_jam) & window_held_intervals(
        sending.row, sending.times, float(params["send_held_min_pct"])
    )
    acked = reading_progress(sending.row, "bytes_acked", sending.times, held)
    return (acked, sending) if acked is not None else None


def _peer_host(group: _Group, end: _End) -> str | None:
    """The host that captured the other end of ``end``'s connection, if any did."""
    host, local, peer = end.key
    for other in group.ends:
        if other.key[1] == peer and other.key[2] == local and other.key[0] != host:
            return other.key[0]
    return None


def _pool_headroom(
    data: IncidentData, host: str | None, jam_ms: npt.NDArray[np.int64], params: Params
) -> tuple[str, float, float, float, str] | None:
    """(pool, peak active, max, share of jam instants it was not saturated, artifact) of the
    busiest pool of ``host`` (that host's only; None without its samples or a jam).

    Saturated is the quantities layer's one definition (:func:`quantities.pool_saturation`:
    active >= max or the queue full), read at each jam instant from the pool's last reading.
    """
    del params
    if host is None or not len(jam_ms):
        return None
    best: tuple[str, float, float, float, str] | None = None
    for pool in pool_saturation(data):
        if pool.host != host or pool.peak_active is None or pool.max_threads is None:
            continue
        saturated, known = pool.saturated_at(jam_ms)
        if not known.any():
            continue
        headroom = float(np.mean(~saturated[known]))
        if best is None or pool.peak_active > best[1]:
            best = (pool.pool, pool.peak_active, pool.max_threads, headroom, pool.artifact)
    return best


def _cpu_busy_median(
    data: IncidentData, host: str | None, span: tuple[int, int]
) -> tuple[float, str] | None:
    """Median CPU user+sys of ``host`` over its samples within ``span`` (the connection's
    capture; that host's own nmon only): CPU of another day says nothing of this queue."""
    if host is None:
        return None
    user, system = (
        richest([within(s, *span) for s in data.series(name, host=host) if s.host == host])
        for name in ("cpu.user_pct", "cpu.sys_pct")
    )
    if user is None:
        return None
    busy = user.values.copy()
    if system is not None:
        busy = busy + values_at(system, user.times_ms, mode="exact", default=0.0)
    return float(np.median(busy)), user.artifact
