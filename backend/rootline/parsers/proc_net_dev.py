"""Per-interface counters of ``/proc/net/dev``.

Produced by ``cat /proc/net/dev``, once or in a loop with timestamp lines between snapshots;
a capture from this machine::

    === 2026-11-26T15:34:31.064Z ===
    Inter-|   Receive                                                |  Transmit
     face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
        lo: 355469670  106156    0    0    0     0          0         0 355469670  106156    0    0    0     0       0          0
      eth0: 486274179   12379    0    0    0     0          0         0   832717    7728    0    0    0     0       0          0

Every column is a counter since boot (``dev_seq_printf_stats`` in ``net/core/net-procfs.c``),
read like ``netstat -i``, which prints the same kernel numbers: per interface (label
``interface``) ``net.if.<column>.total`` (absolute, every snapshot) and, over several
snapshots, ``net.if.<column>`` (per second). Columns are named as in
:mod:`rootline.parsers.netstat` where ``netstat -i`` shows them (it reads this very file):

==================  =====================  ===========================================
/proc/net/dev       series                 unit of ``.total`` / of the rate
==================  =====================  ===========================================
rx/tx packets       ``rx_ok`` / ``tx_ok``  packets / per_s
rx/tx errs          ``rx_err`` / ``tx_err``  packets / per_s
rx/tx drop          ``rx_drp`` / ``tx_drp``  packets / per_s
rx/tx fifo          ``rx_ovr`` / ``tx_ovr``  packets / per_s
rx/tx bytes         ``rx_bytes`` / ``tx_bytes``  bytes / bytes/s
others              ``rx_frame``, ``rx_compressed``, ``rx_multicast``, ``tx_colls``,
                    ``tx_carrier``, ``tx_compressed``: packets / per_s
==================  =====================  ===========================================

Over several snapshots the rates nmon's NET, NETPACKET and NETERROR sections give are also
written under nmon's names (label ``if``), so the timeline and the checklist read both
alike: ``net.read_kbs`` / ``net.write_kbs`` (KB/s, 1 KB = 1024 bytes as nmon counts),
``net.packets_in`` / ``net.packets_out``, ``net.errors_in`` / ``net.errors_out`` and
``net.collisions`` (``/s``).

A counter that goes down (a reboot, a wrap) starts a new run instead of a negative rate.
The title line is a known no-op and the column line sets the columns of the rows below it.
Snapshots concatenated without timestamp lines share one time and give no rate.

>>> from rootline.parsers.base import ParseContext
>>> r = parse("  eth0: 100 2 0 0 0 0 0 0 50 1 0 0 0 0 0 0\\n", ParseContext())
>>> [(s.name, s.values[0]) for s in r.series if s.name == "net.if.rx_ok.total"]
[('net.if.rx_ok.total', 2.0)]
"""

from __future__ import annotations

import re
from array import array

from rootline.parsers.base import ParseContext, ParseResult, SeriesSet, counter_rates, iter_lines
from rootline.parsers.timestamps import iter_snapshots

KIND = "proc_net_dev"

RULES: dict[str, re.Pattern[str]] = {
    # ``Inter-|   Receive    ...|  Transmit``: the first header line.
    "TITLE": re.compile(r"^\s*Inter-\|\s*Receive\s.*\|\s*Transmit\s*$"),
    # `` face |bytes    packets errs drop ...|bytes ...``: the column names.
    "COLUMNS": re.compile(r"^\s*face\s*\|(?P<rx>[a-z ]+)\|(?P<tx>[a-z ]+)$"),
    # ``  eth0: 486274179   12379 ...`` (old kernels glue big numbers to the colon).
    "ROW": re.compile(r"^\s*(?P<iface>[^\s:]+(?::\d+)?):\s*(?P<numbers>\d+(?:\s+\d+)+)\s*$"),
}
# Columns of kernels since 2.6 (2.4 had fewer; the header says which).
DEFAULT_RX = ("bytes", "packets", "errs", "drop", "fifo", "frame", "compressed", "multicast")
DEFAULT_TX = ("bytes", "packets", "errs", "drop", "fifo", "colls", "carrier", "compressed")
# /proc/net/dev column -> netstat -i column name.
NETSTAT_NAMES = {"packets": "ok", "errs": "err", "drop": "drp", "fifo": "ovr"}
# (direction, column) -> nmon series name and the factor from a per-second rate to its unit.
NMON_RATES: dict[tuple[str, str], tuple[str, str, float]] = {
    ("rx", "bytes"): ("net.read_kbs", "KB/s", 1 / 1024),
    ("tx", "bytes"): ("net.write_kbs", "KB/s", 1 / 1024),
    ("rx", "packets"): ("net.packets_in", "/s", 1.0),
    ("tx", "packets"): ("net.packets_out", "/s", 1.0),
    ("rx", "errs"): ("net.errors_in", "/s", 1.0),
    ("tx", "errs"): ("net.errors_out", "/s", 1.0),
    ("tx", "colls"): ("net.collisions", "/s", 1.0),
}
_DATA_PREFIXES = (" ",)


def sniff(head: str) -> float:
    lines = head.splitlines()[:400]
    if any(RULES["TITLE"].match(line) for line in lines[:50]) and any(
        RULES["COLUMNS"].match(line) for line in lines[:50]
    ):
        return 0.95
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    counters: dict[tuple[str, str, str], tuple[array[int], array[float]]] = {}
    columns = [("rx", c) for c in DEFAULT_RX] + [("tx", c) for c in DEFAULT_TX]
    lines = list(iter_lines(text))
    for span in iter_snapshots(lines, context.timezone, context.default_time_ms, _DATA_PREFIXES):
        time_ms = span.time_ms
        for index in range(span.start, span.stop):
            line = lines[index]
            if not line or line.isspace():
                continue
            m = RULES["ROW"].match(line)
            if m:
                iface = m["iface"]
                numbers = m["numbers"].split()
                if len(numbers) != len(columns):
                    result.diagnose(
                        index + 1,
                        f"{iface}: {len(numbers)} numbers but the header names {len(columns)} columns",
                    )
                    continue
                for (direction, column), number in zip(columns, numbers, strict=True):
                    times, values = counters.setdefault(
                        (iface, direction, column), (array("q"), array("d"))
                    )
                    times.append(time_ms)
                    values.append(float(number))
                continue
            if RULES["TITLE"].match(line):
                continue
            m = RULES["COLUMNS"].match(line)
            if m:
                columns = [("rx", c) for c in m["rx"].split()] + [
                    ("tx", c) for c in m["tx"].split()
                ]
                continue
            result.diagnose(index + 1, f"not a /proc/net/dev line: {line[:80]!r}")
    _emit(counters, result)
    if not result.series:
        result.diagnose(0, "no /proc/net/dev interface rows found")
    return result


def _emit(
    counters: dict[tuple[str, str, str], tuple[array[int], array[float]]], result: ParseResult
) -> None:
    series = SeriesSet()
    for (iface, direction, column), (times, values) in counters.items():
        name = f"net.if.{direction}_{NETSTAT_NAMES.get(column, column)}"
        is_bytes = column == "bytes"
        labels = {"interface": iface}
        for t, v in zip(times, values, strict=True):
            series.add(name + ".total", labels, "bytes" if is_bytes else "packets", t, v)
        rate_times, rates = counter_rates(times, values)
        for t, v in zip(rate_times, rates, strict=True):
            series.add(name, labels, "bytes/s" if is_bytes else "per_s", t, v)
        nmon = NMON_RATES.get((direction, column))
        if nmon is not None:
            nmon_name, unit, factor = nmon
            for t, v in zip(rate_times, rates, strict=True):
                series.add(nmon_name, {"if": iface}, unit, t, v * factor)
    result.series.extend(series)
