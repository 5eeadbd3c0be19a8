"""Windows ``netstat -an`` (also ``-ano``, ``-anob``, ``-anq``, plain ``netstat -n``).

Produced by ``netstat -an`` in ``cmd.exe`` or PowerShell, once or in a loop with timestamp
lines between snapshots (``echo === %date% %time% ===`` is locale-dependent: prefer
PowerShell's ``"=== $(Get-Date -Format o) ==="``)::

    Active Connections

      Proto  Local Address          Foreign Address        State           PID
      TCP    0.0.0.0:135            0.0.0.0:0              LISTENING       1712
      TCP    10.20.0.15:49712       10.20.0.40:1521        ESTABLISHED     5236
      TCP    10.20.0.15:49713       10.20.0.40:1521        TIME_WAIT       0
      TCP    [::1]:8307             [::]:0                 LISTENING       9396
      UDP    0.0.0.0:123            *:*                                    1804
     [svchost.exe]

Windows prints no socket queues (no Recv-Q / Send-Q), so this gives counts only, under the
names the Linux ``ss`` / ``netstat`` parsers use:

- ``tcp.state.<state>`` (sockets): TCP rows per state per snapshot, Windows' state words
  normalised by :func:`~rootline.parsers.tcp_states.normalise_tcp_state` (``LISTENING`` is
  ``listen``, ``SYN_RECEIVED`` ``syn-recv``, ``TIME_WAIT`` ``time-wait``; ``BOUND``, from
  ``-q``, stays ``bound``). Zero-filled over every TCP state when the snapshot lists
  LISTENING sockets (``-a``), over all but ``listen`` when it does not (plain ``netstat``
  shows connections only).
- ``tcp.peer.sockets`` (labels ``peer``, ``state``) and ``tcp.peer.local_port_min`` /
  ``..._max`` (label ``peer``): as in ss, for peers reaching
  :data:`~rootline.parsers.ss.PEER_MIN_SOCKETS` non-listening sockets in a snapshot
  (Windows' TIME_WAIT pile-ups towards one database are the classic port exhaustion).
  Endpoints are written as Windows writes them, which is how ss writes them (``[::1]:8307``).

UDP rows, ``-b`` owner lines (``[svchost.exe]``, a service name, ``Can not obtain ownership
information``) and the column header are known no-ops. A second "Active Connections" title
without a timestamp line between opens the next snapshot at the same time.

>>> from rootline.parsers.base import ParseContext
>>> text = "Active Connections\\n\\n  Proto  Local Address  Foreign Address  State\\n"
>>> text += "  TCP    10.0.0.1:49712  10.0.0.2:443  ESTABLISHED\\n"
>>> [s.values[0] for s in parse(text, ParseContext()).series if s.name == "tcp.state.estab"]
[1.0]
"""

from __future__ import annotations

import re
from collections import Counter

from rootline.parsers.base import ParseContext, ParseResult, SeriesSet, iter_lines
from rootline.parsers.peer_counts import PeerCounts
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import iter_snapshots

KIND = "netstat_windows"

RULES: dict[str, re.Pattern[str]] = {
    # ``Active Connections``: a listing starts.
    "TITLE": re.compile(r"^\s*Active Connections\s*$"),
    # ``  Proto  Local Address          Foreign Address        State           PID``.
    "HEADER": re.compile(r"^\s*Proto\s+Local Address\s+Foreign Address\s+State\b"),
    # ``  TCP    10.20.0.15:49712       10.20.0.40:1521        ESTABLISHED     5236``.
    "TCP_ROW": re.compile(
        r"^\s+TCP\s+(?P<local>\S+:\d+)\s+(?P<peer>\S+:\d+)\s+(?P<state>[A-Z_0-9]+)(?:\s+(?P<rest>.*))?$"
    ),
    # ``  UDP    0.0.0.0:123            *:*                                    1804``.
    "UDP_ROW": re.compile(r"^\s+UDP\s+\S+:(?:\d+|\*)\s+\S+"),
    # ``-b``: `` [svchost.exe]``, `` RpcSs``, `` Can not obtain ownership information``.
    "OWNER": re.compile(
        r"^\s+(?:\[[^\]]+\]|[A-Za-z][\w.-]*|Can not obtain ownership information)\s*$"
    ),
}
_DATA_PREFIXES = (" ",)


_SNIFF_TITLE = re.compile(r"^\s*Active Connections\s*$", re.M)
_SNIFF_HEADER = re.compile(r"^\s*Proto\s+Local Address\s+Foreign Address\s+State\b", re.M)


def sniff(head: str) -> float:
    if not _SNIFF_HEADER.search(head):
        return 0.0
    if _SNIFF_TITLE.search(head):
        return 0.95
    rows = sum(1 for line in head.splitlines()[:400] if RULES["TCP_ROW"].match(line))
    return 0.8 if rows >= 3 else 0.0


class _Snapshot:
    __slots__ = ("states", "time_ms")

    def __init__(self, time_ms: int) -> None:
        self.time_ms = time_ms
        self.states: Counter[str] = Counter()


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    snapshots: list[_Snapshot] = []
    peers = PeerCounts()
    lines = list(iter_lines(text))
    tcp_row, header = RULES["TCP_ROW"], RULES["HEADER"]
    for span in iter_snapshots(lines, context.timezone, context.default_time_ms, _DATA_PREFIXES):
        snapshot: _Snapshot | None = None
        after_row = False  # -b owner lines follow a row
        for index in range(span.start, span.stop):
            line = lines[index]
            if not line or line.isspace():
                continue
            m = tcp_row.match(line)
            was_after_row, after_row = after_row, bool(m)
            if m:
                if snapshot is None:
                    snapshot = _Snapshot(span.time_ms)
                    snapshots.append(snapshot)
                    peers.start(span.time_ms)
                state = normalise_tcp_state(m["state"])
                snapshot.states[state] += 1
                port = m["local"].rpartition(":")[2]
                if state != "listen":
                    peers.add(m["peer"], state, int(port))
                elif port.isdigit():
                    peers.listen(int(port))
                continue
            if RULES["TITLE"].match(line):
                if snapshot is not None and snapshot.states:
                    snapshot = None  # a second listing without a timestamp: the next capture
                continue
            if RULES["UDP_ROW"].match(line):
                after_row = True
                continue
            if was_after_row and RULES["OWNER"].match(line):
                after_row = True
                continue
            if header.match(line):
                continue
            result.diagnose(index + 1, f"not a Windows netstat line: {line[:80]!r}")
    series = SeriesSet()
    for snapshot in snapshots:
        covered = TCP_STATES if snapshot.states.get("listen") else _WITHOUT_LISTEN
        extra = sorted(set(snapshot.states) - set(covered))
        for state in (*covered, *extra):
            series.add(
                f"tcp.state.{state}", {}, "sockets", snapshot.time_ms, snapshot.states.get(state, 0)
            )
    peers.emit(series)
    result.series.extend(series)
    if not result.series:
        result.diagnose(0, "no Windows netstat TCP rows found")
    return result


_WITHOUT_LISTEN = tuple(state for state in TCP_STATES if state != "listen")
