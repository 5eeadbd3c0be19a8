"""The kernel's socket tables ``/proc/net/tcp`` and ``/proc/net/tcp6``.

Produced by ``cat /proc/net/tcp /proc/net/tcp6``, once or in a loop with timestamp lines
between snapshots (``echo "=== $(date -Is) ==="``); a capture from this machine::

    === 2026-11-26T15:34:31.064Z ===
      sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
       1: 0100007F:B8C7 00000000:0000 0A 00000000:00000003 00:00000000 00000000     0        0 55033 4 000000003871aae5 100 0 0 10 0
     223: 0100007F:B8C8 0100007F:C0FE 06 00000000:00000000 03:000016FC 00000000     0        0 0 3 000000005e0c46bc
     258: 0100007F:ABD0 0100007F:B8C5 01 003E0C1B:00000000 04:0000001D 00000000     0        1 55028 2 000000002fad1548 20 0 0 15 -1
      sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
       4: 00000000000000000000000001000000:B8C6 00000000000000000000000001000000:D30C 01 00000000:0001F3DC 00:00000000 00000000     0        0 55032 1 00000000ed161101 20 8 0 10 -1

Columns (``get_tcp4_sock`` in ``net/ipv4/tcp_ipv4.c``): addresses as hex words in the host's
byte order (read here as little-endian: x86-64, arm64; ``0100007F`` is 127.0.0.1), ports in
hex, the state as a hex code (:mod:`rootline.parsers.tcp_states`), ``tx_queue`` (bytes sent
and not yet acknowledged, ``write_seq - snd_una``: what ``ss`` shows as Send-Q) and
``rx_queue`` (bytes received and not yet read; on a LISTEN socket the accept queue length:
ss's Recv-Q), the pending timer (``tr``: 1 retransmit / RTO, 2 keepalive, 3 TIME-WAIT, 4
zero-window probe) and its expiry (``tm->when``, in USER_HZ ticks of 10 ms), ``retrnsmt``
(RTO retries), uid, ``timeout`` (unanswered probes), inode, then for full sockets refcount,
address, ``rto`` and ``ato`` (10 ms ticks), quick-ack/ping-pong flags, ``cwnd`` and
``ssthresh`` (-1 during the initial slow start). TIME-WAIT rows stop after the address.

The series are those the ``ss`` parser writes for the same sockets, so detectors read either
(labels: none unless said; endpoints written the way ss writes them: ``127.0.0.1:47301``,
``[::1]:47302``, ``[::ffff:10.0.0.1]:80``, ``0.0.0.0:*`` for an unconnected peer):

- ``tcp.state.<state>`` (sockets): sockets per state per snapshot, every TCP state
  zero-filled (the file lists every socket of its family, as ``ss -tan`` does);
- ``tcp.connections.recvq.bytes`` / ``tcp.connections.sendq.bytes`` (bytes): rx_queue /
  tx_queue summed over the non-LISTEN sockets (the names ss and netstat use);
- ``tcp.listen.recvq`` (connections; labels ``local``, ``port``): a LISTEN socket's accept
  queue. Its limit (ss's ``tcp.listen.backlog``) is not in the file;
- per connection (labels ``local``, ``peer``; not LISTEN, TIME-WAIT or CLOSE rows, as in ss):
  ``tcp.conn.recvq.bytes`` / ``tcp.conn.sendq.bytes`` (bytes; only for connections whose
  queue was non-zero once, as in ss), ``tcp.conn.rto_ms`` and ``tcp.conn.ato_ms`` (ms, 10 ms
  resolution: ss prints ``rto:204`` where the file says 20; ato only when set, as in ss), ``tcp.conn.cwnd`` and
  ``tcp.conn.ssthresh`` (segments; no ssthresh point during the initial slow start, where
  ss prints none either), and for a pending timer ``tcp.conn.timer_<on|keepalive|persist>_ms``
  (ms to expiry) with ``tcp.conn.timer_retrans`` (the RTO retries for ``on``, the unanswered
  probes for the others: the third field of ss's ``timer:(persist,276ms,1)``). The file
  holds no total retransmit count, so no ``tcp.conn.retrans``;
- ``tcp.peer.sockets`` (sockets; labels ``peer``, ``state``), ``tcp.peer.local_port_min`` /
  ``tcp.peer.local_port_max`` (port; label ``peer``): as in ss, for peers that reached
  :data:`~rootline.parsers.ss.PEER_MIN_SOCKETS` non-listening sockets in a snapshot.

``/proc/net/udp`` and ``udp6`` look alike: the same header up to ``inode``, then ``ref pointer
drops``; their rows end with those three fields. They are UDP sockets, not TCP: the sniffer
declines a file whose header or rows are UDP's, and a UDP table met in a TCP capture (a
``cat /proc/net/*``) is skipped, rows and all, with one diagnostic naming it.

A header of a family already seen in the snapshot, without a timestamp line between, opens
the next snapshot at the same time. Request sockets (SYN-RECV) and TIME-WAIT rows count in
the state totals only.

>>> from rootline.parsers.base import ParseContext
>>> row = "   0: 0100007F:1F90 0100007F:D431 01 00000010:00000000 00:00000000 00000000  0 0 7 1 0 20 4 0 10 -1"
>>> r = parse(row + "\\n", ParseContext())
>>> [(s.name, s.labels, s.values[0]) for s in r.series if s.name == "tcp.conn.sendq.bytes"]
[('tcp.conn.sendq.bytes', {'local': '127.0.0.1:8080', 'peer': '127.0.0.1:54321'}, 16.0)]
"""

from __future__ import annotations

import ipaddress
import re
from array import array
from collections import Counter
from collections.abc import Callable

from rootline.parsers.base import ParseContext, ParseResult, SeriesData, SeriesSet, iter_lines
from rootline.parsers.peer_counts import PeerCounts
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import iter_snapshots

KIND = "proc_net_tcp"

RULES: dict[str, re.Pattern[str]] = {
    # ``  sl  local_address rem_address   st tx_queue ...`` (tcp6: ``remote_address``).
    "HEADER": re.compile(
        r"^\s*sl\s+local_address\s+rem(?:ote)?_address\s+st\s+tx_queue\s+rx_queue"
    ),
    # ``... uid  timeout inode ref pointer drops``: /proc/net/udp(6), whose rows are skipped.
    "UDP_HEADER": re.compile(
        r"^\s*sl\s+local_address\s+rem(?:ote)?_address\s+st\s+tx_queue\s+rx_queue"
        r".*\binode\s+ref\s+pointer\s+drops\b"
    ),
    # ``   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  uid timeout inode ...``
    "ROW": re.compile(
        r"^\s*\d+: (?P<local>[0-9A-Fa-f]{8}(?:[0-9A-Fa-f]{24})?:[0-9A-Fa-f]{4}) "
        r"(?P<remote>[0-9A-Fa-f]{8}(?:[0-9A-Fa-f]{24})?:[0-9A-Fa-f]{4}) (?P<state>[0-9A-Fa-f]{2}) "
        r"(?P<tx>[0-9A-Fa-f]{8}):(?P<rx>[0-9A-Fa-f]{8}) (?P<timer>[0-9A-Fa-f]{2}):(?P<when>[0-9A-Fa-f]{8}) "
        r"(?P<retrnsmt>[0-9A-Fa-f]{8})\s+\d+\s+(?P<probes>-?\d+)\s+\d+(?P<rest>.*)$"
    ),
}
# /proc/net/tcp's timer codes, named as ss names them.
TIMER_NAMES = {1: "on", 2: "keepalive", 3: "timewait", 4: "persist"}
# The kernel prints times with jiffies_to_clock_t: USER_HZ (100) ticks, whatever HZ is.
TICK_MS = 10.0
_NO_CONNECTION_STATES = frozenset({"listen", "time-wait", "close"})
_DATA_PREFIXES = (" ", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9")


# After the inode a UDP row holds exactly ``ref pointer drops``; a TCP row 2 or 7 fields.
_UDP_TAIL = re.compile(r"\s+\d+\s+[0-9A-Fa-f]+\s+\d+\s*$")


def sniff(head: str) -> float:
    lines = head.splitlines()[:400]
    headers = [line for line in lines[:50] if RULES["HEADER"].match(line)]
    if headers:
        return 0.0 if all(RULES["UDP_HEADER"].match(line) for line in headers) else 0.95
    rows = [m for line in lines if (m := RULES["ROW"].match(line))]
    if rows and all(_UDP_TAIL.fullmatch(m["rest"]) for m in rows):
        return 0.0  # /proc/net/udp rows without their header
    return 0.85 if len(rows) >= 3 else 0.6 if rows else 0.0


class _Snapshot:
    __slots__ = ("families", "listeners", "peers", "recvq", "sendq", "states", "time_ms")

    def __init__(self, time_ms: int) -> None:
        self.time_ms = time_ms
        self.families: set[int] = set()  # address widths (8, 32) whose header was read
        self.states: Counter[str] = Counter()
        self.recvq = 0
        self.sendq = 0
        self.listeners: list[tuple[str, int]] = []


class _Reader:
    def __init__(self) -> None:
        self.result = ParseResult(kind=KIND)
        self.series = SeriesSet()
        self.snapshots: list[_Snapshot] = []
        self.peers = PeerCounts()
        self.endpoints: dict[str, str] = {}
        # (local, peer) -> series name -> (times, values)
        self.connections: dict[tuple[str, str], dict[str, tuple[array[int], array[float]]]] = {}

    def read(self, text: str, context: ParseContext) -> ParseResult:
        lines = list(iter_lines(text))
        for span in iter_snapshots(
            lines, context.timezone, context.default_time_ms, _DATA_PREFIXES
        ):
            snapshot = self.new_snapshot(span.time_ms)
            in_udp = False
            for index in range(span.start, span.stop):
                line = lines[index]
                if not line or line.isspace():
                    continue
                m = RULES["ROW"].match(line)
                if m:
                    if not in_udp:
                        self.read_row(m, snapshot)
                    continue
                if RULES["UDP_HEADER"].match(line):
                    in_udp = True
                    self.result.diagnose(
                        index + 1, "a /proc/net/udp table: UDP sockets are not read (skipped)"
                    )
                    continue
                if RULES["HEADER"].match(line):
                    in_udp = False
                    width = 32 if "remote_address" in line else 8
                    if width in snapshot.families:  # the same table again: the next capture
                        self.snapshots.append(snapshot)
                        snapshot = self.new_snapshot(span.time_ms)
                    snapshot.families.add(width)
                    continue
                self.result.diagnose(index + 1, f"not a /proc/net/tcp line: {line[:80]!r}")
            if snapshot.states or snapshot.families:
                self.snapshots.append(snapshot)
        self.finish()
        return self.result

    def new_snapshot(self, time_ms: int) -> _Snapshot:
        self.peers.start(time_ms)
        return _Snapshot(time_ms)

    def endpoint(self, text: str) -> str:
        """``0100007F:1F90`` as ss writes it: ``127.0.0.1:8080``."""
        known = self.endpoints.get(text)
        if known is not None:
            return known
        address_hex, _, port_hex = text.partition(":")
        raw = bytes.fromhex(address_hex)
        # Each 32-bit word is printed in host (little-endian) byte order.
        packed = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
        port = int(port_hex, 16)
        port_text = str(port) if port else "*"
        if len(packed) == 4:
            written = f"{ipaddress.IPv4Address(packed)}:{port_text}"
        else:
            address = ipaddress.IPv6Address(packed)
            mapped = address.ipv4_mapped
            shown = f"::ffff:{mapped}" if mapped is not None else str(address)
            written = f"[{shown}]:{port_text}"
        if len(self.endpoints) < 100_000:
            self.endpoints[text] = written
        return written

    def read_row(self, m: re.Match[str], snapshot: _Snapshot) -> None:
        state = normalise_tcp_state(m["state"])
        snapshot.states[state] += 1
        local = self.endpoint(m["local"])
        tx, rx = int(m["tx"], 16), int(m["rx"], 16)
        if state == "listen":
            snapshot.listeners.append((local, rx))
            self.peers.listen(int(m["local"].rpartition(":")[2], 16))
            return
        snapshot.recvq += rx
        snapshot.sendq += tx
        peer = self.endpoint(m["remote"])
        port = int(m["local"].rpartition(":")[2], 16)
        self.peers.add(peer, state, port)
        if state in _NO_CONNECTION_STATES:
            return
        t = snapshot.time_ms
        fields = self.connections.setdefault((local, peer), {})
        add = _adder(fields, t)
        add("tcp.conn.recvq.bytes", rx)
        add("tcp.conn.sendq.bytes", tx)
        timer = int(m["timer"], 16)
        name = TIMER_NAMES.get(timer)
        if name is not None and timer != 3:
            add(f"tcp.conn.timer_{name}_ms", int(m["when"], 16) * TICK_MS)
            add(
                "tcp.conn.timer_retrans", int(m["retrnsmt"], 16) if timer == 1 else int(m["probes"])
            )
        rest = m["rest"].split()
        # refcount, address, rto, ato, quick/pingpong, cwnd, ssthresh
        if len(rest) >= 7 and all(_is_int(word) for word in (rest[2], rest[3], rest[5], rest[6])):
            add("tcp.conn.rto_ms", int(rest[2]) * TICK_MS)
            if int(rest[3]):  # ss prints ato only when it is set
                add("tcp.conn.ato_ms", int(rest[3]) * TICK_MS)
            add("tcp.conn.cwnd", int(rest[5]))
            if int(rest[6]) >= 0:
                add("tcp.conn.ssthresh", int(rest[6]))

    def finish(self) -> None:
        result = self.result
        add = self.series.add
        for snapshot in self.snapshots:
            t = snapshot.time_ms
            for state in (*TCP_STATES, *sorted(set(snapshot.states) - set(TCP_STATES))):
                add(f"tcp.state.{state}", {}, "sockets", t, snapshot.states.get(state, 0))
            add("tcp.connections.recvq.bytes", {}, "bytes", t, snapshot.recvq)
            add("tcp.connections.sendq.bytes", {}, "bytes", t, snapshot.sendq)
            for local, queue in snapshot.listeners:
                labels = {"local": local, "port": local.rpartition(":")[2]}
                add("tcp.listen.recvq", labels, "connections", t, queue)
        self.peers.emit(self.series)
        result.series.extend(self.series)
        for (local, peer), fields in self.connections.items():
            for name, (times, values) in fields.items():
                if name.endswith("q.bytes") and not any(values):
                    continue  # an idle connection's queues, as in ss
                unit = _UNITS.get(name, "ms")
                result.series.append(
                    SeriesData(name, {"local": local, "peer": peer}, unit, times, values)
                )
        if not self.snapshots:
            result.diagnose(0, "no /proc/net/tcp or tcp6 table found")


_UNITS = {
    "tcp.conn.recvq.bytes": "bytes",
    "tcp.conn.sendq.bytes": "bytes",
    "tcp.conn.cwnd": "segments",
    "tcp.conn.ssthresh": "segments",
    "tcp.conn.timer_retrans": "count",
}


def _adder(
    fields: dict[str, tuple[array[int], array[float]]], time_ms: int
) -> Callable[[str, float], None]:
    def add(name: str, value: float) -> None:
        column = fields.get(name)
        if column is None:
            column = fields[name] = (array("q"), array("d"))
        column[0].append(time_ms)
        column[1].append(float(value))

    return add


def _is_int(word: str) -> bool:
    return word.lstrip("-").isdigit()


def parse(text: str, context: ParseContext) -> ParseResult:
    return _Reader().read(text, context)
