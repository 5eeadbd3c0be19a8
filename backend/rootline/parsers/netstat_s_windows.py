"""Windows ``netstat -s`` (and ``-e``): protocol counters in Windows' own layout.

Produced by ``netstat -s`` (``-s -e`` adds "Interface Statistics"; ``-s -p tcp`` prints one
section), once or in a loop with timestamp lines between snapshots
(``"=== $(Get-Date -Format o) ==="`` in PowerShell)::

    IPv4 Statistics

      Packets Received                   = 48213377
      Received Packets Discarded         = 1874

    ICMPv4 Statistics

                                Received    Sent
      Messages                  2210        3981

    TCP Statistics for IPv4

      Active Opens                        = 187342
      Segments Retransmitted              = 73118

Each counter gets the name the Linux kernel (and so ``nstat``) gives the same MIB-II object
(Windows' ``MIB_IPSTATS`` / ``MIB_TCPSTATS`` / ``MIB_UDPSTATS`` / ``MIB_ICMP`` are RFC 1213
objects, as are Linux's ``Ip`` / ``Tcp`` / ``Udp`` / ``Icmp`` lines), and becomes the series and
facts of :mod:`rootline.parsers.snmp_counters` (``netstat.TcpRetransSegs`` per second over
several snapshots, ``netstat.TcpRetransSegs.total``, a fact for one snapshot), so the
checklist reads a Windows host as it reads a Linux one:

- "TCP Statistics for IPv4" and "... for IPv6": :data:`TCP_FIELDS` ("Segments Retransmitted"
  is ``TcpRetransSegs``, "Reset Connections" ``TcpEstabResets``, "Current Connections"
  ``TcpCurrEstab`` ...), the two families **summed**, because Linux's ``Tcp`` counters count
  IPv4 and IPv6 together; each family is also kept alone as ``TcpIPv4<Field>`` /
  ``TcpIPv6<Field>`` (Windows-only names);
- "IPv4 Statistics": ``Ip<Field>``; "IPv6 Statistics": ``Ip6<Field>`` as Linux's
  ``/proc/net/snmp6`` names them (:data:`IP_FIELDS`, with ``Ip6OutForwDatagrams`` for
  "Datagrams Forwarded"); "Routing Discards" has no Linux counter: ``IpRoutingDiscards``;
- "UDP Statistics for IPv4" / "IPv6": ``Udp<Field>`` / ``Udp6<Field>`` (:data:`UDP_FIELDS`);
- "ICMPv4 Statistics" / "ICMPv6 Statistics" (Received and Sent columns):
  ``Icmp{In,Out}<Field>`` / ``Icmp6{In,Out}<Field>`` (:data:`ICMP_FIELDS`, Linux's names);
- "Interface Statistics" (``-e``, all interfaces together): ``If{In,Out}Octets``,
  ``...UcastPkts``, ``...NUcastPkts``, ``...Discards``, ``...Errors``, ``IfInUnknownProtos``
  (the RFC 1213 ``ifTable`` names).

A line the tables do not name (another Windows version) is kept as
``<Section>.<slug>``, e.g. ``netstat.Tcp.some_new_counter``. Windows translates these texts
in localised installs; only the English output is read. A section seen twice without a
timestamp line between opens the next snapshot at the same time.

>>> from rootline.parsers.base import ParseContext
>>> r = parse("TCP Statistics for IPv4\\n\\n  Segments Retransmitted    = 42\\n", ParseContext())
>>> [(f.key, f.value) for f in r.facts if f.key == "netstat.TcpRetransSegs"]
[('netstat.TcpRetransSegs', '42')]
"""

from __future__ import annotations

import re

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.netstat_s import slug
from rootline.parsers.snmp_counters import CounterColumns, emit_absolute
from rootline.parsers.timestamps import iter_snapshots

KIND = "netstat_s_windows"

# Section title -> (counter prefix, field table key, family of a TCP section or "").
SECTIONS: dict[str, tuple[str, str, str]] = {
    "IPv4 Statistics": ("Ip", "ip", ""),
    "IPv6 Statistics": ("Ip6", "ip", ""),
    "ICMPv4 Statistics": ("Icmp", "icmp", ""),
    "ICMPv6 Statistics": ("Icmp6", "icmp", ""),
    "TCP Statistics for IPv4": ("Tcp", "tcp", "IPv4"),
    "TCP Statistics for IPv6": ("Tcp", "tcp", "IPv6"),
    "UDP Statistics for IPv4": ("Udp", "udp", ""),
    "UDP Statistics for IPv6": ("Udp6", "udp", ""),
    "Interface Statistics": ("If", "if", ""),
}
IP_FIELDS = {
    "packets received": "InReceives",
    "received header errors": "InHdrErrors",
    "received address errors": "InAddrErrors",
    "datagrams forwarded": "ForwDatagrams",
    "unknown protocols received": "InUnknownProtos",
    "received packets discarded": "InDiscards",
    "received packets delivered": "InDelivers",
    "output requests": "OutRequests",
    "routing discards": "RoutingDiscards",
    "discarded output packets": "OutDiscards",
    "output packet no route": "OutNoRoutes",
    "reassembly required": "ReasmReqds",
    "reassembly successful": "ReasmOKs",
    "reassembly failures": "ReasmFails",
    "datagrams successfully fragmented": "FragOKs",
    "datagrams failing fragmentation": "FragFails",
    "fragments created": "FragCreates",
}
TCP_FIELDS = {
    "active opens": "ActiveOpens",
    "passive opens": "PassiveOpens",
    "failed connection attempts": "AttemptFails",
    "reset connections": "EstabResets",
    "current connections": "CurrEstab",
    "segments received": "InSegs",
    "segments sent": "OutSegs",
    "segments retransmitted": "RetransSegs",
}
UDP_FIELDS = {
    "datagrams received": "InDatagrams",
    "no ports": "NoPorts",
    "receive errors": "InErrors",
    "datagrams sent": "OutDatagrams",
}
# ICMP rows: field for (v4, v6); Linux writes some ICMPv6 names differently.
ICMP_FIELDS: dict[str, tuple[str, str]] = {
    "messages": ("Msgs", "Msgs"),
    "errors": ("Errors", "Errors"),
    "destination unreachable": ("DestUnreachs", "DestUnreachs"),
    "packet too big": ("PktTooBigs", "PktTooBigs"),
    "time exceeded": ("TimeExcds", "TimeExcds"),
    "parameter problems": ("ParmProbs", "ParmProblems"),
    "source quenches": ("SrcQuenchs", "SrcQuenchs"),
    "redirects": ("Redirects", "Redirects"),
    "echo replies": ("EchoReps", "EchoReplies"),
    "echos": ("Echos", "Echos"),
    "timestamps": ("Timestamps", "Timestamps"),
    "timestamp replies": ("TimestampReps", "TimestampReps"),
    "address masks": ("AddrMasks", "AddrMasks"),
    "address mask replies": ("AddrMaskReps", "AddrMaskReps"),
    "router solicitations": ("RouterSolicits", "RouterSolicits"),
    "router advertisements": ("RouterAdvertisements", "RouterAdvertisements"),
    "neighbor solicitations": ("NeighborSolicits", "NeighborSolicits"),
    "neighbor advertisements": ("NeighborAdvertisements", "NeighborAdvertisements"),
    "mld queries": ("GroupMembQueries", "GroupMembQueries"),
    "mld reports": ("GroupMembResponses", "GroupMembResponses"),
    "mld dones": ("GroupMembReductions", "GroupMembReductions"),
}
# Interface Statistics rows: (received field, sent field).
IF_FIELDS: dict[str, tuple[str, str]] = {
    "bytes": ("InOctets", "OutOctets"),
    "unicast packets": ("InUcastPkts", "OutUcastPkts"),
    "non-unicast packets": ("InNUcastPkts", "OutNUcastPkts"),
    "discards": ("InDiscards", "OutDiscards"),
    "errors": ("InErrors", "OutErrors"),
    "unknown protocols": ("InUnknownProtos", "OutUnknownProtos"),
}
_TABLES = {"ip": IP_FIELDS, "tcp": TCP_FIELDS, "udp": UDP_FIELDS}

RULES: dict[str, re.Pattern[str]] = {
    # ``TCP Statistics for IPv4`` (a title of :data:`SECTIONS`).
    "SECTION": re.compile(
        r"^\s*(?P<title>(?:IPv[46]|ICMPv[46]|Interface) Statistics|(?:TCP|UDP) Statistics for IPv[46])\s*$"
    ),
    # ``  Segments Retransmitted              = 24199``.
    "VALUE": re.compile(r"^\s+(?P<name>[A-Za-z][A-Za-z -]*?)\s+=\s+(?P<value>\d+)\s*$"),
    # ``                            Received    Sent``: the ICMP and interface column header.
    "COLUMNS": re.compile(r"^\s+Received\s+Sent\s*$"),
    # ``  Destination Unreachable   16442       22923`` (one number: ``Unknown protocols  0``;
    # the ``-e`` rows start at column 0).
    "PAIR": re.compile(
        r"^\s*(?P<name>[A-Za-z][A-Za-z -]*?)\s+(?P<received>\d+)(?:\s+(?P<sent>\d+))?\s*$"
    ),
}


def sniff(head: str) -> float:
    titles = {m["title"] for m in re.finditer(_SNIFF_SECTION, head)}
    if len(titles) >= 2:
        return 0.95
    if titles and re.search(r"(?m)^\s+[A-Z][A-Za-z -]+?\s+=\s+\d+\s*$", head):
        return 0.9
    return 0.0


_SNIFF_SECTION = re.compile(
    r"^(?P<title>(?:IPv[46]|ICMPv[46]|Interface) Statistics|(?:TCP|UDP) Statistics for IPv[46])\s*$",
    re.M,
)


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    counters = CounterColumns()
    lines = list(iter_lines(text))
    for span in iter_snapshots(lines, context.timezone, context.default_time_ms, (" ",)):
        _parse_snapshot(lines, span.start, span.stop, span.time_ms, counters, result)
    emit_absolute(result, counters)
    if not (result.series or result.facts):
        result.diagnose(0, "no Windows netstat -s counters found")
    return result


def _parse_snapshot(
    lines: list[str],
    start: int,
    stop: int,
    time_ms: int,
    counters: CounterColumns,
    result: ParseResult,
) -> None:
    counters.start_snapshot(time_ms)
    section: tuple[str, str, str] | None = None
    seen: set[str] = set()
    tcp_sums: dict[str, float] = {}
    for index in range(start, stop):
        line = lines[index]
        if not line or line.isspace():
            continue
        m = RULES["SECTION"].match(line)
        if m:
            title = m["title"]
            if title in seen:  # the same section again without a timestamp: the next capture
                _add_tcp_sums(tcp_sums, counters, time_ms)
                seen.clear()
                counters.start_snapshot(time_ms)
            seen.add(title)
            section = SECTIONS[title]
            continue
        if section is None:
            result.diagnose(index + 1, f"counter line before any section title: {line[:80]!r}")
            continue
        prefix, table, family = section
        m = RULES["VALUE"].match(line)
        if m and table in _TABLES:
            phrase, value = m["name"].lower(), float(m["value"])
            field = _TABLES[table].get(phrase)
            if field is None:
                counters.add(f"{prefix}.{slug(phrase)}", time_ms, value)
            elif family:
                counters.add(f"Tcp{family}{field}", time_ms, value)
                tcp_sums[field] = tcp_sums.get(field, 0.0) + value
            else:
                counters.add(prefix + field, time_ms, value)
            continue
        if RULES["COLUMNS"].match(line):
            continue
        m = RULES["PAIR"].match(line)
        if m and table in ("icmp", "if"):
            phrase = m["name"].lower()
            received, sent = float(m["received"]), m["sent"]
            if table == "icmp":
                names = ICMP_FIELDS.get(phrase)
                field = (names[1] if prefix == "Icmp6" else names[0]) if names else None
                pair = (f"In{field}", f"Out{field}") if field else None
            else:
                pair = IF_FIELDS.get(phrase)
            if pair is None:
                pair = (f".in_{slug(phrase)}", f".out_{slug(phrase)}")
            counters.add(prefix + pair[0], time_ms, received)
            if sent is not None:
                counters.add(prefix + pair[1], time_ms, float(sent))
            continue
        result.diagnose(index + 1, f"not a Windows netstat -s line: {line[:80]!r}")
    _add_tcp_sums(tcp_sums, counters, time_ms)


def _add_tcp_sums(sums: dict[str, float], counters: CounterColumns, time_ms: int) -> None:
    """Linux's Tcp counters: IPv4 and IPv6 together."""
    for field, value in sums.items():
        counters.add("Tcp" + field, time_ms, value)
    sums.clear()
