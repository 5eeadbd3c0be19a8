"""Socket tables printed by ``ss`` (iproute2), one snapshot or many.

Commands: ``ss -tan``, ``ss -tin``, ``ss -tinm``, ``ss -tinmp``, ``ss -tinmO`` (one line per
socket), ``ss -lnt``, ``ss -tupna``, ``ss -a``, ``ss -s``; old and new column layouts (with
or without the ``Netid`` column; without ``State`` when a state filter was given), IPv4,
IPv6, IPv4-mapped IPv6, ``%iface`` scopes, service names. Many snapshots in one file are
split on timestamp lines (:mod:`rootline.parsers.timestamps`), e.g.
``while :; do echo "=== $(date -Is) ==="; ss -tinm; sleep 5; done``. Sample::

    State      Recv-Q Send-Q       Local Address:Port        Peer Address:Port Process
    ESTAB      0      47616            127.0.0.1:56468          127.0.0.1:5005
    \t skmem:(r0,rb131072,t0,tb16384,f704,w48448,o0,bl0,d0) reno wscale:10,10 rto:6656
    backoff:5 rtt:5.894/11.767 mss:47616 cwnd:1 ssthresh:2 bytes_retrans:285696 send 64629793bps
    pacing_rate 77549168bps delivery_rate 8093480bps busy:7468ms unacked:1 retrans:1/6 lost:1
    LISTEN     5      4                127.0.0.1:5004             0.0.0.0:*

Line rules, tried in this order (first token decides, so data lines cost one split):

===============  ==============================================================  ===========
rule             recognised by                                                   effect
===============  ==============================================================  ===========
blank            empty line                                                      no-op
info             starts with a space or tab: ``skmem:(..)`` / TCP info tokens    per socket
row              ``[netid] [STATE] recvq sendq local peer [extra tokens]``       counts
header           first token ``State`` / ``Netid`` / ``Recv-Q``                  new snapshot
summary          ``ss -s``: ``Total:``, ``TCP:`` (:data:`SUMMARY_TCP`), table    counts
timestamp        :func:`~rootline.parsers.timestamps.parse_timestamp_line`       new snapshot
anything else    diagnostic
===============  ==============================================================  ===========

Series (labels: none unless said; the ingest layer adds ``host``):

- ``tcp.state.<state>`` (sockets): TCP sockets per state per snapshot, states from
  :mod:`rootline.parsers.tcp_states`; zero-filled over the states seen in the file, and over
  every TCP state when the listing shows all of them: a snapshot with TCP rows, LISTEN rows
  *and* rows in a connected state (any socket kind) is an ``ss -a`` listing (``ss -t``
  without ``-a`` hides LISTEN and TIME-WAIT, ``ss -l`` shows listening sockets only), so a
  state absent from it is a count of zero (no TIME-WAIT row in ``ss -tan`` = 0 TIME-WAIT
  sockets). A listening-only listing (``ss -lnt``, ``ss -tulpn``) says nothing of the other
  states. Rows without a State column (``ss ... state
  established``) are not counted.
- ``tcp.connections.sendq.bytes`` / ``tcp.connections.recvq.bytes`` (bytes): Send-Q / Recv-Q
  summed over the non-listening TCP sockets (the connections) per snapshot; only from a
  listing that shows connections at least once: a listening-only capture (``ss -lnt``) lists
  no connection, so it says nothing of their queues (a LISTEN row's Recv-Q is its accept
  queue, in connections: ``tcp.listen.recvq`` below).
- ``sockets.<netid>`` (sockets): rows of other socket kinds (``udp``, ``u_str``, ``nl`` ...) per
  snapshot, only when the output has a Netid column. They are counted, nothing else.
- ``tcp.listen.recvq`` / ``tcp.listen.backlog`` (connections; labels ``local``, ``port``): a
  LISTEN row's Recv-Q (accept queue now) and Send-Q (the backlog limit).
- Per connection (labels ``local``, ``peer``; not for LISTEN / TIME-WAIT / UNCONN rows):
  ``tcp.conn.recvq.bytes`` / ``tcp.conn.sendq.bytes`` (bytes; kept only for connections whose
  queue was non-zero at least once, so that 10 000 idle sockets do not make 20 000 flat
  series) and every numeric TCP info field as ``tcp.conn.<field>`` (:data:`FIELD_SERIES`
  names and units): ``rtt_ms``, ``rttvar_ms``, ``rto_ms``, ``cwnd`` (segments), ``ssthresh``,
  ``send_bps`` / ``pacing_rate_bps`` / ``delivery_rate_bps`` (bits/s, from ``bps``/``Kbps``/
  ``Mbps``/``Gbps``), ``retrans`` (the total after the slash in ``retrans:a/b``) and
  ``retrans_out`` (before it), ``busy_ms``, ``rwnd_limited_ms`` / ``rwnd_limited_pct`` (from
  ``rwnd_limited:29ms(29.9%)``, same for ``sndbuf_limited``), ``app_limited`` (0/1 per
  snapshot), ``skmem_r`` / ``skmem_rb`` / ``skmem_t`` / ``skmem_tb`` / ``skmem_f`` / ``skmem_w`` /
  ``skmem_o`` / ``skmem_bl`` / ``skmem_d`` (bytes, ``d`` = drops), ``bbr_bw_bps``,
  ``bbr_mrtt_ms``, ``timer_<on|keepalive|persist|...>_ms`` and ``timer_retrans``; any other
  ``name:number`` token as ``tcp.conn.<name>`` (unit ``count``).
- ``tcp.peer.sockets`` (sockets; labels ``peer``, ``state``): non-listening TCP sockets
  towards one peer endpoint, per state and snapshot (TIME-WAIT included, when the listing shows
  it: ``ss -tan``, ``ss state all``), zero-filled; only for peers that reached
  :data:`PEER_MIN_SOCKETS` sockets in a snapshot. ``tcp.peer.local_port_min`` /
  ``tcp.peer.local_port_max`` (port; label ``peer``): the lowest and highest local port of
  those sockets per snapshot (inside ``ip_local_port_range``: ephemeral ports).
- ``tcp.sockets.listed`` (sockets): 0 at each snapshot, only for a capture whose timestamped
  snapshots never list a socket (``ss -lnt`` on a host listening on nothing), so that it is
  read as "none" over its time span rather than failed. An empty timestamped snapshot in a
  capture that lists sockets at other times counts zero of every state instead.
- From ``ss -s``: ``sockets.total``, ``tcp.sockets.total``, ``tcp.orphaned``,
  ``tcp.state.estab`` / ``syn-recv`` / ``time-wait`` and ``tcp.state.close`` (``closed`` minus
  ``timewait``: ss counts time-wait sockets among the closed ones), ``sockets.<transport>``
  from the table (``raw``, ``udp``, ``tcp``, ``inet``, ``frag``).

Facts, written when first seen and again when they change: ``tcp.conn.cc[<local> <peer>]``
= congestion control (``cubic``, ``bbr`` ...: slow start after idle does not apply to bbr),
``tcp.conn.process[<local> <peer>]`` and ``tcp.listen.process[<local>]`` = ``name pid=N``
from ``users:((...))``. Non-numeric flags (``ts``, ``sack``, ``ecn``, ``wscale``) are dropped.

Without a Netid column rows are taken as TCP (``ss -uan`` alone would be read as TCP).

>>> from rootline.parsers.base import ParseContext
>>> r = parse("State Recv-Q Send-Q Local Address:Port Peer Address:Port\\n"
...           "LISTEN 5 4 127.0.0.1:5004 0.0.0.0:*\\n", ParseContext())
>>> sorted((s.name, s.values[0]) for s in r.series)
[('tcp.listen.backlog', 4.0), ('tcp.listen.recvq', 5.0), ('tcp.state.listen', 1.0)]
"""

from __future__ import annotations

import functools
import re
import warnings
from array import array
from collections import Counter
from itertools import repeat
from operator import itemgetter
from typing import Any

import numpy as np

from rootline.parsers.base import Fact, ParseContext, ParseResult, SeriesData, SeriesSet
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import could_be_timestamp_line, parse_timestamp_line

KIND = "ss"

NETIDS = frozenset(
    {"tcp", "udp", "raw", "u_str", "u_dgr", "u_seq", "nl", "p_raw", "p_dgr", "icmp", "icmp6",
     "v_str", "v_dgr", "sctp", "dccp", "mptcp", "tipc", "xdp", "???"}
)  # fmt: skip
SS_STATES = {
    word: normalise_tcp_state(word)
    for word in (
        "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "UNCONN",
        "CLOSE-WAIT", "LAST-ACK", "LISTEN", "CLOSING", "UNKNOWN", "NEW-SYN-RECV",
    )
}  # fmt: skip
# A peer endpoint (address:port) with at least this many of the host's sockets in one snapshot
# gets its own counts (tcp.peer.*): each socket towards one peer holds its own local port, so
# these are the host's connections *to* that destination (a server's sockets each have a
# different peer and never group). Below it no port range is anywhere near full, and 10 000
# peers of one socket each do not make 10 000 series.
PEER_MIN_SOCKETS = 16
# States whose sockets carry no connection worth its own series.
_NO_CONNECTION_STATES = frozenset({"listen", "time-wait", "close", "unknown"})
_HEADER_WORDS = frozenset({"State", "Netid", "Recv-Q"})
_SUMMARY_TABLE_ROWS = {"RAW": "raw", "UDP": "udp", "TCP": "tcp", "INET": "inet", "FRAG": "frag"}
_SUMMARY_NO_OPS = frozenset({"Transport", "*"})

SUMMARY_TCP = re.compile(
    r"^TCP:\s+(?P<total>\d+)\s+\(estab (?P<estab>\d+), closed (?P<closed>\d+), "
    r"orphaned (?P<orphaned>\d+)(?:, synrecv (?P<synrecv>\d+))?, timewait (?P<timewait>\d+)"
)
SUMMARY_TOTAL = re.compile(r"^Total:\s+(?P<total>\d+)")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|us|sec|s|min|h|d)")
_DURATION_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "sec": 1000.0, "min": 60_000.0, "h": 3_600_000.0, "d": 86_400_000.0}  # fmt: skip
_RATE_SCALE = {"bps": 1.0, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12}
_PROCESS = re.compile(r'\("(?P<name>[^"]*)",pid=(?P<pid>\d+)')
_SNIFF_HEADER = re.compile(
    r"^(?:Netid\s+)?(?:State\s+)?Recv-Q\s+Send-Q\s+Local\s+Address:Port\s+Peer\s+Address:Port", re.M
)
_SNIFF_SUMMARY = re.compile(r"^Total:\s+\d+.*\n^TCP:\s+\d+\s+\(estab \d+", re.M)
_SNIFF_ROW = re.compile(
    r"^(?:[a-z_0-9]{2,6}\s+)?(?:ESTAB|LISTEN|TIME-WAIT|SYN-SENT|SYN-RECV|FIN-WAIT-[12]|CLOSE-WAIT"
    r"|LAST-ACK|CLOSING|UNCONN)\s+\d+\s+\d+\s+\S*:\S+\s+\S*:\S+",
    re.M,
)
_SNIFF_INFO = re.compile(r"^\s+.*(?:\bskmem:\(|\brto:\d|\bcwnd:\d)", re.M)

CONGESTION_CONTROLS = frozenset(
    {"cubic", "bbr", "bbr2", "bbr3", "reno", "bic", "dctcp", "htcp", "vegas", "westwood", "illinois",
     "hybla", "highspeed", "scalable", "lp", "veno", "yeah", "cdg", "nv", "prague"}
)  # fmt: skip
# ``name value`` tokens: a rate in bits per second follows the word.
RATE_WORDS = {"send": "tcp.conn.send_bps", "pacing_rate": "tcp.conn.pacing_rate_bps",
              "delivery_rate": "tcp.conn.delivery_rate_bps", "max_pacing_rate": "tcp.conn.max_pacing_rate_bps"}  # fmt: skip
# ``name:value`` tokens that are not TCP counters: socket identity, ownership, routing marks.
IGNORED_FIELDS = frozenset(
    {"uid", "ino", "sk", "cgroup", "v6only", "fwmark", "tos", "tclass", "class", "priority",
     "wscale", "mark", "dev", "bpf", "tcp-ulp-mptcp", "flags", "token", "seq", "sfid", "ssnoff",
     "maplen", "inode"}
)  # fmt: skip
# Plain ``name:number`` fields renamed for their unit; any other becomes ``tcp.conn.<name>``.
FIELD_SERIES = {
    "rto": "tcp.conn.rto_ms", "ato": "tcp.conn.ato_ms", "lastsnd": "tcp.conn.lastsnd_ms",
    "lastrcv": "tcp.conn.lastrcv_ms", "lastack": "tcp.conn.lastack_ms",
    "rcv_rtt": "tcp.conn.rcv_rtt_ms", "minrtt": "tcp.conn.minrtt_ms",
    "notsent": "tcp.conn.notsent_bytes",
}  # fmt: skip
_BYTE_FIELDS = frozenset(
    {"mss", "pmtu", "rcvmss", "advmss", "rcv_space", "rcv_ssthresh", "snd_wnd", "rcv_wnd",
     "bytes_sent", "bytes_acked", "bytes_received", "bytes_retrans", "notsent_bytes"}
)  # fmt: skip
_SEGMENT_FIELDS = frozenset(
    {"cwnd", "ssthresh", "unacked", "lost", "retrans", "retrans_out", "sacked", "fackets",
     "reordering", "reord_seen", "segs_in", "segs_out", "data_segs_in", "data_segs_out",
     "delivered", "delivered_ce", "dsack_dups", "rcv_ooopack"}
)  # fmt: skip

# Series for one connection: name -> parts, each (times, values), joined at the end.
_Parts = dict[str, list[tuple["array[int]", "array[float]"]]]
_DIGITS_AND_DOTS = str.maketrans("", "", "0123456789.")
_DIGIT = re.compile(r"\d")
_NON_NUMERIC_TO_SPACE = str.maketrans(
    {chr(c): " " for c in range(128) if chr(c) not in "0123456789."}
)


def unit_of(series: str) -> str:
    """The unit of a ``tcp.conn.*`` series, from its name."""
    field = series.removeprefix("tcp.conn.")
    if field.endswith("_ms"):
        return "ms"
    if field.endswith("_bps"):
        return "bits/s"
    if field.endswith("_pct"):
        return "percent"
    if field.endswith(".bytes") or field.startswith("skmem_") or field in _BYTE_FIELDS:
        return "bytes"
    if field in _SEGMENT_FIELDS:
        return "segments"
    if field == "app_limited":
        return "bool"
    return "count"


def sniff(head: str) -> float:
    if _SNIFF_HEADER.search(head) or _SNIFF_SUMMARY.search(head):
        return 0.95
    rows = len(_SNIFF_ROW.findall(head, 0, 16384))
    if rows and _SNIFF_INFO.search(head, 0, 16384):
        return 0.85
    return 0.8 if rows >= 3 else 0.6 if rows else 0.0


class _Snapshot:
    """What the snapshot being read has seen; counted when it ends."""

    __slots__ = (
        "headed", "netids", "other_states", "peers", "recvq", "rows", "sendq", "states", "time_ms",
        "timed",
    )  # fmt: skip

    def __init__(self, time_ms: int, *, timed: bool = False) -> None:
        self.time_ms = time_ms
        self.timed = timed  # opened by a timestamp line: its time is known
        self.headed = False  # its column header was printed
        self.rows = 0
        self.states: list[str] = []  # ss state words of TCP rows
        self.netids: list[str] = []  # netids of other rows
        self.other_states: set[str] = set()  # ss state words of other rows
        self.recvq: list[str] = []  # queues of non-listening TCP sockets, as printed
        self.sendq: list[str] = []
        # non-listening TCP sockets per peer endpoint: [sockets per state, lowest local
        # port, highest local port] (see PEER_MIN_SOCKETS)
        self.peers: dict[str, list[Any]] = {}


class _Connection:
    """Everything one (local, peer) pair printed, kept as text until the end.

    Info lines are grouped by their token count: a connection prints the same fields in the
    same order snapshot after snapshot, so each group transposes into columns that are
    converted with a few C-level calls (see :func:`_read_lines`) instead of per token.
    """

    __slots__ = ("groups", "key", "recvq", "row_times", "sendq")

    def __init__(self, key: str) -> None:
        self.key = key  # "<local> <peer>"
        self.row_times: array[int] = array("q")
        self.recvq: list[str] = []
        self.sendq: list[str] = []
        self.groups: dict[int, tuple[array[int], list[list[str]]]] = {}


# What read_row returns for a line that is not a socket row.
_NOT_A_ROW = _Connection("not a row")


class _Reader:
    """Parse state: the snapshot being read and everything collected so far."""

    def __init__(self, context: ParseContext) -> None:
        self.context = context
        self.result = ParseResult(kind=KIND)
        self.series = SeriesSet()
        self.snapshot = _Snapshot(context.default_time_ms)
        self.done: list[_Snapshot] = []
        self.connections: dict[str, _Connection] = {}
        self.listener_processes: dict[str, str] = {}

    def new_snapshot(self, time_ms: int, *, timed: bool = False) -> None:
        # A timestamped snapshot whose header listed no socket is kept: it saw zero sockets
        # (``ss -lnt`` on a host that listens on nothing is an observation, not a bad file).
        if self.snapshot.rows or (self.snapshot.headed and self.snapshot.timed):
            self.done.append(self.snapshot)
        self.snapshot = _Snapshot(time_ms, timed=timed)

    def read(self, text: str) -> ParseResult:
        rules = (self.read_header, self.read_summary, self.read_timestamp)
        current: _Connection | None = None
        for line_no, line in enumerate(text.split("\n"), 1):
            if not line:
                continue
            first_char = line[0]
            if first_char == "\t" or first_char == " ":
                # Info of the socket on the row above (no-op for listeners, udp, time-wait).
                if current is not None:
                    tokens = line.split()
                    group = current.groups.get(len(tokens))
                    if group is None:
                        if not tokens:
                            continue
                        group = current.groups[len(tokens)] = (array("q"), [])
                    group[0].append(current.row_times[-1])
                    group[1].append(tokens)
                continue
            tokens = line.split()
            if not tokens:
                continue  # other whitespace: a CR of a CRLF file, a form feed ...
            row = self.read_row(tokens, line)
            if row is not _NOT_A_ROW:
                current = row
                continue
            current = None
            if not any(rule(tokens, line) for rule in rules):
                self.result.diagnose(line_no, f"not an ss line: {line[:80]!r}")
        self.new_snapshot(0)
        self.finish()
        return self.result

    def read_row(self, tokens: list[str], line: str) -> _Connection | None:
        """A socket row: its connection (None when it has no series of its own), or _NOT_A_ROW."""
        count = len(tokens)
        first = tokens[0]
        at = 0
        netid = "tcp"
        if first in NETIDS:
            netid = first
            at = 1
        elif first not in SS_STATES and not first.isdigit():
            return _NOT_A_ROW
        state_word = tokens[at] if at < count else ""
        has_state = state_word in SS_STATES
        if has_state:
            at += 1
        if count < at + 4:
            return _NOT_A_ROW
        recvq, sendq, local, peer = tokens[at : at + 4]
        if not (recvq.isdigit() and sendq.isdigit()):
            return _NOT_A_ROW
        snapshot = self.snapshot
        snapshot.rows += 1
        if netid != "tcp":
            snapshot.netids.append(netid)
            if has_state:
                snapshot.other_states.add(state_word)
            return None
        if has_state:
            snapshot.states.append(state_word)
            state = SS_STATES[state_word]
            if state == "listen":
                self.read_listener(tokens, at, line)
                return None
        else:
            state = "unknown-estab"  # a state filter hid the column; rows are connections
        snapshot.recvq.append(recvq)
        snapshot.sendq.append(sendq)
        port_text = local.rpartition(":")[2]
        if port_text.isdigit():
            port = int(port_text)
            seen = snapshot.peers.get(peer)
            if seen is None:
                snapshot.peers[peer] = [{state: 1}, port, port]
            else:
                seen[0][state] = seen[0].get(state, 0) + 1
                seen[1] = min(seen[1], port)
                seen[2] = max(seen[2], port)
        if state in _NO_CONNECTION_STATES:
            return None
        key = f"{local} {peer}"
        conn = self.connections.get(key)
        if conn is None:
            conn = self.connections[key] = _Connection(key)
        conn.row_times.append(snapshot.time_ms)
        conn.recvq.append(recvq)
        conn.sendq.append(sendq)
        if count > at + 4:
            # ss -e / -p / -o / -O: socket details and TCP info on the row itself.
            tail = tokens[at + 4 :]
            group = conn.groups.get(-len(tail))
            if group is None:
                group = conn.groups[-len(tail)] = (array("q"), [])
            group[0].append(snapshot.time_ms)
            group[1].append(tail)
        return conn

    def read_listener(self, tokens: list[str], at: int, line: str) -> None:
        recvq, sendq, local = tokens[at : at + 3]
        t = self.snapshot.time_ms
        labels = {"local": local, "port": local.rpartition(":")[2]}
        self.series.add("tcp.listen.recvq", labels, "connections", t, int(recvq))
        self.series.add("tcp.listen.backlog", labels, "connections", t, int(sendq))
        if "users:" in line:
            m = _PROCESS.search(line)
            if m is not None:
                process = f"{m['name']} pid={m['pid']}"
                if self.listener_processes.get(local) != process:
                    self.listener_processes[local] = process
                    self.result.facts.append(Fact(f"tcp.listen.process[{local}]", process, t))

    def read_header(self, tokens: list[str], line: str) -> bool:
        if tokens[0] not in _HEADER_WORDS:
            return False
        # A header after rows without a timestamp line between: the next snapshot, same time.
        if self.snapshot.rows:
            self.new_snapshot(self.snapshot.time_ms, timed=self.snapshot.timed)
        self.snapshot.headed = True
        return True

    def read_summary(self, tokens: list[str], line: str) -> bool:
        first = tokens[0]
        t = self.snapshot.time_ms
        add = self.series.add
        if first == "Total:":
            m = SUMMARY_TOTAL.match(line)
            if m is None:
                return False
            add("sockets.total", {}, "sockets", t, int(m["total"]))
            return True
        if first == "TCP:":
            m = SUMMARY_TCP.match(line)
            if m is None:
                return False
            timewait = int(m["timewait"])
            add("tcp.sockets.total", {}, "sockets", t, int(m["total"]))
            add("tcp.orphaned", {}, "sockets", t, int(m["orphaned"]))
            add("tcp.state.estab", {}, "sockets", t, int(m["estab"]))
            add("tcp.state.close", {}, "sockets", t, max(0, int(m["closed"]) - timewait))
            add("tcp.state.time-wait", {}, "sockets", t, timewait)
            if m["synrecv"] is not None:
                add("tcp.state.syn-recv", {}, "sockets", t, int(m["synrecv"]))
            return True
        transport = _SUMMARY_TABLE_ROWS.get(first)
        if transport is not None and len(tokens) >= 2 and tokens[1].isdigit():
            add(f"sockets.{transport}", {}, "sockets", t, int(tokens[1]))
            return True
        return first in _SUMMARY_NO_OPS

    def read_timestamp(self, tokens: list[str], line: str) -> bool:
        if not could_be_timestamp_line(line):
            return False
        time_ms = parse_timestamp_line(line, self.context.timezone)
        if time_ms is None:
            return False
        self.new_snapshot(time_ms, timed=True)
        return True

    def finish(self) -> None:
        self.emit_snapshot_counts()
        if self.done and not any(snap.rows for snap in self.done):
            # Nothing listed at any time: the capture still says when it looked.
            for snap in self.done:
                self.series.add("tcp.sockets.listed", {}, "sockets", snap.time_ms, 0)
        result = self.result
        result.series.extend(self.series)
        for conn in self.connections.values():
            local, _, peer = conn.key.partition(" ")
            labels = {"local": local, "peer": peer}
            for name, queue in (
                ("tcp.conn.recvq.bytes", conn.recvq),
                ("tcp.conn.sendq.bytes", conn.sendq),
            ):
                values = array("d", map(float, queue))
                if any(values):  # an idle connection's queues: see the module docstring
                    result.series.append(
                        SeriesData(name, dict(labels), "bytes", conn.row_times, values)
                    )
            parts: _Parts = {}
            cc_changes: list[tuple[int, str]] = []
            for times, lines in conn.groups.values():
                _read_lines(times, lines, parts, cc_changes, conn, result, split=False)
            for name, pieces in parts.items():
                times, values = _joined(pieces)
                result.series.append(SeriesData(name, dict(labels), unit_of(name), times, values))
            previous = ""
            for t, cc in sorted(cc_changes):
                if cc != previous:
                    result.facts.append(Fact(f"tcp.conn.cc[{conn.key}]", cc, t))
                    previous = cc

    def emit_snapshot_counts(self) -> None:
        counted = []
        for snap in self.done:
            counts: Counter[str] = Counter()
            for word, count in Counter(snap.states).items():
                counts[SS_STATES[word]] += count
            counted.append((snap, counts))
        states = sorted({s for _, counts in counted for s in counts})
        all_states = any(_lists_all_states(snap) for snap in self.done)
        if all_states:
            states = sorted(set(states) | set(TCP_STATES))
        netids = sorted({n for snap in self.done for n in snap.netids})
        # Connections' queue totals only from a capture that lists connections (not ss -lnt).
        lists_connections = all_states or any(snap.recvq for snap in self.done)
        add = self.series.add
        for snap, counts in counted:
            t = snap.time_ms
            if snap.states or not snap.rows:  # an empty snapshot: zero of every state
                for state in states:
                    add(f"tcp.state.{state}", {}, "sockets", t, counts.get(state, 0))
            if lists_connections and snap.rows > len(snap.netids):
                add("tcp.connections.sendq.bytes", {}, "bytes", t, sum(map(int, snap.sendq)))
                add("tcp.connections.recvq.bytes", {}, "bytes", t, sum(map(int, snap.recvq)))
            if snap.netids:
                netid_counts = Counter(snap.netids)
                for netid in netids:
                    add(f"sockets.{netid}", {}, "sockets", t, netid_counts.get(netid, 0))
        self.emit_peer_counts()

    def emit_peer_counts(self) -> None:
        """Sockets per peer endpoint and state, for peers that reached PEER_MIN_SOCKETS."""
        peak: Counter[str] = Counter()
        for snap in self.done:
            for peer, (states, _, _) in snap.peers.items():
                peak[peer] = max(peak[peer], sum(states.values()))
        kept = sorted(peer for peer, count in peak.items() if count >= PEER_MIN_SOCKETS)
        add = self.series.add
        for peer in kept:
            states_seen = sorted({st for snap in self.done for st in snap.peers.get(peer, [{}])[0]})
            labels = {"peer": peer}
            for snap in self.done:
                found = snap.peers.get(peer)
                for state in states_seen:
                    count = found[0].get(state, 0) if found else 0
                    add(
                        "tcp.peer.sockets",
                        {**labels, "state": state},
                        "sockets",
                        snap.time_ms,
                        count,
                    )
                if found:
                    add("tcp.peer.local_port_min", labels, "port", snap.time_ms, found[1])
                    add("tcp.peer.local_port_max", labels, "port", snap.time_ms, found[2])


def _lists_all_states(snapshot: _Snapshot) -> bool:
    """Whether a snapshot listing TCP sockets is an all-states listing (``ss -a``): LISTEN rows
    beside rows in a connected state, of any socket kind (``ss -a`` of a host whose TCP
    sockets all listen still shows its ESTAB unix sockets). ``ss`` without ``-a`` shows no
    LISTEN (nor TIME-WAIT) socket and ``-l`` only listening ones (LISTEN, and UNCONN for
    udp), so only ``-a`` (or ``state all``) shows both."""
    if not snapshot.states:
        return False
    words = set(snapshot.states) | snapshot.other_states
    return "LISTEN" in words and bool(words - {"LISTEN", "UNCONN"})


def _read_lines(
    times: array[int],
    lines: list[list[str]],
    parts: _Parts,
    cc_changes: list[tuple[int, str]],
    conn: _Connection,
    result: ParseResult,
    *,
    split: bool,
) -> None:
    """Turn same-length token lists of one connection into series parts, column by column.

    Each column is joined into one string; it holds one field in every line when the first
    token's ``name:`` starts it and follows each of the other separating spaces. A column that
    does not (fields that came and went) sends the lines to :func:`_split_by_shape` first;
    ``split`` says that happened, and then such columns are skipped instead.
    """
    count = len(times)
    columns = list(zip(*lines, strict=True))
    width = len(columns)
    fields: list[tuple[str, str, bool]] = []  # name, its column joined by spaces, name: prefixed
    cc = ""
    app_limited = False
    index = 0
    while index < width:
        first = lines[0][index]
        joined = " ".join(columns[index])
        index += 1
        name, colon, _ = first.partition(":")
        if colon and joined.count(" " + first[: len(name) + 1]) == count - 1:
            if name not in IGNORED_FIELDS:
                fields.append((name, joined, True))
        elif len(joined) == count * (len(first) + 1) - 1 and joined.count(first) == count:
            # the same bare word in every line (n non-empty tokens of its length, n copies)
            if first in RATE_WORDS and index < width:
                fields.append((first, " ".join(columns[index]), False))
                index += 1
            elif first in CONGESTION_CONTROLS:
                cc = first
            elif first == "app_limited":
                app_limited = True
        elif not split:
            for subset_times, subset_lines in _split_by_shape(times, lines):
                _read_lines(subset_times, subset_lines, parts, cc_changes, conn, result, split=True)
            return
    plain: list[tuple[str, str]] = []
    for name, joined, prefixed in fields:
        reader = _ELEMENT_READERS.get(name)
        if reader is None and prefixed and _is_plain_number(joined, len(name) + 1):
            plain.append((name, joined))
            continue
        values = joined.split(" ")
        if prefixed:
            values = list(map(itemgetter(slice(len(name) + 1, None)), values))
        if reader is not None:
            reader(name, times, values, parts, conn, result)
        else:
            _read_column(name, times, values, parts)
    if plain:
        _read_plain_columns(plain, times, parts)
    if cc:
        cc_changes.append((min(times), cc))
        flags = array("d", [1.0 if app_limited else 0.0]) * count
        parts.setdefault("tcp.conn.app_limited", []).append((times, flags))


def _is_plain_number(joined: str, start: int) -> bool:
    """Whether the first value of a joined column is a plain number (``rto:204``)."""
    first = joined[start:].partition(" ")[0]
    digits = first.replace(".", "", 1)
    return digits.isdigit() and digits.isascii() and _DIGIT.search(joined, 0, start) is None


def _read_plain_columns(columns: list[tuple[str, str]], times: array[int], parts: _Parts) -> None:
    """``name:number`` columns, integers and decimals each parsed in one C call."""
    for batch in ([c for c in columns if "." not in c[1]], [c for c in columns if "." in c[1]]):
        if not batch:
            continue
        numbers = _numbers(" ".join(joined for _, joined in batch))
        if numbers is not None and numbers.size == len(batch) * len(times):
            for (name, _), row in zip(batch, numbers.reshape(len(batch), len(times)), strict=True):
                series = FIELD_SERIES.get(name, f"tcp.conn.{name}")
                parts.setdefault(series, []).append((times, _as_array(row)))
            continue
        for name, joined in batch:  # some value is not a number after all: one by one
            prefix = len(name) + 1
            _read_column(name, times, [token[prefix:] for token in joined.split(" ")], parts)


def _numbers(text: str) -> np.ndarray[Any, np.dtype[Any]] | None:
    """Every number in ``text`` (names without digits around them are skipped), or None."""
    spaced = text.translate(_NON_NUMERIC_TO_SPACE)
    with warnings.catch_warnings():
        # numpy warns, and returns what it read so far, when text is left over.
        warnings.simplefilter("error", DeprecationWarning)
        try:
            if "." in spaced:
                return np.fromstring(spaced, dtype=np.float64, sep=" ")
            return np.fromstring(spaced, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning, OverflowError):
            return None


def _as_array(numbers: np.ndarray[Any, np.dtype[Any]]) -> array[float]:
    values: array[float] = array("d")
    values.frombytes(numbers.astype(np.float64).tobytes())
    return values


def _split_by_shape(
    times: array[int], lines: list[list[str]]
) -> list[tuple[array[int], list[list[str]]]]:
    """Lines grouped by the names of their tokens (numbers stand for any value)."""
    shapes: dict[tuple[str, ...], tuple[array[int], list[list[str]]]] = {}
    for t, tokens in zip(times, lines, strict=True):
        shape = tuple("#" if token[:1].isdigit() else token.partition(":")[0] for token in tokens)
        group = shapes.get(shape)
        if group is None:
            group = shapes[shape] = (array("q"), [])
        group[0].append(t)
        group[1].append(tokens)
    return list(shapes.values())


def _read_column(name: str, times: array[int], values: list[str], parts: _Parts) -> None:
    """One field's values over time: plain numbers, or numbers inside a fixed pattern.

    Compound values such as ``0.24/0.112``, ``(r0,rb131072,...)``, ``29ms(29.9%)`` or
    ``1.2Mbps``: the value with its digits taken out is its pattern, and the same pattern
    means the same numbers at the same places.
    """
    try:
        numbers = array("d", map(float, values))
    except ValueError:
        pass
    else:
        series = FIELD_SERIES.get(name, f"tcp.conn.{name}")
        parts.setdefault(series, []).append((times, numbers))
        return
    pattern = values[0].translate(_DIGITS_AND_DOTS)
    unit = pattern.rpartition("/")[2] if "(" not in pattern else ""
    same_unit = not unit or len(set(map(str.lstrip, values, repeat("0123456789./")))) == 1
    if same_unit and _read_pattern(name, pattern, times, values, parts):
        return
    by_pattern: dict[str, tuple[array[int], list[str]]] = {}
    for t, value in zip(times, values, strict=True):
        group = by_pattern.setdefault(value.translate(_DIGITS_AND_DOTS), (array("q"), []))
        group[0].append(t)
        group[1].append(value)
    if len(by_pattern) > 1:
        for pattern, (subset_times, subset_values) in by_pattern.items():
            _read_pattern(name, pattern, subset_times, subset_values, parts)


def _read_pattern(
    name: str, pattern: str, times: array[int], values: list[str], parts: _Parts
) -> bool:
    """False when the values do not all hold the numbers ``pattern`` promises."""
    meanings = _meanings(name, pattern)
    if not meanings:
        return True  # e.g. wscale:7,7 or an unknown text field: nothing numeric worth keeping
    numbers = _numbers(" ".join(values))
    width = len(meanings)
    if numbers is None or numbers.size != width * len(values):
        return False
    table = numbers.reshape(len(values), width)
    for position, meaning in enumerate(meanings):
        if meaning is not None:
            series, scale = meaning
            column = table[:, position] * scale if scale != 1.0 else table[:, position]
            parts.setdefault(series, []).append((times, _as_array(column)))
    return True


_Meaning = tuple[str, float] | None


# A pure function of its arguments, cached with eviction: a capture with thousands of
# distinct field names only pushes older entries out (recomputed on their next use), it can
# never make a later parse of another file read a field as meaningless.
@functools.lru_cache(maxsize=4096)
def _meanings(name: str, pattern: str) -> tuple[_Meaning, ...]:
    """Series and scale of each number in values of ``name`` written as ``pattern``."""
    return tuple(_interpret(name, pattern))


def _interpret(name: str, pattern: str) -> list[_Meaning]:
    if name in _SLASH_PAIRS and pattern == "/":
        first, second = _SLASH_PAIRS[name]
        return [(first, 1.0), (second, 1.0)]
    if name == "skmem" and pattern.startswith("(") and pattern.endswith(")"):
        return [(f"tcp.conn.skmem_{letters}", 1.0) for letters in pattern[1:-1].split(",")]
    if pattern.startswith("(") and pattern.endswith(")"):  # bbr:(bw:5Mbps,mrtt:0.01,...)
        meanings: list[_Meaning] = []
        for item in pattern[1:-1].split(","):
            key, colon, suffix = item.partition(":")
            if colon:
                meanings.append(_scaled(f"{name}_{key}", suffix, ms_field=key.endswith("rtt")))
        return meanings
    if pattern.endswith("(%)"):  # rwnd_limited:29ms(29.9%)
        return [_scaled(name, pattern[:-3], ms_field=False), (f"tcp.conn.{name}_pct", 1.0)]
    if "/" in pattern and pattern.endswith("bps"):  # old ss: pacing_rate 236.4Mbps/10Mbps
        current, _, limit = pattern.partition("/")
        return [
            _scaled(name, current, ms_field=False),
            _scaled(f"max_{name}", limit, ms_field=False),
        ]
    meaning = _scaled(name, pattern, ms_field=False)
    return [meaning] if meaning is not None else []


def _scaled(name: str, suffix: str, *, ms_field: bool) -> _Meaning:
    rate = _RATE_SCALE.get(suffix)
    if rate is not None:
        return RATE_WORDS.get(name, f"tcp.conn.{name}_bps"), rate
    duration = _DURATION_MS.get(suffix)
    if duration is not None:
        return f"tcp.conn.{name}_ms", duration
    if suffix == "":
        return (
            f"tcp.conn.{name}_ms" if ms_field else FIELD_SERIES.get(name, f"tcp.conn.{name}")
        ), 1.0
    return None


_SLASH_PAIRS = {
    "rtt": ("tcp.conn.rtt_ms", "tcp.conn.rttvar_ms"),
    "retrans": ("tcp.conn.retrans_out", "tcp.conn.retrans"),
}


def _joined(pieces: list[tuple[array[int], array[float]]]) -> tuple[array[int], array[float]]:
    """One series from its parts, in time order."""
    if len(pieces) == 1:
        return pieces[0]
    times: array[int] = array("q")
    values: array[float] = array("d")
    for piece_times, piece_values in pieces:
        times.extend(piece_times)
        values.extend(piece_values)
    order = sorted(range(len(times)), key=times.__getitem__)
    return array("q", map(times.__getitem__, order)), array("d", map(values.__getitem__, order))


def _duration_ms(text: str) -> float | None:
    """``57sec``, ``1min28sec``, ``6.124ms`` -> milliseconds."""
    total = 0.0
    end = 0
    for m in _DURATION.finditer(text):
        if m.start() != end:
            return None
        total += float(m[1]) * _DURATION_MS[m[2]]
        end = m.end()
    return total if end and end == len(text) else None


# Fields read value by value: rare (row tails of -o / -p) and not regular enough for columns.
def _read_timers(
    name: str,
    times: array[int],
    values: list[str],
    parts: _Parts,
    conn: _Connection,
    result: ParseResult,
) -> None:
    # timer:(keepalive,28sec,0): kind, time to expiry, retransmits or probes so far.
    for t, value in zip(times, values, strict=True):
        pieces = value.strip("()").split(",")
        if len(pieces) != 3 or not pieces[0].isalpha():
            continue
        ms = _duration_ms(pieces[1])
        if ms is not None:
            _append(parts, f"tcp.conn.timer_{pieces[0]}_ms", t, ms)
        if pieces[2].isdigit():
            _append(parts, "tcp.conn.timer_retrans", t, float(pieces[2]))


def _read_users(
    name: str,
    times: array[int],
    values: list[str],
    parts: _Parts,
    conn: _Connection,
    result: ParseResult,
) -> None:
    previous = ""
    for t, value in sorted(zip(times, values, strict=True)):
        m = _PROCESS.search(value)
        if m is not None:
            process = f"{m['name']} pid={m['pid']}"
            if process != previous:
                result.facts.append(Fact(f"tcp.conn.process[{conn.key}]", process, t))
                previous = process


def _append(parts: _Parts, series: str, t: int, value: float) -> None:
    pieces = parts.setdefault(series, [])
    if not pieces:
        pieces.append((array("q"), array("d")))
    pieces[-1][0].append(t)
    pieces[-1][1].append(value)


_ELEMENT_READERS = {"timer": _read_timers, "users": _read_users}


def parse(text: str, context: ParseContext) -> ParseResult:
    return _Reader(context).read(text)
