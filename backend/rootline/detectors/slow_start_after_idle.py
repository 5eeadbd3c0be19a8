"""Slow start after idle: the congestion window restarts on every burst (DOMAIN.md report B).

Mechanism: with ``net.ipv4.tcp_slow_start_after_idle = 1`` (the default), a connection that
sent nothing for longer than its RTO has its congestion window cut back towards the initial
window (``tcp_cwnd_restart``: halved per idle RTO, down to 10 segments) before it sends
again, so every burst after a pause climbs through slow start once more. Report B: reading
4 MB every 10 s over one reused connection took 102 ms, and 43 ms (the theoretical time)
once the setting was 0; a new connection per request took 174 ms. BBR (and any congestion
control with its own ``cong_control``) ignores the setting.

Inputs: sysctl fact ``net.ipv4.tcp_slow_start_after_idle`` per host; ``ss -ti`` snapshots per
connection: ``tcp.conn.cwnd``, ``lastsnd_ms``, ``rto_ms``, ``bytes_acked`` (else ``bytes_sent``),
``mss``, ``retrans``; the congestion control per connection (fact ``tcp.conn.cc[...]``).

Per connection (not BBR), between consecutive snapshots i -> i+1:

- *idle-then-burst*: at snapshot i the connection had sent nothing for longer than its RTO
  (``lastsnd > rto``; without ``lastsnd``: ``bytes_acked`` flat over an interval longer than the
  RTO), then sent at least BURST_MIN_INITIAL_WINDOWS x INITIAL_CWND_SEGMENTS x mss by i+1
  (a transfer that needs slow-start rounds beyond the initial window);
- *restart seen*: at i+1 cwnd <= CWND_DROP_RATIO of the largest cwnd before the pause (which
  had reached at least CWND_GROWN_MIN_SEGMENTS), or <= INITIAL_CWND_SEGMENTS, with no new
  retransmission (a drop after loss is not this).

``confirmed``: setting 1, at least MIN_EPISODES idle-then-burst episodes and a restart seen.
``likely``: setting 1 and the episodes (the snapshots did not catch a burst mid-way), or a
restart seen once. ``ruled_out``: the setting is 0 on every host that has it; or the bursty
connections all use BBR; or no connection idled longer than its RTO before a burst.
``insufficient_data``: no sysctl, or no ``ss -ti`` series.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rootline.detectors.base import (
    Evidence,
    Finding,
    IncidentData,
    Missing,
    SeriesView,
    Verdict,
    parameters_of,
)
from rootline.detectors.quantities import (
    ConnectionKey,
    congestion_controls,
    connection_label,
    connection_series,
    exact_values_at,
    facts_by_host,
    fmt_bytes,
    fmt_seconds,
)

ID = "slow_start_after_idle"
TITLE = "Slow start after idle"

SYSCTL = "net.ipv4.tcp_slow_start_after_idle"
# Linux's initial window since 2.6.39 (RFC 6928): what tcp_cwnd_restart falls back to.
INITIAL_CWND_SEGMENTS = 10
# A burst that fits in the initial window loses nothing to slow start; two initial windows or
# more need extra round trips (report B's 4 MB reads need ~8 at an initial window of 10).
BURST_MIN_INITIAL_WINDOWS = 2
# "Had grown": at least twice the initial window before the pause.
CWND_GROWN_MIN_SEGMENTS = 20
# tcp_cwnd_restart halves cwnd per idle RTO: one halving at least.
CWND_DROP_RATIO = 0.5
# Report B's client polled every 10 s: two bursts after pauses make a pattern, one is chance.
MIN_EPISODES = 2
# Congestion controls that ignore tcp_slow_start_after_idle (they set cong_control).
IGNORING_CONGESTION_CONTROLS = ("bbr", "bbr2", "bbr3")

PARAMETERS = [
    "INITIAL_CWND_SEGMENTS",
    "BURST_MIN_INITIAL_WINDOWS",
    "CWND_GROWN_MIN_SEGMENTS",
    "CWND_DROP_RATIO",
    "MIN_EPISODES",
]

FIELDS = (
    "cwnd",
    "lastsnd_ms",
    "rto_ms",
    "bytes_acked",
    "bytes_sent",
    "mss",
    "retrans",
    "sendq.bytes",
)

MISSING_SYSCTL = Missing(
    "sysctl (net.ipv4.tcp_slow_start_after_idle)",
    "sysctl net.ipv4.tcp_slow_start_after_idle net.ipv4.tcp_congestion_control > sysctl.txt",
)
MISSING_SS = Missing(
    "ss -ti loop (cwnd, lastsnd, rto, bytes_acked per connection), 1 s or faster",
    'while sleep 1; do echo "=== $(date -Is) ==="; ss -tinm; done > ss-tinm.txt',
)
MISSING_ALL = Missing("or both at once", "rootline-collect.sh --interval 1 --duration 60")


REMEDIES = [
    "sysctl -w net.ipv4.tcp_slow_start_after_idle=0 (persist in /etc/sysctl.d/), on the"
    " sending side (for a request/response service: the server sending the replies).",
    "Keep connections busy or reuse them rather than opening one per request (each new"
    " connection starts in slow start too; see short_lived_connections).",
    "A larger initial window for the path: ip route change <route> initcwnd 20"
    " initrwnd 20; or a congestion control that keeps its model across idle (bbr).",
    "Keep application transfer buffers >= 32 KB (SOFA-RPC transbuf) so a burst is sent in one go.",
]


@dataclass(slots=True)
class _Episode:
    idle_at: int
    burst_at: int
    idle_ms: float
    rto_ms: float
    burst_bytes: float
    cwnd_before: float
    cwnd_after: float
    restart: bool


@dataclass(slots=True)
class _Conn:
    key: ConnectionKey
    artifact: str
    congestion_control: str
    snapshots: int
    episodes: list[_Episode]

    @property
    def restarts(self) -> list[_Episode]:
        return [e for e in self.episodes if e.restart]

    @property
    def ignores_setting(self) -> bool:
        return self.congestion_control in IGNORING_CONGESTION_CONTROLS


def _episodes(row: dict[str, SeriesView]) -> tuple[list[_Episode], int]:
    cwnd_series = row["cwnd"]
    times = cwnd_series.times_ms
    cwnd = cwnd_series.values
    n = len(times)
    progress_series = row.get("bytes_acked") or row.get("bytes_sent")
    if progress_series is None or n < 2:
        return [], n
    acked = exact_values_at(progress_series, times, np.nan)
    # ss leaves bytes_acked out until something was acked: carry the last known value.
    acked = np.maximum.accumulate(np.nan_to_num(acked, nan=0.0))
    rto = exact_values_at(row["rto_ms"], times, np.nan) if "rto_ms" in row else np.full(n, np.nan)
    lastsnd = (
        exact_values_at(row["lastsnd_ms"], times, np.nan)
        if "lastsnd_ms" in row
        else np.full(n, np.nan)
    )
    mss = exact_values_at(row["mss"], times, np.nan) if "mss" in row else np.full(n, 1448.0)
    retrans = exact_values_at(row["retrans"], times, 0.0) if "retrans" in row else np.zeros(n)
    # Data waiting in Send-Q means a stall (peer window, loss), not an idle application.
    queued = (
        exact_values_at(row["sendq.bytes"], times, 0.0) if "sendq.bytes" in row else np.zeros(n)
    )
    episodes = []
    for i in range(n - 1):
        rto_i = rto[i] if np.isfinite(rto[i]) else 200.0  # Linux's minimum RTO when unknown
        if np.isfinite(lastsnd[i]):
            idle_ms = float(lastsnd[i])
        elif i > 0 and acked[i] == acked[i - 1]:
            idle_ms = float(times[i] - times[i - 1])
        else:
            continue
        if idle_ms <= rto_i or queued[i] > 0:
            continue
        segment = mss[i + 1] if np.isfinite(mss[i + 1]) else 1448.0
        burst = float(acked[i + 1] - acked[i])
        if burst < BURST_MIN_INITIAL_WINDOWS * INITIAL_CWND_SEGMENTS * segment:
            continue
        before = float(np.max(cwnd[: i + 1]))
        after = float(cwnd[i + 1])
        no_loss = retrans[i + 1] <= retrans[i]
        restart = (
            no_loss
            and before >= CWND_GROWN_MIN_SEGMENTS
            and (after <= CWND_DROP_RATIO * before or after <= INITIAL_CWND_SEGMENTS)
        )
        episodes.append(
            _Episode(
                idle_at=int(times[i]),
                burst_at=int(times[i + 1]),
                idle_ms=idle_ms,
                rto_ms=float(rto_i),
                burst_bytes=burst,
                cwnd_before=before,
                cwnd_after=after,
                restart=restart,
            )
        )
    _mark_restarts_caught_mid_burst(episodes, times, cwnd, retrans)
    return episodes, n


def _mark_restarts_caught_mid_burst(
    episodes: list[_Episode],
    times: npt.NDArray[np.int64],
    cwnd: npt.NDArray[np.float64],
    retrans: npt.NDArray[np.float64],
) -> None:
    """Flag an idle episode as restarted when a later snapshot, taken inside a burst, shows cwnd
    collapsed without any retransmission.

    The kernel applies the restart lazily, when the next burst starts, so a snapshot right
    after the idle gap often still shows the old window; one caught mid-burst shows it fell.
    Without loss, only an idle restart (or cwnd validation after an application-limited
    idle) shrinks the window, so the collapse is attributed to the latest episode before it.
    """
    if not episodes:
        return
    for j in range(1, len(times)):
        before = float(np.max(cwnd[:j]))
        collapsed = cwnd[j] <= CWND_DROP_RATIO * before or cwnd[j] <= INITIAL_CWND_SEGMENTS
        if before < CWND_GROWN_MIN_SEGMENTS or not collapsed or retrans[j] > retrans[j - 1]:
            continue
        earlier = [e for e in episodes if e.idle_at < times[j]]
        if earlier and not earlier[-1].restart:
            earlier[-1].restart = True
            earlier[-1].cwnd_before = before
            earlier[-1].cwnd_after = float(cwnd[j])


def _setting_by_host(data: IncidentData) -> dict[str | None, tuple[str, str]]:
    return {
        host: (fact.value.strip(), fact.artifact)
        for host, fact in facts_by_host(data, SYSCTL).items()
    }


def detect(data: IncidentData) -> Finding:
    params = parameters_of(globals(), PARAMETERS)
    settings = _setting_by_host(data)
    table = {k: row for k, row in connection_series(data, FIELDS).items() if "cwnd" in row}
    if not settings:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary="The setting net.ipv4.tcp_slow_start_after_idle was not captured"
            + ("" if table else ", nor per-connection cwnd (ss -ti)")
            + ", so whether idle connections restart slow start is unknown.",
            missing=[MISSING_SYSCTL] + ([] if table else [MISSING_SS]) + [MISSING_ALL],
            remedies=REMEDIES,
            parameters=params,
        )
    setting_evidence = [
        Evidence(
            summary=f"{SYSCTL} = {value}" + (f" on {host}" if host else ""),
            observed=value,
            threshold="0",
            artifact=artifact,
            host=host,
        )
        for host, (value, artifact) in sorted(settings.items(), key=lambda kv: kv[0] or "")
    ]
    enabled_hosts = {host for host, (value, _) in settings.items() if value != "0"}
    if not enabled_hosts:
        hosts = ", ".join(sorted(h or "?" for h in settings))
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary=f"The setting tcp_slow_start_after_idle = 0 on {hosts}: idle connections keep their"
            " congestion window.",
            evidence=setting_evidence,
            explanation="With net.ipv4.tcp_slow_start_after_idle = 0 the kernel does not restart"
            " the congestion window after an idle period, so bursts after pauses start at full"
            " speed.",
            remedies=REMEDIES,
            parameters=params,
        )
    # A host without the fact takes the setting of the only captured value, if there is one.
    single_value = next(iter(settings.values()))[0] if len(settings) == 1 else None

    def enabled(host: str | None) -> bool:
        if host in settings:
            return settings[host][0] != "0"
        return single_value is not None and single_value != "0"

    relevant = {k: row for k, row in table.items() if enabled(k[0])}
    if not relevant:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="insufficient_data",
            summary=f"The setting {SYSCTL} = 1 (enabled) on {', '.join(sorted(h or '?' for h in enabled_hosts))},"
            " but no per-connection cwnd series (ss -ti) show whether bursts after idle"
            " restarted slow start.",
            evidence=setting_evidence,
            missing=[MISSING_SS, MISSING_ALL],
            remedies=REMEDIES,
            parameters=params,
        )
    controls = congestion_controls(data)
    conns = []
    snapshots = 0
    for key, row in relevant.items():
        episodes, count = _episodes(row)
        snapshots += count
        conns.append(
            _Conn(
                key=key,
                artifact=row["cwnd"].artifact,
                congestion_control=controls.get(key, "unknown"),
                snapshots=count,
                episodes=episodes,
            )
        )
    bursty = [c for c in conns if c.episodes]
    affected = [c for c in bursty if not c.ignores_setting]
    if not affected:
        if bursty:
            names = sorted({c.congestion_control for c in bursty})
            return Finding(
                id=ID,
                title=TITLE,
                verdict="ruled_out",
                summary=f"{len(bursty)} connection(s) sent bursts after idling longer than their"
                f" RTO, but all use {'/'.join(names)}, which ignores"
                " tcp_slow_start_after_idle = 1 (it paces from its own bandwidth model).",
                evidence=[*setting_evidence, _episode_evidence(bursty[0])],
                explanation="BBR sets its own cong_control, so the kernel skips the cwnd restart"
                " after idle; the setting matters only for cubic/reno-style congestion control.",
                remedies=REMEDIES,
                parameters=params,
            )
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary=f"The setting {SYSCTL} = 1, but no connection idled longer than its RTO and then sent"
            f" >= {BURST_MIN_INITIAL_WINDOWS * INITIAL_CWND_SEGMENTS} segments"
            f" ({len(conns)} connections, {snapshots} snapshots): nothing paid for a restart.",
            evidence=setting_evidence,
            explanation="The restart only costs time when a transfer larger than the initial"
            " window follows an idle period longer than the RTO; none did.",
            remedies=REMEDIES,
            parameters=params,
        )
    affected.sort(key=lambda c: (len(c.restarts), len(c.episodes)), reverse=True)
    worst = affected[0]
    episode_count = sum(len(c.episodes) for c in affected)
    restarts = [e for c in affected for e in c.restarts]
    if episode_count < MIN_EPISODES and not restarts:
        return Finding(
            id=ID,
            title=TITLE,
            verdict="ruled_out",
            summary=f"The setting {SYSCTL} = 1, but only {episode_count} burst followed an idle period longer than"
            f" the RTO (threshold {MIN_EPISODES}) and no cwnd restart was caught"
            f" ({len(conns)} connections, {snapshots} snapshots): no recurring cost.",
            evidence=[*setting_evidence, _episode_evidence(worst)],
            explanation="The restart costs time on every burst that follows an idle period"
            " longer than the RTO; a single such burst is not the pattern of report B.",
            remedies=REMEDIES,
            parameters=params,
        )
    verdict: Verdict = "confirmed" if episode_count >= MIN_EPISODES and restarts else "likely"
    evidence = [*setting_evidence, _episode_evidence(worst)]
    if worst.restarts:
        evidence.append(_restart_evidence(worst, worst.restarts[0]))
    first = worst.restarts[0] if worst.restarts else worst.episodes[0]
    summary = (
        f"The setting {SYSCTL} = 1 and {episode_count} burst(s) after idle > RTO on {len(affected)}"
        f" connection(s) ({worst.congestion_control}); e.g. {connection_label(worst.key)} idled"
        f" {fmt_seconds(first.idle_ms / 1000)} (RTO {first.rto_ms:.0f} ms) then sent"
        f" {fmt_bytes(first.burst_bytes)}"
    )
    if restarts:
        summary += (
            f", cwnd falling from {first.cwnd_before:.0f} to {first.cwnd_after:.0f} segments"
            f" ({len(restarts)} restart(s) caught)."
        )
    else:
        summary += "; no snapshot caught a burst mid-way to show the cwnd restart."
    explanation = (
        "After sending nothing for longer than the RTO the kernel restarts the congestion"
        f" window (tcp_cwnd_restart: halved per idle RTO, down to {INITIAL_CWND_SEGMENTS}"
        " segments), so each burst climbs through slow start again, one round trip per"
        f" doubling. Here {connection_label(worst.key)} idled {fmt_seconds(first.idle_ms / 1000)}"
        f" against an RTO of {first.rto_ms:.0f} ms before sending {fmt_bytes(first.burst_bytes)}"
        + (
            f"; its cwnd went from {first.cwnd_before:.0f} to {first.cwnd_after:.0f} segments"
            if first.restart
            else ""
        )
        + ". Report B: 4 MB every 10 s took 102 ms with the setting on, 43 ms with it off."
    )
    return Finding(
        id=ID,
        title=TITLE,
        verdict=verdict,
        summary=summary,
        evidence=evidence,
        explanation=explanation,
        remedies=REMEDIES,
        missing=[] if verdict == "confirmed" else [MISSING_SS],
        parameters=params,
    )


def _episode_evidence(conn: _Conn) -> Evidence:
    host, local, peer = conn.key
    first, last = conn.episodes[0], conn.episodes[-1]
    return Evidence(
        summary=f"{len(conn.episodes)} burst(s) after idle > RTO on {connection_label(conn.key)}"
        f" ({conn.congestion_control}), e.g. idle {fmt_seconds(first.idle_ms / 1000)} vs RTO"
        f" {first.rto_ms:.0f} ms, then {fmt_bytes(first.burst_bytes)}",
        observed=len(conn.episodes),
        threshold=MIN_EPISODES,
        unit="episodes",
        from_ms=first.idle_at,
        to_ms=last.burst_at,
        series="tcp.conn.lastsnd_ms",
        labels={"local": local, "peer": peer},
        artifact=conn.artifact,
        host=host,
    )


def _restart_evidence(conn: _Conn, episode: _Episode) -> Evidence:
    host, local, peer = conn.key
    return Evidence(
        summary=f"cwnd {episode.cwnd_before:.0f} -> {episode.cwnd_after:.0f} segments after"
        f" {fmt_seconds(episode.idle_ms / 1000)} idle, no retransmission",
        observed=episode.cwnd_after,
        threshold=max(INITIAL_CWND_SEGMENTS, round(CWND_DROP_RATIO * episode.cwnd_before)),
        unit="segments",
        from_ms=episode.idle_at,
        to_ms=episode.burst_at,
        series="tcp.conn.cwnd",
        labels={"local": local, "peer": peer},
        artifact=conn.artifact,
        host=host,
    )
