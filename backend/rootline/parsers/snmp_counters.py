"""Kernel SNMP counters, as ``nstat`` names them, turned into Rootline series and facts.

Shared by the three parsers that read the same kernel counters in different clothes:
:mod:`~rootline.parsers.netstat_s` (``netstat -s`` prose), :mod:`~rootline.parsers.nstat`
(``nstat``) and :mod:`~rootline.parsers.proc_net` (``/proc/net/snmp``, ``/proc/net/netstat``,
``/proc/net/snmp6``). All three name a counter the way ``nstat`` does: the section of
``/proc/net/snmp`` or ``/proc/net/netstat`` glued to the field, ``TcpExt`` + ``ListenOverflows``
= ``TcpExtListenOverflows``; so a detector reads ``netstat.TcpExtListenOverflows`` whatever
file it came from.

What each counter becomes:

==========================  =========  ====================================================
series / fact               unit       when
==========================  =========  ====================================================
``netstat.<Name>``          ``per_s``  counter, two snapshots or more (``counter_rates``)
``netstat.<Name>.total``    ``count``  counter: its absolute value at every snapshot
fact ``netstat.<Name>``     \\-         counter, single snapshot: the absolute value
``netstat.<Name>``          see below  gauge (``TcpCurrEstab`` ...): the value, every snapshot
``netstat.<Name>.delta``    ``count``  ``nstat`` delta output: the increment it printed
==========================  =========  ====================================================
"""

from __future__ import annotations

from array import array

import numpy as np

from rootline.parsers.base import Fact, ParseResult, SeriesData

SERIES_PREFIX = "netstat."
TOTAL_SUFFIX = ".total"
DELTA_SUFFIX = ".delta"

# Values that go up and down (or never change): kept as values, never turned into rates.
# ``nstat`` itself skips all but MPTcpExtMPCurrEstab (its "useless numbers").
GAUGE_UNITS: dict[str, str] = {
    "TcpCurrEstab": "connections",
    "TcpMaxConn": "connections",
    "TcpRtoMin": "ms",
    "TcpRtoMax": "ms",
    "TcpRtoAlgorithm": "code",
    "IpForwarding": "code",
    "IpDefaultTTL": "hops",
    "Ip6Forwarding": "code",
    "MPTcpExtMPCurrEstab": "connections",
    # Windows netstat -s per address family (see rootline.parsers.netstat_s_windows).
    "TcpIPv4CurrEstab": "connections",
    "TcpIPv6CurrEstab": "connections",
}


class CounterColumns:
    """Counter values collected column-wise: ``name -> (times_ms, values)``.

    Parsers append straight into the arrays (two appends per value, no per-point objects)
    and call :meth:`start_snapshot` once per snapshot so single-snapshot files can be told
    apart from series.
    """

    __slots__ = ("columns", "rows", "snapshot_times")

    def __init__(self) -> None:
        self.columns: dict[str, tuple[array[int], array[float]]] = {}
        # Whole rows (a /proc/net/snmp value line): names -> (times, values row after row).
        self.rows: dict[tuple[str, ...], tuple[array[int], list[str]]] = {}
        self.snapshot_times: list[int] = []

    def start_snapshot(self, time_ms: int) -> None:
        self.snapshot_times.append(time_ms)

    def column(self, name: str) -> tuple[array[int], array[float]]:
        """The (times, values) arrays of ``name``, created on first use."""
        col = self.columns.get(name)
        if col is None:
            col = (array("q"), array("d"))
            self.columns[name] = col
        return col

    def add(self, name: str, time_ms: int, value: float) -> None:
        times, values = self.column(name)
        times.append(time_ms)
        values.append(value)

    def add_row(self, time_ms: int, names: tuple[str, ...], values: list[str]) -> None:
        """One line of integer values (as text) for ``names``, converted in bulk at the end."""
        row = self.rows.get(names)
        if row is None:
            row = (array("q"), [])
            self.rows[names] = row
        row[0].append(time_ms)
        row[1].extend(values)

    def merged(self) -> dict[str, tuple[array[int], array[float]]]:
        """Every counter's (times, values), rows and single values together."""
        merged = dict(self.columns)
        for names, (times, flat) in self.rows.items():
            matrix = np.asarray(list(map(int, flat)), dtype=np.float64).reshape(
                len(times), len(names)
            )
            for name, column in zip(names, np.ascontiguousarray(matrix.T), strict=True):
                values = array("d", column.tobytes())
                if name in merged:  # the same counter also came on its own or in another layout
                    old_times, old_values = merged[name]
                    merged[name] = (old_times + times, old_values + values)
                else:
                    merged[name] = (times, values)
        return merged


def emit_absolute(result: ParseResult, counters: CounterColumns) -> None:
    """Add series (and single-snapshot facts) for absolute counter values to ``result``."""
    single_snapshot = len(counters.snapshot_times) <= 1
    for name, (unsorted_times, unsorted_values) in counters.merged().items():
        times, values = _in_time_order(unsorted_times, unsorted_values)
        gauge_unit = GAUGE_UNITS.get(name)
        if gauge_unit is not None:
            result.series.append(SeriesData(SERIES_PREFIX + name, {}, gauge_unit, times, values))
            continue
        result.series.append(
            SeriesData(SERIES_PREFIX + name + TOTAL_SUFFIX, {}, "count", times, values)
        )
        if single_snapshot:
            result.facts.append(Fact(SERIES_PREFIX + name, format_number(values[-1]), times[-1]))
            continue
        rate_times, rates = vectorised_counter_rates(times, values)
        if rate_times:
            result.series.append(SeriesData(SERIES_PREFIX + name, {}, "per_s", rate_times, rates))


def vectorised_counter_rates(
    times: array[int], values: array[float]
) -> tuple[array[int], array[float]]:
    """:func:`rootline.parsers.base.counter_rates` in numpy, point for point the same result.

    Same rule: one rate per step, stamped at its end, skipped where time does not advance
    or the counter goes down (a reboot or a wrap starts a new run). Big captures hold
    hundreds of counters times thousands of snapshots, too many for a Python loop.
    """
    t = np.frombuffer(times, dtype=np.int64)
    v = np.frombuffer(values, dtype=np.float64)
    step_ms = np.diff(t)
    step_value = np.diff(v)
    keep = (step_ms > 0) & (step_value >= 0)
    rates = step_value[keep] * 1000.0 / step_ms[keep]
    return array("q", t[1:][keep].tobytes()), array("d", rates.tobytes())


def format_number(value: float) -> str:
    """``12.0`` as ``12``: counters are integers, and facts are shown as written."""
    return str(int(value)) if value.is_integer() else repr(value)


def _in_time_order(times: array[int], values: array[float]) -> tuple[array[int], array[float]]:
    t = np.frombuffer(times, dtype=np.int64)
    if bool(np.all(t[1:] >= t[:-1])):
        return times, values
    order = np.argsort(t, kind="stable")
    v = np.frombuffer(values, dtype=np.float64)
    return array("q", t[order].tobytes()), array("d", v[order].tobytes())
