"""Which end of its connections a host is: the listening (server) side or the connecting
(client) side, and the entity key of connection churn. Shared by ``time_wait_storm``,
``short_lived_connections`` and ``accept_queue_overflow``.

Two readings, the kernel's first:

- the open counters of that host (one source per host, :func:`~quantities.counter_increments`):
  ``TcpPassiveOpens`` counts connections it accepted on a listening socket, ``TcpActiveOpens``
  those it opened with connect(); ``TcpExtTW`` counts sockets entering TIME-WAIT (the kernel
  increments LINUX_MIB_TIMEWAITED when it schedules the TIME-WAIT timer: the closes in which
  this host closed first);
- its sockets (``ss``): a connection whose local port is one the host listens on (``ss -lnt``)
  is its server side; a local port inside that host's ``net.ipv4.ip_local_port_range`` that it
  does not listen on is an ephemeral (client) port. Without the range, any local port it does
  not listen on is the client side (when its listening ports are known; else unplaced).

Not a checklist id (no rule file): the registry lists modules explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass

from rootline.detectors.base import IncidentData
from rootline.detectors.quantities import (
    CounterIncrements,
    connection_series,
    counter_increments,
    fact_ints,
    host_fact,
    split_endpoint,
)

# A field every ss -ti row prints for an established connection.
_ROW_FIELDS = ("rtt_ms", "cwnd", "skmem_tb")


def incident_key() -> str:
    """The entity key of connection churn.

    The opener's ``TcpActiveOpens`` and the acceptor's ``TcpPassiveOpens`` count the same
    connections, and the side that closes first holds their TIME-WAIT: churn seen from the
    client and the TIME-WAIT it leaves on the server are one phenomenon, so both checklist
    ids key it to the incident rather than to the host each happened to be read on.
    """
    return "incident"


def listening_ports(data: IncidentData, host: str | None) -> set[int]:
    """Ports ``host`` listens on (``tcp.listen.*`` rows of ``ss -lnt`` / ``netstat -lnt``)."""
    ports: set[int] = set()
    for name in ("tcp.listen.backlog", "tcp.listen.recvq"):
        for s in data.series(name):
            if s.name != name or s.host != host:
                continue
            port = s.labels.get("port")
            if port is None:
                port = str(split_endpoint(s.labels.get("local", ""))[1] or "")
            if port.isdigit():
                ports.add(int(port))
    return ports


def port_range(data: IncidentData, host: str | None) -> tuple[int, int] | None:
    """``net.ipv4.ip_local_port_range`` of that host (never another host's), or None."""
    bounds = fact_ints(host_fact(data, "net.ipv4.ip_local_port_range", host))
    if len(bounds) == 2 and 0 < bounds[0] <= bounds[1]:
        return bounds[0], bounds[1]
    return None


@dataclass(frozen=True, slots=True)
class SocketRoles:
    """The connections ``ss`` listed on one host, by the role of their local port."""

    server: int  # local port is a listening port of the host
    client: int  # local port ephemeral (inside the range, or not listened on: range unknown)
    other: int  # neither (a bound port outside the range, or no range nor listening port known)
    destinations: frozenset[str]  # peer ``addr:port`` of the client-side connections


def socket_roles(data: IncidentData) -> dict[str | None, SocketRoles]:
    """Per host, its listed connections by the role of their local port."""
    table = connection_series(data, _ROW_FIELDS)
    per_host: dict[str | None, list[tuple[str, str]]] = {}
    for host, local, peer in table:
        per_host.setdefault(host, []).append((local, peer))
    out: dict[str | None, SocketRoles] = {}
    for host, rows in per_host.items():
        listening = listening_ports(data, host)
        bounds = port_range(data, host)
        server = client = other = 0
        destinations: set[str] = set()
        for local, peer in rows:
            port = split_endpoint(local)[1]
            if port is None:
                other += 1
            elif port in listening:
                server += 1
            elif (bounds is not None and bounds[0] <= port <= bounds[1]) or (
                bounds is None and listening
            ):
                # Without the host's port range, a local port it does not listen on (while
                # its listening ports are known) is the connecting end: dropping those left
                # one loopback server row deciding the side of forty client connections.
                client += 1
                address, peer_port = split_endpoint(peer)
                destinations.add(f"{address}:{peer_port}")
            else:
                other += 1
        out[host] = SocketRoles(server, client, other, frozenset(destinations))
    return out


@dataclass(frozen=True, slots=True)
class Opens:
    """One host's connection opens during the capture, by side (kernel counters)."""

    active: float | None  # TcpActiveOpens increments
    passive: float | None  # TcpPassiveOpens increments
    active_source: CounterIncrements | None
    passive_source: CounterIncrements | None

    @property
    def total(self) -> float:
        return (self.active or 0.0) + (self.passive or 0.0)

    @property
    def passive_share(self) -> float | None:
        """Share of this host's opens it accepted (None when nothing opened)."""
        return (self.passive or 0.0) / self.total if self.total > 0 else None


def opens_by_host(data: IncidentData) -> dict[str | None, Opens]:
    """Per host, ``TcpActiveOpens`` / ``TcpPassiveOpens`` increments, one source each."""
    active = counter_increments(data, "TcpActiveOpens")
    passive = counter_increments(data, "TcpPassiveOpens")
    out: dict[str | None, Opens] = {}
    for host in sorted(set(active) | set(passive), key=lambda h: h or ""):
        a, p = active.get(host), passive.get(host)
        out[host] = Opens(
            a.total if a is not None else None, p.total if p is not None else None, a, p
        )
    return out
