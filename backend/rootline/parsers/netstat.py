"""``netstat`` (net-tools) tables: sockets (``-nat``, ``-a``, ``-lnp``, ``-neopa``), ``-i``, ``-g``.

Produced by ``netstat -nat`` (also ``-ant``, ``-tan``, ``-tanp``, ``-neopa``, ``-lnp``, plain
``netstat`` / ``netstat -a`` with their UNIX and Bluetooth sections), ``netstat -i`` and
``netstat -agn``, once or in a loop with timestamp lines between snapshots::

    === 2026-11-21T07:27:50.896Z ===
    Active Internet connections (servers and established)
    Proto Recv-Q Send-Q Local Address           Foreign Address         State
    tcp        0      0 0.0.0.0:18080           0.0.0.0:*               LISTEN
    tcp        0      0 127.0.0.1:18080         127.0.0.1:48710         TIME_WAIT
    Kernel Interface table
    Iface             MTU    RX-OK RX-ERR RX-DRP RX-OVR    TX-OK TX-ERR TX-DRP TX-OVR Flg
    eth0             1400    93732      0      0 0         38502      0      0      0 BMRU
    IPv6/IPv4 Group Memberships
    Interface       RefCnt Group
    eth0            1      224.0.0.1

Series per snapshot of a socket listing (``tcp`` and ``tcp6`` rows):

- ``tcp.state.<state>`` (``sockets``): sockets per state, state names as the ``ss`` parser
  writes them (:func:`~rootline.parsers.tcp_states.normalise_tcp_state`: ``estab``,
  ``time-wait`` ...). Every state the listing covers gets a point, 0 included: all states
  for "servers and established", all but ``listen`` for "w/o servers" (plain ``netstat``),
  only ``listen`` for "only servers" (``-l``).
- ``tcp.connections.recvq.bytes`` / ``tcp.connections.sendq.bytes`` (``bytes``): Recv-Q / Send-Q summed over the
  non-LISTEN sockets (on a LISTEN socket Recv-Q counts connections, not bytes).
- ``tcp.listen.recvq`` (``connections``), labels ``local`` (address) and ``port``: the
  accept queue of each LISTEN socket.
- ``tcp.time_wait.local_port`` / ``tcp.time_wait.other_ports`` / ``..._port_min`` /
  ``..._port_max``: the TIME-WAIT sockets by local port, as the ``ss`` parser writes them
  (:func:`~rootline.parsers.peer_counts.emit_time_wait_ports`).

``netstat -i``: the RX-*/TX-* columns are counters since boot, so they are read like
the kernel counters: ``net.if.<column>.total`` (``packets``, every snapshot) and, over
several snapshots, ``net.if.<column>`` (``per_s``), label ``interface``; columns are
``rx_ok``, ``rx_err``, ``rx_drp``, ``rx_ovr``, ``tx_ok``, ``tx_err``, ``tx_drp``, ``tx_ovr``.
MTU and flags are facts ``net.if.<interface>.mtu`` / ``.flags``.

``netstat -g``: fact ``net.multicast_groups.<interface>`` = the groups, space-separated.

UNIX-domain and Bluetooth sections, and UDP/RAW rows, are read past as known no-ops. A
second "Active Internet connections" header without a timestamp line opens a new snapshot.

>>> from rootline.parsers.base import ParseContext
>>> text = "Proto Recv-Q Send-Q Local Address Foreign Address State\\n"
>>> text += "tcp 0 0 10.0.0.1:22 10.0.0.2:5555 ESTABLISHED\\n"
>>> r = parse(text, ParseContext())
>>> [(s.name, s.values[0]) for s in r.series if s.name == "tcp.state.estab"]
[('tcp.state.estab', 1.0)]
"""

from __future__ import annotations

import re
from array import array
from collections import Counter

from rootline.parsers.base import (
    Fact,
    ParseContext,
    ParseResult,
    SeriesSet,
    counter_rates,
    iter_lines,
)
from rootline.parsers.peer_counts import emit_time_wait_ports
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import iter_snapshots

KIND = "netstat"

# Section titles (start of line) and what they open.
SECTION_TITLES: dict[str, str] = {
    "Active Internet connections": "inet",
    "Active UNIX domain sockets": "unix",
    "Active Bluetooth connections": "bluetooth",
    "Active IPX sockets": "other",
    "Active AX.25 sockets": "other",
    "Kernel Interface table": "interfaces",
    "IPv6/IPv4 Group Memberships": "groups",
}
RULES: dict[str, re.Pattern[str]] = {
    # ``tcp  0  0 127.0.0.1:18080  127.0.0.1:48710  TIME_WAIT  [User Inode] [PID/Program] [Timer]``
    "INET_ROW": re.compile(
        r"^(?P<proto>tcp6?|udp6?|udpl6?|raw6?|sctp6?)\s+(?P<recvq>\d+)\s+(?P<sendq>\d+)\s+\S+\s+\S+"
    ),
    # Column headers of each table: known no-ops.
    "HEADER": re.compile(r"^(?:Proto\s|Iface\s|Interface\s+RefCnt|-{3,})"),
    # ``unix  2  [ ACC ]  STREAM  LISTENING  535  /run/lvm/lvmetad.socket``, ``l2cap ...``.
    "OTHER_ROW": re.compile(r"^(?:unix|l2cap|rfcomm|ipx|ax25|netrom|rose|x25)\s"),
    # ``eth0  1500  0  845265  0 ...  BMRU`` (the Met column is missing in net-tools 2.10).
    "INTERFACE_ROW": re.compile(
        r"^(?P<iface>\S+)\s+(?P<numbers>(?:\d+\s+)+)(?P<flags>[A-Za-z]*)\s*$"
    ),
    # ``eth0  1  224.0.0.1``.
    "GROUP_ROW": re.compile(r"^(?P<iface>\S+)\s+(?P<refcnt>\d+)\s+(?P<group>\S+)\s*$"),
}
_DATA_PREFIXES = ("tcp", "udp", "raw", "unix", "Proto", "Active", "sctp", " ")
_IFACE_SKIPPED_COLUMNS = {"Iface", "MTU", "Met", "Flg"}


class _SocketCounts:
    """Counts of one snapshot's socket listing, by state as netstat writes it."""

    __slots__ = (
        "covered", "listen_queues", "raw_states", "recvq_bytes", "sendq_bytes", "time_wait_ports",
    )  # fmt: skip

    def __init__(self, covered: tuple[str, ...]) -> None:
        self.covered = covered
        self.raw_states: dict[str, int] = {}
        self.time_wait_ports: Counter[int] = Counter()  # TIME-WAIT sockets by local port
        self.recvq_bytes = 0
        self.sendq_bytes = 0
        self.listen_queues: list[tuple[str, str, int]] = []

    def add_rows(self, lines: list[str], begin: int, stop: int) -> int:
        """Count the ``tcp`` rows from ``lines[begin]`` on; returns how many there were."""
        raw_states = self.raw_states
        recvq_bytes = sendq_bytes = 0
        index = begin
        while index < stop:
            # proto, Recv-Q, Send-Q, local, foreign, state, [user inode pid/program timer]
            parts = lines[index].split(None, 6)
            if len(parts) < 6 or not parts[0].startswith("tcp"):
                break
            recvq, sendq, state = parts[1], parts[2], parts[5]
            if not (recvq.isdigit() and sendq.isdigit()):
                break
            raw_states[state] = raw_states.get(state, 0) + 1
            if state == "LISTEN":
                address, _, port = parts[3].rpartition(":")
                self.listen_queues.append((address or parts[3], port, int(recvq)))
            else:
                if state == "TIME_WAIT":
                    port = parts[3].rpartition(":")[2]
                    if port.isdigit():
                        self.time_wait_ports[int(port)] += 1
                if recvq != "0":
                    recvq_bytes += int(recvq)
                if sendq != "0":
                    sendq_bytes += int(sendq)
            index += 1
        self.recvq_bytes += recvq_bytes
        self.sendq_bytes += sendq_bytes
        return index - begin

    def states(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for raw, count in self.raw_states.items():
            state = normalise_tcp_state(raw)
            counts[state] = counts.get(state, 0) + count
        return counts


# FreeBSD / macOS netstat: ``(state)`` column, ``tcp4``/``tcp46`` rows; read by netstat_bsd.
_BSD_MARKERS = re.compile(
    r"^(?:\S+\s+){0,2}Proto\s+Recv-Q\s+Send-Q\s+Local Address\s+Foreign Address\s+\(state\)"
    r"|^(?:[0-9a-f]{8,16}\s+)?tcp(?:4|46)\s+\d+\s+\d+\s",
    re.M,
)


def sniff(head: str) -> float:
    if _BSD_MARKERS.search(head):
        return 0.0
    if re.search(
        r"(?m)^Active Internet connections|^Proto\s+Recv-Q\s+Send-Q\s+Local Address", head
    ):
        return 0.95
    if re.search(r"(?m)^Kernel Interface table\s*$|^Iface\s+MTU\s", head):
        return 0.95
    if re.search(r"(?m)^IPv6/IPv4 Group Memberships|^Interface\s+RefCnt\s+Group", head):
        return 0.9
    rows = len(re.findall(r"(?m)^tcp6?\s+\d+\s+\d+\s+\S+:\S+\s+\S+:\S+\s+[A-Z_]+", head))
    return 0.8 if rows >= 3 else 0.0


def parse(text: str, context: ParseContext) -> ParseResult:
    reader = _Reader(ParseResult(kind=KIND))
    lines = list(iter_lines(text))
    for snapshot in iter_snapshots(
        lines, context.timezone, context.default_time_ms, _DATA_PREFIXES
    ):
        reader.read_snapshot(lines, snapshot.start, snapshot.stop, snapshot.time_ms)
    return reader.finish()


class _Reader:
    """State across snapshots: series, interface counters, and the facts already stated."""

    def __init__(self, result: ParseResult) -> None:
        self.result = result
        self.series = SeriesSet()
        self.interface_counters: dict[tuple[str, str], tuple[array[int], array[float]]] = {}
        # Facts (MTU, flags, groups) are repeated in every snapshot: state each value once.
        self.fact_values: dict[str, str] = {}
        self.time_wait_ports: list[tuple[int, Counter[int]]] = []
        self.listening: set[int] = set()  # local ports of the LISTEN rows

    def finish(self) -> ParseResult:
        _emit_interface_counters(self.interface_counters, self.series)
        emit_time_wait_ports(self.time_wait_ports, self.series, self.listening)
        self.result.series.extend(self.series)
        if not (self.result.series or self.result.facts):
            self.result.diagnose(0, "no netstat table found")
        return self.result

    def state_fact(self, key: str, value: str, time_ms: int) -> None:
        if self.fact_values.get(key) != value:
            self.fact_values[key] = value
            self.result.facts.append(Fact(key, value, time_ms))

    def read_snapshot(self, lines: list[str], start: int, stop: int, time_ms: int) -> None:
        section: str | None = None
        sockets: _SocketCounts | None = None
        interface_columns: list[str] = []
        groups: dict[str, list[str]] = {}
        inet_row = RULES["INET_ROW"].match
        index = start
        while index < stop:
            line = lines[index]
            index += 1
            if line.startswith("tcp"):  # the bulk of big captures, read in one tight loop
                # Rows without their title line (``netstat -nat | grep``) cover every state.
                counts = sockets or _SocketCounts(TCP_STATES)
                consumed = counts.add_rows(lines, index - 1, stop)
                if consumed:
                    sockets, section = counts, "inet"
                    index += consumed - 1
                    continue
            if not line or line.isspace():
                continue
            title = _section_title(line)
            if title is not None:
                if title == "inet":
                    if sockets is not None:  # a second listing without a timestamp: next capture
                        _emit_socket_counts(sockets, time_ms, self.series)
                        self.time_wait_ports.append((time_ms, sockets.time_wait_ports))
                        self.listening.update(
                            int(p) for _, p, _ in sockets.listen_queues if p.isdigit()
                        )
                    sockets = _SocketCounts(_covered_states(line))
                section = title
                continue
            if RULES["HEADER"].match(line):
                if line.startswith("Iface"):
                    interface_columns = line.split()
                continue
            if section == "inet" and inet_row(line):
                continue  # udp / raw rows
            if section in ("unix", "bluetooth", "other") or RULES["OTHER_ROW"].match(line):
                continue
            if section == "interfaces" and self.read_interface_row(
                line, interface_columns, time_ms
            ):
                continue
            if section == "groups":
                m = RULES["GROUP_ROW"].match(line)
                if m:
                    groups.setdefault(m["iface"], []).append(m["group"])
                    continue
            self.result.diagnose(index, f"not a netstat line: {line[:80]!r}")
        if sockets is not None:
            _emit_socket_counts(sockets, time_ms, self.series)
            self.time_wait_ports.append((time_ms, sockets.time_wait_ports))
            self.listening.update(int(p) for _, p, _ in sockets.listen_queues if p.isdigit())
        for iface, members in groups.items():
            self.state_fact(f"net.multicast_groups.{iface}", " ".join(members), time_ms)

    def read_interface_row(self, line: str, columns: list[str], time_ms: int) -> bool:
        m = RULES["INTERFACE_ROW"].match(line)
        if m is None or not columns:
            return False
        iface = m["iface"]
        numbers = m["numbers"].split()
        numeric_columns = [c for c in columns if c not in ("Iface", "Flg")]
        if len(numbers) != len(numeric_columns):
            return False
        for column, number in zip(numeric_columns, numbers, strict=True):
            if column == "MTU":
                self.state_fact(f"net.if.{iface}.mtu", number, time_ms)
            elif column not in _IFACE_SKIPPED_COLUMNS:
                key = (column.lower().replace("-", "_"), iface)
                times, values = self.interface_counters.setdefault(key, (array("q"), array("d")))
                times.append(time_ms)
                values.append(float(number))
        if m["flags"]:
            self.state_fact(f"net.if.{iface}.flags", m["flags"], time_ms)
        return True


def _section_title(line: str) -> str | None:
    if not line.startswith(("Active", "Kernel", "IPv6/IPv4")):
        return None
    for title, section in SECTION_TITLES.items():
        if line.startswith(title):
            return section
    return None


def _covered_states(title_line: str) -> tuple[str, ...]:
    if "(w/o servers)" in title_line:
        return tuple(s for s in TCP_STATES if s != "listen")
    if "(only servers)" in title_line:
        return ("listen",)
    return TCP_STATES


def _emit_socket_counts(sockets: _SocketCounts, time_ms: int, series: SeriesSet) -> None:
    states = sockets.states()
    for state in (*sockets.covered, *(s for s in states if s not in sockets.covered)):
        series.add(f"tcp.state.{state}", {}, "sockets", time_ms, states.get(state, 0))
    if sockets.covered != ("listen",):
        series.add("tcp.connections.recvq.bytes", {}, "bytes", time_ms, sockets.recvq_bytes)
        series.add("tcp.connections.sendq.bytes", {}, "bytes", time_ms, sockets.sendq_bytes)
    for address, port, queue in sockets.listen_queues:
        series.add(
            "tcp.listen.recvq", {"local": address, "port": port}, "connections", time_ms, queue
        )


def _emit_interface_counters(
    interface_counters: dict[tuple[str, str], tuple[array[int], array[float]]], series: SeriesSet
) -> None:
    for (column, iface), (times, values) in interface_counters.items():
        labels = {"interface": iface}
        for t, v in zip(times, values, strict=True):
            series.add(f"net.if.{column}.total", labels, "packets", t, v)
        rate_times, rates = counter_rates(times, values)
        for t, v in zip(rate_times, rates, strict=True):
            series.add(f"net.if.{column}", labels, "per_s", t, v)
