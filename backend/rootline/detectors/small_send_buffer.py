"""Quantities of ``small_send_buffer`` (rule: ``rules/small_send_buffer.toml``), per connection.

Read from ``ss -tinm`` snapshots of the sender: ``skmem`` (``tb`` the send buffer, ``w`` what
is queued, both in truesize: payload plus per-skb overhead), Send-Q (payload), the kernel's
chrono limits (``busy``, ``sndbuf_limited``, ``rwnd_limited``), ``rtt``, ``cwnd`` x ``mss``,
``pacing_rate``, ``delivery_rate``, ``bytes_acked`` and ``unacked``; sysctl ``tcp_wmem``.

The bound a send buffer puts on a connection is what it lets be in flight per RTT, in
*payload*, by the kernel's own accounting: the largest Send-Q of the snapshots where the
buffer was full (``w`` at ``tb``), over the RTT. Not ``tb`` / RTT: ``tb`` counts truesize (payload
plus per-skb overhead), and a 64 KB GSO tail segment may carry ``w`` past ``tb``. The measured throughput is ``bytes_acked`` over time (the kernel's byte counter),
not one ``delivery_rate`` sample. The path's capacity comes from the connection itself: what
its congestion window would let out (cwnd x mss / RTT), its pacing rate, and the best
delivery rate seen to the same peer; no second run needed.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    ConnectionKey,
    chrono_share_pct,
    conn_key,
    connection_label,
    connection_series,
    fact_ints,
    field_at,
    host_fact,
    longest_true_span,
    median,
    split_endpoint,
    values_at,
)

FIELDS = (
    "skmem_tb",
    "skmem_w",
    "sendq.bytes",
    "busy_ms",
    "sndbuf_limited_ms",
    "sndbuf_limited_pct",
    "rwnd_limited_ms",
    "rwnd_limited_pct",
    "rtt_ms",
    "delivery_rate_bps",
    "pacing_rate_bps",
    "bytes_acked",
    "unacked",
    "mss",
    "cwnd",
    "snd_wnd",
    "retrans",
    "app_limited",
)


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    table = connection_series(data, FIELDS)
    idle = {key: _idle(row) for key, row in table.items()}
    best_rate = _best_rate_by_peer(table, idle)
    out = []
    for key, row in table.items():
        m = _connection(data, key, row, best_rate, idle[key], params)
        if m is not None:
            out.append(m)
    return out


def _median(series: SeriesView | None, *, positive: bool = False) -> float | None:
    if series is None or not len(series):
        return None
    values = series.values[np.isfinite(series.values)]
    if positive:
        values = values[values > 0]
    return median(values) if len(values) else None


def _connection(
    data: IncidentData,
    key: ConnectionKey,
    row: dict[str, SeriesView],
    best_rate: dict[tuple[str | None, str], float],
    idle: _Idle,
    params: Params,
) -> Measurement | None:
    tb_series = row.get("skmem_tb")
    if tb_series is None or not len(tb_series):
        return None
    host, local, peer = key
    times = tb_series.times_ms
    tb = values_at(tb_series, times, mode="exact")
    send_buffer = median(tb[~np.isnan(tb)]) if np.isfinite(tb).any() else 0.0
    if send_buffer <= 0:
        return None
    sendq = field_at(row, "sendq.bytes", times)
    queued_truesize = field_at(row, "skmem_w", times)
    queued = np.maximum(sendq, queued_truesize)
    has_data = queued > 0
    near_full = float(params["sendq_near_full_ratio"])
    pinned_mask = has_data & (queued >= near_full * np.nan_to_num(tb, nan=np.inf))
    with_data = int(has_data.sum())
    pinned_run = longest_true_span(times, pinned_mask) or (int(times[0]), int(times[-1]))

    min_busy = float(params["min_busy_ms"])
    sndbuf_pct, busy_ms = chrono_share_pct(row, times, "sndbuf_limited", min_busy)
    rwnd_pct, _ = chrono_share_pct(row, times, "rwnd_limited", min_busy)
    if busy_ms < min_busy:
        sndbuf_pct = rwnd_pct = None  # under a second of busy time a share is noise

    # What the full buffer let be in flight, in payload, by the kernel's own accounting: the
    # largest Send-Q of the snapshots where the buffer was full (a bound is what the buffer let
    # out at most, and the throughput is checked against it). skmem counts truesize (payload
    # plus per-skb overhead), and the tail skb may carry w past tb (64 KB GSO segments), so
    # neither tb nor a fixed overhead ratio is the bound; nor is the typical snapshot: a
    # writer's large write() lands whole when w drops under tb, so with GSO segments what is
    # in flight swings between one and several writes (128 KB writes into a 32 KiB tb: Send-Q
    # 128 KiB in most snapshots, 384 KiB in some, 5.4 MB/s = 270 KB per 50 ms RTT). Without
    # full snapshots, tb times the connection's own Send-Q / w ratio.
    both = (sendq > 0) & (queued_truesize > 0)
    payload_ratio = float(np.median(sendq[both] / queued_truesize[both])) if both.any() else None
    rtt_ms = _median(row.get("rtt_ms"), positive=True)
    full_sendq = sendq[pinned_mask & (sendq > 0)]
    if len(full_sendq):
        buffer_payload: float | None = float(np.max(full_sendq))
    else:
        buffer_payload = send_buffer * payload_ratio if payload_ratio is not None else None
    buffer_bound = (
        buffer_payload / (rtt_ms / 1000.0) if buffer_payload is not None and rtt_ms else None
    )
    goodput = _goodput(row.get("bytes_acked"))
    capacity, capacity_source = _capacity(row, rtt_ms, best_rate.get((host, _address(peer))), idle)
    bdp = capacity * rtt_ms / 1000.0 if capacity is not None and rtt_ms else None

    bound_share, bound_count = _buffer_bound_share(row, times, queued, pinned_mask, params)
    retrans = row.get("retrans")
    span = (int(times[0]), int(times[-1]))
    labels = {"local": local, "peer": peer}

    def at(series: str, where: tuple[int, int] = span) -> Anchor:
        return Anchor(series, labels, where[0], where[1], host, tb_series.artifact)

    wmem = host_fact(data, "net.ipv4.tcp_wmem", host)
    wmem_numbers = fact_ints(wmem)
    autotune_max = float(wmem_numbers[2]) if len(wmem_numbers) == 3 else None
    values = {
        "send_buffer": send_buffer,
        "snapshots": len(times),
        "snapshots_with_data": with_data,
        "pinned_snapshots": int(pinned_mask.sum()),
        # of no snapshot with data queued, no share (0 of 0 is not 0 %)
        "pinned_share": int(pinned_mask.sum()) / with_data if with_data else None,
        "sndbuf_limited_pct": sndbuf_pct,
        "rwnd_limited_pct": rwnd_pct,
        "busy_s": busy_ms / 1000.0 if busy_ms else None,
        "receiver_tighter": (rwnd_pct or 0.0) > (sndbuf_pct or 0.0),
        "buffer_bound_share": bound_share,
        "buffer_bound_snapshots": bound_count,
        "payload_ratio": payload_ratio,
        "buffer_payload": buffer_payload,
        "rtt_ms": rtt_ms,
        "buffer_bound": buffer_bound,
        "goodput": goodput,
        "goodput_over_bound": goodput / buffer_bound if goodput and buffer_bound else None,
        "capacity": capacity,
        "capacity_source": capacity_source,
        "capacity_over_bound": capacity / buffer_bound if capacity and buffer_bound else None,
        "bdp": bdp,
        "retransmits": float(np.max(retrans.values))
        if retrans is not None and len(retrans)
        else 0.0,
        "wmem": wmem.value if wmem else None,
        "autotune_max": autotune_max,
        "autotuning_off": (autotune_max is not None and send_buffer * 4 <= autotune_max),
        "remedy_buffer": float(max(bdp or 0.0, 4 * send_buffer, 4 * 1024 * 1024)),
    }
    return Measurement(
        entity=connection_label(key),
        key=conn_key(host, local, peer),
        values=values,
        anchor=at("tcp.conn.skmem_tb"),
        anchors={
            "pinned_share": at("tcp.conn.sendq.bytes", pinned_run),
            "sndbuf_limited_pct": at("tcp.conn.sndbuf_limited_pct"),
            "rwnd_limited_pct": at("tcp.conn.rwnd_limited_pct"),
            "buffer_bound_share": at("tcp.conn.unacked", pinned_run),
            "goodput_over_bound": at("tcp.conn.bytes_acked"),
            "capacity_over_bound": at("tcp.conn.cwnd"),
            "wmem": Anchor(None, {}, None, None, host, wmem.artifact if wmem else None),
        },
    )


def _address(endpoint: str) -> str:
    return split_endpoint(endpoint)[0]


def _goodput(acked: SeriesView | None) -> float | None:
    """Bytes per second the peer acknowledged, over the intervals in which data moved."""
    if acked is None or len(acked) < 2:
        return None
    seconds = np.diff(acked.times_ms) / 1000.0
    moved = np.diff(acked.values)
    active = (seconds > 0) & (moved > 0)
    if not active.any():
        return None
    return float(moved[active].sum() / seconds[active].sum())


class _Idle(NamedTuple):
    """The snapshots (of ``times``, where ``mask`` holds) where ss marked a connection
    ``app_limited`` with nothing queued: the application had nothing more to send (see
    :func:`_capacity`). ``mask`` None: none."""

    times: npt.NDArray[np.int64]
    mask: npt.NDArray[np.bool_] | None


def _idle(row: dict[str, SeriesView]) -> _Idle:
    flag = row.get("app_limited")
    anchor = row.get("skmem_tb")
    if anchor is None:
        anchor = row.get("delivery_rate_bps")
    if flag is None or anchor is None or not (flag.values == 1.0).any():
        return _Idle(np.empty(0, dtype=np.int64), None)
    times = anchor.times_ms
    flagged = field_at(row, "app_limited", times) == 1.0
    queued = np.maximum(field_at(row, "sendq.bytes", times), field_at(row, "skmem_w", times))
    mask = flagged & ~(queued > 0)
    return _Idle(times, mask if mask.any() else None)


def _sending(series: SeriesView | None, idle: _Idle) -> SeriesView | None:
    """``series`` without the idle snapshots."""
    if series is None or idle.mask is None:
        return series
    if series.times_ms is idle.times:  # a connection's fields share its snapshot times
        keep = ~idle.mask
    else:
        keep = ~np.isin(series.times_ms, idle.times[idle.mask])
    return dataclasses.replace(series, times_ms=series.times_ms[keep], values=series.values[keep])


def _capacity(
    row: dict[str, SeriesView],
    rtt_ms: float | None,
    best_peer_rate_bps: float | None,
    idle: _Idle,
) -> tuple[float | None, str]:
    """What the path carries, from the connection itself (bytes/s) and where it comes from.

    Its cwnd and pacing rate are read without the snapshots ``idle`` where ss marked it
    ``app_limited`` with nothing queued: the application had nothing more to send, so cwnd
    never had to grow and the pacing rate (derived from cwnd / RTT) says what was sent, not
    what the path would carry (DOMAIN: the connection tells the path's capacity only when not
    application-limited). A full small buffer is marked app_limited too (all of it in flight,
    nothing unsent): those snapshots, with data queued, are kept."""
    candidates: list[tuple[float, str]] = []
    if rtt_ms and "cwnd" in row and "mss" in row:
        cwnd = _median(_sending(row["cwnd"], idle), positive=True)
        mss = _median(row["mss"], positive=True)
        if cwnd and mss:
            candidates.append((cwnd * mss / (rtt_ms / 1000.0), "cwnd x mss / RTT"))
    pacing = _median(_sending(row.get("pacing_rate_bps"), idle), positive=True)
    if pacing:
        candidates.append((pacing / 8.0, "pacing rate"))
    if best_peer_rate_bps:
        candidates.append((best_peer_rate_bps / 8.0, "best delivery rate to the same peer"))
    if not candidates:
        return None, ""
    value, source = max(candidates)
    return value, source


def _best_rate_by_peer(
    table: dict[ConnectionKey, dict[str, SeriesView]], idle: dict[ConnectionKey, _Idle]
) -> dict[tuple[str | None, str], float]:
    """Per (host, peer address), the best delivery rate any connection to it reached outside
    its application-limited idle snapshots."""
    best: dict[tuple[str | None, str], float] = {}
    for key, row in table.items():
        rate = _sending(row.get("delivery_rate_bps"), idle[key])
        if rate is None or not len(rate):
            continue
        host, _local, peer = key
        slot = (host, _address(peer))
        best[slot] = max(best.get(slot, 0.0), float(np.max(rate.values)))
    return best


def _buffer_bound_share(
    row: dict[str, SeriesView],
    times: np.ndarray,
    queued: np.ndarray,
    pinned_mask: np.ndarray,
    params: Params,
) -> tuple[float | None, int]:
    """(share of data snapshots where only the send buffer held data back, their count).

    Bound: buffer full (pinned), all of Send-Q in flight (Send-Q <= unacked x mss x slack +
    mss), in-flight segments below cwnd, in-flight bytes below the peer's window when known.
    None when unacked, mss or cwnd were not captured.
    """
    if not all(name in row for name in ("unacked", "mss", "cwnd")):
        return None, 0
    unacked = field_at(row, "unacked", times)
    mss = field_at(row, "mss", times)
    cwnd = field_at(row, "cwnd", times)
    inflight = unacked * mss
    sendq = field_at(row, "sendq.bytes", times) if "sendq.bytes" in row else queued
    slack = float(params["inflight_slack_ratio"])
    all_in_flight = sendq <= inflight * slack + mss
    below_window = inflight < field_at(row, "snd_wnd", times, default=np.inf)
    bound = pinned_mask & (unacked > 0) & all_in_flight & (unacked < cwnd) & below_window
    with_data = int((queued > 0).sum())
    if not with_data:
        return 0.0, 0
    return int(bound.sum()) / with_data, int(bound.sum())
