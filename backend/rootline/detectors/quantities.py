"""The quantities layer: what every checklist id's ``quantities()`` reads the data through.

One reader per kind of signal, so that two checklist ids never disagree on what a number is:

- kernel counters: :func:`counter_increments` reads one source per host (the richest:
  absolute snapshots, else ``nstat`` deltas, else rates), never the sum of two tools (the
  collector captures ``nstat`` and ``netstat -s`` of the same host);
- a series at given instants: :func:`values_at` with an explicit ``mode`` (``exact``: only a
  sample taken at that instant; ``last``: the last sample at or before it);
- facts: :func:`host_fact` is the fact of *that* host or None, never another host's;
- thread pools: :func:`pool_saturation` / :func:`pool_saturation_windows` are the one
  definition of a saturated pool (active at its maximum, or its queue full) that every id uses;
- entities: :func:`conn_key` / :func:`host_key` name a connection or host the same way in
  every checklist id, so the differential diagnosis can match one cause's symptom to another;
- formats for templates and texts.

Each function is pure (arrays and views in, numbers out) and never raises on empty or
one-point input. Times are epoch milliseconds, as everywhere.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
    Anchor,
    FactView,
    IncidentData,
    Measurement,
    Quantity,
    SeriesView,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# --- picking series ---------------------------------------------------------------------


def median(values: npt.ArrayLike) -> float:
    """``np.median`` of a non-empty array without NaN, exactly (the middle value, or the mean
    of the two middle ones), at a tenth of its cost on one connection's few hundred values:
    a C10K provider's checklist takes ~100 000 medians, and np.median costs ~40 us each."""
    ordered = np.sort(np.asarray(values, dtype=np.float64))  # (np.median's mean is float)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return float((ordered[middle - 1] + ordered[middle]) / 2)


def by_host(series: Iterable[SeriesView]) -> dict[str | None, list[SeriesView]]:
    """Series grouped by host (None for artifacts without one), hosts in sorted order."""
    grouped: dict[str | None, list[SeriesView]] = defaultdict(list)
    for s in series:
        grouped[s.host].append(s)
    return dict(sorted(grouped.items(), key=lambda item: item[0] or ""))


def richest(series: Sequence[SeriesView]) -> SeriesView | None:
    """The series with the most points (ties: the highest peak, then artifact name).

    One host often has the same signal from several artifacts (``nstat -az`` and
    ``netstat -s`` both give ``netstat.TcpActiveOpens``): detectors read one of them, not the sum.
    """
    candidates = [s for s in series if len(s)]
    if not candidates:
        return None
    return max(
        candidates,
        key=lambda s: (len(s), float(np.max(s.values)), s.artifact),
    )


def within(series: SeriesView, from_ms: int, to_ms: int) -> SeriesView:
    """``series`` with only its points in ``[from_ms, to_ms]`` (maybe none)."""
    inside = (series.times_ms >= from_ms) & (series.times_ms <= to_ms)
    if inside.all():
        return series
    return dataclasses.replace(
        series, times_ms=series.times_ms[inside], values=series.values[inside]
    )


def host_series(
    data: IncidentData, name: str, *, prefer: str = "points"
) -> dict[str | None, SeriesView]:
    """Per host, one series named exactly ``name``: the richest (see :func:`richest`), or
    with ``prefer="peak"`` the one with the highest value (for counts of sockets, where a
    filtered listing undercounts and none overcounts)."""
    found: dict[str | None, SeriesView] = {}
    for host, items in by_host(s for s in data.series(name) if s.name == name).items():
        if prefer == "peak":
            filled = [s for s in items if len(s)]
            best = (
                max(filled, key=lambda s: (float(np.max(s.values)), len(s), s.artifact))
                if filled
                else None
            )
        else:
            best = richest(items)
        if best is not None:
            found[host] = best
    return found


def last_values_at(times_ms: IntArray, series: SeriesView) -> FloatArray:
    """``series`` read at ``times_ms`` by its last known value (NaN before its first point)."""
    times = np.asarray(times_ms, dtype=np.int64)
    if not len(series) or not len(times):
        return np.full(len(times), np.nan)
    idx = np.searchsorted(series.times_ms, times, side="right") - 1
    out = np.where(idx >= 0, series.values[np.clip(idx, 0, None)], np.nan)
    return out.astype(np.float64)


# --- kernel counters ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CounterIncrements:
    """How much a kernel counter moved in each interval between snapshots.

    ``end_ms[i]`` ends an interval of ``interval_s[i]`` seconds in which the counter rose by
    ``increments[i]``. ``source`` is the series it was read from (for evidence links).
    """

    end_ms: IntArray
    interval_s: FloatArray
    increments: FloatArray
    source: SeriesView

    @property
    def total(self) -> float:
        return float(np.sum(self.increments))

    @property
    def seconds(self) -> float:
        return float(np.sum(self.interval_s))

    def __len__(self) -> int:
        return len(self.end_ms)


def _increments_from_total(s: SeriesView) -> CounterIncrements | None:
    if len(s) < 2:
        return None
    dt = np.diff(s.times_ms).astype(np.float64) / 1000.0
    inc = np.diff(s.values)
    keep = dt > 0  # duplicate snapshot times give no interval
    # A counter that went down was reset (reboot, netns recreated): count nothing there.
    inc = np.clip(inc, 0.0, None)
    return CounterIncrements(s.times_ms[1:][keep], dt[keep], inc[keep], s)


def _increments_from_delta(s: SeriesView) -> CounterIncrements | None:
    if len(s) < 2:
        return None
    dt = np.diff(s.times_ms).astype(np.float64) / 1000.0
    keep = dt > 0
    return CounterIncrements(
        s.times_ms[1:][keep], dt[keep], np.clip(s.values[1:][keep], 0.0, None), s
    )


def _increments_from_rate(s: SeriesView) -> CounterIncrements | None:
    if len(s) < 2:
        return None
    dt = np.diff(s.times_ms).astype(np.float64) / 1000.0
    keep = dt > 0
    rates = np.clip(s.values[1:][keep], 0.0, None)
    return CounterIncrements(s.times_ms[1:][keep], dt[keep], rates * dt[keep], s)


def counter_increments(data: IncidentData, counter: str) -> dict[str | None, CounterIncrements]:
    """Per host, the increments of kernel counter ``counter`` (e.g. ``TcpRetransSegs``).

    Read from ``netstat.<counter>.total`` (absolute snapshots: exact), else
    ``netstat.<counter>.delta`` (``nstat`` increments), else the ``per_s`` rate times the
    interval. Hosts with fewer than two snapshots are left out (a single absolute value says
    nothing about the incident's window).
    """
    out: dict[str | None, CounterIncrements] = {}
    readers = (
        (f"netstat.{counter}.total", _increments_from_total),
        (f"netstat.{counter}.delta", _increments_from_delta),
        (f"netstat.{counter}", _increments_from_rate),
    )
    for name, reader in readers:
        for host, s in host_series(data, name).items():
            if host in out:
                continue
            if name == f"netstat.{counter}" and s.unit != "per_s":
                continue
            inc = reader(s)
            if inc is not None and len(inc):
                out[host] = inc
    return out


def increments_on(end_ms: IntArray, other: CounterIncrements) -> FloatArray:
    """``other``'s increments summed into the intervals that end at ``end_ms`` (same host).

    Two counters of one snapshot file share their times; from different files they do not,
    so each of ``other``'s increments goes to the first ``end_ms`` at or after its own end.
    """
    out = np.zeros(len(end_ms), dtype=np.float64)
    if not len(end_ms) or not len(other):
        return out
    idx = np.searchsorted(end_ms, other.end_ms, side="left")
    ok = idx < len(end_ms)
    np.add.at(out, idx[ok], other.increments[ok])
    return out


def single_counter_value(data: IncidentData, counter: str) -> dict[str | None, float]:
    """Per host, the largest absolute value of ``counter`` from single-snapshot facts or series."""
    out: dict[str | None, float] = {}
    for f in data.facts(f"netstat.{counter}"):
        if f.key != f"netstat.{counter}":
            continue
        try:
            value = float(f.value)
        except ValueError:
            continue
        out[f.host] = max(out.get(f.host, value), value)
    for host, s in host_series(data, f"netstat.{counter}.total").items():
        out[host] = max(out.get(host, 0.0), float(np.max(s.values)))
    return out


# --- windows ------------------------------------------------------------------------------


# --- facts --------------------------------------------------------------------------------


def host_fact(data: IncidentData, key: str, host: str | None) -> FactView | None:
    """The last-captured fact ``key`` of ``host``; None when that host has none.

    Never another host's: the client's ``somaxconn`` says nothing of the server's listen queue.
    """
    own = [f for f in data.facts(key, host=host) if f.key == key and f.host == host]
    if not own:
        return None
    return max(own, key=lambda f: (f.time_ms or 0, f.artifact))


def runs_aix(data: IncidentData, host: str | None) -> bool:
    """Whether ``host`` runs AIX, as its nmon capture says (topas_nmon's ``AAA,AIX`` line, kept
    as the fact ``nmon.os``): its remedies are ``vmo``, ``svmon`` and ``ps -mo THREAD``, not
    ``sysctl``, ``/proc`` and cgroups."""
    fact = host_fact(data, "nmon.os", host)
    return fact is not None and fact.value.startswith("AIX")


def fact_ints(fact: FactView | None) -> list[int]:
    """The whole numbers of a fact's value (``"32768 60999"`` -> [32768, 60999]); [] if none."""
    if fact is None:
        return []
    out = []
    for token in fact.value.replace("\t", " ").split():
        try:
            out.append(int(token))
        except ValueError:
            return []
    return out


# --- periodicity --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Periodicity:
    """A repeating pattern found by autocorrelation.

    ``period_s`` is the lag of the first clear autocorrelation peak, ``strength`` its
    autocorrelation (0..1; pure noise of n points stays near 2/sqrt(n)), ``cycles`` how many
    periods the capture holds, ``sample_s`` the resampling step, ``peak_ms`` the instants of
    the highest values, one per cycle (where the spikes are), and ``spike_ratio`` the mean of
    those peaks over the series' median.
    """

    period_s: float
    strength: float
    cycles: float
    sample_s: float
    peak_ms: tuple[int, ...]
    spike_ratio: float


def resample_uniform(
    times_ms: IntArray, values: FloatArray, step_s: float | None = None
) -> tuple[IntArray, FloatArray]:
    """``values`` linearly interpolated onto an even grid (step: the median sample spacing)."""
    times = np.asarray(times_ms, dtype=np.int64)
    vals = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(vals)
    times, vals = times[ok], vals[ok]
    if len(times) < 2:
        return times, vals
    order = np.argsort(times, kind="stable")
    times, vals = times[order], vals[order]
    uniq, first = np.unique(times, return_index=True)
    # duplicate instants: keep the mean of their values
    sums = np.add.reduceat(vals, first)
    counts = np.diff(np.append(first, len(vals)))
    times, vals = uniq, sums / counts
    if len(times) < 2:
        return times, vals
    step_ms = step_s * 1000.0 if step_s else float(np.median(np.diff(times)))
    step_ms = max(step_ms, 1.0)
    count = int((times[-1] - times[0]) // step_ms) + 1
    if count > 200_000:  # a year at 1 s would be silly; keep the work bounded
        step_ms = (times[-1] - times[0]) / 200_000
        count = 200_001
    grid = (times[0] + np.arange(count) * step_ms).astype(np.int64)
    return grid, np.interp(grid, times, vals)


def dominant_period(
    times_ms: IntArray,
    values: FloatArray,
    *,
    min_period_s: float,
    max_period_s: float,
    min_cycles: float = 2.0,
) -> Periodicity | None:
    """The main period of a series between ``min_period_s`` and ``max_period_s``, or None.

    The series is resampled evenly, a linear trend removed, and its autocorrelation taken
    (via FFT). The period is the first local maximum of the autocorrelation within range
    that stands above the dip before it (so a slow ramp, whose autocorrelation only decays,
    has no period), and whose lag fits ``min_cycles`` times into the capture. The strongest
    such peak within 10 % of the highest one is taken, so harmonics (2P, 3P) do not win.
    """
    grid, vals = resample_uniform(times_ms, values)
    n = len(vals)
    if n < 6:
        return None
    step_s = float(grid[1] - grid[0]) / 1000.0 if n > 1 else 0.0
    if step_s <= 0:
        return None
    x = vals - np.polyval(np.polyfit(np.arange(n), vals, 1), np.arange(n))
    var = float(np.dot(x, x))
    if var <= 1e-12 * max(1.0, float(np.max(np.abs(vals))) ** 2) or var == 0.0:
        return None
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectrum = np.fft.rfft(x, size)
    acf = np.fft.irfft(spectrum * np.conj(spectrum), size)[:n]
    acf = acf / acf[0]
    lo = max(2, int(np.ceil(min_period_s / step_s)))
    hi = min(int(np.floor(max_period_s / step_s)), int(np.floor((n - 1) / min_cycles)))
    if hi <= lo:
        return None
    candidates = []
    for lag in range(lo, hi + 1):
        if acf[lag] <= 0 or acf[lag] < acf[lag - 1] or (lag + 1 < n and acf[lag] < acf[lag + 1]):
            continue
        dip = float(np.min(acf[1:lag])) if lag > 1 else 1.0
        if acf[lag] - dip < 0.2:  # a real period swings: the dip before the peak is lower
            continue
        candidates.append((lag, float(acf[lag])))
    if not candidates:
        return None
    top = max(c[1] for c in candidates)
    lag, strength = next(c for c in candidates if c[1] >= top * 0.9)
    # the biased estimate above shrinks long lags; scale back up for an honest 0..1 figure
    strength = min(1.0, strength * n / (n - lag))
    period_s = lag * step_s
    peaks = []
    for start in range(0, n, lag):
        seg = vals[start : start + lag]
        if len(seg) >= max(1, lag // 2):
            peaks.append(start + int(np.argmax(seg)))
    median = float(np.median(vals))
    peak_mean = float(np.mean(vals[peaks])) if peaks else median
    spike_ratio = peak_mean / median if median > 0 else float("inf") if peak_mean > 0 else 1.0
    return Periodicity(
        period_s=period_s,
        strength=strength,
        cycles=(n * step_s) / period_s,
        sample_s=step_s,
        peak_ms=tuple(int(grid[p]) for p in peaks),
        spike_ratio=spike_ratio,
    )


# --- formatting ---------------------------------------------------------------------------


def fmt_count(value: float) -> str:
    """A count with thousands separators: 32600 -> ``32,600``; 0.5 -> ``0.5``."""
    if not np.isfinite(value):
        return str(value)
    if abs(value - round(value)) < 1e-9 or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2g}" if abs(value) < 1 else f"{value:,.1f}"


def fmt_pct(value: float) -> str:
    """A percentage with sensible precision: 0.0312 % -> ``0.031 %``, 12.34 -> ``12.3 %``."""
    if not np.isfinite(value):
        return f"{value} %"
    if abs(value) >= 10:
        return f"{value:.0f} %"
    if abs(value) >= 1:
        return f"{value:.1f} %"
    return f"{value:.2g} %"


def fmt_seconds(seconds: float) -> str:
    """A duration for people: 0.0123 -> ``12 ms``, 75 -> ``75 s``, 7200 -> ``2.0 h``."""
    if not np.isfinite(seconds):
        return "unbounded"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms" if seconds >= 0.001 else f"{seconds * 1000:.2g} ms"
    if seconds < 120:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def fmt_bytes(value: float) -> str:
    """Bytes in binary units: 16384 -> ``16 KiB``, 4194304 -> ``4.0 MiB``."""
    if not np.isfinite(value):
        return str(value)
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    size = float(value)
    for unit in units:
        if abs(size) < 1024 or unit == units[-1]:
            if unit == "B":
                return f"{size:.0f} B"
            return f"{size:.0f} {unit}" if abs(size) >= 10 else f"{size:.1f} {unit}"
        size /= 1024
    return f"{value} B"  # pragma: no cover


# --- connection-level helpers (ss -tinm), kernel counters, sysctl values, formatting
# (added with small_send_buffer / receiver_not_reading / slow_start_after_idle /
# single_connection_bottleneck) -------------------------


def format_bits_per_s(bits_per_s: float) -> str:
    """A link or delivery rate in decimal bit multiples: ``100 Mbit/s``.

    >>> format_bits_per_s(100e6), format_bits_per_s(6_553_600), format_bits_per_s(900)
    ('100 Mbit/s', '6.6 Mbit/s', '900 bit/s')
    """
    value = float(bits_per_s)
    for unit in ("bit/s", "kbit/s", "Mbit/s", "Gbit/s"):
        if abs(value) < 1000 or unit == "Gbit/s":
            if unit == "bit/s":
                return f"{value:.0f} bit/s"
            return f"{value:.1f} {unit}" if abs(value) < 10 else f"{value:.0f} {unit}"
        value /= 1000
    return f"{value:.0f} Gbit/s"  # pragma: no cover


def split_endpoint(endpoint: str) -> tuple[str, int | None]:
    """``address:port`` as ss prints it to (address, port); scopes (``%lo``) and brackets go.

    >>> split_endpoint("[::ffff:127.0.0.1]:5005"), split_endpoint("127.0.0.1%lo:5006")
    (('::ffff:127.0.0.1', 5005), ('127.0.0.1', 5006))
    >>> split_endpoint("*:*"), split_endpoint("garbage")
    (('*', None), ('garbage', None))
    """
    address, sep, port_text = endpoint.rpartition(":")
    if not sep:
        return endpoint, None
    address = address.split("%", 1)[0].strip("[]")
    port = int(port_text) if port_text.isdigit() else None
    return address, port


def connection_of(labels: dict[str, str]) -> tuple[str, str] | None:
    """(local, peer) of a ``tcp.conn.*`` series, None when the labels lack them."""
    local, peer = labels.get("local"), labels.get("peer")
    if local is None or peer is None:
        return None
    return local, peer


def congestion_controls(data: IncidentData) -> dict[tuple[str | None, str, str], str]:
    """Congestion control per (host, local, peer), from the ss facts ``tcp.conn.cc[<local> <peer>]``."""
    found: dict[tuple[str | None, str, str], tuple[int, str]] = {}
    for fact in data.facts("tcp.conn.cc[*"):
        inside = fact.key[len("tcp.conn.cc[") :].rstrip("]")
        local, _, peer = inside.partition(" ")
        key = (fact.host, local, peer)
        stamp = fact.time_ms or -1
        if key not in found or stamp >= found[key][0]:
            found[key] = (stamp, fact.value.strip())
    return {key: value for key, (_, value) in found.items()}


def values_at(
    series: SeriesView, times_ms: npt.NDArray[np.int64], *, mode: str, default: float = np.nan
) -> npt.NDArray[np.float64]:
    """``series`` read at ``times_ms``.

    ``mode="exact"``: the sample taken at that instant, else ``default`` (per-connection ss
    fields are printed only when non-zero, so a missing sample means "not printed").
    ``mode="last"``: the last sample at or before the instant, ``default`` before the first.
    """
    if mode == "exact":
        return exact_values_at(series, times_ms, default)
    if mode == "last":
        out = last_values_at(times_ms, series)
        return np.where(np.isnan(out), default, out)
    raise ValueError(f"values_at mode is 'exact' or 'last', not {mode!r}")


def field_at(
    row: dict[str, SeriesView], name: str, times_ms: npt.NDArray[np.int64], default: float = 0.0
) -> npt.NDArray[np.float64]:
    """A per-connection ss field (``row`` from :func:`connection_series`) at the snapshots
    ``times_ms``: the exact sample, ``default`` where ss did not print it or never did."""
    if name not in row:
        return np.full(len(times_ms), default, dtype=np.float64)
    return values_at(row[name], times_ms, mode="exact", default=default)


def conn_key(host: str | None, local: str, peer: str) -> str:
    """The entity key of one connection, the same from both ends.

    The 4-tuple names the connection whichever host captured it, so a receiver's full Recv-Q
    and its sender's full Send-Q are symptoms on one entity. ``host`` is accepted for
    symmetry with the captures and deliberately not part of the key.
    """
    del host
    first, second = sorted((local, peer))
    return f"conn:{first}|{second}"


def host_key(host: str | None) -> str:
    """The entity key of a host."""
    return f"host:{host or ''}"


def host_label(host: str | None) -> str:
    """How a host-wide finding names its entity (``the capture`` when no file names a host)."""
    return f"host {host}" if host else "the capture"


def host_measurement(
    host: str | None,
    values: dict[str, Quantity],
    *,
    anchor: Anchor,
    anchors: dict[str, Anchor],
    key: str | None = None,
) -> Measurement:
    """A measurement of one host, keyed by it unless ``key`` says otherwise."""
    return Measurement(
        entity=host_label(host),
        key=host_key(host) if key is None else key,
        values=values,
        anchor=anchor,
        anchors=anchors,
    )


def exact_values_at(
    series: SeriesView, times_ms: npt.NDArray[np.int64], default: float
) -> npt.NDArray[np.float64]:
    """``series`` read at ``times_ms``: the exact point when there is one, else ``default``.

    For per-connection ss series that skip snapshots (a field printed only when non-zero).
    """
    if series.times_ms is times_ms or (
        len(series) == len(times_ms) and np.array_equal(series.times_ms, times_ms)
    ):
        # The usual case: a field printed in every snapshot the connection was seen in.
        return np.array(series.values, dtype=np.float64)
    out = np.full(len(times_ms), default, dtype=np.float64)
    if not len(series) or not len(times_ms):
        return out
    index = np.searchsorted(series.times_ms, times_ms)
    inside = index < len(series.times_ms)
    hit = np.zeros(len(times_ms), dtype=bool)
    hit[inside] = series.times_ms[index[inside]] == times_ms[inside]
    out[hit] = series.values[index[hit]]
    return out


def coefficient_of_variation(values: npt.NDArray[np.float64]) -> float | None:
    """Standard deviation over mean (0 for a flat series); None when the mean is 0 or empty.

    >>> coefficient_of_variation(np.array([0.0, 10.0, 0.0, 10.0]))
    1.0
    """
    if not len(values):
        return None
    mean = float(np.mean(values))
    if mean <= 0:
        return None
    return float(np.std(values) / mean)


ConnectionKey = tuple[str | None, str, str]


def connection_series(
    data: IncidentData, fields: Sequence[str]
) -> dict[ConnectionKey, dict[str, SeriesView]]:
    """Per-connection ss series, ``{(host, local, peer): {field: series}}``.

    ``fields`` are the names after ``tcp.conn.`` (``"skmem_tb"``, ``"sendq.bytes"`` ...). When
    two artifacts hold the same connection and field, the one with more points is kept.
    """
    table: dict[ConnectionKey, dict[str, SeriesView]] = defaultdict(dict)
    for field_name in fields:
        for series in data.series(f"tcp.conn.{field_name}"):
            ends = connection_of(series.labels)
            if ends is None or not len(series):
                continue
            row = table[(series.host, ends[0], ends[1])]
            if field_name not in row or len(series) > len(row[field_name]):
                row[field_name] = series
    return dict(table)


def connection_label(key: ConnectionKey) -> str:
    """``local -> peer on host`` for summaries (``host`` left out when unknown)."""
    host, local, peer = key
    return f"{local} -> {peer}" + (f" on {host}" if host else "")


def longest_true_span(times_ms: IntArray, mask: npt.NDArray[np.bool_]) -> tuple[int, int] | None:
    """(first, last) time of the run of True samples covering the longest time; None if none.

    >>> longest_true_span(np.array([1, 2, 3, 4, 5]), np.array([True, False, True, True, False]))
    (3, 4)
    """
    if len(mask) != len(times_ms):
        return None
    run = longest_true_run(times_ms, mask)
    return (int(times_ms[run[0]]), int(times_ms[run[1]])) if run else None


# --- spans and windows (added with time_wait_storm / accept_queue_overflow /
# tcp_retransmissions / short_lived_connections / heartbeat_storm) -----------------------


def chrono_share_pct(
    row: dict[str, SeriesView], times_ms: IntArray, limit: str, min_busy_ms: float
) -> tuple[float | None, float]:
    """Share of a connection's busy time an ss chrono limit took: ``(percent, busy ms)``.

    ``row`` maps ``tcp.conn.*`` field names to series (see :func:`connection_series`) and
    ``limit`` is ``"rwnd_limited"`` or ``"sndbuf_limited"``. ss prints a limit only when it
    is non-zero, so a missing sample counts as 0. During the capture when two snapshots at
    least ``min_busy_ms`` of busy time apart allow it (the incident window), else the
    cumulative share ss printed last (since the connection opened). (None, 0) without
    ``busy_ms``.
    """
    busy_series = row.get("busy_ms")
    if busy_series is None or not len(times_ms):
        return None, 0.0
    busy = exact_values_at(busy_series, times_ms, np.nan)
    valid = ~np.isnan(busy)
    if not valid.any():
        return None, 0.0
    spent_ms = row.get(f"{limit}_ms")
    part = (
        exact_values_at(spent_ms, times_ms, 0.0)
        if spent_ms is not None
        else np.zeros(len(times_ms))
    )
    busy_valid, part_valid = busy[valid], part[valid]
    spent = float(busy_valid[-1] - busy_valid[0])
    if len(busy_valid) >= 2 and spent >= min_busy_ms:
        return max(0.0, float(part_valid[-1] - part_valid[0])) * 100.0 / spent, spent
    pct_series = row.get(f"{limit}_pct")
    pct = (
        exact_values_at(pct_series, times_ms, 0.0)
        if pct_series is not None
        else np.zeros(len(times_ms))
    )
    last = int(np.flatnonzero(valid)[-1])
    return float(pct[last]), float(busy[last])


def span_near_peak(times_ms: IntArray, values: FloatArray, fraction: float) -> tuple[int, int]:
    """The contiguous run of points around the highest one that stay >= ``fraction`` x peak.

    For evidence ranges ("where TIME-WAIT was within 90 % of its peak"); ``(0, 0)`` for no
    points. NaN values end a run.
    """
    times = np.asarray(times_ms, dtype=np.int64)
    vals = np.asarray(values, dtype=np.float64)
    if not len(times):
        return 0, 0
    finite = np.where(np.isfinite(vals), vals, -np.inf)
    peak_index = int(np.argmax(finite))
    level = finite[peak_index] * fraction if finite[peak_index] > 0 else finite[peak_index]
    lo = peak_index
    while lo > 0 and finite[lo - 1] >= level:
        lo -= 1
    hi = peak_index
    while hi + 1 < len(times) and finite[hi + 1] >= level:
        hi += 1
    return int(times[lo]), int(times[hi])


def full_windows(
    end_ms: IntArray, interval_s: FloatArray, window_s: float
) -> tuple[IntArray, IntArray]:
    """Windows of consecutive counter intervals spanning ``window_s`` seconds.

    Returns ``(first, stop)`` index arrays: window ``k`` covers intervals
    ``first[k]:stop[k]``. Only windows that fit whole inside the capture are given (a late
    start would measure one short interval and inflate a peak); a capture shorter than the
    window gives one window, the whole capture. Sum any per-interval amount over them with
    a cumulative sum.
    """
    ends = np.asarray(end_ms, dtype=np.int64)
    gaps = np.asarray(interval_s, dtype=np.float64)
    n = len(ends)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts_ms = ends - (gaps * 1000.0).astype(np.int64)
    stop = np.searchsorted(ends, starts_ms + int(window_s * 1000), side="right")
    first = np.arange(n, dtype=np.int64)
    fits = starts_ms + int(window_s * 1000) <= ends[-1]
    if not np.any(fits):
        return np.array([0], dtype=np.int64), np.array([n], dtype=np.int64)
    return first[fits], stop[fits].astype(np.int64)


# --- runs, windows, percentiles and prose (runtime detectors) -------------------------


def typical_interval_ms(times_ms: npt.NDArray[np.int64]) -> float:
    """Median spacing of positive steps between samples, in ms (0.0 with fewer than 2 times).

    Duplicate times (two artifacts stamping the same second) are ignored, so the spacing of a
    1 s capture stays 1000 ms.

    >>> typical_interval_ms(np.array([0, 1000, 1000, 2000, 5000]))
    1000.0
    """
    if len(times_ms) < 2:
        return 0.0
    steps = np.diff(np.asarray(times_ms, dtype=np.int64))
    steps = steps[steps > 0]
    return median(steps) if len(steps) else 0.0


def true_runs(mask: npt.NDArray[np.bool_]) -> list[tuple[int, int]]:
    """Index ranges ``(first, last)`` (inclusive) of consecutive True values in ``mask``.

    >>> true_runs(np.array([False, True, True, False, True]))
    [(1, 2), (4, 4)]
    """
    flags = np.asarray(mask, dtype=bool)
    if not flags.any():  # the usual answer on a healthy connection, at a fifth of the cost
        return []
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    edges = np.diff(padded)
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def run_duration_ms(times_ms: npt.NDArray[np.int64], first: int, last: int) -> float:
    """How long a run of samples ``first..last`` covers: last - first plus one sample interval.

    A single sample of a 5 s capture stands for 5 s, not 0 s, so runs compare across capture
    intervals.
    """
    if not len(times_ms):
        return 0.0
    return float(times_ms[last] - times_ms[first]) + typical_interval_ms(times_ms)


def longest_true_run(
    times_ms: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_]
) -> tuple[int, int, float] | None:
    """The run of True samples covering the longest time: ``(first, last, duration_ms)``."""
    best: tuple[int, int, float] | None = None
    if not np.any(mask):
        return None
    # run_duration_ms per run, with the one sample interval (a median over the whole series)
    # taken once: per run it cost 5 s on a 100 MB nmon capture with 8000 runs.
    interval = typical_interval_ms(times_ms) if len(times_ms) else 0.0
    for first, last in true_runs(mask):
        duration = float(times_ms[last] - times_ms[first]) + interval
        if best is None or duration > best[2]:
            best = (first, last, duration)
    return best


def step_values_at(
    times_ms: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    at_ms: npt.NDArray[np.int64],
) -> npt.NDArray[np.float64]:
    """A step series (the last sample at or before each instant) read at ``at_ms``.

    Instants before the first sample take the first value; an empty series gives NaN.

    >>> step_values_at(np.array([10, 20]), np.array([1.0, 2.0]), np.array([5, 10, 15, 25]))
    array([1., 1., 1., 2.])
    """
    query = np.asarray(at_ms, dtype=np.int64)
    if not len(times_ms):
        return np.full(len(query), np.nan)
    index = np.searchsorted(times_ms, query, side="right") - 1
    return np.asarray(values, dtype=np.float64)[np.clip(index, 0, len(values) - 1)]


def nearest_rank_percentile(values: npt.ArrayLike, percent: float) -> float:
    """The nearest-rank percentile (the value at rank ceil(p/100 * n)); NaN when empty.

    >>> nearest_rank_percentile([5.0, 1.0, 3.0, 2.0, 4.0], 99)
    5.0
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    if not len(ordered):
        return float("nan")
    rank = int(np.ceil(percent / 100.0 * len(ordered)))
    return float(ordered[min(max(rank, 1), len(ordered)) - 1])


def densest_window(
    starts_ms: npt.NDArray[np.int64],
    durations_ms: npt.NDArray[np.float64],
    window_ms: int,
    *,
    end_ms: int | None = None,
) -> tuple[int, float]:
    """The window of ``window_ms`` holding the most span time: ``(window_start_ms, total_ms)``.

    Windows start at a span's start (where the maximum always is). Spans are taken as
    sequential, as stop-the-world pauses of one JVM are: only the last span starting in a
    window can reach past its end, and only its part inside counts, so one 30 s pause gives
    at most ``window_ms``. Vectorised: 200 000 pauses take milliseconds.

    ``end_ms``, where the record ends (a GC log's last line): no window runs past it, since
    nothing is known there; one that would is moved back to end there, so it holds the spans
    of the record's last ``window_ms`` (the caller makes sure the record is that long).

    >>> densest_window(np.array([0, 1000, 50000]), np.array([100.0, 200.0, 900.0]), 10000)
    (50000, 900.0)
    >>> densest_window(np.array([0]), np.array([30000.0]), 10000)
    (0, 10000.0)
    >>> densest_window(np.array([12000]), np.array([400.0]), 10000)  # runs to 22 s
    (12000, 400.0)
    >>> densest_window(np.array([12000]), np.array([400.0]), 10000, end_ms=12500)
    (2500, 400.0)

    The most a window holds does not change (the window from the first span in the record's
    last ``window_ms`` held everything up to its end already); where it lies does, so the
    window stated is one the record covers.
    """
    if not len(starts_ms) or window_ms <= 0:
        return 0, 0.0
    order = np.argsort(starts_ms, kind="stable")
    starts = np.asarray(starts_ms, dtype=np.int64)[order]
    durations = np.maximum(np.asarray(durations_ms, dtype=np.float64)[order], 0.0)
    cumulative = np.concatenate(([0.0], np.cumsum(durations)))
    window_starts = starts
    if end_ms is not None:
        window_starts = np.minimum(starts, np.int64(end_ms - window_ms))
    window_ends = window_starts + window_ms
    first = np.searchsorted(starts, window_starts, side="left")  # first span in the window
    after_last = np.searchsorted(starts, window_ends, side="left")  # index past the window
    totals = cumulative[after_last] - cumulative[first]
    last = np.maximum(after_last - 1, 0)
    overflow = np.maximum(starts[last] + durations[last] - window_ends, 0.0)
    totals = np.clip(totals - overflow, 0.0, float(window_ms))
    best = int(np.argmax(totals))
    return int(window_starts[best]), float(totals[best])


def iso_ms(time_ms: float | None) -> str:
    """An epoch-ms instant as ``YYYY-mm-ddTHH:MM:SSZ`` (``?`` when unknown), for summaries.

    >>> iso_ms(0)
    '1970-01-01T00:00:00Z'
    """
    if time_ms is None or not np.isfinite(time_ms):
        return "?"
    moment = dt.datetime.fromtimestamp(float(time_ms) / 1000.0, tz=dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fmt_number(value: float, digits: int = 1) -> str:
    """A number for prose: integers without decimals, others with ``digits`` decimals.

    >>> fmt_number(8.0), fmt_number(2.345), fmt_number(float("nan"))
    ('8', '2.3', 'n/a')
    """
    if not np.isfinite(value):
        return "n/a"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def fmt_duration_ms(duration_ms: float) -> str:
    """A duration for prose: ``850 ms``, ``2.4 s``, ``3.5 min``.

    >>> fmt_duration_ms(0.011), fmt_duration_ms(5.25), fmt_duration_ms(850), fmt_duration_ms(2400)
    ('0.01 ms', '5.2 ms', '850 ms', '2.4 s')
    >>> fmt_duration_ms(3_600_000), fmt_duration_ms(37_668_000), fmt_duration_ms(4 * 86_400_000)
    ('60.0 min', '10 h 28 min', '4.0 days')
    """
    if not np.isfinite(duration_ms):
        return "n/a"
    if duration_ms == 0:
        return "0 ms"
    if duration_ms < 1000:
        if duration_ms >= 10:
            return f"{duration_ms:.0f} ms"
        return f"{duration_ms:.1f} ms" if duration_ms >= 1 else f"{duration_ms:.2f} ms"
    if duration_ms < 120_000:
        return f"{duration_ms / 1000:.1f} s"
    if duration_ms < 7_200_000:
        return f"{duration_ms / 60_000:.1f} min"
    # Hours and minutes from two hours on: "627.8 min" had to be divided in the head.
    minutes = round(duration_ms / 60_000)
    if minutes < 48 * 60:
        return f"{minutes // 60} h {minutes % 60} min"
    return f"{duration_ms / 86_400_000:.1f} days"


def merged_series(
    series: Sequence[SeriesView],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Points of several series of one quantity (e.g. two captures of one host) as one.

    Sorted by time; duplicate instants keep the largest value; NaN values are dropped.
    """
    if not series:
        return np.array([], dtype=np.int64), np.array([], dtype=np.float64)
    times = np.concatenate([np.asarray(s.times_ms, dtype=np.int64) for s in series])
    values = np.concatenate([np.asarray(s.values, dtype=np.float64) for s in series])
    finite = np.isfinite(values)
    times, values = times[finite], values[finite]
    order = np.lexsort((-values, times))
    times, values = times[order], values[order]
    if not len(times):
        return times, values
    keep = np.concatenate(([True], np.diff(times) > 0))
    return times[keep], values[keep]


def first_fact_number(facts: Sequence[FactView]) -> float | None:
    """The first fact whose value reads as a finite number (``"8"``, ``"91.4 MB"``), else None."""
    for fact in facts:
        try:
            number = float(fact.value.strip().split()[0])
        except (ValueError, IndexError):
            continue
        if np.isfinite(number):
            return number
    return None


# --- thread pools: the one definition of a saturated pool (threadpool_exhaustion, gc_pauses,
# single_connection_bottleneck) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoolSaturation:
    """One pool's readings and, at each, whether it was saturated.

    The single definition every checklist id uses: a pool is saturated at a reading when every
    thread is busy (``active >= max``, ``max > 0``) or its queue is full (``queue >= capacity``,
    ``capacity > 0``: 0 is what executors report for a SynchronousQueue, Dubbo's ``queues=0``,
    and some agents for "unbounded": no capacity to fill). Pool gauges are readings at an
    instant, so a run of saturated readings lasts from its first to its last.
    ``times_ms`` are the active readings (the queue's when active is not reported).
    """

    host: str | None
    pool: str
    artifact: str
    times_ms: IntArray
    saturated: npt.NDArray[np.bool_]
    active_full: int
    queue_full: int
    peak_active: float | None
    max_threads: float | None
    peak_queue: float | None
    queue_capacity: float | None

    @property
    def judgeable(self) -> bool:
        """Whether saturation can be told: active with max, or queue with a capacity."""
        return (self.peak_active is not None and self.max_threads is not None) or (
            self.peak_queue is not None and self.queue_capacity is not None
        )

    def runs(self) -> list[tuple[int, int]]:
        """(first, last) reading time of every run of saturated readings."""
        return [
            (int(self.times_ms[a]), int(self.times_ms[b])) for a, b in true_runs(self.saturated)
        ]

    def saturated_at(
        self, times_ms: IntArray
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """(saturated, known) at each instant, from the last reading at or before it; an
        instant before the first reading is not known."""
        index = (
            np.searchsorted(self.times_ms, np.asarray(times_ms, dtype=np.int64), side="right") - 1
        )
        known = index >= 0
        out = np.zeros(len(index), dtype=bool)
        out[known] = self.saturated[index[known]]
        return out, known

    def longest_run(self) -> tuple[int, int] | None:
        """(first, last) reading of the longest run; None when never saturated."""
        runs = self.runs()
        return max(runs, key=lambda r: (r[1] - r[0], -r[0])) if runs else None


def pool_series(data: IncidentData) -> dict[tuple[str | None, str], dict[str, list[SeriesView]]]:
    """``threadpool.*`` series per (host, pool label), by series name."""
    grouped: dict[tuple[str | None, str], dict[str, list[SeriesView]]] = {}
    for s in data.series("threadpool.*"):
        key = (s.host, s.labels.get("pool", "default"))
        grouped.setdefault(key, {}).setdefault(s.name, []).append(s)
    return dict(sorted(grouped.items(), key=lambda item: (item[0][0] or "", item[0][1])))


def pool_saturation(data: IncidentData) -> list[PoolSaturation]:
    """Every pool with gauges (active or queue), and when it was saturated (see
    :class:`PoolSaturation`)."""
    out = []
    for (host, pool), named in pool_series(data).items():
        active_t, active_v = merged_series(named.get("threadpool.active", []))
        max_t, max_v = merged_series(named.get("threadpool.max", []))
        queue_t, queue_v = merged_series(named.get("threadpool.queue", []))
        cap_t, cap_v = merged_series(named.get("threadpool.queue_capacity", []))
        grid = active_t if len(active_t) else queue_t
        if not len(grid):
            continue
        saturated = np.zeros(len(grid), dtype=bool)
        active_full = queue_full = 0
        max_threads = capacity = None
        if len(active_t) and len(max_t) and float(np.max(max_v)) > 0:
            max_at = step_values_at(max_t, max_v, active_t)
            full = (max_at > 0) & (active_v >= max_at)
            saturated |= full
            active_full = int(full.sum())
            max_threads = float(np.max(max_v))
        if len(queue_t) and len(cap_t) and float(np.max(cap_v)) > 0:
            cap_at = step_values_at(cap_t, cap_v, queue_t)
            full = (cap_at > 0) & (queue_v >= cap_at)
            queue_full = int(full.sum())
            saturated |= step_values_at(queue_t, full.astype(np.float64), grid) > 0
            capacity = float(np.max(cap_v))
        any_series = next(iter(named.values()))[0]
        out.append(
            PoolSaturation(
                host=host,
                pool=pool,
                artifact=any_series.artifact,
                times_ms=grid,
                saturated=saturated,
                active_full=active_full,
                queue_full=queue_full,
                peak_active=float(np.max(active_v)) if len(active_t) else None,
                max_threads=max_threads,
                peak_queue=float(np.max(queue_v)) if len(queue_t) else None,
                queue_capacity=capacity,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class PoolWindow:
    """A period when one pool was saturated or rejecting work, in epoch ms."""

    host: str | None
    pool: str
    from_ms: int
    to_ms: int
    why: str  # "saturated" (gauges), "rejected" (counter), "rejection logged" (app log)
    artifact: str | None = None  # the file it was read from


def pool_saturation_windows(data: IncidentData) -> list[PoolWindow]:
    """Every period a pool was saturated (:func:`pool_saturation`; a run lasts one reading
    interval past its last reading) or rejected work: a rise of ``threadpool.rejected`` (a
    bounded pool rejects only when saturated) or a rejection line of the application log
    (``threadpool_rejected`` events, an instant each)."""
    windows: list[PoolWindow] = []
    for pool in pool_saturation(data):
        step = int(typical_interval_ms(pool.times_ms))
        for first, last in pool.runs():
            windows.append(
                PoolWindow(pool.host, pool.pool, first, last + step, "saturated", pool.artifact)
            )
    for (host, pool_name), named in pool_series(data).items():
        for s in named.get("threadpool.rejected", []):
            if len(s) < 2:
                continue
            rising = np.diff(s.values) > 0
            for a, b in true_runs(rising):
                first_ms, last_ms = int(s.times_ms[a]), int(s.times_ms[b + 1])
                windows.append(
                    PoolWindow(host, pool_name, first_ms, last_ms, "rejected", s.artifact)
                )
    for event in data.events("threadpool_rejected"):
        pool_name = str(event.attrs.get("pool", "?"))
        windows.append(
            PoolWindow(
                event.host,
                pool_name,
                event.time_ms,
                event.time_ms,
                "rejection logged",
                event.artifact,
            )
        )
    return windows


@dataclass(frozen=True, slots=True)
class SlowPeriod:
    """When the application is known to have been slow on a host: a pool saturated (or
    rejecting work), or an RPC timing out (a second either side of the line)."""

    what: str
    host: str | None
    from_ms: int
    to_ms: int
    pool: bool  # a saturated pool's window (not an RPC timeout)
    artifact: str | None = None  # the file it was read from


def period_files(periods: Iterable[SlowPeriod]) -> tuple[str, ...]:
    """The files slow periods were read from, for :attr:`Anchor.against`: a quantity placed
    against them is as well placed as they are (an application log without dates ...)."""
    return tuple(sorted({p.artifact for p in periods if p.artifact}))


def slow_periods(data: IncidentData) -> list[SlowPeriod]:
    """Every known slow period: the pools' saturation windows, then the RPC timeouts."""
    return [
        SlowPeriod(f"pool {w.pool} saturated", w.host, w.from_ms, w.to_ms, True, w.artifact)
        for w in pool_saturation_windows(data)
    ] + [
        SlowPeriod("RPC timeout", e.host, e.time_ms - 1000, e.time_ms + 1000, False, e.artifact)
        for e in data.events("rpc_timeout")
    ]


# --- reading progress and zero windows (single_connection_bottleneck, receiver_not_reading) --


@dataclass(frozen=True, slots=True)
class ReadingProgress:
    """How a connection's byte counter moved over the intervals its receiver held the data.

    With the receive buffer full, new bytes can only arrive as fast as the application reads
    them (the window the receiver advertises is the space its reads freed). So a byte counter
    of the connection (``bytes_received`` on the receiving end, ``bytes_acked`` on its
    sender) that grows over such an interval is a reader that kept reading (slowly: at the
    pace it read), and one that stays flat is a reader that stood still (a zero window).
    """

    counter: str  # "bytes_received" or "bytes_acked"
    intervals: int  # intervals held at both ends, with the counter read at both
    grew: int  # of which the counter grew
    moved_bytes: float  # bytes counted over those intervals
    held_ms: float  # their total duration
    span: tuple[int, int]  # the first judged interval's start, the last one's end

    @property
    def grew_share(self) -> float:
        return self.grew / self.intervals

    @property
    def flat_share(self) -> float:
        return 1.0 - self.grew_share

    @property
    def flat_ms(self) -> float:
        return self.held_ms * self.flat_share if self.intervals else 0.0

    @property
    def rate(self) -> float | None:
        """Bytes per second over the held intervals (None when they last no time)."""
        return self.moved_bytes * 1000.0 / self.held_ms if self.held_ms > 0 else None


def held_intervals(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Per interval between consecutive snapshots: the condition held at both of its ends.

    >>> held_intervals(np.array([True, True, False, True])).tolist()
    [True, False, False]
    """
    flags: npt.NDArray[np.bool_] = np.asarray(mask, dtype=bool)
    if len(flags) < 2:
        return np.zeros(0, dtype=bool)
    both: npt.NDArray[np.bool_] = flags[:-1] & flags[1:]
    return both


def window_held_intervals(
    row: dict[str, SeriesView], times_ms: IntArray, min_pct: float
) -> npt.NDArray[np.bool_]:
    """Per interval between consecutive snapshots of a sender: the peer's window held it back
    at least ``min_pct`` % of the busy time of that interval (the ``rwnd_limited`` clock's
    rise over the ``busy`` clock's, both from ss -i). All False without both clocks.
    """
    out = np.zeros(max(len(times_ms) - 1, 0), dtype=bool)
    busy_series, rwnd_series = row.get("busy_ms"), row.get("rwnd_limited_ms")
    if busy_series is None or rwnd_series is None or len(times_ms) < 2:
        return out
    busy = exact_values_at(busy_series, times_ms, np.nan)
    # ss prints rwnd_limited only once it is non-zero: an absent sample is 0 ms when busy is known
    rwnd = np.where(np.isnan(busy), np.nan, exact_values_at(rwnd_series, times_ms, 0.0))
    d_busy, d_rwnd = np.diff(busy), np.diff(rwnd)
    with np.errstate(invalid="ignore"):  # NaN compares False: an unknown interval is not held
        held: npt.NDArray[np.bool_] = (d_busy > 0) & (d_rwnd * 100.0 >= min_pct * d_busy)
    return held


def reading_progress(
    row: dict[str, SeriesView],
    counter: str,
    times_ms: IntArray,
    held: npt.NDArray[np.bool_],
) -> ReadingProgress | None:
    """``counter`` (``bytes_received`` / ``bytes_acked``) over the intervals ``held`` marks
    (per interval between consecutive ``times_ms``, see :func:`held_intervals`); intervals
    where the counter was not read at both ends are left out. None when none is left.
    """
    series = row.get(counter)
    if series is None or len(times_ms) < 2 or len(held) != len(times_ms) - 1:
        return None
    values = exact_values_at(series, times_ms, np.nan)
    moved = np.diff(values)
    judged = np.asarray(held, dtype=bool) & ~np.isnan(moved)
    if not judged.any():
        return None
    lengths = np.diff(times_ms).astype(np.float64)
    where = np.flatnonzero(judged)
    return ReadingProgress(
        counter=counter,
        intervals=int(judged.sum()),
        grew=int((moved[judged] > 0).sum()),
        moved_bytes=float(np.clip(moved[judged], 0.0, None).sum()),
        held_ms=float(lengths[judged].sum()),
        span=(int(times_ms[where[0]]), int(times_ms[where[-1] + 1])),
    )


ZERO_WINDOW_ADVERTISED = ("TcpExtTCPToZeroWindowAdv", "TcpExtTCPWantZeroWindowAdv")
ZERO_WINDOW_PROBES = "TcpExtTCPWinProbe"


@dataclass(frozen=True, slots=True)
class ZeroWindows:
    """A host's zero-window counters over the capture (host-wide: every connection of it)."""

    advertised: float  # TCPToZeroWindowAdv / TCPWantZeroWindowAdv: the larger (same events)
    probes: float  # TCPWinProbe
    shown: CounterIncrements  # the larger of the two, for evidence links

    @property
    def events(self) -> float:
        return self.advertised + self.probes

    @property
    def span(self) -> tuple[int, int]:
        """Where the shown counter moved, else its whole series."""
        moved = np.flatnonzero(self.shown.increments > 0)
        ends = self.shown.end_ms[moved] if len(moved) else self.shown.end_ms
        return int(ends[0]), int(ends[-1])


def zero_windows(data: IncidentData) -> dict[str | None, ZeroWindows]:
    """Per host, the zero windows its kernel counted (one source per host, via
    :func:`counter_increments`): advertised (the larger of ``TcpExtTCPToZeroWindowAdv`` and
    ``TcpExtTCPWantZeroWindowAdv``, which count the same events two ways) and probed
    (``TcpExtTCPWinProbe``)."""
    advertised = [counter_increments(data, name) for name in ZERO_WINDOW_ADVERTISED]
    probes = counter_increments(data, ZERO_WINDOW_PROBES)
    out: dict[str | None, ZeroWindows] = {}
    for host in sorted(
        {h for table in (*advertised, probes) for h in table}, key=lambda h: h or ""
    ):
        adv_sources = [t[host] for t in advertised if host in t]
        best_adv = max(adv_sources, key=lambda c: c.total, default=None)
        probe = probes.get(host)
        adv_total = best_adv.total if best_adv is not None else 0.0
        probe_total = probe.total if probe is not None else 0.0
        shown = best_adv if probe is None or (best_adv and adv_total >= probe_total) else probe
        assert shown is not None
        out[host] = ZeroWindows(adv_total, probe_total, shown)
    return out
