"""Quantities of ``ephemeral_port_exhaustion`` (rule: ``rules/ephemeral_port_exhaustion.toml``),
per client host and destination (``ip:port``).

Inputs: ``tcp.peer.sockets{peer,state}`` and ``tcp.peer.local_port_min`` / ``_max{peer}``
(the ss parser's sockets per peer endpoint: ``ss -tan`` or ``ss state all``, TIME-WAIT
included), that host's sysctl facts ``net.ipv4.ip_local_port_range`` and
``net.ipv4.tcp_tw_reuse`` (never another host's), its listening ports (``ss -lnt``), and
``connect_failed`` events of application logs (EADDRNOTAVAIL, "Cannot assign requested
address").

Every connection a client opens to one destination needs a local port of its own from
``ip_local_port_range`` (the 4-tuple must be unique), and keeps it until the socket is gone:
ESTABLISHED, FIN-WAIT ..., and 60 s of TIME-WAIT on the side that closed first. Per
destination:

- ``held_peak``: the most sockets holding a local port towards it in one snapshot; TIME-WAIT
  sockets count unless ``tcp_tw_reuse`` lets connect() take them over (1; 2 = loopback
  destinations only). ``range_held_share`` = ``held_peak`` / the range's size;
  ``full_snapshots`` the snapshots at or past ``range_full_share`` of it.
- ``peak_sockets`` / ``peak_time_wait`` / ``peak_other``: all sockets at the busiest snapshot,
  those in TIME-WAIT and the rest (ESTABLISHED, FIN-WAIT ...).
- ``ephemeral_ports``: every local port of those sockets inside the range, and not a port the
  host listens on (server-side TIME-WAIT sits on the listening port and takes no ephemeral
  port: it is never this mechanism).
- ``unlisted_time_wait``: where the listing held no TIME-WAIT socket while ``ss -s`` counted
  some on the host (ss's default filter leaves TIME-WAIT out, and so does the collector's
  ``ss -tinm`` unless given ``--ss-filter 'state all ...'``), the host's peak count, and
  ``range_upper_share`` = (``held_peak`` + it) / the range: what this destination may have
  held at most. A destination is ruled out only below ``range_likely_share`` of that.
- ``connect_failures``: EADDRNOTAVAIL lines of that host's application log (the log does not
  say towards which destination, so every destination of the host carries them).
"""

from __future__ import annotations

import ipaddress

import numpy as np

from rootline.detectors.base import (
    Anchor,
    EventView,
    IncidentData,
    Measurement,
    Params,
    Quantity,
    SeriesView,
)
from rootline.detectors.quantities import (
    fact_ints,
    host_fact,
    host_series,
    merged_series,
    split_endpoint,
    values_at,
)
from rootline.detectors.socket_roles import listening_ports, port_range

Destination = tuple[str | None, str]


def quantities(data: IncidentData, params: Params) -> list[Measurement]:
    counts: dict[Destination, dict[str, list[SeriesView]]] = {}
    for name in ("tcp.peer.sockets", "tcp.peer.local_port_min", "tcp.peer.local_port_max"):
        for s in data.series(name):
            if s.name != name or "peer" not in s.labels or not len(s):
                continue
            row = counts.setdefault((s.host, s.labels["peer"]), {})
            row.setdefault(name, []).append(s)
    failures = _connect_failures(data)
    logged = "app_log" in data.artifact_kinds()
    # ss lists no TIME-WAIT socket unless asked (its default filter leaves them out; `ss -tan`
    # or `state all` lists them): a host whose listing has none while ss -s counted some has
    # them unlisted, towards any destination.
    listed_tw = {
        key[0]
        for key, row in counts.items()
        if any(s.labels.get("state") == "time-wait" for s in row.get("tcp.peer.sockets", []))
    }
    counted_tw = host_series(data, "tcp.state.time-wait", prefer="peak")
    out = [
        _destination(
            data,
            key,
            row,
            failures.get(key[0], []) if logged else None,
            None if key[0] in listed_tw else counted_tw.get(key[0]),
            params,
        )
        for key, row in sorted(counts.items(), key=lambda kv: (kv[0][0] or "", kv[0][1]))
        if "tcp.peer.sockets" in row
    ]
    judged_hosts = {key[0] for key in counts}
    for host, events in sorted(failures.items(), key=lambda kv: kv[0] or ""):
        if host not in judged_hosts:
            out.append(_failures_only(data, host, events))
    return out


def _connect_failures(data: IncidentData) -> dict[str | None, list[EventView]]:
    out: dict[str | None, list[EventView]] = {}
    for event in data.events("connect_failed"):
        if event.attrs.get("errno") == "EADDRNOTAVAIL":
            out.setdefault(event.host, []).append(event)
    return {h: sorted(e, key=lambda x: x.time_ms) for h, e in out.items()}


def _reuse(data: IncidentData, host: str | None, peer: str) -> tuple[int | None, bool]:
    """(net.ipv4.tcp_tw_reuse of the host, whether it lets connect() reuse TIME-WAIT ports
    towards ``peer``): 1 everywhere, 2 (the default since Linux 4.19) for loopback only."""
    numbers = fact_ints(host_fact(data, "net.ipv4.tcp_tw_reuse", host))
    if len(numbers) != 1:
        return None, False
    setting = numbers[0]
    if setting == 1:
        return setting, True
    if setting == 2:
        try:
            return setting, ipaddress.ip_address(split_endpoint(peer)[0]).is_loopback
        except ValueError:
            return setting, False
    return setting, False


def _destination(
    data: IncidentData,
    key: Destination,
    row: dict[str, list[SeriesView]],
    failures: list[EventView] | None,
    unlisted: SeriesView | None,
    params: Params,
) -> Measurement:
    """One destination of one host; ``failures`` None when no application log was read;
    ``unlisted`` the host's TIME-WAIT count (ss -s) when its listing left TIME-WAIT out."""
    host, peer = key
    by_state = {s.labels.get("state", "?"): s for s in row["tcp.peer.sockets"]}
    times = np.unique(np.concatenate([s.times_ms for s in by_state.values()]))
    per_state = {
        state: values_at(s, times, mode="exact", default=0.0) for state, s in by_state.items()
    }
    total = np.sum(list(per_state.values()), axis=0)
    time_wait = per_state.get("time-wait", np.zeros(len(times)))
    reuse, reuse_effective = _reuse(data, host, peer)
    held = total - time_wait if reuse_effective else total
    artifact = next(iter(by_state.values())).artifact
    values: dict[str, Quantity] = {
        "destination": peer,
        "snapshots": len(times),
        "tw_reuse": reuse,
        "tw_reuse_effective": reuse_effective,
        "connect_failures": len(failures) if failures is not None else None,
    }
    anchors: dict[str, Anchor] = {}
    busiest = int(np.argmax(total))
    values.update(
        peak_sockets=float(total[busiest]),
        peak_time_wait=float(time_wait[busiest]),
        peak_other=float(total[busiest] - time_wait[busiest]),
        peak_at=int(times[busiest]),
    )
    top = int(np.argmax(held))
    values.update(held_peak=float(held[top]), held_at=int(times[top]))
    labels = {"peer": peer}
    at_peak = Anchor("tcp.peer.sockets", labels, int(times[top]), int(times[top]), host, artifact)
    anchors["peak_sockets"] = anchors["peak_time_wait"] = at_peak

    low_t, low_v = merged_series(row.get("tcp.peer.local_port_min", []))
    high_t, high_v = merged_series(row.get("tcp.peer.local_port_max", []))
    bounds = port_range(data, host)
    if bounds is not None:
        lo, hi = bounds
        size = hi - lo + 1
        full = held >= float(params["range_full_share"]) * size
        values.update(
            range_lo=lo,
            range_hi=hi,
            range_size=size,
            range_held_share=float(held[top]) / size,
            range_share_all=float(total[busiest]) / size,
            full_snapshots=int(full.sum()),
        )
        if unlisted is not None and len(unlisted) and not reuse_effective:
            # at most: every unlisted TIME-WAIT socket of the host towards this destination
            hidden = float(np.max(unlisted.values))
            if hidden > 0:
                values.update(
                    unlisted_time_wait=hidden,
                    range_upper_share=(float(held[top]) + hidden) / size,
                )
                anchors["unlisted_time_wait"] = Anchor(
                    unlisted.name, {}, int(unlisted.times_ms[0]), int(unlisted.times_ms[-1]),
                    host, unlisted.artifact,
                )  # fmt: skip
        span = (int(times[0]), int(times[-1]))
        if full.any():
            span = (int(times[full][0]), int(times[full][-1]))
        anchors["range_held_share"] = Anchor("tcp.peer.sockets", labels, *span, host, artifact)
        anchors["full_snapshots"] = anchors["range_held_share"]
        range_fact = host_fact(data, "net.ipv4.ip_local_port_range", host)
        anchors["range_size"] = Anchor(
            None, {}, None, None, host, range_fact.artifact if range_fact else None
        )
    if len(low_t) and len(high_t):
        port_lo, port_hi = int(low_v.min()), int(high_v.max())
        values.update(local_port_min=port_lo, local_port_max=port_hi)
        listening = listening_ports(data, host)
        server_side = port_lo == port_hi and port_lo in listening
        if bounds is not None:
            values["ephemeral_ports"] = (
                not server_side and bounds[0] <= port_lo and port_hi <= bounds[1]
            )
        values["server_side"] = server_side
    if failures:
        values.update(failures_from=failures[0].time_ms, failures_to=failures[-1].time_ms)
        anchors["connect_failures"] = Anchor(
            None, {}, failures[0].time_ms, failures[-1].time_ms, host, failures[0].artifact,
            "connect_failed",
        )  # fmt: skip
    return Measurement(
        entity=f"{host} -> {peer}" if host else f"-> {peer}",
        key=f"dest:{host or ''}|{peer}",
        values=values,
        anchor=Anchor("tcp.peer.sockets", labels, int(times[0]), int(times[-1]), host, artifact),
        anchors=anchors,
    )


def _failures_only(data: IncidentData, host: str | None, events: list[EventView]) -> Measurement:
    """A host whose log says connect() found no free port, without a socket listing."""
    bounds = port_range(data, host)
    values: dict[str, Quantity] = {
        "destination": "an unknown destination",
        "connect_failures": len(events),
        "failures_from": events[0].time_ms,
        "failures_to": events[-1].time_ms,
    }
    reuse, _ = _reuse(data, host, "")
    values["tw_reuse"] = reuse
    if bounds is not None:
        values.update(range_lo=bounds[0], range_hi=bounds[1], range_size=bounds[1] - bounds[0] + 1)
    where = Anchor(
        None, {}, events[0].time_ms, events[-1].time_ms, host, events[0].artifact, "connect_failed"
    )
    return Measurement(
        entity=f"{host} (destination not listed)" if host else "(destination not listed)",
        key=f"dest:{host or ''}|?",
        values=values,
        anchor=where,
        anchors={"connect_failures": where},
    )
