"""Quantities of ``heartbeat_storm`` (rule: ``rules/heartbeat_storm.toml``), per host.

Inputs: the connection count (``tcp.state.estab`` of ``ss``, or ``netstat.TcpCurrEstab``), and
per signal family a series to look for a period in:

- ``cpu``: ``cpu.user_pct`` + ``cpu.sys_pct`` (nmon);
- ``packets``: ``net.packets_in`` / ``net.packets_out`` summed over interfaces (nmon), or the
  kernel's ``IpInReceives`` / ``TcpInSegs`` / ``TcpOutSegs`` per second (one source per host:
  :func:`host_series` keeps the richest of ``nstat`` and ``netstat -s``, never their sum);
- ``queue``: ``tcp.connections.recvq.bytes`` / ``tcp.connections.sendq.bytes``: the queues
  summed over connections (``ss``, ``netstat -nat``; listening sockets are not in them).

The period comes from the autocorrelation of the evenly resampled, detrended series
(:func:`~rootline.detectors.quantities.dominant_period`): the first clear autocorrelation
peak, its height the period's strength. Quantities:

- ``connections``: ESTABLISHED at most;
- per family ``<family>_period_s``, ``<family>_cycles``, ``<family>_spike_ratio`` and
  ``<family>_strength``: the autocorrelation of its best signal, counted only when the period
  repeats ``min_cycles`` times and spikes (0 otherwise: a ramp or noise has no period);
  ``<family>_autocorr`` is the raw autocorrelation and ``<family>_signal`` names it;
- ``periodic_families``: the largest number of families whose periodic spikes agree (periods
  within ``period_agreement``), ``period_s`` their median period, ``families`` their names;
- what the series could show (absence of a period is evidence only where one could show):
  per family ``<family>_from_s`` .. ``<family>_to_s``, the periods :func:`dominant_period`
  can find in its series (at least two samples per period, ``min_cycles`` periods in the
  capture), or ``<family>_blind_s`` / ``<family>_blind_span_s`` (its sampling interval and
  length) when it can show none; per host ``sample_s``, ``capture_s`` and
  ``searchable_from_s`` .. ``searchable_to_s`` of the series best able to show the
  ``heartbeat_period_s`` (``blind_sample_s`` when the sampling alone hides every period of the
  range); ``periodic_families`` is unmeasured when no series could show any period;
- ``connection_readings`` (distinct instants the count was read), ``connections_span_s``;
  ``count_only`` when a count is all there is; ``lone_period_s`` / ``lone_families`` when one
  family repeats and no count was captured (not judged: the count is the missing half);
- ``<family>_wave_lift`` for ``cpu`` and ``queue``: the harm measured at the waves
  themselves. With the spikes of the strongest periodic packet signal as the instants of the
  waves (thousands of heartbeats arriving together), the family's value at each wave
  (the larger of its sample at that instant and the next) over its value half a period later
  (the same two samples): a CPU or a queue that rises with the waves scores well above 1,
  noise near 1. Synchronised, so it finds a CPU spike that an autocorrelation of its own
  misses on a machine busy with other work (``wave_signal`` names the waves' series).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rootline.detectors.base import Anchor, IncidentData, Measurement, Params, SeriesView
from rootline.detectors.quantities import (
    Periodicity,
    by_host,
    dominant_period,
    host_measurement,
    host_series,
    last_values_at,
    resample_uniform,
)

FAMILIES = ("cpu", "packets", "queue")
_NAMES = (
    "connections", "connection_readings", "connections_span_s", "count_only",
    "periodic_families", "period_s", "families", "lone_period_s", "lone_families",
    "capture_s", "sample_s", "searchable_from_s", "searchable_to_s", "blind_sample_s",
    "wave_signal", "cpu_wave_lift", "queue_wave_lift",
    *(f"{f}_{q}" for f in FAMILIES for q in ("period_s", "cycles", "spike_ratio", "strength", "autocorr", "signal", "from_s", "to_s", "blind_s", "blind_span_s")),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _View:
    """Which periods one series can show: ``from_s``..``to_s`` (None when none can)."""

    sample_s: float
    span_s: float
    from_s: float | None
    to_s: float | None

    @property
    def searchable(self) -> bool:
        return self.from_s is not None

    def sees(self, period_s: float) -> bool:
        return (
            self.from_s is not None
            and self.to_s is not None
            and (self.from_s <= period_s <= self.to_s)
        )


def _view(s: SeriesView, params: Params) -> _View:
    """The periods :func:`dominant_period` can find in ``s``: at least two samples per period
    (Nyquist: a lag of 2 steps), at most ``max_period_s``, ``min_cycles`` in the capture."""
    grid, _ = resample_uniform(s.times_ms, s.values)
    n = len(grid)
    if n < 2:
        return _View(0.0, 0.0, None, None)
    step_s = float(grid[1] - grid[0]) / 1000.0
    span_s = float(grid[-1] - grid[0]) / 1000.0
    if n < 6 or step_s <= 0:
        return _View(step_s, span_s, None, None)
    lo = max(2, int(np.ceil(float(params["min_period_s"]) / step_s)))
    hi = min(
        int(np.floor(float(params["max_period_s"]) / step_s)),
        int(np.floor((n - 1) / float(params["min_cycles"]))),
    )
    if hi <= lo:
        return _View(step_s, span_s, None, None)
    return _View(step_s, span_s, lo * step_s, hi * step_s)


def _best_view(views: list[_View], heartbeat_s: float) -> _View:
    """The view that sees the classic heartbeat period, else the widest, else the finest."""
    return max(
        views,
        key=lambda v: (
            v.sees(heartbeat_s),
            v.searchable,
            np.log((v.to_s or 1.0) / (v.from_s or 1.0)),
            -v.sample_s,
            v.span_s,
        ),
    )


@dataclass(slots=True)
class _Signal:
    family: str
    name: str
    label: str
    period: Periodicity
    series: SeriesView

    def strong(self, params: Params) -> bool:
        return (
            self.period.strength >= float(params["period_strength_min"])
            and self.period.cycles >= float(params["min_cycles"])
            and self.period.spike_ratio >= float(params["spike_ratio_min"])
        )


def _sum_series(items: list[SeriesView], name: str, label: str) -> SeriesView | None:
    """Several series of one host summed on the union of their times (last known values)."""
    items = [s for s in items if len(s)]
    if not items:
        return None
    if len(items) == 1:
        s = items[0]
        return SeriesView(name, {"sum": label}, s.unit, s.host, s.artifact, s.times_ms, s.values)
    times = np.unique(np.concatenate([s.times_ms for s in items]))
    total = np.zeros(len(times))
    for s in items:
        total += np.nan_to_num(last_values_at(times, s), nan=0.0)
    return SeriesView(
        name, {"sum": label}, items[0].unit, items[0].host, items[0].artifact, times, total
    )


def _candidates(data: IncidentData) -> dict[str | None, list[tuple[str, str, str, SeriesView]]]:
    """Per host: (family, series name shown, label, series) to test for a period."""
    out: dict[str | None, list[tuple[str, str, str, SeriesView]]] = {}

    def add(host: str | None, family: str, name: str, label: str, s: SeriesView | None) -> None:
        if s is not None and len(s) >= 6:
            out.setdefault(host, []).append((family, name, label, s))

    user = host_series(data, "cpu.user_pct")
    system = host_series(data, "cpu.sys_pct")
    for host in sorted(set(user) | set(system), key=lambda h: h or ""):
        parts = [s for s in (user.get(host), system.get(host)) if s is not None]
        add(
            host,
            "cpu",
            "cpu.user_pct",
            "user + sys CPU",
            _sum_series(parts, "cpu.user_pct", "user+sys"),
        )
    for metric in ("net.packets_in", "net.packets_out"):
        for host, items in by_host(s for s in data.series(metric) if s.name == metric).items():
            add(
                host,
                "packets",
                metric,
                f"{metric} (all interfaces)",
                _sum_series(items, metric, "all"),
            )
    for counter in ("IpInReceives", "TcpInSegs", "TcpOutSegs"):
        for host, s in host_series(data, f"netstat.{counter}").items():
            if s.unit == "per_s":
                add(host, "packets", s.name, f"{counter} per second", s)
    for metric, label in (
        ("tcp.connections.recvq.bytes", "Recv-Q bytes"),
        ("tcp.connections.sendq.bytes", "Send-Q bytes"),
    ):
        for host, s in host_series(data, metric).items():
            add(host, "queue", metric, f"{label} (sum over connections)", s)
    return out


def _connections(data: IncidentData) -> dict[str | None, SeriesView]:
    found = host_series(data, "tcp.state.estab", prefer="peak")
    for host, s in host_series(data, "netstat.TcpCurrEstab").items():
        if host not in found or float(np.max(s.values)) > float(np.max(found[host].values)):
            found[host] = s
    return found


def _agree(a: _Signal, b: _Signal, agreement: float) -> bool:
    tolerance = max(
        agreement * max(a.period.period_s, b.period.period_s),
        a.period.sample_s,
        b.period.sample_s,
    )
    return abs(a.period.period_s - b.period.period_s) <= tolerance


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    candidates = _candidates(data)
    connections = _connections(data)
    out = []
    for host in sorted(set(candidates) | set(connections), key=lambda h: h or ""):
        values: dict[str, float | int | str | bool | None] = dict.fromkeys(_NAMES)
        anchors: dict[str, Anchor] = {}
        default = Anchor(host=host)
        signals: list[_Signal] = []
        views: list[_View] = []
        family_views: dict[str, list[tuple[_View, str]]] = {}
        for family, name, label, s in candidates.get(host, []):
            view = _view(s, params)
            views.append(view)
            family_views.setdefault(family, []).append((view, label))
            found = dominant_period(
                s.times_ms,
                s.values,
                min_period_s=float(params["min_period_s"]),
                max_period_s=float(params["max_period_s"]),
                min_cycles=float(params["min_cycles"]),
            )
            if found is not None:
                signals.append(_Signal(family, name, label, found, s))
        heartbeat_s = float(params["heartbeat_period_s"])
        for family, items in family_views.items():
            view, label = max(
                items,
                key=lambda x: (x[0].sees(heartbeat_s), x[0].searchable, -x[0].sample_s),
            )
            values[f"{family}_signal"] = label
            if view.searchable:
                # searched and nothing found (overwritten below when a period was found)
                values[f"{family}_strength"] = 0.0
                values[f"{family}_from_s"] = view.from_s
                values[f"{family}_to_s"] = view.to_s
            else:
                values[f"{family}_blind_s"] = view.sample_s
                values[f"{family}_blind_span_s"] = view.span_s
        if views:
            seen = _best_view(views, heartbeat_s)
            values["sample_s"], values["capture_s"] = seen.sample_s, seen.span_s
            values["searchable_from_s"], values["searchable_to_s"] = seen.from_s, seen.to_s
            # The sampling alone hides every period of the range (two samples per period).
            if not any(v.searchable for v in views) and 2 * min(v.sample_s for v in views) > float(
                params["max_period_s"]
            ):
                values["blind_sample_s"] = min(v.sample_s for v in views)
        strong = [sig for sig in signals if sig.strong(params)]
        for family in FAMILIES:
            mine = [sig for sig in signals if sig.family == family]
            if not mine:
                continue
            best = max(mine, key=lambda x: (x.strong(params), x.period.strength))
            p = best.period
            values[f"{family}_period_s"] = p.period_s
            values[f"{family}_cycles"] = p.cycles
            values[f"{family}_spike_ratio"] = p.spike_ratio if np.isfinite(p.spike_ratio) else 99.0
            values[f"{family}_autocorr"] = p.strength
            values[f"{family}_strength"] = p.strength if best.strong(params) else 0.0
            values[f"{family}_signal"] = best.label
            anchors[f"{family}_strength"] = _signal_anchor(best, host)
        # The waves are the heartbeats' packets; the harm is measured at their instants, never
        # at a family's own spikes.
        packet_waves = [sig for sig in strong if sig.family == "packets"]
        if packet_waves:
            waves = max(packet_waves, key=lambda x: x.period.strength)
            values["wave_signal"] = waves.label
            for family in ("cpu", "queue"):
                series = [s for f, _, _, s in candidates.get(host, []) if f == family]
                lifts = [lift for s in series if (lift := _wave_lift(waves, s)) is not None]
                if lifts:
                    values[f"{family}_wave_lift"] = max(lifts)
                    anchors[f"{family}_wave_lift"] = _signal_anchor(waves, host)
        agreeing = _agreeing(strong, float(params["period_agreement"]))
        # No series that could show a period: "no signal repeats" would be absence, not data.
        if any(v.searchable for v in views):
            values["periodic_families"] = len(agreeing)
        if agreeing:
            values["period_s"] = float(np.median([sig.period.period_s for sig in agreeing]))
            values["families"] = " and ".join(sorted({sig.family for sig in agreeing}))
            default = _signal_anchor(agreeing[0], host)
        conn_series = connections.get(host)
        if conn_series is not None:
            peak = int(np.argmax(conn_series.values))
            values["connections"] = float(conn_series.values[peak])
            instants = np.unique(conn_series.times_ms)
            values["connection_readings"] = len(instants)
            if len(instants) > 1:
                values["connections_span_s"] = float(instants[-1] - instants[0]) / 1000.0
            if not views:
                values["count_only"] = values["connections"]
            at = int(conn_series.times_ms[peak])
            anchors["connections"] = Anchor(
                conn_series.name, {}, at, at, host, conn_series.artifact
            )
        elif len(agreeing) == 1:
            # one family with no count beside it: named, but not judged (see the rule)
            values["lone_period_s"], values["lone_families"] = (
                values["period_s"],
                values["families"],
            )
        out.append(host_measurement(host, values, anchor=default, anchors=anchors))
    return out


def _agreeing(strong: list[_Signal], agreement: float) -> list[_Signal]:
    """The largest group of families whose strongest periodic signals agree on a period."""
    best_per_family: dict[str, _Signal] = {}
    for sig in sorted(strong, key=lambda x: -x.period.strength):
        best_per_family.setdefault(sig.family, sig)
    agreeing: list[_Signal] = []
    for anchor in best_per_family.values():
        group = [anchor]
        for family in best_per_family:
            if family != anchor.family:
                alternatives = [
                    x for x in strong if x.family == family and _agree(anchor, x, agreement)
                ]
                if alternatives:
                    group.append(max(alternatives, key=lambda x: x.period.strength))
        if len(group) > len(agreeing) or (
            len(group) == len(agreeing)
            and sum(x.period.strength for x in group) > sum(x.period.strength for x in agreeing)
        ):
            agreeing = group
    return agreeing


def _signal_anchor(sig: _Signal, host: str | None) -> Anchor:
    """Around the highest spike of the signal (a quarter period each side)."""
    p = sig.period
    peaks = np.array(p.peak_ms, dtype=np.int64)
    peak_values = last_values_at(peaks, sig.series) if len(peaks) else np.array([])
    if len(peak_values) and np.any(np.isfinite(peak_values)):
        centre = int(peaks[int(np.nanargmax(peak_values))])
    else:
        centre = int(sig.series.times_ms[0])
    half = int(max(p.sample_s, p.period_s / 4) * 1000)
    labels = {k: v for k, v in sig.series.labels.items() if k != "sum"}
    return Anchor(sig.name, labels, centre - half, centre + half, host, sig.series.artifact)


def _wave_lift(waves: _Signal, series: SeriesView) -> float | None:
    """``series`` at the waves over ``series`` half a period after them (see the module)."""
    peaks = np.asarray(waves.period.peak_ms, dtype=np.int64)
    if len(peaks) < 2 or len(series) < 4:
        return None
    step_ms = int(max(np.median(np.diff(series.times_ms)), 1))
    half_ms = int(waves.period.period_s * 500)

    def around(instants: np.ndarray) -> float:
        first = last_values_at(instants, series)
        second = last_values_at(instants + step_ms, series)
        both = np.fmax(first, second)
        return float(np.nanmean(both)) if np.isfinite(both).any() else float("nan")

    at_waves, between = around(peaks), around(peaks + half_ms)
    if not (np.isfinite(at_waves) and np.isfinite(between)) or between <= 0:
        return None
    return at_waves / between
