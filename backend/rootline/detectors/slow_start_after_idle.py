"""Quantities of ``slow_start_after_idle`` (rule: ``rules/slow_start_after_idle.toml``), per
sending connection; per host for a host whose setting was captured without any ``ss -ti``.

Inputs: the sysctl fact ``net.ipv4.tcp_slow_start_after_idle`` of the connection's own host
(:func:`quantities.host_fact`: never another host's, a client's setting says nothing of the
server's sockets); ``ss -ti`` snapshots per connection: ``cwnd``, ``lastsnd_ms``, ``rto_ms``,
``bytes_acked`` (else ``bytes_sent``), ``mss``, ``retrans``, Send-Q; the congestion control of
the connection (fact ``tcp.conn.cc[<local> <peer>]``).

Between consecutive snapshots i -> i+1 of one connection:

- an *episode* (idle, then a burst): at i the connection had sent nothing for longer than its
  RTO (``lastsnd > rto``; without ``lastsnd``: ``bytes_acked`` flat over an interval longer
  than the RTO) with nothing queued (data in Send-Q is a stall, not an idle application), and
  by i+1 it had sent at least ``burst_min_initial_windows`` x ``initial_cwnd_segments`` x mss
  (a transfer that needs slow-start rounds beyond the initial window);
- a *restart*: cwnd at i+1 <= ``cwnd_drop_ratio`` of the largest cwnd before the pause (which
  had reached ``cwnd_grown_min_segments``), or <= the initial window, with no new
  retransmission (a drop after loss is not this). The kernel applies the restart lazily, when
  the next burst starts, so a snapshot right after the gap often still shows the old window;
  a later snapshot caught inside a burst with cwnd collapsed and no loss is attributed to the
  latest episode before it.

Quantities: ``host_snapshots`` (the ss snapshots of the connection's host: a loop or not),
``setting`` (the integer, None when absent or unreadable), ``enabled``,
``congestion_control`` and ``ignores_setting`` (bbr sets its own ``cong_control``, so the
kernel skips the restart), ``episodes``, ``restarts``, the first episode's numbers and the
first restart's cwnd before and after.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
    Anchor,
    FactView,
    IncidentData,
    Measurement,
    Params,
    SeriesView,
)
from rootline.detectors.quantities import (
    ConnectionKey,
    congestion_controls,
    conn_key,
    connection_label,
    connection_series,
    host_fact,
    host_key,
    values_at,
)

SYSCTL = "net.ipv4.tcp_slow_start_after_idle"
# Congestion controls with their own cong_control hook: tcp_cwnd_restart is not applied.
IGNORING_CONGESTION_CONTROLS = ("bbr", "bbr2", "bbr3")
# Linux's minimum RTO, for a snapshot that printed no rto.
MIN_RTO_MS = 200.0
DEFAULT_MSS = 1448.0

FIELDS = (
    "cwnd",
    "lastsnd_ms",
    "rto_ms",
    "bytes_acked",
    "bytes_sent",
    "mss",
    "retrans",
    "sendq.bytes",
)


@dataclass(slots=True)
class _Episode:
    idle_at: int
    burst_at: int
    idle_ms: float
    rto_ms: float
    burst_bytes: float
    cwnd_before: float
    cwnd_after: float
    restart: bool


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    table = {k: row for k, row in connection_series(data, FIELDS).items() if "cwnd" in row}
    controls = congestion_controls(data)
    # Snapshots per host: a connection that lived within one snapshot of a loop is judged
    # (it never idled between two); a single listing of a host is not a loop.
    instants: dict[str | None, set[int]] = {}
    for (host, _, _), row in table.items():
        instants.setdefault(host, set()).update(row["cwnd"].times_ms.tolist())
    out = []
    for key, row in table.items():
        m = _connection(key, row, host_fact(data, SYSCTL, key[0]), controls, params)
        m.values["host_snapshots"] = len(instants[key[0]])
        out.append(m)
    with_connections = {key[0] for key in table}
    for fact in data.facts(SYSCTL):
        if fact.key != SYSCTL or fact.host in with_connections:
            continue
        with_connections.add(fact.host)  # one measurement per host
        own = host_fact(data, SYSCTL, fact.host)
        setting = _setting(own)
        out.append(
            Measurement(
                entity=f"host {fact.host}" if fact.host else "the capture",
                key=host_key(fact.host),
                values={
                    "setting": setting,
                    "enabled": setting != 0 if setting is not None else None,
                    "snapshots": 0,
                    "host_snapshots": 0,
                },
                anchors={"setting": _fact_anchor(own)},
            )
        )
    return out


def _setting(fact: FactView | None) -> int | None:
    if fact is None:
        return None
    try:
        return int(fact.value.strip())
    except ValueError:
        return None


def _fact_anchor(fact: FactView | None) -> Anchor:
    if fact is None:
        return Anchor()
    return Anchor(None, {}, fact.time_ms, fact.time_ms, fact.host, fact.artifact)


def _connection(
    key: ConnectionKey,
    row: dict[str, SeriesView],
    fact: FactView | None,
    controls: dict[ConnectionKey, str],
    params: Params,
) -> Measurement:
    host, local, peer = key
    episodes, snapshots = _episodes(row, params)
    restarts = [e for e in episodes if e.restart]
    first = episodes[0] if episodes else None
    restart = restarts[0] if restarts else None
    cc = controls.get(key, "unknown")
    setting = _setting(fact)
    labels = {"local": local, "peer": peer}
    artifact = row["cwnd"].artifact
    values: dict[str, float | int | str | bool | None] = {
        "setting": setting,
        "enabled": setting != 0 if setting is not None else None,
        "congestion_control": cc,
        "ignores_setting": cc in IGNORING_CONGESTION_CONTROLS,
        "snapshots": snapshots,
        "episodes": len(episodes),
        "restarts": len(restarts),
        "idle_ms": first.idle_ms if first else None,
        "rto_ms": first.rto_ms if first else None,
        "burst_bytes": first.burst_bytes if first else None,
        "restart_idle_ms": restart.idle_ms if restart else None,
        "cwnd_before": restart.cwnd_before if restart else None,
        "cwnd_after": restart.cwnd_after if restart else None,
    }
    anchors = {"setting": _fact_anchor(fact)}
    if episodes:
        anchors["episodes"] = Anchor(
            "tcp.conn.lastsnd_ms",
            labels,
            episodes[0].idle_at,
            episodes[-1].burst_at,
            host,
            artifact,
        )
    if restart:
        anchors["restarts"] = Anchor(
            "tcp.conn.cwnd", labels, restart.idle_at, restart.burst_at, host, artifact
        )
    times = row["cwnd"].times_ms
    return Measurement(
        entity=connection_label(key),
        key=conn_key(host, local, peer),
        values=values,
        anchor=Anchor("tcp.conn.cwnd", labels, int(times[0]), int(times[-1]), host, artifact),
        anchors=anchors,
    )


def _exact(
    row: dict[str, SeriesView], name: str, times: npt.NDArray[np.int64], default: float
) -> npt.NDArray[np.float64]:
    if name not in row:
        return np.full(len(times), default)
    return values_at(row[name], times, mode="exact", default=default)


def _episodes(row: dict[str, SeriesView], params: Params) -> tuple[list[_Episode], int]:
    initial = float(params["initial_cwnd_segments"])
    burst_min = float(params["burst_min_initial_windows"]) * initial
    grown = float(params["cwnd_grown_min_segments"])
    drop = float(params["cwnd_drop_ratio"])
    times = row["cwnd"].times_ms
    cwnd = row["cwnd"].values
    n = len(times)
    progress = next((f for f in ("bytes_acked", "bytes_sent") if f in row), None)
    if progress is None or n < 2:
        return [], n
    # ss leaves bytes_acked out until something was acked: carry the last known value.
    acked = np.maximum.accumulate(np.nan_to_num(_exact(row, progress, times, np.nan)))
    rto = _exact(row, "rto_ms", times, np.nan)
    lastsnd = _exact(row, "lastsnd_ms", times, np.nan)
    mss = _exact(row, "mss", times, DEFAULT_MSS)
    retrans = _exact(row, "retrans", times, 0.0)
    queued = _exact(row, "sendq.bytes", times, 0.0)
    episodes = []
    # The snapshots after which the connection sat idle past its RTO, read from Python
    # lists: most are not, and numpy's per-element reads were most of a C10K checklist.
    rto_l, lastsnd_l, acked_l, queued_l = (
        rto.tolist(),
        lastsnd.tolist(),
        acked.tolist(),
        queued.tolist(),
    )
    times_l = times.tolist()
    peak = np.maximum.accumulate(cwnd)  # the largest cwnd up to each snapshot
    for i in _idle_candidates(rto, lastsnd, acked, queued, mss, times, burst_min):
        rto_i = rto_l[i] if math.isfinite(rto_l[i]) else MIN_RTO_MS
        if math.isfinite(lastsnd_l[i]):
            idle_ms = lastsnd_l[i]
        elif i > 0 and acked_l[i] == acked_l[i - 1]:
            idle_ms = float(times_l[i] - times_l[i - 1])
        else:
            continue
        if idle_ms <= rto_i or queued_l[i] > 0:
            continue
        segment = float(mss[i + 1]) if np.isfinite(mss[i + 1]) else DEFAULT_MSS
        burst = float(acked[i + 1] - acked[i])
        if burst < burst_min * segment:
            continue
        before = float(peak[i])
        after = float(cwnd[i + 1])
        restart = bool(
            retrans[i + 1] <= retrans[i]
            and before >= grown
            and (after <= drop * before or after <= initial)
        )
        episodes.append(
            _Episode(
                int(times[i]), int(times[i + 1]), idle_ms, rto_i, burst, before, after, restart
            )
        )
    _restarts_caught_mid_burst(episodes, times, cwnd, peak, retrans, initial, grown, drop)
    return episodes, n


# A connection with more snapshots than this has the few it idled after found by numpy; below,
# numpy's fixed cost per call (~40 us for the dozen calls) is more than the loop's (~1.5 us a
# snapshot). C10K's 7 000 connections of 120 snapshots: 1.27 CPU s through the loop, 0.51
# through numpy.
_VECTOR_FROM = 32


def _idle_candidates(
    rto: npt.NDArray[np.float64],
    lastsnd: npt.NDArray[np.float64],
    acked: npt.NDArray[np.float64],
    queued: npt.NDArray[np.float64],
    mss: npt.NDArray[np.float64],
    times: npt.NDArray[np.int64],
    burst_min: float,
) -> Iterable[int]:
    """The snapshots (but the last) after which the connection may have sat idle past its
    RTO with nothing queued, then sent a burst: every one, or for a long series only those
    numpy finds so. The loop in :func:`_episodes` reads each again as exactly: this only
    spares it the rest."""
    n = len(times)
    if n <= _VECTOR_FROM:
        return range(n - 1)
    rto_eff = np.where(np.isfinite(rto), rto, MIN_RTO_MS)[:-1]
    unchanged = np.zeros(n - 1, dtype=bool)
    unchanged[1:] = acked[1:-1] == acked[:-2]
    gap = np.zeros(n - 1, dtype=np.float64)
    gap[1:] = np.diff(times[:-1]).astype(np.float64)
    sent = np.isfinite(lastsnd[:-1])
    idle = np.where(sent, lastsnd[:-1], np.where(unchanged, gap, np.nan))
    segment = np.where(np.isfinite(mss[1:]), mss[1:], DEFAULT_MSS)
    burst = acked[1:] - acked[:-1]
    with np.errstate(invalid="ignore"):
        maybe = (idle > rto_eff) & ~(queued[:-1] > 0) & ~(burst < burst_min * segment)
    return np.flatnonzero(maybe).tolist()


def _restarts_caught_mid_burst(
    episodes: list[_Episode],
    times: npt.NDArray[np.int64],
    cwnd: npt.NDArray[np.float64],
    peak: npt.NDArray[np.float64],
    retrans: npt.NDArray[np.float64],
    initial: float,
    grown: float,
    drop: float,
) -> None:
    """Flag an episode as restarted when a later snapshot, taken inside a burst, shows cwnd
    collapsed without any retransmission (only an idle restart shrinks a window without loss)."""
    if not episodes:
        return
    for j in range(1, len(times)):
        before = float(peak[j - 1])
        collapsed = cwnd[j] <= drop * before or cwnd[j] <= initial
        if before < grown or not collapsed or retrans[j] > retrans[j - 1]:
            continue
        earlier = [e for e in episodes if e.idle_at < times[j]]
        if earlier and not earlier[-1].restart:
            earlier[-1].restart = True
            earlier[-1].cwnd_before = before
            earlier[-1].cwnd_after = float(cwnd[j])
