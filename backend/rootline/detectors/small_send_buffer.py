"""Send buffer smaller than the bandwidth-delay product (DOMAIN.md report D, also A).

Mechanism: TCP can keep at most one send buffer of data in flight, so one connection moves
at most ``send buffer / RTT``. An application that calls ``setSendBufferSize(16 KB)`` (SO_SNDBUF)
on a 100 Mbit/s, 20 ms path gets 16 KB / 20 ms = 800 KB/s instead of 12.5 MB/s: the path's
bandwidth-delay product (BDP = 100 Mbit/s x 20 ms = 250 KB) is fifteen times the buffer.
Setting SO_SNDBUF also turns the kernel's autotuning off (the buffer would otherwise grow up
to ``net.ipv4.tcp_wmem``'s maximum). The writer sleeps in ``sk_stream_wait_memory``; the
kernel counts that time as ``sndbuf_limited`` in ``ss -ti``.

Inputs: ``ss -tinm`` snapshots (per connection ``tcp.conn.skmem_tb`` = the send buffer,
``tcp.conn.skmem_w`` / ``tcp.conn.sendq.bytes`` = what is queued, ``sndbuf_limited_ms`` /
``busy_ms``, ``rtt_ms``, ``delivery_rate_bps``, ``bbr_bw_bps``, ``rwnd_limited_ms``), sysctl facts
``net.ipv4.tcp_wmem`` and ``net.core.wmem_max`` (to explain autotuning).

Signature per connection (thresholds below):

- *limited*: ``sndbuf_limited`` >= SNDBUF_LIMITED_MIN_PCT of busy time (during the capture when
  two snapshots allow it, else since the connection opened), with at least MIN_BUSY_MS busy;
- *pinned*: queued bytes (max of Send-Q and skmem ``w``) >= SENDQ_NEAR_FULL_RATIO x ``tb`` in
  >= PINNED_MIN_SHARE of the snapshots where the socket held data (at least MIN_SNAPSHOTS);
- *capped*: the delivery rate is about ``tb / RTT`` (between CAPPED_MIN_RATIO and
  CAPPED_MAX_RATIO of it), or ``tb`` is below BDP_FAR_BELOW_RATIO x BDP, the BDP taken from the
  best delivery rate (or BBR bandwidth) seen to the same peer address times this RTT.

``confirmed``: limited and pinned and capped, on a connection whose receive window was not
the tighter limit (``rwnd_limited`` below ``sndbuf_limited``). ``likely``: limited alone, or
pinned and capped. ``ruled_out``: ``ss -tinm`` (or ``ss -ti`` with busy times) was there and
no connection shows it, with the largest numbers seen. ``insufficient_data``: no per-connection
send-buffer data.

A connection limited by its own buffer cannot show the path's capacity (its delivery rate is
the buffer's rate), so the BDP is only as good as the best connection seen to that peer; the
explanation says so when nothing better was seen.
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
    Verdict,
    parameters_of,
)
from rootline.detectors.quantities import (
    ConnectionKey,
    chrono_share_pct,
    connection_label,
    connection_series,
    exact_values_at,
    fact_ints,
    fmt_bytes,
    fmt_pct,
    format_bits_per_s,
    host_fact,
    longest_true_span,
    split_endpoint,
)

ID = "small_send_buffer"
TITLE = "Send buffer smaller than the bandwidth-delay product"

# Report A's stuck Dubbo connection was sndbuf-limited 32.4 % of its busy time (and 1 connection
# with 32 KB buffers was 2.9x slower than 4 MB ones); a third of busy time is a real limit.
SNDBUF_LIMITED_MIN_PCT = 30.0
# Below a second of busy time the share is noise (8 ms busy, 8 ms limited = 100 %).
MIN_BUSY_MS = 1000.0
# "Pinned": the queue fills the buffer. skmem w counts skb overhead, so a full buffer shows
# w close to tb, and Send-Q a little below it; 80 % tolerates that overhead.
SENDQ_NEAR_FULL_RATIO = 0.8
# Pinned in at least half of the snapshots where the socket held data: persistent, not a spike.
PINNED_MIN_SHARE = 0.5
MIN_SNAPSHOTS = 3
# Throughput ~ buffer / RTT: the measured delivery rate within this band of tb / RTT. Up to
# 1.25x because the kernel's doubled SO_SNDBUF value counts overhead; down to 0.3x because
# ss delivery_rate is one recent sample, and an in-flight window is rarely the whole buffer.
CAPPED_MIN_RATIO = 0.3
CAPPED_MAX_RATIO = 1.25
# "Far below the BDP" (report D: 16 KB against 250 KB, 1/15): under half of the BDP.
BDP_FAR_BELOW_RATIO = 0.5
# Buffer-bound by construction (kernels/loads where ss prints no sndbuf_limited, as on the lab's
# kernel 6.18): the buffer is full, everything queued is in flight (Send-Q <= in-flight x this
# + one MSS), and neither the congestion window nor the peer's window is what stops more data.
INFLIGHT_SLACK_RATIO = 1.25
# ... in at least half of the snapshots that held data.
BUFFER_BOUND_MIN_SHARE = 0.5

PARAMETERS = [
    "SNDBUF_LIMITED_MIN_PCT",
    "MIN_BUSY_MS",
    "SENDQ_NEAR_FULL_RATIO",
    "PINNED_MIN_SHARE",
    "MIN_SNAPSHOTS",
    "CAPPED_MIN_RATIO",
    "CAPPED_MAX_RATIO",
    "BDP_FAR_BELOW_RATIO",
    "INFLIGHT_SLACK_RATIO",
    "BUFFER_BOUND_MIN_SHARE",
]

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
    "bbr_bw_bps",
    "unacked",
    "mss",
    "cwnd",
    "snd_wnd",
)

MISSING = [
    Missing(
        "ss -tinm loop (send buffer tb, Send-Q, sndbuf_limited, rtt, delivery_rate)",
        'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
    ),
    Missing("sysctl (tcp_wmem, wmem_max)", "sysctl net.ipv4 net.core > sysctl.txt"),
    Missing("or all of it at once", "rootline-collect.sh --interval 1 --duration 60"),
]


REMEDIES = [
    "Do not fix SO_SNDBUF/SO_RCVBUF small in the application (Socket.setSendBufferSize, Netty"
    " ChannelOption.SO_SNDBUF): let kernel autotuning size them, or set them >= the BDP"
    " (bandwidth x RTT).",
    "Let autotuning reach the BDP: net.ipv4.tcp_wmem / tcp_rmem maximum >= the BDP (e.g."
    " '4096 16384 4194304'), net.ipv4.tcp_moderate_rcvbuf=1; net.core.wmem_max / rmem_max"
    " cap what SO_SNDBUF/SO_RCVBUF may ask for.",
]


@dataclass(slots=True)
class _Conn:
    key: ConnectionKey
    artifact: str
    times: np.ndarray
    send_buffer: float  # median tb, bytes
    snapshots_with_data: int
    pinned_snapshots: int
    pinned_share: float
    pinned_run: tuple[int, int] | None
    sndbuf_pct: float | None  # None: no busy time measured
    busy_ms: float
    rwnd_pct: float | None
    rtt_ms: float | None
    delivery_bps: float | None
    bound_bytes_per_s: float | None
    capped_ratio: float | None
    bdp_bytes: float | None
    bandwidth_bps: float | None
    bandwidth_source: str
    bound_share: float | None  # share of data snapshots bound by the buffer alone; None: unknown
    bound_snapshots: int
    sndbuf_reported: bool
    limited: bool = False
    pinned: bool = False
    capped: bool = False
    far_below: bool = False

    @property
    def score(self) -> tuple[int, float, float]:
        level = 2 if self.confirmed else 1 if self.likely else 0
        return (level, self.sndbuf_pct or 0.0, self.pinned_share)

    @property
    def confirmed(self) -> bool:
        receiver_bound = (self.rwnd_pct or 0.0) > (self.sndbuf_pct or 0.0)
        return (
            self.limited and self.pinned and (self.capped or self.far_below) and not receiver_bound
        )

    @property
    def likely(self) -> bool:
        # A queue at the buffer's size with in-flight data stuck at cwnd or the peer's window
        # (loss, a stalled receiver) is not a small buffer: only without the data to tell
        # do a pinned queue and a capped rate alone make it likely.
        if self.limited:
            return True
        unknown = self.bound_share is None and self.sndbuf_pct is None
        return unknown and self.pinned and (self.capped or self.far_below)


def _connection(
    key: ConnectionKey,
    row: dict[str, SeriesView],
    bandwidth_by_peer: dict[tuple[str | None, str], tuple[float, str]],
) -> _Conn | None:
    anchor = row.get("skmem_tb") or row.get("busy_ms")
    if anchor is None:
        return None
    times = anchor.times_ms
    tb_series = row.get("skmem_tb")
    tb = exact_values_at(tb_series, times, np.nan) if tb_series is not None else None
    send_buffer = float(np.nanmedian(tb)) if tb is not None and np.isfinite(tb).any() else 0.0
    queued = np.zeros(len(times))
    for name in ("sendq.bytes", "skmem_w"):
        if name in row:
            queued = np.maximum(queued, exact_values_at(row[name], times, 0.0))
    has_data = queued > 0
    if tb is not None and send_buffer > 0:
        pinned_mask = has_data & (queued >= SENDQ_NEAR_FULL_RATIO * np.nan_to_num(tb, nan=np.inf))
    else:
        pinned_mask = np.zeros(len(times), dtype=bool)
    with_data = int(has_data.sum())
    pinned_count = int(pinned_mask.sum())
    pinned_run = longest_true_span(times, pinned_mask)

    sndbuf_pct, busy_ms = chrono_share_pct(row, times, "sndbuf_limited", MIN_BUSY_MS)
    bound_share, bound_count = _buffer_bound(row, times, queued, pinned_mask)
    rwnd_pct, _ = chrono_share_pct(row, times, "rwnd_limited", MIN_BUSY_MS)
    rtt = row.get("rtt_ms")
    rtt_ms = float(np.median(rtt.values)) if rtt is not None and len(rtt) else None
    rate = row.get("delivery_rate_bps")
    positive = rate.values[rate.values > 0] if rate is not None else np.array([])
    delivery_bps = float(np.median(positive)) if len(positive) else None

    bound = capped_ratio = bdp = None
    if rtt_ms and rtt_ms > 0 and send_buffer > 0:
        bound = send_buffer / (rtt_ms / 1000.0)
        if delivery_bps is not None:
            capped_ratio = (delivery_bps / 8.0) / bound
    peer_address = split_endpoint(key[2])[0]
    bandwidth_bps, source = bandwidth_by_peer.get((key[0], peer_address), (None, ""))
    if bandwidth_bps and rtt_ms:
        bdp = bandwidth_bps / 8.0 * rtt_ms / 1000.0
    conn = _Conn(
        key=key,
        artifact=anchor.artifact,
        times=times,
        send_buffer=send_buffer,
        snapshots_with_data=with_data,
        pinned_snapshots=pinned_count,
        pinned_share=pinned_count / with_data if with_data else 0.0,
        pinned_run=pinned_run,
        sndbuf_pct=sndbuf_pct,
        busy_ms=busy_ms,
        rwnd_pct=rwnd_pct,
        rtt_ms=rtt_ms,
        delivery_bps=delivery_bps,
        bound_bytes_per_s=bound,
        capped_ratio=capped_ratio,
        bdp_bytes=bdp,
        bandwidth_bps=bandwidth_bps,
        bandwidth_source=source,
        bound_share=bound_share,
        bound_snapshots=bound_count,
        sndbuf_reported="sndbuf_limited_ms" in row or "sndbuf_limited_pct" in row,
    )
    conn.limited = (
        sndbuf_pct is not None and busy_ms >= MIN_BUSY_MS and sndbuf_pct >= SNDBUF_LIMITED_MIN_PCT
    ) or (
        bound_share is not None
        and bound_count >= MIN_SNAPSHOTS
        and bound_share >= BUFFER_BOUND_MIN_SHARE
    )
    conn.pinned = pinned_count >= MIN_SNAPSHOTS and conn.pinned_share >= PINNED_MIN_SHARE
    conn.capped = capped_ratio is not None and CAPPED_MIN_RATIO <= capped_ratio <= CAPPED_MAX_RATIO
    conn.far_below = bdp is not None and send_buffer > 0 and send_buffer < BDP_FAR_BELOW_RATIO * bdp
    return conn


def _buffer_bound(
    row: dict[str, SeriesView], times: np.ndarray, queued: np.ndarray, pinned_mask: np.ndarray
) -> tuple[float | None, int]:
    """(share of data snapshots where only the send buffer held data back, their count).

    Bound: buffer full (pinned), Send-Q all in flight (Send-Q <= unacked x mss x slack + mss),
    in-flight segments below cwnd, in-flight bytes below the peer's window when known.
    None when unacked, mss or cwnd were not captured.
    """
    if not all(name in row for name in ("unacked", "mss", "cwnd")):
        return None, 0
    unacked = exact_values_at(row["unacked"], times, 0.0)
    mss = exact_values_at(row["mss"], times, np.nan)
    cwnd = exact_values_at(row["cwnd"], times, np.nan)
    inflight = unacked * np.nan_to_num(mss, nan=0.0)
    sendq = exact_values_at(row["sendq.bytes"], times, 0.0) if "sendq.bytes" in row else queued
    all_in_flight = sendq <= inflight * INFLIGHT_SLACK_RATIO + np.nan_to_num(mss, nan=0.0)
    below_cwnd = unacked < np.nan_to_num(cwnd, nan=0.0)
    if "snd_wnd" in row:
        window = exact_values_at(row["snd_wnd"], times, np.inf)
        below_window = inflight < window
    else:
        below_window = np.ones(len(times), dtype=bool)
    bound = pinned_mask & (unacked > 0) & all_in_flight & below_cwnd & below_window
    with_data = int((queued > 0).sum())
    if not with_data:
        return 0.0, 0
    return int(bound.sum()) / with_data, int(bound.sum())


def _bandwidth_by_peer(
    table: dict[ConnectionKey, dict[str, SeriesView]],
) -> dict[tuple[str | None, str], tuple[float, str]]:
    """Best rate seen per (host, peer address): max delivery rate or BBR bandwidth estimate."""
    best: dict[tuple[str | None, str], tuple[float, str]] = {}
    for key, row in table.items():
        peer_address = split_endpoint(key[2])[0]
        for field_name, what in (("delivery_rate_bps", "delivery rate"), ("bbr_bw_bps", "BBR bw")):
            series = row.get(field_name)
            if series is None or not len(series):
                continue
            value = float(np.max(series.values))
            slot = (key[0], peer_address)
            if value > 0 and (slot not in best or value > best[slot][0]):
                best[slot] = (value, f"best {what} seen to {peer_address} ({key[1]} -> {key[2]})")
    return best


def _autotuning_note(data: IncidentData, conn: _Conn) -> tuple[str, Evidence | None]:
    host = conn.key[0]
    wmem = host_fact(data, "net.ipv4.tcp_wmem", host)
    wmem_max_fact = host_fact(data, "net.core.wmem_max", host)
    numbers = fact_ints(wmem)
    wmem_max = fact_ints(wmem_max_fact)
    if len(numbers) != 3:
        return "", None
    note = (
        f" net.ipv4.tcp_wmem = {wmem.value if wmem else ''}: autotuning may grow a send buffer up"
        f" to {fmt_bytes(numbers[2])}"
    )
    if conn.send_buffer and conn.send_buffer * 4 <= numbers[2]:
        note += (
            f", yet this one stayed at {fmt_bytes(conn.send_buffer)} while the writer waited:"
            " the application most likely fixed it with SO_SNDBUF (setSendBufferSize), which"
            " turns autotuning off"
        )
    if wmem_max:
        note += f"; net.core.wmem_max = {wmem_max[0]} caps what SO_SNDBUF may ask for"
    evidence = Evidence(
        summary=f"net.ipv4.tcp_wmem = {wmem.value if wmem else ''} (autotuning max {fmt_bytes(numbers[2])})",
        observed=float(numbers[2]),
        threshold=conn.send_buffer,
        unit="bytes",
        artifact=wmem.artifact if wmem else None,
        host=host,
    )
    return note + ".", evidence


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    table = connection_series(data, FIELDS)
    bandwidth = _bandwidth_by_peer(table)
    conns = [c for key, row in table.items() if (c := _connection(key, row, bandwidth))]
    if not conns:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="No per-connection send-buffer data (ss -tinm: skmem tb, Send-Q,"
            " sndbuf_limited) was captured, so the send buffer cannot be judged.",
            missing=MISSING,
            remedies=REMEDIES,
            parameters=params,
        )
    conns.sort(key=lambda c: c.score, reverse=True)
    worst = conns[0]
    affected = [c for c in conns if c.confirmed] or [c for c in conns if c.likely]
    evidence = _evidence(worst)
    note, wmem_evidence = _autotuning_note(data, worst)
    if wmem_evidence:
        evidence.append(wmem_evidence)
    snapshots = sum(len(c.times) for c in conns)
    if not worst.likely:
        reported = [c.sndbuf_pct for c in conns if c.sndbuf_reported and c.sndbuf_pct is not None]
        bound = [c.bound_share for c in conns if c.bound_share is not None]
        pinned = max(c.pinned_share for c in conns)
        reasons = []
        if reported:
            reasons.append(
                f"sndbuf_limited peaked at {fmt_pct(max(reported))} of busy time"
                f" (threshold {fmt_pct(SNDBUF_LIMITED_MIN_PCT)})"
            )
        if bound:
            reasons.append(
                f"the buffer alone held data back in at most {max(bound):.0%} of the snapshots"
                f" with data queued (threshold {BUFFER_BOUND_MIN_SHARE:.0%}; where Send-Q was"
                " full, cwnd or the peer's window held it)"
            )
        reasons.append(
            f"Send-Q filled >= {SENDQ_NEAR_FULL_RATIO:.0%} of the send buffer in at most"
            f" {pinned:.0%} of them (threshold {PINNED_MIN_SHARE:.0%})"
        )
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary="No connection was held back by its send buffer: "
            + "; ".join(reasons)
            + f"; over {len(conns)} connections and {snapshots} connection snapshots.",
            evidence=evidence,
            explanation="A send buffer below the bandwidth-delay product caps a connection at"
            " buffer / RTT: the buffer stays full, all of it in flight, the writer blocked"
            " (sndbuf_limited), while cwnd and the peer's window would allow more. That was"
            " not seen here." + note,
            remedies=REMEDIES,
            parameters=params,
        )
    verdict: Verdict = "confirmed" if worst.confirmed else "likely"
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=_summary(worst, len(affected)),
        evidence=evidence,
        explanation=_explanation(worst) + note,
        remedies=_remedies(worst),
        parameters=params,
    )


def _summary(conn: _Conn, affected: int) -> str:
    parts = [f"{connection_label(conn.key)}: send buffer {fmt_bytes(conn.send_buffer)}"]
    if conn.sndbuf_reported and conn.sndbuf_pct is not None:
        parts.append(f"sndbuf_limited {fmt_pct(conn.sndbuf_pct)} of busy time")
    if conn.bound_share is not None and conn.bound_snapshots:
        parts.append(
            f"only the buffer held data back in {conn.bound_share:.0%} of snapshots"
            " (all of Send-Q in flight, below cwnd and the peer's window)"
        )
    elif conn.snapshots_with_data:
        parts.append(
            f"Send-Q at >= {SENDQ_NEAR_FULL_RATIO:.0%} of it in {conn.pinned_share:.0%} of"
            " snapshots"
        )
    if conn.bound_bytes_per_s and conn.rtt_ms:
        parts.append(
            f"throughput <= {fmt_bytes(conn.send_buffer)} / {conn.rtt_ms:.3g} ms ="
            f" {fmt_bytes(conn.bound_bytes_per_s)}/s"
            + (f" (measured {fmt_bytes(conn.delivery_bps / 8)}/s)" if conn.delivery_bps else "")
        )
    if conn.bdp_bytes and conn.far_below:
        parts.append(f"BDP ~ {fmt_bytes(conn.bdp_bytes)}")
    more = f" ({affected} connections alike)" if affected > 1 else ""
    return ", ".join(parts) + more + "."


def _explanation(conn: _Conn) -> str:
    text = (
        "TCP keeps at most one send buffer of unacknowledged data in flight, so a connection"
        " moves at most send buffer / RTT; the writer waits in sk_stream_wait_memory, which"
        " the kernel counts as sndbuf_limited."
    )
    if conn.bound_bytes_per_s and conn.rtt_ms:
        text += (
            f" Here throughput <= {fmt_bytes(conn.send_buffer)} / {conn.rtt_ms:.3g} ms ="
            f" {fmt_bytes(conn.bound_bytes_per_s)}/s"
        )
        if conn.delivery_bps:
            text += (
                f"; the measured delivery rate was {format_bits_per_s(conn.delivery_bps)}"
                f" ({fmt_bytes(conn.delivery_bps / 8)}/s, {conn.capped_ratio:.2f}x the bound)"
            )
        text += "."
    if conn.bdp_bytes and conn.bandwidth_bps and conn.rtt_ms:
        text += (
            f" BDP = {format_bits_per_s(conn.bandwidth_bps)} x {conn.rtt_ms:.3g} ms ="
            f" {fmt_bytes(conn.bdp_bytes)} ({conn.bandwidth_source})"
        )
        text += (
            f", {conn.bdp_bytes / conn.send_buffer:.1f}x the send buffer."
            if conn.send_buffer
            else "."
        )
        if not conn.far_below:
            text += (
                " A connection limited by its own buffer cannot show the path's capacity:"
                " compare buffer / RTT with the link speed."
            )
    if (conn.rwnd_pct or 0.0) > (conn.sndbuf_pct or 0.0):
        text += (
            f" The receive window limited it more ({fmt_pct(conn.rwnd_pct or 0.0)} rwnd_limited):"
            " see receiver_not_reading."
        )
    return text


def _remedies(conn: _Conn) -> list[str]:
    target = max(conn.bdp_bytes or 0.0, 4 * conn.send_buffer, 4 * 1024 * 1024)
    return [
        "Remove the application's fixed send buffer (Socket.setSendBufferSize / SO_SNDBUF, Netty"
        " ChannelOption.SO_SNDBUF) so kernel autotuning can grow it, or set it to at least the"
        f" BDP (bandwidth x RTT){f', here >= {fmt_bytes(conn.bdp_bytes)}' if conn.bdp_bytes else ''}.",
        f"Let autotuning reach the BDP: sysctl -w net.ipv4.tcp_wmem='4096 16384 {int(target)}'"
        f" and, for the receiver, net.ipv4.tcp_rmem='4096 131072 {int(target)}'"
        " (keep net.ipv4.tcp_moderate_rcvbuf=1).",
        f"If SO_SNDBUF must stay fixed, raise its ceiling: sysctl -w net.core.wmem_max={int(target)}"
        f" (and net.core.rmem_max={int(target)}).",
        "Application transfer buffers too: SOFA-RPC transbuf >= 32 KB (report B), Dubbo `buffer`;"
        " more connections (Dubbo `connections`) multiply the in-flight data.",
    ]


def _evidence(conn: _Conn) -> list[Evidence]:
    host, local, peer = conn.key
    labels = {"local": local, "peer": peer}
    start, end = int(conn.times[0]), int(conn.times[-1])
    items: list[Evidence] = []
    if conn.bound_share is not None:
        items.append(
            Evidence(
                summary=f"only the send buffer held data back in {conn.bound_snapshots} of"
                f" {conn.snapshots_with_data} snapshots with data queued (buffer full, all of"
                " Send-Q in flight, unacked below cwnd and the peer's window)",
                observed=round(conn.bound_share, 3),
                threshold=BUFFER_BOUND_MIN_SHARE,
                unit="share of snapshots",
                from_ms=(conn.pinned_run or (start, end))[0],
                to_ms=(conn.pinned_run or (start, end))[1],
                series="tcp.conn.unacked",
                labels=labels,
                artifact=conn.artifact,
                host=host,
            )
        )
    if conn.sndbuf_pct is not None and (conn.sndbuf_reported or conn.bound_share is None):
        items.append(
            Evidence(
                summary=f"sndbuf_limited {fmt_pct(conn.sndbuf_pct)} of {conn.busy_ms / 1000:.1f} s"
                f" busy on {connection_label(conn.key)}",
                observed=round(conn.sndbuf_pct, 1),
                threshold=SNDBUF_LIMITED_MIN_PCT,
                unit="percent",
                from_ms=start,
                to_ms=end,
                series="tcp.conn.sndbuf_limited_pct",
                labels=labels,
                artifact=conn.artifact,
                host=host,
            )
        )
    if conn.snapshots_with_data:
        run_from, run_to = conn.pinned_run or (start, end)
        items.append(
            Evidence(
                summary=f"Send-Q >= {SENDQ_NEAR_FULL_RATIO:.0%} of the {fmt_bytes(conn.send_buffer)}"
                f" send buffer in {conn.pinned_snapshots} of {conn.snapshots_with_data} snapshots"
                " with data queued",
                observed=round(conn.pinned_share, 3),
                threshold=PINNED_MIN_SHARE,
                unit="share of snapshots",
                from_ms=run_from,
                to_ms=run_to,
                series="tcp.conn.sendq.bytes",
                labels=labels,
                artifact=conn.artifact,
                host=host,
            )
        )
    if conn.bound_bytes_per_s is not None and conn.capped_ratio is not None:
        items.append(
            Evidence(
                summary=f"delivery rate {fmt_bytes((conn.delivery_bps or 0) / 8)}/s vs send buffer /"
                f" RTT = {fmt_bytes(conn.bound_bytes_per_s)}/s ({conn.capped_ratio:.2f}x)",
                observed=round(conn.capped_ratio, 3),
                threshold=f"{CAPPED_MIN_RATIO}..{CAPPED_MAX_RATIO}",
                unit="ratio",
                from_ms=start,
                to_ms=end,
                series="tcp.conn.delivery_rate_bps",
                labels=labels,
                artifact=conn.artifact,
                host=host,
            )
        )
    if conn.bdp_bytes is not None:
        items.append(
            Evidence(
                summary=f"send buffer {fmt_bytes(conn.send_buffer)} vs BDP {fmt_bytes(conn.bdp_bytes)}"
                f" ({conn.bandwidth_source} x RTT)",
                observed=conn.send_buffer,
                threshold=round(BDP_FAR_BELOW_RATIO * conn.bdp_bytes),
                unit="bytes",
                from_ms=start,
                to_ms=end,
                series="tcp.conn.skmem_tb",
                labels=labels,
                artifact=conn.artifact,
                host=host,
            )
        )
    return items
