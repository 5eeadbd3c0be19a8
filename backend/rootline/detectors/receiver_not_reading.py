"""Quantities of ``receiver_not_reading`` (rule: ``rules/receiver_not_reading.toml``), per
connection (both captured ends together), or per host where only counters were captured.

Inputs: ``ss -tinm`` snapshots of either end: on the receiving end ``tcp.conn.recvq.bytes``
(payload unread) and ``skmem_r`` / ``skmem_rb`` (receive queue and buffer, both truesize: the
kernel's own accounting of how full the buffer is); on the sending end ``busy_ms``,
``rwnd_limited_ms`` / ``_pct`` (time the peer's window held it back) and Send-Q. Kernel
counters of each host, read from one source per host (:func:`quantities.zero_windows`):
``TcpExtTCPToZeroWindowAdv`` / ``TcpExtTCPWantZeroWindowAdv`` (the receiver advertised, or
wanted to advertise, a zero window: the same events counted two ways, so the larger is taken)
and ``TcpExtTCPWinProbe`` (the sender probing a zero window).

Quantities:

- ``recv_full_run``: the longest run of consecutive snapshots in which the receive queue held
  at least ``recv_full_ratio`` of the receive buffer (skmem ``r`` / ``rb``; without ``r``,
  Recv-Q / ``rb``, which under-counts); ``recv_fill_peak`` its largest fill, ``recvq_peak``;
- ``recv_lag_peak``: the most of the window the reader could offer that unread data took in
  any snapshot (skmem ``r`` / ``rb``, or Recv-Q / ``rcv_ssthresh`` where larger; ss keeps a
  Recv-Q series only once non-zero, so an end that received data with none had an empty
  queue): below ``recv_lag_min_ratio`` throughout, a sender's ``rwnd_limited`` measured the
  receive buffer's size, not a reader falling behind;
- ``rwnd_limited_pct``: the share of the sender's busy time the peer's window held it back,
  during the capture (None under ``min_busy_ms`` of busy time: noise);
- ``zero_window_events``: zero-window advertisements plus window probes on the hosts that
  captured this connection (host-wide counters: they corroborate a connection's own signs;
  keyed, like every quantity here, to the connection, so a cause that explains the zero
  windows of the same connection matches them);
- ``sendq_peak``: the sender's largest Send-Q (the symptom this mechanism explains);
- ``reader_stalled_share``: of the intervals between consecutive snapshots in which the
  receive queue held at least ``recv_full_ratio`` of rb at both ends, the share in which the
  receiver's ``bytes_received`` did not grow (:class:`quantities.ReadingProgress`). With the
  buffer full, new bytes arrive only as fast as the application reads them: flat is a reader
  that stood still (a GC pause, a blocked thread, an application that stopped reading),
  growing is a reader that kept reading at a capped pace (a slow reader: one I/O thread
  decoding for everyone, single_connection_bottleneck's mechanism). Where only the sender was
  captured: the intervals the peer's window held it back (``rwnd_limited`` at least
  ``rwnd_limited_min_pct`` of that interval's busy time) with data queued, and its
  ``bytes_acked``. ``reader_stalled_intervals`` / ``reader_held_intervals`` /
  ``reader_stalled_s`` and ``reader_counter`` (which counter) go with it.
- ``receiver`` / ``sender`` / ``reader_end``: the ends those were read on;
  ``receiver_other`` / ``sender_other`` / ``reader_end_other`` the same, only when it is not
  the connection the finding names, without its host when that is the finding's (the
  evidence does not name a connection or a host twice in a sentence).
"""

from __future__ import annotations

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
    host_key,
    longest_true_run,
    reading_progress,
    values_at,
    window_held_intervals,
    zero_windows,
)

FIELDS = (
    "rcv_ssthresh",
    "recvq.bytes",
    "sendq.bytes",
    "skmem_r",
    "skmem_rb",
    "busy_ms",
    "rwnd_limited_ms",
    "rwnd_limited_pct",
    "bytes_received",
    "bytes_acked",
)


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    zero = {host: _zero(z) for host, z in zero_windows(data).items()}
    by_connection: dict[str, list[tuple[ConnectionKey, dict[str, SeriesView]]]] = {}
    for key, row in connection_series(data, FIELDS).items():
        by_connection.setdefault(conn_key(*key), []).append((key, row))
    out = [_connection(ckey, ends, zero, params) for ckey, ends in by_connection.items()]
    captured = {key[0] for ends in by_connection.values() for key, _ in ends}
    for host, (adv, probes, anchor) in zero.items():
        if host not in captured:  # counters without per-connection data: judge the host
            out.append(
                Measurement(
                    entity=f"host {host}" if host else "the capture",
                    key=host_key(host),
                    values={
                        "zero_window_events": adv + probes,
                        "zero_window_adv": adv,
                        "zero_window_probes": probes,
                    },
                    anchor=anchor,
                )
            )
    return out


def _zero(z: ZeroWindows) -> tuple[float, float, Anchor]:
    """(zero-window advertisements, window probes, anchor of the larger counter)."""
    source = z.shown.source
    span = z.span
    return (
        z.advertised,
        z.probes,
        Anchor(source.name, {}, span[0], span[1], source.host, source.artifact),
    )


def _connection(
    ckey: str,
    ends: list[tuple[ConnectionKey, dict[str, SeriesView]]],
    zero: dict[str | None, tuple[float, float, Anchor]],
    params: Params,
) -> Measurement:
    ratio = float(params["recv_full_ratio"])
    min_busy = float(params["min_busy_ms"])
    pile: tuple[int | None, float | None, float, float | None, ConnectionKey, Anchor] | None = None
    lag: float | None = None
    window: tuple[float, float, ConnectionKey, Anchor] | None = None
    sendq: tuple[float, ConnectionKey, Anchor] | None = None
    # (receiver end first, more intervals first) -> the reading progress while it was held
    reading: tuple[tuple[int, int], ReadingProgress, ConnectionKey, Anchor] | None = None
    for key, row in ends:
        host, local, peer = key
        labels = {"local": local, "peer": peer}
        anchor = max(row.values(), key=len)
        times = anchor.times_ms
        progress = _progress(row, times, params)
        if progress is not None:
            rank = (int(progress.counter == "bytes_received"), progress.intervals)
            if reading is None or rank > reading[0]:
                where = Anchor(
                    f"tcp.conn.{progress.counter}", labels, *progress.span, host, anchor.artifact
                )
                reading = (rank, progress, key, where)
        # ss's Recv-Q series is kept only once non-zero: an end that received data (skmem
        # captured) and has none is a receive queue that stayed empty, which rules a pile out.
        if "recvq.bytes" in row or ("skmem_rb" in row and _direction(row)[0]):
            run, fill_peak, recvq_peak, rb, span = _pile(row, times, ratio)
            where = Anchor("tcp.conn.recvq.bytes", labels, span[0], span[1], host, anchor.artifact)
            if pile is None or (run or 0, fill_peak or 0.0) > (pile[0] or 0, pile[1] or 0.0):
                pile = (run, fill_peak, recvq_peak, rb, key, where)
            end_lag = _lag_peak(row, times)
            if end_lag is not None:
                lag = max(lag or 0.0, end_lag)
        if "busy_ms" in row:
            pct, busy = chrono_share_pct(row, times, "rwnd_limited", min_busy)
            if pct is not None and busy >= min_busy and (window is None or pct > window[0]):
                span = _growing_span(row.get("rwnd_limited_ms"), times)
                where = Anchor(
                    "tcp.conn.rwnd_limited_pct", labels, span[0], span[1], host, anchor.artifact
                )
                window = (pct, busy, key, where)
        sq = row.get("sendq.bytes")
        if sq is not None and len(sq):
            peak = float(np.max(sq.values))
            if sendq is None or peak > sendq[0]:
                at = int(sq.times_ms[int(np.argmax(sq.values))])
                sendq = (peak, key, Anchor(sq.name, labels, at, at, host, sq.artifact))
    # A zero window is advertised by the end that receives the data and probed by the end
    # that sends it: a host's advertisements count only where this connection's end there
    # received data, its probes only where it sent some (a bulk sender's host may count
    # TCPWantZeroWindowAdv of its own, for ACK-only sockets whose receive space its backlog
    # took while the writer held the socket: none of it is this reader's).
    receiving: set[str | None] = set()
    sending: set[str | None] = set()
    for key, row in ends:
        receives, sends = _direction(row)
        if receives is not False:
            receiving.add(key[0])
        if sends is not False:
            sending.add(key[0])
    hosts = sorted(receiving | sending, key=lambda h: h or "")
    counted = [
        (
            zero[h][0] if h in receiving else 0.0,
            zero[h][1] if h in sending else 0.0,
            zero[h][2],
        )
        for h in hosts
        if h in zero
    ]
    adv = sum(c[0] for c in counted) if counted else None
    probes = sum(c[1] for c in counted) if counted else None
    shown = (
        pile[4] if pile is not None and (pile[0] or 0) > 0 else window[2] if window else ends[0][0]
    )
    values: dict[str, float | int | str | bool | None] = {
        "recv_full_run": pile[0] if pile else None,
        "recv_fill_peak": pile[1] if pile else None,
        "recvq_peak": pile[2] if pile else None,
        "recv_lag_peak": lag,
        "rb": pile[3] if pile else None,
        "receiver": connection_label(pile[4]) if pile else None,
        "rwnd_limited_pct": window[0] if window else None,
        "busy_s": window[1] / 1000.0 if window else None,
        "sender": connection_label(window[2]) if window else None,
        "zero_window_events": adv + probes if adv is not None and probes is not None else None,
        "zero_window_adv": adv,
        "zero_window_probes": probes,
        "sendq_peak": sendq[0] if sendq else None,
        "reader_stalled_share": reading[1].flat_share if reading else None,
        "reader_stalled_intervals": reading[1].intervals - reading[1].grew if reading else None,
        "reader_held_intervals": reading[1].intervals if reading else None,
        "reader_stalled_s": reading[1].flat_ms / 1000.0 if reading else None,
        "reader_counter": reading[1].counter if reading else None,
        "reader_end": connection_label(reading[2]) if reading else None,
    }
    # The evidence names an end only when it is not the connection the finding names already,
    # and its host only when it is another host.
    for name, end in (
        ("receiver", pile[4] if pile else None),
        ("sender", window[2] if window else None),
        ("reader_end", reading[2] if reading else None),
    ):
        values[f"{name}_other"] = (
            None
            if end is None or end == shown
            else connection_label((None, end[1], end[2]) if end[0] == shown[0] else end)
        )
    anchors: dict[str, Anchor] = {}
    if pile:
        anchors["recv_full_run"] = pile[5]
    if window:
        anchors["rwnd_limited_pct"] = window[3]
    if sendq:
        anchors["sendq_peak"] = sendq[2]
    if reading:
        anchors["reader_stalled_share"] = reading[3]
    if counted:
        anchors["zero_window_events"] = max(counted, key=lambda c: c[0] + c[1])[2]
    return Measurement(
        entity=connection_label(shown),
        key=ckey,
        values=values,
        anchor=anchors.get("recv_full_run") or anchors.get("rwnd_limited_pct") or Anchor(),
        anchors=anchors,
    )


def _direction(row: dict[str, SeriesView]) -> tuple[bool | None, bool | None]:
    """(received data, sent data) on this end, None where ss printed nothing to tell
    (ss prints ``bytes_received`` / ``bytes_acked`` only once non-zero, so with TCP info
    captured a missing counter is a direction that carried nothing)."""
    info = any(name in row for name in ("busy_ms", "rwnd_limited_ms", "skmem_rb"))

    def moved(counter: str, queue: str) -> bool | None:
        for name in (counter, queue):
            series = row.get(name)
            if series is not None and len(series) and float(np.nanmax(series.values)) > 0:
                return True
        return False if info else None

    return moved("bytes_received", "recvq.bytes"), moved("bytes_acked", "sendq.bytes")


def _progress(
    row: dict[str, SeriesView], times: npt.NDArray[np.int64], params: Params
) -> ReadingProgress | None:
    """The reader's progress over the intervals its receive buffer stayed full (on the
    receiving end), else over those the peer's window held the sender back with data queued
    (on the sending end)."""
    if "bytes_received" in row and "skmem_rb" in row:
        full = _full(row, times, float(params["recv_full_ratio"]))
        progress = reading_progress(row, "bytes_received", times, held_intervals(full))
        if progress is not None:
            return progress
    if "bytes_acked" in row and "sendq.bytes" in row:
        queued = values_at(row["sendq.bytes"], times, mode="exact", default=0.0) > 0
        held = held_intervals(queued) & window_held_intervals(
            row, times, float(params["rwnd_limited_min_pct"])
        )
        return reading_progress(row, "bytes_acked", times, held)
    return None


def _full(
    row: dict[str, SeriesView], times: npt.NDArray[np.int64], ratio: float
) -> npt.NDArray[np.bool_]:
    """Per snapshot: the receive queue held at least ``ratio`` of rb."""
    recvq, fill, _ = _fill(row, times)
    full: npt.NDArray[np.bool_] = (recvq > 0) & (fill >= ratio)
    return full


def _fill(
    row: dict[str, SeriesView], times: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(Recv-Q, fill of rb, rb) per snapshot; needs ``recvq.bytes`` and ``skmem_rb``."""
    recvq = _recvq(row, times)
    rb = values_at(row["skmem_rb"], times, mode="exact")
    # skmem r is the queue in truesize, like rb; Recv-Q (payload) only when r was not printed.
    used = field_at(row, "skmem_r", times) if "skmem_r" in row else recvq
    with np.errstate(divide="ignore", invalid="ignore"):
        fill = np.where(rb > 0, used / rb, 0.0)
    return recvq, np.nan_to_num(fill, nan=0.0), rb


def _pile(
    row: dict[str, SeriesView], times: npt.NDArray[np.int64], ratio: float
) -> tuple[int | None, float | None, float, float | None, tuple[int, int]]:
    """(longest run of full snapshots, peak fill, peak Recv-Q, rb, span of the run); run and
    fill are unknown (None) without the buffer's size: a Recv-Q alone (ss -tan, /proc/net/tcp)
    cannot say how full the buffer is, so it rules nothing out."""
    span = (int(times[0]), int(times[-1]))
    if "skmem_rb" not in row:
        recvq = _recvq(row, times)
        return None, None, float(np.max(recvq, initial=0.0)), None, span
    recvq, fill, rb = _fill(row, times)
    full = (recvq > 0) & (fill >= ratio)
    best = longest_true_run(times, full)
    run = best[1] - best[0] + 1 if best else 0
    if best:
        span = (int(times[best[0]]), int(times[best[1]]))
    peak = int(np.argmax(fill)) if len(fill) else 0
    rb_at = float(rb[peak]) if len(rb) and np.isfinite(rb[peak]) else None
    return run, float(np.max(fill, initial=0.0)), float(np.max(recvq, initial=0.0)), rb_at, span


def _lag_peak(row: dict[str, SeriesView], times: npt.NDArray[np.int64]) -> float | None:
    """The most of the window the reader could offer that unread data took, in any snapshot:
    skmem r / rb, or Recv-Q / rcv_ssthresh where larger (the window is also capped by
    rcv_ssthresh, far below an autotuned rb). None without rb."""
    if "skmem_rb" not in row:
        return None
    recvq, fill, _ = _fill(row, times)
    lag = fill
    if "rcv_ssthresh" in row:
        ssthresh = values_at(row["rcv_ssthresh"], times, mode="exact")
        with np.errstate(divide="ignore", invalid="ignore"):
            offered = np.where(ssthresh > 0, recvq / ssthresh, 0.0)
        lag = np.maximum(lag, np.nan_to_num(offered, nan=0.0))
    return float(np.max(lag, initial=0.0))


def _recvq(row: dict[str, SeriesView], times: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """Recv-Q per snapshot; 0 where ss's series is absent (kept only once non-zero)."""
    if "recvq.bytes" not in row:
        return np.zeros(len(times))
    out: npt.NDArray[np.float64] = values_at(row["recvq.bytes"], times, mode="exact", default=0.0)
    return out


def _growing_span(limited: SeriesView | None, times: npt.NDArray[np.int64]) -> tuple[int, int]:
    """Where the rwnd_limited clock moved (the stall), else the whole capture."""
    if limited is not None and len(limited) >= 2:
        growing = np.flatnonzero(np.diff(limited.values) > 0)
        if len(growing):
            return int(limited.times_ms[growing[0]]), int(limited.times_ms[growing[-1] + 1])
    return int(times[0]), int(times[-1])
