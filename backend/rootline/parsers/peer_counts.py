"""Sockets per peer endpoint and state, shared by the socket-table parsers that are not ss.

``ss`` writes ``tcp.peer.sockets`` (sockets; labels ``peer``, ``state``) and
``tcp.peer.local_port_min`` / ``tcp.peer.local_port_max`` (port; label ``peer``) for the peers
that reached :data:`~rootline.parsers.ss.PEER_MIN_SOCKETS` non-listening sockets in a
snapshot (see :mod:`rootline.parsers.ss`); ``/proc/net/tcp`` and Windows ``netstat -an``
list the same sockets and write the same series through :class:`PeerCounts`, and the
TIME-WAIT sockets by local port through :func:`emit_time_wait_ports` (``netstat`` too).

>>> from rootline.parsers.base import SeriesSet
>>> counts, series = PeerCounts(), SeriesSet()
>>> counts.start(1000)
>>> for port in range(40000, 40016):
...     counts.add("10.0.0.9:443", "time-wait", port)
>>> counts.emit(series)
>>> sorted((s.name, s.values[0]) for s in series)  # doctest: +NORMALIZE_WHITESPACE
[('tcp.peer.local_port_max', 40015.0), ('tcp.peer.local_port_min', 40000.0),
 ('tcp.peer.sockets', 16.0), ('tcp.time_wait.other_port_max', 40015.0),
 ('tcp.time_wait.other_port_min', 40000.0), ('tcp.time_wait.other_ports', 16.0)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from rootline.parsers.base import SeriesSet
from rootline.parsers.ss import PEER_MIN_SOCKETS


def emit_time_wait_ports(
    snapshots: Iterable[tuple[int, Counter[int]]],
    series: SeriesSet,
    listening: Iterable[int] = (),
) -> None:
    """TIME-WAIT sockets by local port, per snapshot, given each snapshot's time and its
    TIME-WAIT sockets counted by local port; nothing when no snapshot holds one.

    ``tcp.time_wait.local_port`` (sockets; label ``port``): on one local port, for the ports
    the listing shows listening (``listening``) and those holding at least
    :data:`~rootline.parsers.ss.PEER_MIN_SOCKETS` TIME-WAIT sockets in a snapshot (a
    listening port: every TIME-WAIT socket of its accepted connections shares it),
    zero-filled; ``tcp.time_wait.other_ports`` (sockets): on every other local port
    (fewer each: a client's ephemeral ports hold one socket per destination), with
    ``tcp.time_wait.other_port_min`` / ``_max`` (port) when there are any.

    >>> from rootline.parsers.base import SeriesSet
    >>> series = SeriesSet()
    >>> emit_time_wait_ports([(1000, Counter({8080: 20, 40001: 1, 40002: 1}))], series)
    >>> sorted((s.name, dict(s.labels), s.values[0]) for s in series)  # doctest: +NORMALIZE_WHITESPACE
    [('tcp.time_wait.local_port', {'port': '8080'}, 20.0),
     ('tcp.time_wait.other_port_max', {}, 40002.0),
     ('tcp.time_wait.other_port_min', {}, 40001.0),
     ('tcp.time_wait.other_ports', {}, 2.0)]
    """
    snapshots = list(snapshots)
    if not any(counts for _, counts in snapshots):
        return
    listened = set(listening)
    shared = sorted(
        {
            port
            for _, counts in snapshots
            for port, n in counts.items()
            if n >= PEER_MIN_SOCKETS or port in listened
        }
    )
    add = series.add
    for time_ms, counts in snapshots:
        for port in shared:
            add("tcp.time_wait.local_port", {"port": str(port)}, "sockets", time_ms, counts[port])
        others = [port for port in counts if port not in shared]
        add("tcp.time_wait.other_ports", {}, "sockets", time_ms, sum(counts[p] for p in others))
        if others:
            add("tcp.time_wait.other_port_min", {}, "port", time_ms, min(others))
            add("tcp.time_wait.other_port_max", {}, "port", time_ms, max(others))


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
        self.time_wait_ports: list[tuple[int, Counter[int]]] = []
        self.listening: set[int] = set()  # local ports of the LISTEN rows

    def start(self, time_ms: int) -> None:
        """Open the next snapshot, taken at ``time_ms``."""
        self.snapshots.append((time_ms, {}))
        self.time_wait_ports.append((time_ms, Counter()))

    def add(self, peer: str, state: str, local_port: int) -> None:
        """One non-listening socket of the current snapshot."""
        if not self.snapshots:
            self.start(0)
        peers = self.snapshots[-1][1]
        if state == "time-wait":
            self.time_wait_ports[-1][1][local_port] += 1
        seen = peers.get(peer)
        if seen is None:
            seen = peers[peer] = _Peer(local_port)
        seen.states[state] += 1
        seen.low = min(seen.low, local_port)
        seen.high = max(seen.high, local_port)

    def listen(self, local_port: int) -> None:
        """A LISTEN socket on ``local_port`` (its TIME-WAIT sockets are counted apart)."""
        self.listening.add(local_port)

    def emit(self, series: SeriesSet) -> None:
        emit_time_wait_ports(self.time_wait_ports, series, self.listening)
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
