"""Kernel counter files under ``/proc/net``: ``snmp``, ``netstat``, ``snmp6``, ``sockstat``.

Produced by ``cat /proc/net/snmp /proc/net/netstat /proc/net/sockstat`` (one file or all
concatenated), once or in a loop with timestamp lines between snapshots::

    === 2026-11-21T07:27:50Z ===
    Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails ...
    Tcp: 1 200 120000 -1 798 796 11 5 2 9562 9556 6 0 34 0
    TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled ...
    TcpExt: 0 0 0 0 0 0 0 0 0 0 795 38 0 0 0 23 0 3 8 8 ...
    Ip6InReceives                   	757
    sockets: used 31
    TCP: inuse 11 orphan 0 tw 2 alloc 14 mem 352

``snmp`` / ``netstat`` come as pairs of lines (field names, then values) per section, and
``snmp6`` as one ``name value`` per line. Their counters become ``netstat.<Section><Field>``
(``netstat.TcpExtListenOverflows``) as described in :mod:`rootline.parsers.snmp_counters`:
per-second rates over several snapshots, ``.total`` absolute values, facts for a single
snapshot, gauges (``TcpCurrEstab``, ``TcpRtoMin`` ...) as values.

``sockstat`` / ``sockstat6`` lines are gauges, one series per field:
``sockstat.<section>.<field>`` (``sockstat.tcp.inuse``, ``sockstat.tcp6.inuse``,
``sockstat.sockets.used``), unit ``sockets``, except ``mem`` (``pages``) and ``memory``
(``bytes``); the TCP ``tw`` field also gives ``tcp.state.time-wait`` (``sockets``), the
name the ``ss`` and ``netstat`` parsers use for TIME-WAIT counts.

A second header line for a section already read opens a new snapshot, so files
concatenated without timestamp lines still split (they then share one time and give no
rate).

>>> from rootline.parsers.base import ParseContext
>>> r = parse("TCP: inuse 5 orphan 0 tw 2 alloc 7 mem 1\\n", ParseContext())
>>> sorted((s.name, s.values[0]) for s in r.series)[-1]
('tcp.state.time-wait', 2.0)
"""

from __future__ import annotations

import re

from rootline.parsers.base import ParseContext, ParseResult, SeriesSet, iter_lines
from rootline.parsers.snmp_counters import CounterColumns, emit_absolute
from rootline.parsers.timestamps import iter_snapshots

KIND = "proc_net"

RULES: dict[str, re.Pattern[str]] = {
    # ``TcpExt: SyncookiesSent SyncookiesRecv ...``: field names of a /proc/net/snmp|netstat section.
    "SNMP_HEADER": re.compile(
        r"^(?P<section>[A-Z][A-Za-z0-9]*): (?P<fields>[A-Za-z][A-Za-z0-9 ]*)$"
    ),
    # ``TcpExt: 0 0 3 ...``: the values under it.
    "SNMP_VALUES": re.compile(r"^(?P<section>[A-Z][A-Za-z0-9]*):(?P<values>(?: -?\d+)+)\s*$"),
    # ``Ip6InReceives   757`` (/proc/net/snmp6).
    "SNMP6": re.compile(
        r"^(?P<name>(?:Ip6|Icmp6|Udp6|UdpLite6)[A-Za-z0-9]+)\s+(?P<value>-?\d+)\s*$"
    ),
    # ``TCP: inuse 11 orphan 0 tw 2 alloc 14 mem 352`` (/proc/net/sockstat and sockstat6).
    "SOCKSTAT": re.compile(
        r"^(?P<section>sockets|TCP6?|UDP6?|UDPLITE6?|RAW6?|FRAG6?|MPTCP):(?P<pairs>(?: [a-z_]+ -?\d+)+)\s*$"
    ),
}
# Lines that start like data are never timestamp separators; skipping the check keeps big files fast.
_DATA_PREFIXES = (
    "Ip",
    "Icmp",
    "Tcp",
    "Udp",
    "MPTcp",
    "Sctp",
    "TCP",
    "UDP",
    "RAW",
    "FRAG",
    "sockets",
    "MPTCP",
)
_SOCKSTAT_UNITS = {"mem": "pages", "memory": "bytes"}


def sniff(head: str) -> float:
    lines = head.splitlines()[:400]
    headers = sum(1 for line in lines if RULES["SNMP_HEADER"].match(line))
    values = sum(1 for line in lines if RULES["SNMP_VALUES"].match(line))
    if headers and values:
        return 0.95
    if any(line.startswith("sockets: used ") for line in lines) or any(
        RULES["SOCKSTAT"].match(line) and " inuse " in line for line in lines
    ):
        return 0.9
    snmp6 = sum(1 for line in lines if RULES["SNMP6"].match(line))
    if snmp6 >= 3 and not any(line.startswith("#kernel") for line in lines):
        return 0.9
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    counters = CounterColumns()
    gauges = SeriesSet()
    lines = list(iter_lines(text))
    for snapshot in iter_snapshots(
        lines, context.timezone, context.default_time_ms, _DATA_PREFIXES
    ):
        _parse_snapshot(
            lines, snapshot.start, snapshot.stop, snapshot.time_ms, counters, gauges, result
        )
    emit_absolute(result, counters)
    result.series.extend(gauges)
    if not (result.series or result.facts):
        result.diagnose(0, "no /proc/net/snmp, netstat, snmp6 or sockstat lines found")
    return result


def _parse_snapshot(
    lines: list[str],
    start: int,
    stop: int,
    time_ms: int,
    counters: CounterColumns,
    gauges: SeriesSet,
    result: ParseResult,
) -> None:
    counters.start_snapshot(time_ms)
    pending_fields: dict[str, tuple[str, ...]] = {}
    header_names: dict[str, tuple[str, ...]] = {}
    headers_seen: set[str] = set()
    header_rule, values_rule = RULES["SNMP_HEADER"], RULES["SNMP_VALUES"]
    for index in range(start, stop):
        line = lines[index]
        if not line or line.isspace():
            continue
        m = values_rule.match(line)
        if m:
            section = m["section"]
            fields = pending_fields.pop(section, None)
            if fields is None:
                result.diagnose(index + 1, f"values for {section} without a header line above them")
                continue
            numbers = m["values"].split()
            if len(numbers) != len(fields):
                result.diagnose(
                    index + 1,
                    f"{section}: {len(fields)} field names but {len(numbers)} values; read the first "
                    f"{min(len(fields), len(numbers))}",
                )
                fields, numbers = fields[: len(numbers)], numbers[: len(fields)]
            counters.add_row(time_ms, fields, numbers)
            continue
        m = RULES["SOCKSTAT"].match(line)  # before headers: ``TCP: inuse 5 ...`` would pass as one
        if m:
            _add_sockstat(m["section"], m["pairs"].split(), time_ms, gauges)
            continue
        m = header_rule.match(line)
        if m:
            section = m["section"]
            if section in headers_seen:
                # The same section again without a timestamp line: the next concatenated capture.
                headers_seen.clear()
                counters.start_snapshot(time_ms)
            headers_seen.add(section)
            names = header_names.get(line)
            if names is None:  # the same header line comes back in every snapshot
                names = tuple(section + field for field in m["fields"].split())
                header_names[line] = names
            pending_fields[section] = names
            continue
        m = RULES["SNMP6"].match(line)
        if m:
            counters.add(m["name"], time_ms, float(m["value"]))
            continue
        result.diagnose(index + 1, f"not a /proc/net counter line: {line[:80]!r}")


def _add_sockstat(section: str, words: list[str], time_ms: int, gauges: SeriesSet) -> None:
    prefix = "sockstat." + section.lower() + "."
    for field, number in zip(words[::2], words[1::2], strict=True):
        value = float(number)
        gauges.add(prefix + field, {}, _SOCKSTAT_UNITS.get(field, "sockets"), time_ms, value)
        if section == "TCP" and field == "tw":
            gauges.add("tcp.state.time-wait", {}, "sockets", time_ms, value)
