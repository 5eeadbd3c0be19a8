"""``netstat -s`` (net-tools): kernel protocol counters written as prose.

Produced by ``netstat -s``, once or in a loop with timestamp lines between snapshots::

    Tcp:
        1648 active connection openings
        428 segments retransmited
        139 connections established
    TcpExt:
        12 times the listen queue of a socket overflowed
        Quick ack mode was activated 9 times
        TCPLossProbes: 12
    IpExt:
        InOctets: 865450302

Each prose line is mapped back to the kernel counter it prints, with the name ``nstat`` uses
(:data:`PHRASES`: "active connection openings" under ``Tcp:`` is ``TcpActiveOpens``); lines
net-tools has no prose for are printed as ``Name: value`` and become ``<Section><Name>``
(``TcpExtTCPLossProbes``). Both become the series and facts of
:mod:`rootline.parsers.snmp_counters` (``netstat.TcpActiveOpens`` in ``per_s`` over several
snapshots, ``netstat.TcpActiveOpens.total`` in ``count``, a fact for a single snapshot,
``netstat.TcpCurrEstab`` as a gauge in ``connections``).

Prose this table does not know (another net-tools version or locale) is kept, not
dropped: it becomes the counter ``<Section>.<slug>``, e.g. ``netstat.TcpExt.foo_bar_events``
(rate) and ``netstat.TcpExt.foo_bar_events.total``. The wording differs between net-tools
versions ("segments retransmited" / "segments retransmitted", "active connections
openings" / "active connection openings"); the table holds both. Counters that are zero
are left out by netstat for many lines, so such a counter simply has no point there.

A section header seen twice without a timestamp line between opens a new snapshot.

>>> from rootline.parsers.base import ParseContext
>>> r = parse("Tcp:\\n    1648 active connection openings\\n", ParseContext())
>>> [(f.key, f.value) for f in r.facts]
[('netstat.TcpActiveOpens', '1648')]
"""

from __future__ import annotations

import re

from rootline.parsers.base import ParseContext, ParseResult, iter_lines
from rootline.parsers.snmp_counters import CounterColumns, emit_absolute
from rootline.parsers.timestamps import iter_snapshots

KIND = "netstat_s"

# Section -> {prose with the number replaced by "#", lower case, no final dot: counter field}.
# Taken from net-tools' statistics.c across versions (1.60 to 2.10); field names are the
# kernel's (net-tools misspells a few, e.g. TCPLostRetransmits, so those print as "Name: value").
PHRASES: dict[str, dict[str, str]] = {
    "Ip": {
        "# total packets received": "InReceives",
        "# with invalid headers": "InHdrErrors",
        "# with invalid addresses": "InAddrErrors",
        "# forwarded": "ForwDatagrams",
        "# with unknown protocol": "InUnknownProtos",
        "# incoming packets discarded": "InDiscards",
        "# incoming packets delivered": "InDelivers",
        "# requests sent out": "OutRequests",
        "# outgoing packets dropped": "OutDiscards",
        "# dropped because of missing route": "OutNoRoutes",
        "# fragments dropped after timeout": "ReasmTimeout",
        "# reassemblies required": "ReasmReqds",
        "# packets reassembled ok": "ReasmOKs",
        "# packet reassemblies failed": "ReasmFails",
        "# packet reassembles failed": "ReasmFails",
        "# outgoing packets fragmented ok": "FragOKs",
        "# fragments received ok": "FragOKs",  # net-tools 1.60 wording for FragOKs
        "# outgoing packets failed fragmentation": "FragFails",
        "# fragments failed": "FragFails",
        "# fragments created": "FragCreates",
        "default ttl is #": "DefaultTTL",
    },
    "Icmp": {
        "# icmp messages received": "InMsgs",
        "# input icmp message failed": "InErrors",
        "# icmp messages sent": "OutMsgs",
        "# icmp messages failed": "OutErrors",
    },
    "Tcp": {
        "# active connection openings": "ActiveOpens",
        "# active connections openings": "ActiveOpens",
        "# active opens": "ActiveOpens",
        "# passive connection openings": "PassiveOpens",
        "# passive opens": "PassiveOpens",
        "# failed connection attempts": "AttemptFails",
        "# connection resets received": "EstabResets",
        "# connections established": "CurrEstab",
        "# segments received": "InSegs",
        "# segments sent out": "OutSegs",
        "# segments send out": "OutSegs",
        "# segments retransmitted": "RetransSegs",
        "# segments retransmited": "RetransSegs",
        "# bad segments received": "InErrs",
        "# resets sent": "OutRsts",
    },
    "Udp": {
        "# packets received": "InDatagrams",
        "# packets to unknown port received": "NoPorts",
        "# packet receive errors": "InErrors",
        "# packets sent": "OutDatagrams",
        "# packets send": "OutDatagrams",
        "# receive buffer errors": "RcvbufErrors",
        "# send buffer errors": "SndbufErrors",
    },
    "TcpExt": {
        "# syn cookies sent": "SyncookiesSent",
        "# syn cookies received": "SyncookiesRecv",
        "# invalid syn cookies received": "SyncookiesFailed",
        "# resets received for embryonic syn_recv sockets": "EmbryonicRsts",
        "# packets pruned from receive queue because of socket buffer overrun": "PruneCalled",
        "# packets pruned from receive queue": "RcvPruned",
        "# packets dropped from out-of-order queue because of socket buffer overrun": "OfoPruned",
        "# icmp packets dropped because they were out-of-window": "OutOfWindowIcmps",
        "# icmp packets dropped because socket was locked": "LockDroppedIcmps",
        "# tcp sockets finished time wait in fast timer": "TW",
        "# time wait sockets recycled by time stamp": "TWRecycled",
        "# tcp sockets finished time wait in slow timer": "TWKilled",
        "# passive connections rejected because of time stamp": "PAWSPassive",
        "# active connections rejected because of time stamp": "PAWSActive",
        "# packetes rejected in established connections because of timestamp": "PAWSEstab",
        "# packets rejects in established connections because of timestamp": "PAWSEstab",
        "# delayed acks sent": "DelayedACKs",
        "# delayed acks further delayed because of locked socket": "DelayedACKLocked",
        "quick ack mode was activated # times": "DelayedACKLost",
        "# times the listen queue of a socket overflowed": "ListenOverflows",
        "# syns to listen sockets dropped": "ListenDrops",
        "# syns to listen sockets ignored": "ListenDrops",
        "# packets directly queued to recvmsg prequeue": "TCPPrequeued",
        "# bytes directly in process context from backlog": "TCPDirectCopyFromBacklog",
        "# packets directly received from backlog": "TCPDirectCopyFromBacklog",
        "# bytes directly received in process context from prequeue": "TCPDirectCopyFromPrequeue",
        "# packets directly received from prequeue": "TCPDirectCopyFromPrequeue",
        "# packets dropped from prequeue": "TCPPrequeueDropped",
        "# packet headers predicted": "TCPHPHits",
        "# packets header predicted": "TCPHPHits",
        "# packet headers predicted and directly queued to user": "TCPHPHitsToUser",
        "# packets header predicted and directly queued to user": "TCPHPHitsToUser",
        "ran # times out of system memory during packet sending": "SockMallocOOM",
        "# acknowledgments not containing data payload received": "TCPPureAcks",
        "# acknowledgments not containing data received": "TCPPureAcks",
        "# predicted acknowledgments": "TCPHPAcks",
        "# times recovered from packet loss due to fast retransmit": "TCPRenoRecovery",
        "# times recovered from packet loss by selective acknowledgements": "TCPSackRecovery",
        "# times recovered from packet loss due to sack data": "TCPSackRecovery",
        "# bad sack blocks received": "TCPSACKReneging",
        "# bad sacks received": "TCPSACKReneging",
        "detected reordering # times using fack": "TCPFACKReorder",
        "detected reordering # times using sack": "TCPSACKReorder",
        "detected reordering # times using time stamp": "TCPTSReorder",
        "detected reordering # times using reno fast retransmit": "TCPRenoReorder",
        "# congestion windows fully recovered without slow start": "TCPFullUndo",
        "# congestion windows fully recovered": "TCPFullUndo",
        "# congestion windows partially recovered using hoe heuristic": "TCPPartialUndo",
        "# congestion windows recovered without slow start by dsack": "TCPDSACKUndo",
        "# congestion window recovered without slow start using dsack": "TCPDSACKUndo",
        "# congestion window recovered using dsack": "TCPDSACKUndo",
        "# congestion windows recovered without slow start after partial ack": "TCPLossUndo",
        "# congestion windows recovered after partial ack": "TCPLossUndo",
        "# retransmits lost": "TCPLostRetransmit",
        "# timeouts after reno fast retransmit": "TCPRenoFailures",
        "# timeouts after sack recovery": "TCPSackFailures",
        "# timeouts in loss state": "TCPLossFailures",
        "# fast retransmits": "TCPFastRetrans",
        "# forward retransmits": "TCPForwardRetrans",
        "# retransmits in slow start": "TCPSlowStartRetrans",
        "# other tcp timeouts": "TCPTimeouts",
        "# classic reno fast retransmits failed": "TCPRenoRecoveryFail",
        "# reno fast retransmits failed": "TCPRenoRecoveryFail",
        "# sack retransmits failed": "TCPSackRecoveryFail",
        "# times receiver scheduled too late for direct processing": "TCPSchedulerFailed",
        "# packets collapsed in receive queue due to low socket buffer": "TCPRcvCollapsed",
        "# dsacks sent for old packets": "TCPDSACKOldSent",
        "# dsacks sent for out of order packets": "TCPDSACKOfoSent",
        "# dsacks received": "TCPDSACKRecv",
        "# dsacks for out of order packets received": "TCPDSACKOfoRecv",
        "# connections reset due to unexpected syn": "TCPAbortOnSyn",
        "# connections reset due to unexpected data": "TCPAbortOnData",
        "# connections reset due to early user close": "TCPAbortOnClose",
        "# connections aborted due to memory pressure": "TCPAbortOnMemory",
        "# connections aborted due to timeout": "TCPAbortOnTimeout",
        "# connections aborted after user close in linger timeout": "TCPAbortOnLinger",
        "# times unable to send rst due to no memory": "TCPAbortFailed",
        "tcp ran low on memory # times": "TCPMemoryPressures",
        "# tcp data loss events": "TCPLoss",
    },
}

# ``ICMP input histogram:`` / ``ICMP output histogram:`` entries: "echo requests: 4".
ICMP_HISTOGRAM: dict[str, dict[str, str]] = {
    "In": {
        "destination unreachable": "DestUnreachs",
        "timeout in transit": "TimeExcds",
        "wrong parameters": "ParmProbs",
        "source quenches": "SrcQuenchs",
        "source quenchs": "SrcQuenchs",
        "redirects": "Redirects",
        "echo requests": "Echos",
        "echo replies": "EchoReps",
        "timestamp request": "Timestamps",
        "timestamp reply": "TimestampReps",
        "address mask request": "AddrMasks",
        "address mask replies": "AddrMaskReps",
    },
    "Out": {
        "destination unreachable": "DestUnreachs",
        "time exceeded": "TimeExcds",
        "wrong parameters": "ParmProbs",
        "source quench": "SrcQuenchs",
        "redirect": "Redirects",
        "echo request": "Echos",
        "echo requests": "Echos",
        "echo replies": "EchoReps",
        "timestamp requests": "Timestamps",
        "timestamp replies": "TimestampReps",
        "address mask requests": "AddrMasks",
        "address mask replies": "AddrMaskReps",
    },
}
_HISTOGRAM_TITLES = {"icmp input histogram:": "In", "icmp output histogram:": "Out"}
# ``Forwarding is enabled``: the value is the /proc/net/snmp code (1 forwarding, 2 not).
_FORWARDING_CODES = {"enabled": 1.0, "disabled": 2.0}

RULES: dict[str, re.Pattern[str]] = {
    # ``TcpExt:`` at the start of a line.
    "SECTION": re.compile(r"^(?P<section>[A-Z][A-Za-z0-9]*):\s*$"),
    # ``    TCPLossProbes: 12`` (indented): a counter net-tools has no prose for.
    "NAMED_VALUE": re.compile(r"^\s+(?P<name>[A-Za-z][A-Za-z0-9_]*): (?P<value>-?\d+)\s*$"),
    # ``        echo requests: 4`` (indented): an ICMP histogram entry.
    "PHRASE_VALUE": re.compile(r"^\s+(?P<phrase>[A-Za-z][A-Za-z ]*): (?P<value>\d+)\s*$"),
    # ``    Quick ack mode was activated 9 times``: prose holding one number.
    "PROSE": re.compile(r"^\s+(?P<before>(?:\S+ )*?)(?P<value>\d+)(?P<after>(?: \S+)*)\s*$"),
    # ``    Forwarding is enabled`` (``netstat -s --static``).
    "FORWARDING": re.compile(r"^\s+Forwarding is (?P<state>enabled|disabled)\s*$"),
    # ``    RTO algorithm is rtoalgo``: a setting without a number, read elsewhere.
    "RTO_ALGORITHM": re.compile(r"^\s+RTO algorithm is \S+\s*$"),
}
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


def sniff(head: str) -> float:
    sections = set(re.findall(r"(?m)^(Ip|Icmp|Tcp|Udp|TcpExt|IpExt):[ \t]*$", head))
    if len(sections) >= 2 and re.search(r"(?m)^ {4}\d+ [a-z]", head):
        return 0.95
    if sections and re.search(
        r"(?m)^ {4}\d+ (?:active connections? openings|segments received|total packets received)",
        head,
    ):
        return 0.9
    return 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    counters = CounterColumns()
    lines = list(iter_lines(text))
    for snapshot in iter_snapshots(lines, context.timezone, context.default_time_ms, (" ", "\t")):
        _parse_snapshot(lines, snapshot.start, snapshot.stop, snapshot.time_ms, counters, result)
    emit_absolute(result, counters)
    if not (result.series or result.facts):
        result.diagnose(0, "no netstat -s counters found")
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
    section: str | None = None
    histogram: str | None = None
    sections_seen: set[str] = set()
    for index in range(start, stop):
        line = lines[index]
        if not line or line.isspace():
            continue
        if not line[0].isspace():
            m = RULES["SECTION"].match(line)
            if m is None:
                result.diagnose(index + 1, f"not a netstat -s section header: {line[:80]!r}")
                section = None
                continue
            section, histogram = m["section"], None
            if section in sections_seen:  # a second ``Ip:`` without a timestamp: next capture
                sections_seen.clear()
                counters.start_snapshot(time_ms)
            sections_seen.add(section)
            continue
        if section is None:
            result.diagnose(index + 1, f"counter line before any section header: {line[:80]!r}")
            continue
        reading = _read_counter_line(line, section, histogram)
        if reading is None:
            result.diagnose(index + 1, f"not a netstat -s counter line: {line[:80]!r}")
        elif isinstance(reading, str):
            histogram = reading or histogram
        else:
            counters.add(reading[0], time_ms, reading[1])


def _read_counter_line(
    line: str, section: str, histogram: str | None
) -> tuple[str, float] | str | None:
    """(counter name, value); or a histogram direction ("In"/"Out", "" for a no-op); None if unread."""
    stripped = line.strip()
    direction = _HISTOGRAM_TITLES.get(stripped.lower())
    if direction is not None:
        return direction
    m = RULES["NAMED_VALUE"].match(line)
    if m:
        return section + m["name"], float(m["value"])
    m = RULES["PHRASE_VALUE"].match(line)
    if m:
        phrase = m["phrase"].lower()
        field = ICMP_HISTOGRAM.get(histogram or "", {}).get(phrase) if section == "Icmp" else None
        if field is not None:
            return f"Icmp{histogram}{field}", float(m["value"])
        return f"{section}.{slug(phrase)}", float(m["value"])
    m = RULES["FORWARDING"].match(line)
    if m:
        return section + "Forwarding", _FORWARDING_CODES[m["state"]]
    if RULES["RTO_ALGORITHM"].match(line):
        return ""
    m = RULES["PROSE"].match(line)
    if m:
        template = f"{m['before']}#{m['after']}".lower().rstrip(". ")
        field = PHRASES.get(section, {}).get(template)
        name = section + field if field else f"{section}.{slug(template.replace('#', ' '))}"
        return name, float(m["value"])
    return None


def slug(phrase: str) -> str:
    """A counter phrase as a name part: \"Segments Retransmitted\" -> segments_retransmitted."""
    return _SLUG_JUNK.sub("_", phrase.lower()).strip("_")
