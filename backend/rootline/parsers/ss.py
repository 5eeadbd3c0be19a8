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
- ``tcp.time_wait.local_port`` (sockets; label ``port``), ``tcp.time_wait.other_ports``
  (sockets) and ``tcp.time_wait.other_port_min`` / ``_max`` (port): the TIME-WAIT sockets
  by local port, when the listing shows any (see
  :func:`~rootline.parsers.peer_counts.emit_time_wait_ports`): a port shared by many is a
  listening port (server-side TIME-WAIT), the others are one socket each (client side).
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
from collections.abc import Iterator
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from rootline.parsers.base import (
    Fact,
    ParseContext,
    ParseResult,
    SeriesData,
    SeriesSet,
    iter_lines,
)
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import could_be_timestamp_line, parse_timestamp_line

try:  # the numbers read in C, where the package was built with it (see setup.py)
    from rootline.parsers import _ss_fast
except ImportError:  # pragma: no cover - a machine without a C compiler at install
    _ss_fast = None  # type: ignore[assignment]

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


@functools.lru_cache(maxsize=4096)
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
    """What the snapshot being read has seen; counted when it ends.

    Kept compact (counts and three small arrays, not a list entry per socket): a C10K
    capture has thousands of rows in each of its hundreds of snapshots.
    """

    __slots__ = (
        "conn_rows", "headed", "netids", "other_rows", "other_states", "peer_ids", "peer_ports",
        "peer_states", "recvq", "rows", "sendq", "states", "time_ms", "timed",
    )  # fmt: skip

    def __init__(self, time_ms: int, *, timed: bool = False) -> None:
        self.time_ms = time_ms
        self.timed = timed  # opened by a timestamp line: its time is known
        self.headed = False  # its column header was printed
        self.rows = 0
        self.states: dict[str, int] = {}  # TCP rows per ss state word
        self.netids: dict[str, int] = {}  # rows of other socket kinds per netid
        self.other_rows = 0  # their sum
        self.other_states: set[str] = set()  # ss state words of other rows
        self.conn_rows = 0  # non-listening TCP sockets, and their queues summed
        self.recvq = 0
        self.sendq = 0
        # Each non-listening TCP socket with a numeric local port: its peer endpoint (an index
        # in _Reader.peer_names), state (index in _Reader.state_names) and local port (see
        # PEER_MIN_SOCKETS).
        self.peer_ids: array[int] = array("i")
        self.peer_states: array[int] = array("i")
        self.peer_ports: array[int] = array("q")


class _Connection:
    """Everything one (local, peer) pair printed outside its info lines' columns.

    Its info lines are held by their :class:`_Shape` (shared by every connection printing
    the same fields); only lines no shape can read in bulk are kept here, as tokens grouped
    by their count, and read at the end by :func:`_read_lines`, column by column.
    """

    __slots__ = ("groups", "index", "key", "recvq", "row_times", "sendq")

    def __init__(self, key: str, index: int) -> None:
        self.key = key  # "<local> <peer>"
        self.index = index  # in _Reader.connection_list
        self.row_times: array[int] = array("q")
        self.recvq: list[str] = []
        self.sendq: list[str] = []
        self.groups: dict[int, tuple[array[int], list[list[str]]]] = {}


# What read_row returns for a line that is not a socket row.
_NOT_A_ROW = _Connection("not a row", -1)

# A non-listening TCP socket's row, as counted (see _Reader.count_rows): its connection (None
# for TIME-WAIT ...), ss state word ("" without a State column), queues as numbers and as
# printed, peer endpoint and state indexes and local port (-1: no numeric port).
_Row = tuple[_Connection | None, str, int, int, str, str, int, int, int]
_ROW_CACHE_SIZE = 65_536

# Info text held as lines before being turned into numbers (see _Shape): bounds the memory
# a capture's info lines cost while it is read, whatever its size.
_PENDING_CHARS = 16 * 1024 * 1024
_BATCH_CHARS = 1024 * 1024
# Written after each line of a batch (see _Shape.read_batch): 2**-7, exact in binary.
_MARKER = " 0.0078125 "
_MARKER_VALUE = 0.0078125


class _Shape:
    """Info lines (or row tails) of one shape, from any connection, read in bulk.

    Two lines have the same shape when they are the same text once their digits and dots are
    taken out: the same fields in the same order, with the same units and the same bare words
    (congestion control, ``app_limited``). The numbers of the first line (the template) get
    their meanings once (:func:`_template_meanings`); then a batch of lines of the shape is
    joined and read by one C call (:func:`_numbers`) into a matrix whose columns are series.
    A line whose numbers do not fit (``1.2.3``) is handed back to its connection, read as
    before by :func:`_read_lines`; so is every line of a shape whose text matters beyond
    its numbers (``users:``, ``timer:``, field names with digits, signs, exponents).
    """

    __slots__ = (
        "app_limited", "cc", "chunks", "conns", "keep", "lines", "names", "readable", "scales",
        "tail", "times", "width",
    )  # fmt: skip

    def __init__(self, template: str, *, tail: bool) -> None:
        self.tail = tail  # a row's tail (ss -e / -o / -p / -O), not an info line
        self.lines: list[str] = []
        self.conns: array[int] = array("q")
        self.times: array[int] = array("q")
        # Batches read so far: connection indexes, times, one float64 column per series.
        self.chunks: list[tuple[Any, Any, list[Any]]] = []
        analysed = _template_meanings(template.split())
        self.readable = analysed is not None
        meanings, self.cc, self.app_limited = analysed or ([], "", False)
        self.width = len(meanings)
        self.keep = [i for i, m in enumerate(meanings) if m is not None]
        self.names = [m[0] for m in meanings if m is not None]
        self.scales = [m[1] for m in meanings if m is not None]

    def flush(self, reader: _Reader) -> None:
        """Turn the lines held into number columns, about _BATCH_CHARS of text at a time (the
        temporary arrays of a batch are reused from the heap instead of fresh pages)."""
        lines = self.lines
        if not lines:
            return
        conns = np.frombuffer(self.conns, dtype=np.int64)
        times = np.frombuffer(self.times, dtype=np.int64)
        step = max(1, len(lines) * _BATCH_CHARS // max(1, sum(map(len, lines))))
        for start in range(0, len(lines), step):
            stop = start + step
            self.read_batch(lines[start:stop], conns[start:stop], times[start:stop], reader)
        self.lines = []
        self.conns = array("q")
        self.times = array("q")

    def read_batch(self, lines: list[str], conns: Any, times: Any, reader: _Reader) -> None:
        count = len(lines)
        width = self.width
        # Each line ends with a marker number: a line holding one number less and another
        # one more (a shape says nothing of empty values) cannot make the right total and
        # shift every number between them into the wrong column unseen.
        numbers = _batch_numbers(_MARKER.join(lines) + _MARKER)
        table: Any = None
        if numbers is not None and numbers.size == count * (width + 1):
            table = numbers.reshape(count, width + 1)
            if not (table[:, width] == _MARKER_VALUE).all():
                table = None
        if table is not None:
            conns, times = conns.copy(), times.copy()
        else:  # some line does not hold the numbers its shape promises: line by line
            good: list[int] = []
            rows: list[Any] = []
            for index, line in enumerate(lines):
                found = _numbers(line)
                if found is not None and found.size == width:
                    good.append(index)
                    rows.append(found.astype(np.float64))
                else:
                    reader.keep_tokens(int(conns[index]), int(times[index]), line, tail=self.tail)
            conns, times = conns[good], times[good]
            table = np.array(rows, dtype=np.float64).reshape(len(good), width)
        columns = []
        for position, scale in zip(self.keep, self.scales, strict=True):
            column = table[:, position]
            columns.append(column * scale if scale != 1.0 else column.astype(np.float64))
        if len(conns):
            self.chunks.append((conns, times, columns))

    def emit(self, parts: list[_Parts], cc_changes: list[list[tuple[int, str]]]) -> None:
        """Add every connection's slice of each column to ``parts`` (by connection index)."""
        if not self.chunks:
            return
        conns = np.concatenate([chunk[0] for chunk in self.chunks])
        order = np.argsort(conns, kind="stable")  # each connection's lines stay in file order
        conns = conns[order]
        times = np.concatenate([chunk[1] for chunk in self.chunks])[order]
        starts = np.flatnonzero(np.diff(conns)) + 1
        bounds = list(zip([0, *starts.tolist()], [*starts.tolist(), len(conns)], strict=True))
        owners = conns[[start for start, _ in bounds]].tolist()
        time_arrays = [array("q", times[start:stop].tobytes()) for start, stop in bounds]
        if self.cc:
            for owner, (start, stop) in zip(owners, bounds, strict=True):
                cc_changes[owner].append((int(times[start:stop].min()), self.cc))
            flag = array("d", [1.0 if self.app_limited else 0.0])
            for owner, own_times in zip(owners, time_arrays, strict=True):
                pieces = parts[owner].setdefault("tcp.conn.app_limited", [])
                pieces.append((own_times, flag * len(own_times)))
        owner_parts = [parts[owner] for owner in owners]
        byte_bounds = [(start * 8, stop * 8) for start, stop in bounds]
        for index, name in enumerate(self.names):
            column = np.concatenate([chunk[2][index] for chunk in self.chunks])[order]
            for chunk in self.chunks:
                chunk[2][index] = None  # freed column by column: the output replaces it
            data = column.tobytes()
            for own_parts, own_times, (start, stop) in zip(
                owner_parts, time_arrays, byte_bounds, strict=True
            ):
                own_parts.setdefault(name, []).append((own_times, array("d", data[start:stop])))
        self.chunks = []


def _numeric_runs(token: str) -> int:
    """How many numbers :func:`_numbers` reads in ``token`` (digits and dots between others)."""
    return len(token.translate(_NON_NUMERIC_TO_SPACE).split())


def _template_meanings(
    tokens: list[str],
) -> tuple[list[_Meaning], str, bool] | None:
    """The meaning of each number in a line of these tokens (None: not worth a series), its
    congestion control and ``app_limited`` flag; None when the line's text matters beyond
    its numbers and is read token by token instead (same rules as :func:`_read_lines`)."""
    meanings: list[_Meaning] = []
    cc = ""
    app_limited = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        runs = _numeric_runs(token)
        name, colon, value = token.partition(":")
        if colon:
            if name in IGNORED_FIELDS:
                meanings.extend([None] * runs)
                continue
            if name in _ELEMENT_READERS or _DIGIT.search(name) or "-" in value or not runs:
                return None
            found = _value_meanings(name, value, runs)
            if found is None:
                return None
            meanings.extend(found)
        elif token in RATE_WORDS and index < len(tokens):
            value = tokens[index]
            index += 1
            found = _value_meanings(token, value, _numeric_runs(value))
            if found is None or ":" in value or "-" in value:
                return None
            meanings.extend(found)
        elif runs:
            return None  # a bare word with digits (bbr2, a lone number): read token by token
        elif token in CONGESTION_CONTROLS:
            cc = token
        elif token == "app_limited":
            app_limited = True
    return meanings, cc, app_limited


def _value_meanings(name: str, value: str, runs: int) -> list[_Meaning] | None:
    pattern = value.translate(_DIGITS_AND_DOTS)
    if not pattern:
        if runs != 1:
            return None
        return [(FIELD_SERIES.get(name, f"tcp.conn.{name}"), 1.0)]
    meanings = _meanings(name, pattern)
    if not meanings:
        return [None] * runs  # e.g. wscale:7,7: nothing numeric worth keeping
    return list(meanings) if len(meanings) == runs else None


class _Reader:
    """Parse state: the snapshot being read and everything collected so far."""

    def __init__(self, context: ParseContext) -> None:
        self.context = context
        self.result = ParseResult(kind=KIND)
        self.series = SeriesSet()
        self.snapshot = _Snapshot(context.default_time_ms)
        self.done: list[_Snapshot] = []
        self.connections: dict[str, _Connection] = {}
        self.connection_list: list[_Connection] = []
        self.listener_processes: dict[str, str] = {}
        # Keyed by the line's UTF-8 bytes without digits and dots (bytes.translate deletes
        # characters several times faster than str.translate).
        self.shapes: dict[bytes, _Shape] = {}
        self.tail_shapes: dict[bytes, _Shape] = {}
        self.pending = 0  # characters held in shapes' lines
        # Rows read so far by their text: an idle connection prints the same row in every
        # snapshot. Emptied when full, so it stays small whatever the capture.
        self.row_cache: dict[str, _Row] = {}
        # Rows of the snapshot not counted yet: counted together (count_rows) before anything
        # reads the snapshot's counts or the snapshot changes, not one call per row.
        self.uncounted: list[_Row] = []
        self.peer_names: list[str] = []
        self.peer_index: dict[str, int] = {}
        self.state_names: list[str] = []
        self.listening_ports: set[int] = set()  # local ports of the LISTEN rows
        self.state_index: dict[str, int] = {}

    def new_snapshot(self, time_ms: int, *, timed: bool = False) -> None:
        self.count_rows()
        # A timestamped snapshot whose header listed no socket is kept: it saw zero sockets
        # (``ss -lnt`` on a host that listens on nothing is an observation, not a bad file).
        if self.snapshot.rows or (self.snapshot.headed and self.snapshot.timed):
            self.done.append(self.snapshot)
        self.snapshot = _Snapshot(time_ms, timed=timed)

    def read(self, lines: Iterator[str]) -> ParseResult:
        rules = (self.read_header, self.read_summary, self.read_timestamp)
        current: _Connection | None = None
        shapes = self.shapes
        row_cache = self.row_cache
        uncounted = self.uncounted
        current_index = current_time = 0
        for line_no, line in enumerate(lines, 1):
            if not line:
                continue
            first_char = line[0]
            if first_char == "\t" or first_char == " ":
                # Info of the socket on the row above (no-op for listeners, udp, time-wait).
                if current is not None:
                    key = line.encode().translate(None, b"0123456789.").rstrip()
                    shape = shapes.get(key)
                    if shape is None:
                        if not key:
                            continue  # blank but for spaces
                        shape = shapes[key] = _Shape(line, tail=False)
                    if shape.readable:
                        shape.lines.append(line)
                        shape.conns.append(current_index)
                        shape.times.append(current_time)
                        self.pending += len(line)
                        if self.pending > _PENDING_CHARS:
                            self.flush_shapes()
                    else:
                        self.keep_tokens(current_index, current_time, line, tail=False)
                continue
            seen = row_cache.get(line)
            if seen is not None:  # the same row text as before: the same socket and queues
                uncounted.append(seen)
                current = seen[0]
                if current is not None:
                    current_index = current.index
                    current_time = self.snapshot.time_ms
                continue
            tokens = line.split()
            if not tokens:
                continue  # other whitespace: a CR of a CRLF file, a form feed ...
            row = self.read_row(tokens, line)
            if row is not _NOT_A_ROW:
                current = row
                if row is not None:
                    current_index = row.index
                    current_time = self.snapshot.time_ms
                continue
            current = None
            self.count_rows()  # the rules read (header) or end (timestamp) the snapshot
            if not any(rule(tokens, line) for rule in rules):
                self.result.diagnose(line_no, f"not an ss line: {line[:80]!r}")
        self.new_snapshot(0)
        self.finish()
        return self.result

    def flush_shapes(self) -> None:
        for shape in (*self.shapes.values(), *self.tail_shapes.values()):
            shape.flush(self)
        self.pending = 0

    def keep_tokens(self, conn_index: int, time_ms: int, line: str, *, tail: bool) -> None:
        """A line read token by token at the end (see :func:`_read_lines`)."""
        tokens = line.split()
        if not tokens:
            return
        conn = self.connection_list[conn_index]
        key = -len(tokens) if tail else len(tokens)
        group = conn.groups.get(key)
        if group is None:
            group = conn.groups[key] = (array("q"), [])
        group[0].append(time_ms)
        group[1].append(tokens)

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
        if netid != "tcp":
            snapshot.rows += 1
            snapshot.netids[netid] = snapshot.netids.get(netid, 0) + 1
            snapshot.other_rows += 1
            if has_state:
                snapshot.other_states.add(state_word)
            return None
        if has_state:
            state = SS_STATES[state_word]
            if state == "listen":
                snapshot.rows += 1
                snapshot.states[state_word] = snapshot.states.get(state_word, 0) + 1
                self.read_listener(tokens, at, line)
                return None
        else:
            state_word = ""
            state = "unknown-estab"  # a state filter hid the column; rows are connections
        peer_id = state_id = port = -1
        port_text = local.rpartition(":")[2]
        if port_text.isdigit() and len(port_text) < 19:  # an int64, as any real port is
            port = int(port_text)
            peer_id = self.peer_index.get(peer, -1)
            if peer_id < 0:
                peer_id = self.peer_index[peer] = len(self.peer_names)
                self.peer_names.append(peer)
            state_id = self.state_index.get(state, -1)
            if state_id < 0:
                state_id = self.state_index[state] = len(self.state_names)
                self.state_names.append(state)
        conn = None
        if state not in _NO_CONNECTION_STATES:
            key = f"{local} {peer}"
            conn = self.connections.get(key)
            if conn is None:
                conn = self.connections[key] = _Connection(key, len(self.connection_list))
                self.connection_list.append(conn)
        row = (conn, state_word, int(recvq), int(sendq), recvq, sendq, peer_id, state_id, port)
        self.uncounted.append(row)
        if count == at + 4:
            if len(self.row_cache) >= _ROW_CACHE_SIZE:
                self.row_cache.clear()
            self.row_cache[line] = row
        elif conn is not None:
            # ss -e / -p / -o / -O: socket details and TCP info on the row itself.
            tail = line.split(None, at + 4)[-1]
            tail_key = tail.encode().translate(None, b"0123456789.").rstrip()
            shape = self.tail_shapes.get(tail_key)
            if shape is None:
                shape = self.tail_shapes[tail_key] = _Shape(tail, tail=True)
            if shape.readable:
                shape.lines.append(tail)
                shape.conns.append(conn.index)
                shape.times.append(snapshot.time_ms)
                self.pending += len(tail)
                if self.pending > _PENDING_CHARS:
                    self.flush_shapes()
            else:
                self.keep_tokens(conn.index, snapshot.time_ms, tail, tail=True)
        return conn

    def count_rows(self) -> None:
        """Count the non-listening TCP sockets' rows read since the last call in the snapshot
        and their connections (in file order)."""
        rows = self.uncounted
        if not rows:
            return
        snapshot = self.snapshot
        time_ms = snapshot.time_ms
        conns, words, recvqs, sendqs, recvq_texts, sendq_texts, peer_ids, state_ids, ports = zip(
            *rows, strict=True
        )
        rows.clear()
        snapshot.rows += len(conns)
        snapshot.conn_rows += len(conns)
        snapshot.recvq += sum(recvqs)
        snapshot.sendq += sum(sendqs)
        states = snapshot.states
        for word, count in Counter(words).items():
            if word:
                states[word] = states.get(word, 0) + count
        if min(peer_ids) >= 0:
            snapshot.peer_ids.extend(peer_ids)
            snapshot.peer_states.extend(state_ids)
            snapshot.peer_ports.extend(ports)
        else:
            for peer_id, state_id, port in zip(peer_ids, state_ids, ports, strict=True):
                if peer_id >= 0:
                    snapshot.peer_ids.append(peer_id)
                    snapshot.peer_states.append(state_id)
                    snapshot.peer_ports.append(port)
        for conn, recvq_text, sendq_text in zip(conns, recvq_texts, sendq_texts, strict=True):
            if conn is not None:
                conn.row_times.append(time_ms)
                conn.recvq.append(recvq_text)
                conn.sendq.append(sendq_text)

    def read_listener(self, tokens: list[str], at: int, line: str) -> None:
        recvq, sendq, local = tokens[at : at + 3]
        t = self.snapshot.time_ms
        labels = {"local": local, "port": local.rpartition(":")[2]}
        if labels["port"].isdigit():
            self.listening_ports.add(int(labels["port"]))
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
        self.flush_shapes()
        count = len(self.connection_list)
        all_parts: list[_Parts] = [{} for _ in range(count)]
        all_cc: list[list[tuple[int, str]]] = [[] for _ in range(count)]
        for shape in (*self.shapes.values(), *self.tail_shapes.values()):
            shape.emit(all_parts, all_cc)
        self.shapes.clear()
        self.tail_shapes.clear()
        add = result.series.append
        for conn in self.connection_list:
            local, _, peer = conn.key.partition(" ")
            # One labels dict for all of a connection's series (readers copy it before they
            # add a host): a dict per series was ~55 MB of a C10K provider's parse.
            labels = {"local": local, "peer": peer}
            for name, queue in (
                ("tcp.conn.recvq.bytes", conn.recvq),
                ("tcp.conn.sendq.bytes", conn.sendq),
            ):
                if queue.count("0") == len(queue):
                    continue  # all "0": idle (the common case, told without a float each)
                values = array("d", map(float, queue))
                if any(values):  # an idle connection's queues: see the module docstring
                    result.series.append(SeriesData(name, labels, "bytes", conn.row_times, values))
            conn.recvq = conn.sendq = []  # read: their texts need not outlive the parse
            parts = all_parts[conn.index]
            all_parts[conn.index] = {}
            cc_changes = all_cc[conn.index]
            for times, lines in conn.groups.values():
                _read_lines(times, lines, parts, cc_changes, conn, result, split=False)
            conn.groups = {}
            orders: dict[tuple[int, ...], tuple[array[int], npt.NDArray[np.intp]]] = {}
            for name, pieces in parts.items():
                times, values = pieces[0] if len(pieces) == 1 else _joined(pieces, orders)
                add(SeriesData(name, labels, unit_of(name), times, values))
            previous = ""
            for t, cc in sorted(cc_changes):
                if cc != previous:
                    result.facts.append(Fact(f"tcp.conn.cc[{conn.key}]", cc, t))
                    previous = cc

    def emit_snapshot_counts(self) -> None:
        counted = []
        for snap in self.done:
            counts: Counter[str] = Counter()
            for word, count in snap.states.items():
                counts[SS_STATES[word]] += count
            counted.append((snap, counts))
        states = sorted({s for _, counts in counted for s in counts})
        all_states = any(_lists_all_states(snap) for snap in self.done)
        if all_states:
            states = sorted(set(states) | set(TCP_STATES))
        netids = sorted({n for snap in self.done for n in snap.netids})
        # Connections' queue totals only from a capture that lists connections (not ss -lnt).
        lists_connections = all_states or any(snap.conn_rows for snap in self.done)
        add = self.series.add
        for snap, counts in counted:
            t = snap.time_ms
            if snap.states or not snap.rows:  # an empty snapshot: zero of every state
                for state in states:
                    add(f"tcp.state.{state}", {}, "sockets", t, counts.get(state, 0))
            if lists_connections and snap.rows > snap.other_rows:
                add("tcp.connections.sendq.bytes", {}, "bytes", t, snap.sendq)
                add("tcp.connections.recvq.bytes", {}, "bytes", t, snap.recvq)
            if snap.netids:
                for netid in netids:
                    add(f"sockets.{netid}", {}, "sockets", t, snap.netids.get(netid, 0))
        self.emit_peer_counts()
        self.emit_time_wait_ports()

    def emit_time_wait_ports(self) -> None:
        """TIME-WAIT sockets by local port per snapshot (see :mod:`.peer_counts`)."""
        # peer_counts imports PEER_MIN_SOCKETS from here: imported when first needed.
        from rootline.parsers.peer_counts import emit_time_wait_ports

        time_wait = self.state_index.get("time-wait")
        if time_wait is None:
            return
        snapshots = []
        for snap in self.done:
            counts: Counter[int] = Counter()
            if snap.peer_states:
                states = np.frombuffer(snap.peer_states, dtype=np.int32)
                ports = np.frombuffer(snap.peer_ports, dtype=np.int64)
                found, n = np.unique(ports[states == time_wait], return_counts=True)
                counts.update(dict(zip(found.tolist(), n.tolist(), strict=True)))
            snapshots.append((snap.time_ms, counts))
        emit_time_wait_ports(snapshots, self.series, self.listening_ports)

    def emit_peer_counts(self) -> None:
        """Sockets per peer endpoint and state, for peers that reached PEER_MIN_SOCKETS."""
        peers = len(self.peer_names)
        if not peers:
            return
        peak = np.zeros(peers, dtype=np.int64)
        for snap in self.done:
            if snap.peer_ids:
                ids = np.frombuffer(snap.peer_ids, dtype=np.int32)
                np.maximum(peak, np.bincount(ids, minlength=peers), out=peak)
        kept_ids = np.flatnonzero(peak >= PEER_MIN_SOCKETS)
        if not len(kept_ids):
            return
        # Per snapshot, only the kept peers' sockets: peer -> [sockets per state, lowest local
        # port, highest local port].
        found_per_snap: list[dict[str, list[Any]]] = []
        for snap in self.done:
            found: dict[str, list[Any]] = {}
            if snap.peer_ids:
                ids = np.frombuffer(snap.peer_ids, dtype=np.int32)
                for at in np.flatnonzero(np.isin(ids, kept_ids)).tolist():
                    peer = self.peer_names[snap.peer_ids[at]]
                    state = self.state_names[snap.peer_states[at]]
                    port = snap.peer_ports[at]
                    seen = found.get(peer)
                    if seen is None:
                        found[peer] = [{state: 1}, port, port]
                    else:
                        seen[0][state] = seen[0].get(state, 0) + 1
                        seen[1] = min(seen[1], port)
                        seen[2] = max(seen[2], port)
            found_per_snap.append(found)
        add = self.series.add
        for peer in sorted(self.peer_names[i] for i in kept_ids.tolist()):
            states_seen = sorted(
                {st for found in found_per_snap for st in found.get(peer, [{}])[0]}
            )
            labels = {"peer": peer}
            for snap, snap_found in zip(self.done, found_per_snap, strict=True):
                seen = snap_found.get(peer)
                for state in states_seen:
                    count = seen[0].get(state, 0) if seen else 0
                    add(
                        "tcp.peer.sockets",
                        {**labels, "state": state},
                        "sockets",
                        snap.time_ms,
                        count,
                    )
                if seen:
                    add("tcp.peer.local_port_min", labels, "port", snap.time_ms, seen[1])
                    add("tcp.peer.local_port_max", labels, "port", snap.time_ms, seen[2])


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
                found = _decimals(spaced)
                if found is not None:
                    return found
                return np.fromstring(spaced, dtype=np.float64, sep=" ")
            return np.fromstring(spaced, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning, OverflowError):
            return None


# pyarrow (about 55 ms to import) is loaded when a batch of lines is first read, not with this
# module: every process imports the parsers.
_arrow: Any = None


def _batch_numbers(text: str) -> np.ndarray[Any, np.dtype[Any]] | None:
    """:func:`_numbers` of a batch of info lines (their marker makes it hold a dot) as
    float64, read by pyarrow when it can: split at spaces and converted in C++, 1.7x faster
    than :func:`_decimals`. Each number is the float64 nearest its decimal text on both
    paths (``_decimals`` divides two exact integers once, numpy and pyarrow round
    correctly), so only text pyarrow refuses (``1.2.3``, a lone dot) or non-ASCII text goes
    the numpy way, whose reading of it decides."""
    global _arrow
    if _ss_fast is not None and text.isascii():  # the compiled loop, where it was built
        found = _ss_fast.numbers(text.encode("ascii"))
        if found is not None:
            return found
    spaced = text.translate(_NON_NUMERIC_TO_SPACE).strip()
    if spaced.isascii() and "." in spaced:
        if _arrow is None:
            import pyarrow
            import pyarrow.compute

            # malloc's heap, not pyarrow's own pool (which kept ~30 MB of freed batches).
            _arrow = (pyarrow, pyarrow.compute, pyarrow.system_memory_pool())
        pa, pc, pool = _arrow
        try:
            text_array = pa.array([spaced], pa.large_string(), memory_pool=pool)
            tokens = pc.ascii_split_whitespace(text_array, memory_pool=pool).flatten(pool)
            numbers: np.ndarray[Any, np.dtype[Any]] = pc.cast(
                tokens, pa.float64(), memory_pool=pool
            ).to_numpy()
            return numbers
        except pa.ArrowInvalid:
            pass
    return _numbers(text)


_POW10_INT = 10 ** np.arange(19, dtype=np.int64)
_POW10_FLOAT = 10.0 ** np.arange(19)


def _decimals(spaced: str) -> np.ndarray[Any, np.dtype[Any]] | None:
    """The numbers of ``spaced`` (digits, dots and spaces only) as float64, read as integers
    (numpy reads those 2.5x faster than decimals), or None when it cannot (then read as
    decimals). ``12.345`` is read as the integers 12 and 345 and joined as 12345 / 10**3:
    both exact below 2**53, so the one division rounds as reading the decimal would."""
    raw = f" {spaced} ".encode()  # padded: every run of digits has an edge on both sides
    if len(raw) != len(spaced) + 2:
        return None  # not ASCII
    chars = np.frombuffer(raw, dtype=np.uint8)
    digit = chars >= 48  # only digits, dots and spaces are left
    edges = np.flatnonzero(digit[1:] != digit[:-1]) + 1
    starts, ends = edges[::2], edges[1::2]  # of each run of digits
    if not len(starts) or int((ends - starts).max()) > 18:
        return None  # no number, or one an int64 cannot hold
    dots = np.flatnonzero(chars == 46)
    # Each dot between two runs of digits: the run after it is the fraction of the one before.
    if not (digit[dots - 1].all() and digit[dots + 1].all()):
        return None  # "5." or ".5"
    fractions = np.searchsorted(starts, dots + 1)
    wholes = fractions - 1
    if np.any(fractions[:-1] == wholes[1:]):
        return None  # "1.2.3"
    integers = np.fromstring(spaced.replace(".", " "), dtype=np.int64, sep=" ")
    if integers.size != len(starts):
        return None
    places = ends[fractions] - starts[fractions]
    if int((ends[wholes] - starts[wholes] + places).max()) > 15:
        return None  # more digits than float64 holds exactly
    mantissas = integers[wholes] * _POW10_INT[places] + integers[fractions]
    values = integers.astype(np.float64)
    values[wholes] = mantissas / _POW10_FLOAT[places]
    keep = np.ones(len(values), dtype=bool)
    keep[fractions] = False
    return values[keep]


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


def _joined(
    pieces: list[tuple[array[int], array[float]]],
    orders: dict[tuple[int, ...], tuple[array[int], npt.NDArray[np.intp]]],
) -> tuple[array[int], array[float]]:
    """One series from its parts, in time order (stable: equal times keep the parts' order).

    A connection's fields read from the same lines have the same parts' times: ``orders``
    (one per connection) keeps each joined times array and its order, so those fields share
    one times array (a C10K provider's fields each had their own: ~100 MB)."""
    key = tuple(id(t) for t, _ in pieces)
    known = orders.get(key)
    if known is None:
        times = np.concatenate([np.frombuffer(t, dtype=np.int64) for t, _ in pieces])
        order = np.argsort(times, kind="stable")
        known = orders[key] = (array("q", times[order].tobytes()), order)
    joined_times, order = known
    values = np.concatenate([np.frombuffer(v, dtype=np.float64) for _, v in pieces])
    return joined_times, array("d", values[order].tobytes())


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
    lines = iter_lines(text)
    # The lines' reader holds the text, and drops it once read: when the registry hands the
    # text over (``Decoded.take_text``), a C10K provider's series (~0.9x its text) are
    # built after the text is gone, not beside it.
    del text
    return _Reader(context).read(lines)


def parse_pieces(pieces: Iterator[str], context: ParseContext) -> ParseResult:
    """As :func:`parse`, from the text a piece at a time as it is decoded (whole lines, but
    maybe the last piece's last): a C10K provider's 450 MB capture is never held whole."""
    return _Reader(context).read(chain.from_iterable(map(iter_lines, pieces)))
