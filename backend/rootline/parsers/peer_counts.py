"""Sockets per peer endpoint and state, shared by the socket-table parsers that are not ss.

``ss`` writes ``tcp.peer.sockets`` (sockets; labels ``peer``, ``state``) and
``tcp.peer.local_port_min`` / ``tcp.peer.local_port_max`` (port; label ``peer``) for the peers
that reached :data:`~rootline.parsers.ss.PEER_MIN_SOCKETS` non-listening sockets in a
snapshot (see :mod:`rootline.parsers.ss`); ``/proc/net/tcp`` and Windows ``netstat -an``
list the same sockets and write the same series through :class:`PeerCounts`.

>>> from rootline.parsers.base import SeriesSet
>>> counts, series = PeerCounts(), SeriesSet()
>>> counts.start(1000)
>>> for port in range(40000, 40016):
...     counts.add("10.0.0.9:443", "time-wait", port)
>>> counts.emit(series)
>>> sorted((s.name, s.values[0]) for s in series)
[('tcp.peer.local_port_max', 40015.0), ('tcp.peer.local_port_min', 40000.0), ('tcp.peer.sockets', 16.0)]
"""

from __future__ import annotations

from collections import Counter

from rootline.parsers.base import SeriesSet
from rootline.parsers.ss import PEER_MIN_SOCKETS


class _Peer:
    __slots__ = ("high", "low", "states")

    def __init__(self, port: int) -> None:
        self.states: Counter[str] = Counter()
        self.low = port
        self.high = port


class PeerCounts:
    """Non-listening sockets per snapshot and peer endpoint, in the order snapshots come."""

    def __init__(self) -> None:
        self.snapshots: list[tuple[int, dict[str, _Peer]]] = []

    def start(self, time_ms: int) -> None:
        """Open the next snapshot, taken at ``time_ms``."""
        self.snapshots.append((time_ms, {}))

    def add(self, peer: str, state: str, local_port: int) -> None:
        """One non-listening socket of the current snapshot."""
        if not self.snapshots:
            self.start(0)
        peers = self.snapshots[-1][1]
        seen = peers.get(peer)
        if seen is None:
            seen = peers[peer] = _Peer(local_port)
        seen.states[state] += 1
        seen.low = min(seen.low, local_port)
        seen.high = max(seen.high, local_port)

    def emit(self, series: SeriesSet) -> None:
        peak: Counter[str] = Counter()
        for _, peers in self.snapshots:
            for peer, counted in peers.items():
                peak[peer] = max(peak[peer], counted.states.total())
        add = series.add
        for peer in sorted(p for p, n in peak.items() if n >= PEER_MIN_SOCKETS):
            found = [(t, peers.get(peer)) for t, peers in self.snapshots]
            states = sorted({state for _, seen in found if seen for state in seen.states})
            for t, seen in found:
                for state in states:
                    count = seen.states.get(state, 0) if seen else 0
                    add("tcp.peer.sockets", {"peer": peer, "state": state}, "sockets", t, count)
                if seen:
                    add("tcp.peer.local_port_min", {"peer": peer}, "port", t, seen.low)
                    add("tcp.peer.local_port_max", {"peer": peer}, "port", t, seen.high)
