"""Quantities of ``short_lived_connections`` (rule: ``rules/short_lived_connections.toml``),
per host.

Inputs: the kernel counters of that host, one source each (:func:`counter_increments`):
``TcpActiveOpens`` + ``TcpPassiveOpens`` (two different counters: connections it opened and
accepted), ``TcpInSegs`` / ``TcpOutSegs``; the ESTABLISHED count (``tcp.state.estab``, else
``netstat.TcpCurrEstab``); ``threadpool.completed_per_s`` (requests done, when pool metrics
were captured); ``tcp.conn.cwnd`` of ``ss -ti`` snapshots; the TIME-WAIT count.

Quantities:

- ``open_rate``: opens per second over the capture (``churn_s``), ``opens`` in all;
- ``lifetime_s``: mean connection lifetime by Little's law, mean ESTABLISHED over the capture
  / ``open_rate``; ``ended_share``: of the connections opened, the share that also ended during
  the capture (opens less the growth of ESTABLISHED): connections opened once and kept (a
  reconnect burst) are not churn;
- ``requests_per_open``: requests completed per connection opened (pool metrics): the rate
  relative to requests;
- ``segments_per_open`` (in + out) and ``data_segs_per_open`` (the busier direction) per
  connection opened; ``slow_start_rounds`` = log2(data segments / initial window + 1): the
  round trips slow start needs to deliver one connection's data from the initial window,
  which every new connection pays and a warm one does not (report B); ``rtt_ms`` (median
  ``ss -ti`` rtt of the host's connections), ``life_rtts`` = lifetime / RTT and
  ``slow_start_share`` = (handshake + slow-start rounds) / ``life_rtts``: near 1 when each
  connection lives one transfer in slow start, near 0 when it carries many exchanges (a
  keep-alive connection of 250 small requests also moves many segments);
- from ``ss`` alone: ``ss_connections`` listed, ``seen_once`` (listed in one snapshot only),
  ``seen_once_share``, ``initial_share`` (of those, at cwnd <= the initial window);
- ``time_wait_peak``.
"""

from __future__ import annotations

import math

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    by_host,
    connection_of,
    counter_increments,
    host_measurement,
    host_series,
    increments_on,
    values_at,
)
from rootline.detectors.socket_roles import incident_key

_NAMES = (
    "opens", "open_rate", "churn_s", "mean_estab", "lifetime_s", "requests_per_open",
    "segments_per_open", "data_segs_per_open", "slow_start_rounds", "ss_connections",
    "seen_once", "seen_once_share", "at_initial_cwnd", "initial_share", "ss_snapshots",
    "time_wait_peak", "ended_share", "rtt_ms", "life_rtts", "slow_start_share",
)  # fmt: skip


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    active = counter_increments(data, "TcpActiveOpens")
    passive = counter_increments(data, "TcpPassiveOpens")
    in_segs = counter_increments(data, "TcpInSegs")
    out_segs = counter_increments(data, "TcpOutSegs")
    estab = host_series(data, "tcp.state.estab", prefer="peak")
    curr_estab = host_series(data, "netstat.TcpCurrEstab")
    time_wait = host_series(data, "tcp.state.time-wait", prefer="peak")
    completed: dict[str | None, list[SeriesView]] = {}
    for s in data.series("threadpool.completed_per_s"):
        if s.name == "threadpool.completed_per_s" and len(s):
            completed.setdefault(s.host, []).append(s)
    churn = _socket_churn(data, float(params["initial_cwnd_segments"]))
    rtts = _rtt_by_host(data)
    out = []
    for host in sorted(set(active) | set(passive) | set(churn), key=lambda h: h or ""):
        values: dict[str, float | int | str | bool | None] = dict.fromkeys(_NAMES)
        anchors: dict[str, Anchor] = {}
        tw = time_wait.get(host)
        if tw is not None:
            values["time_wait_peak"] = float(np.max(tw.values))
            anchors["time_wait_peak"] = Anchor(tw.name, {}, None, None, host, tw.artifact)
        if host in churn:
            values.update(churn[host][0])
            anchors["seen_once"] = churn[host][1]
        default = Anchor(host=host)
        base = active.get(host) or passive.get(host)
        if base is not None:
            opens = base.increments.copy()
            if host in active and host in passive:
                opens = opens + increments_on(base.end_ms, passive[host])
            moving = np.flatnonzero(opens > 0)
            first, last = (int(moving[0]), int(moving[-1])) if len(moving) else (0, len(opens) - 1)
            # The rate over the whole capture: connections opened once in a burst and kept
            # (3000 heartbeat clients connecting at the start) are not a rate.
            seconds = base.seconds
            total = float(np.sum(opens))
            rate = total / seconds if seconds > 0 else 0.0
            lo = int(base.end_ms[0] - base.interval_s[0] * 1000)
            hi = int(base.end_ms[-1])
            start = int(base.end_ms[first] - base.interval_s[first] * 1000)
            default = Anchor(
                base.source.name, {}, start, int(base.end_ms[last]), host, base.source.artifact
            )
            values.update(opens=total, open_rate=rate, churn_s=seconds)
            established = estab.get(host) or curr_estab.get(host)
            if established is not None:
                mean = _mean_over(established, lo, hi)
                values["mean_estab"] = mean
                values["lifetime_s"] = mean / rate if rate > 0 and mean is not None else None
                anchors["lifetime_s"] = Anchor(
                    established.name, {}, lo, hi, host, established.artifact
                )
                # Connections that also ended during the capture: opens less the growth of
                # ESTABLISHED. Little's law holds for connections that come and go.
                grew = float(
                    values_at(established, np.array([hi], dtype=np.int64), mode="last")[0]
                    - values_at(
                        established, np.array([lo], dtype=np.int64), mode="last", default=0.0
                    )[0]
                )
                if total > 0 and np.isfinite(grew):
                    values["ended_share"] = max(0.0, total - max(grew, 0.0)) / total
            if total > 0 and (host in in_segs or host in out_segs):
                window = slice(0, len(opens))
                segs_in = (
                    float(np.sum(increments_on(base.end_ms, in_segs[host])[window]))
                    if host in in_segs
                    else 0.0
                )
                segs_out = (
                    float(np.sum(increments_on(base.end_ms, out_segs[host])[window]))
                    if host in out_segs
                    else 0.0
                )
                data_segs = max(segs_in, segs_out) / total
                values["segments_per_open"] = (segs_in + segs_out) / total
                values["data_segs_per_open"] = data_segs
                initial = float(params["initial_cwnd_segments"])
                values["slow_start_rounds"] = math.log2(data_segs / initial + 1.0)
                source = (in_segs.get(host) or out_segs[host]).source
                anchors["slow_start_rounds"] = Anchor(
                    source.name, {}, lo, hi, host, source.artifact
                )
            rounds, life = values["slow_start_rounds"], values["lifetime_s"]
            rtt = rtts.get(host)
            if rtt is not None:
                values["rtt_ms"] = rtt
            if isinstance(rounds, float) and isinstance(life, float) and rtt and life > 0:
                # the round trips a connection lives, and the share of them its handshake
                # and slow start take: near all of it when each transfer lives in slow start
                life_rtts = life * 1000.0 / rtt
                values["life_rtts"] = life_rtts
                values["slow_start_share"] = min(1.0, (rounds + 1.0) / life_rtts)
            if host in completed and rate > 0:
                means = [_mean_over(s, lo, hi, strict=True) for s in completed[host]]
                per_s = sum(m for m in means if m is not None)
                # only pools measured during the churn, and doing work, say how much work
                values["requests_per_open"] = per_s / rate if per_s > 0 else None
        out.append(
            host_measurement(host, values, anchor=default, anchors=anchors, key=incident_key())
        )
    return out


def _rtt_by_host(data: IncidentData) -> dict[str | None, float]:
    """Per host, the median smoothed RTT its listed connections reported (ss -ti ``rtt``)."""
    found: dict[str | None, list[np.ndarray]] = {}
    for s in data.series("tcp.conn.rtt_ms"):
        if s.name == "tcp.conn.rtt_ms" and len(s):
            found.setdefault(s.host, []).append(s.values[np.isfinite(s.values) & (s.values > 0)])
    out = {}
    for host, parts in found.items():
        values = np.concatenate(parts) if parts else np.array([])
        if len(values):
            out[host] = float(np.median(values))
    return out


def _mean_over(series: SeriesView, lo: int, hi: int, *, strict: bool = False) -> float | None:
    """Mean of the points inside [lo, hi]; without any, of all points (None when ``strict``)."""
    inside = (series.times_ms >= lo) & (series.times_ms <= hi)
    if not np.any(inside):
        return None if strict or not len(series) else float(np.mean(series.values))
    return float(np.mean(series.values[inside]))


def _socket_churn(
    data: IncidentData, initial_cwnd: float
) -> dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]]:
    """Per host, connections listed by ``ss -ti`` that appear in one snapshot only."""
    out: dict[str | None, tuple[dict[str, float | int | str | bool | None], Anchor]] = {}
    cwnd = [s for s in data.series("tcp.conn.cwnd") if s.name == "tcp.conn.cwnd"]
    for host, items in by_host(cwnd).items():
        conns = [s for s in items if connection_of(s.labels) is not None and len(s)]
        if not conns:
            continue
        times = np.unique(np.concatenate([s.times_ms for s in conns]))
        if len(times) < 3:
            continue
        once = [s for s in conns if len(s) == 1]
        initial = [s for s in once if float(np.max(s.values)) <= initial_cwnd]
        values: dict[str, float | int | str | bool | None] = {
            "ss_connections": len(conns),
            "seen_once": len(once),
            "seen_once_share": len(once) / len(conns),
            "at_initial_cwnd": len(initial),
            "initial_share": len(initial) / len(once) if once else 0.0,
            "ss_snapshots": len(times),
        }
        out[host] = (
            values,
            Anchor("tcp.conn.cwnd", {}, int(times[0]), int(times[-1]), host, conns[0].artifact),
        )
    return out
