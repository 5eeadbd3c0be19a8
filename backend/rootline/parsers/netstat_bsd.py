"""FreeBSD and macOS ``netstat -an`` (also ``-Aan``, ``-p tcp``, plain ``netstat -n``).

Produced by ``netstat -an`` on FreeBSD or macOS, once or in a loop with timestamp lines
between snapshots (``echo "=== $(date -u +%FT%TZ) ==="``)::

    Active Internet connections (including servers)
    Proto Recv-Q Send-Q  Local Address          Foreign Address        (state)
    tcp4       0      0  127.0.0.1.8080         *.*                    LISTEN
    tcp4       0 131072  10.1.2.3.51234         10.1.2.9.5432          ESTABLISHED
    tcp46      0      0  *.22                   *.*                    LISTEN
    udp4       0      0  *.5353                 *.*
    Active LOCAL (UNIX) domain sockets
    Address          Type   Recv-Q Send-Q            Inode             Conn             Refs          Nextref Addr

BSD writes the port after a dot (``127.0.0.1.8080``), the protocol with its family
(``tcp4``, ``tcp6``, ``tcp46``), the state column as ``(state)`` and ``SYN_RCVD`` for
SYN-RECEIVED; ``-A`` puts the socket address (and on macOS a flow hash) before the protocol.
Read into the series the Linux :mod:`rootline.parsers.netstat` parser writes:

- ``tcp.state.<state>`` (sockets), states normalised as ss names them, zero-filled over
  every state for a listing "(including servers)" (``-a``) and over all but ``listen``
  otherwise (without ``-a`` BSD hides listening sockets);
- ``tcp.connections.recvq.bytes`` / ``tcp.connections.sendq.bytes`` (bytes): Recv-Q /
  Send-Q (socket buffer bytes) summed over the non-listening TCP sockets.

No ``tcp.listen.recvq``: on a listening socket BSD's Recv-Q is the (unused) receive buffer,
not the accept queue (that is ``netstat -L``), so a 0 there would say nothing. No per-peer
counts either: macOS cuts addresses to the column width (``192.168.1.221.5486`` for port
54860), so endpoints cannot be trusted.

UDP, ICMP, raw and divert rows, the UNIX-domain and macOS kernel-control sections (rows
and headers) are known no-ops. A second "Active Internet connections" title without a
timestamp line between opens the next snapshot at the same time.

>>> from rootline.parsers.base import ParseContext
>>> text = "Active Internet connections (including servers)\\n"
>>> text += "Proto Recv-Q Send-Q  Local Address   Foreign Address  (state)\\n"
>>> text += "tcp4       0     10  10.0.0.1.51234  10.0.0.9.5432    ESTABLISHED\\n"
>>> [(s.name, s.values[0]) for s in parse(text, ParseContext()).series if s.name.endswith("q.bytes")]
[('tcp.connections.recvq.bytes', 0.0), ('tcp.connections.sendq.bytes', 10.0)]
"""

from __future__ import annotations

import re
from collections import Counter

from rootline.parsers.base import ParseContext, ParseResult, SeriesSet, iter_lines
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import iter_snapshots

KIND = "netstat_bsd"

RULES: dict[str, re.Pattern[str]] = {
    # ``Active Internet connections (including servers)``: an inet listing starts.
    "INET_TITLE": re.compile(
        r"^Active Internet(?:v6)? connections(?P<servers> \(including servers\))?"
    ),
    # ``Active UNIX domain sockets``, ``Active LOCAL (UNIX) domain sockets``, macOS
    # ``Registered kernel control modules``, ``Active kernel event sockets`` ...: skipped sections.
    "OTHER_TITLE": re.compile(
        r"^(?:Active (?:UNIX|LOCAL \(UNIX\)) domain sockets|Registered kernel control modules"
        r"|Active kernel (?:event|control) sockets|Active Multipath Internet connections)"
    ),
    # ``[Socket [Flowhash]] Proto Recv-Q Send-Q Local Address Foreign Address (state)``.
    "HEADER": re.compile(
        r"^(?:\S+\s+){0,2}Proto\s+Recv-Q\s+Send-Q\s+Local Address\s+Foreign Address\s+\(state\)"
    ),
    # ``[socket [flowhash]] tcp4  0  0  127.0.0.1.8080  *.*  LISTEN`` (any protocol).
    "INET_ROW": re.compile(
        r"^(?:[0-9a-f]{8,16}\s+(?:[0-9a-f]{1,8}\s+)?)?(?P<proto>tcp|udp|sctp|icm|raw|div|divert|ip)(?:4|6|46)?\s+"
        r"(?P<recvq>\d+)\s+(?P<sendq>\d+)\s+(?P<local>\S+)\s+(?P<foreign>\S+)(?:\s+(?P<state>[A-Z_0-9]+))?"
    ),
}
_WITHOUT_LISTEN = tuple(state for state in TCP_STATES if state != "listen")
_DATA_PREFIXES = ("tcp", "udp", "Proto", "Active")


def sniff(head: str) -> float:
    if RULES_MULTILINE_HEADER.search(head):
        return 0.97
    rows = len(RULES_MULTILINE_ROW.findall(head, 0, 16384))
    return 0.8 if rows >= 3 else 0.0


RULES_MULTILINE_HEADER = re.compile(RULES["HEADER"].pattern, re.M)
# tcp4/tcp6/tcp46 rows with dot-port addresses: BSD, never Linux (``tcp``/``tcp6``, ``:port``).
RULES_MULTILINE_ROW = re.compile(
    r"^(?:[0-9a-f]{8,16}\s+(?:[0-9a-f]{1,8}\s+)?)?tcp(?:4|46|6)\s+\d+\s+\d+\s+\S+\.(?:\d+|\*)\s+\S+\.(?:\d+|\*)\s+[A-Z_]+",
    re.M,
)


class _Listing:
    __slots__ = ("covered", "recvq", "sendq", "states", "time_ms")

    def __init__(self, time_ms: int, covered: tuple[str, ...]) -> None:
        self.time_ms = time_ms
        self.covered = covered
        self.states: Counter[str] = Counter()
        self.recvq = 0
        self.sendq = 0


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    listings: list[_Listing] = []
    lines = list(iter_lines(text))
    inet_row = RULES["INET_ROW"]
    for span in iter_snapshots(lines, context.timezone, context.default_time_ms, _DATA_PREFIXES):
        listing: _Listing | None = None
        section = "inet"
        for index in range(span.start, span.stop):
            line = lines[index]
            if not line or line.isspace():
                continue
            m = RULES["INET_TITLE"].match(line)
            if m:
                covered = TCP_STATES if m["servers"] else _WITHOUT_LISTEN
                listing = _Listing(span.time_ms, covered)
                listings.append(listing)
                section = "inet"
                continue
            if RULES["OTHER_TITLE"].match(line):
                section = "other"
                continue
            if section == "other":
                continue  # UNIX-domain and kernel-control rows and their headers
            if RULES["HEADER"].match(line):
                continue
            m = inet_row.match(line)
            if m:
                if m["proto"] != "tcp":
                    continue
                if listing is None:  # rows without their title (``netstat -an | grep``)
                    listing = _Listing(span.time_ms, TCP_STATES)
                    listings.append(listing)
                state = normalise_tcp_state(m["state"] or "UNKNOWN")
                listing.states[state] += 1
                if state != "listen":
                    listing.recvq += int(m["recvq"])
                    listing.sendq += int(m["sendq"])
                continue
            result.diagnose(index + 1, f"not a BSD netstat line: {line[:80]!r}")
    series = SeriesSet()
    for listing in listings:
        t = listing.time_ms
        extra = sorted(set(listing.states) - set(listing.covered))
        for state in (*listing.covered, *extra):
            series.add(f"tcp.state.{state}", {}, "sockets", t, listing.states.get(state, 0))
        series.add("tcp.connections.recvq.bytes", {}, "bytes", t, listing.recvq)
        series.add("tcp.connections.sendq.bytes", {}, "bytes", t, listing.sendq)
    result.series.extend(series)
    if not result.series:
        result.diagnose(0, "no BSD netstat listing found")
    return result
