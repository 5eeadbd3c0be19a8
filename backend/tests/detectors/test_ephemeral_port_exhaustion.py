"""ephemeral_port_exhaustion: a client's local ports towards one destination, from its own
port range; server-side TIME-WAIT (on the listening port) never counts."""

from __future__ import annotations

from pathlib import Path

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers import ss
from rootline.parsers.base import ParseContext
from tests.detectors.net_incident import assert_well_formed, fixture_hosts
from tests.detectors.runtime_incident import T0, Capture, incident

ID = "ephemeral_port_exhaustion"
DEST = "10.77.0.1:5012"


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, registry.CHECKLISTS[ID].rule.thresholds)
    return finding


def client(
    time_wait: list[float],
    estab: list[float] | None = None,
    *,
    port_range: str = "40000 40999",
    tw_reuse: str = "2",
    dest: str = DEST,
    host: str = "client",
    ports: tuple[int, int] | None = None,
) -> Capture:
    """The client's sockets towards ``dest`` per snapshot, as the ss parser counts them."""
    capture = Capture("ss", host)
    labels = {"peer": dest}
    capture.series(
        "tcp.peer.sockets", time_wait, unit="sockets", labels={**labels, "state": "time-wait"}
    )
    if estab is not None:
        capture.series(
            "tcp.peer.sockets", estab, unit="sockets", labels={**labels, "state": "estab"}
        )
    low, high = ports or (int(port_range.split()[0]), int(port_range.split()[0]) + 999)
    capture.series("tcp.peer.local_port_min", [low] * len(time_wait), unit="port", labels=labels)
    capture.series("tcp.peer.local_port_max", [high] * len(time_wait), unit="port", labels=labels)
    capture.fact("net.ipv4.ip_local_port_range", port_range).fact("net.ipv4.tcp_tw_reuse", tw_reuse)
    return capture


RAMP = [0.0, 200.0, 400.0, 600.0, 800.0, 990.0, 1000.0, 1000.0, 1000.0, 1000.0]


def test_confirmed_when_time_wait_fills_the_range_towards_one_destination() -> None:
    finding = check(incident(client(RAMP)))
    assert finding.verdict == "confirmed"
    assert finding.summary.startswith("Local ports ran out on client -> 10.77.0.1:5012")
    assert "100 % of the 1,000-port range 40000-40999" in finding.summary
    lead = finding.evidence[0]
    assert lead.met and lead.threshold_name == "range_likely_share" and lead.host == "client"
    assert lead.series == "tcp.peer.sockets" and lead.labels == {"peer": DEST}
    assert lead.from_ms == T0 + 5_000 and lead.to_ms == T0 + 9_000  # the snapshots at >= 90 %
    assert any("tcp_tw_reuse=1" in r for r in finding.remedies)
    assert any("ip_local_port_range='10240 65535' (now 40000-40999" in r for r in finding.remedies)


def test_tw_reuse_lets_connect_take_time_wait_ports() -> None:
    # tcp_tw_reuse=1: TIME-WAIT ports older than 1 s are reusable, only ESTAB ones are held.
    finding = check(incident(client(RAMP, estab=[8.0] * 10, tw_reuse="1")))
    assert finding.verdict == "ruled_out"
    assert "8 ports held at most" in finding.summary
    assert not any("tcp_tw_reuse=1" in r for r in finding.remedies)


def test_loopback_destinations_reuse_with_the_default_setting() -> None:
    # tcp_tw_reuse=2 (the default since Linux 4.19) reuses TIME-WAIT ports towards loopback.
    finding = check(incident(client(RAMP, dest="127.0.0.1:5012")))
    assert finding.verdict == "ruled_out"


def test_a_leaking_pool_fills_the_range_with_established_connections() -> None:
    held = [100.0 * i for i in range(10)]
    finding = check(incident(client([0.0] * 10, estab=held, tw_reuse="1")))
    assert finding.verdict == "confirmed"
    assert "900 local ports held" in finding.summary


def test_connect_failures_with_half_the_range_held_confirm() -> None:
    half = [0.0, 300.0, 600.0, 600.0]
    log = Capture("app_log", "client").event("connect_failed", 3.0, errno="EADDRNOTAVAIL")
    finding = check(incident(client(half), log))
    assert finding.verdict == "confirmed"
    assert "1 connect() failures with EADDRNOTAVAIL" in finding.summary
    without_log = check(incident(client(half)))
    assert without_log.verdict == "likely"


def test_connect_failures_alone_are_likely() -> None:
    log = Capture("app_log", "client").event("connect_failed", 3.0, errno="EADDRNOTAVAIL")
    log.fact("net.ipv4.ip_local_port_range", "32768 60999")
    finding = check(incident(log))
    assert finding.verdict == "likely"
    assert finding.summary.startswith("Local ports ran short on client (destination not listed)")


def test_healthy_pool_is_ruled_out_with_its_numbers() -> None:
    finding = check(incident(client([20.0] * 10, estab=[16.0] * 10, port_range="32768 60999")))
    assert finding.verdict == "ruled_out"
    assert "36 ports held at most, 0.13 % of the 28,232-port range" in finding.summary


def test_another_hosts_port_range_is_not_this_clients() -> None:
    capture = client(RAMP)
    capture.facts.clear()
    server = Capture("sysctl", "server").fact("net.ipv4.ip_local_port_range", "40000 40999")
    assert check(incident(capture, server)).verdict == "insufficient_data"


def parsed_ss(text: str, host: str) -> ParsedArtifact:
    return ParsedArtifact("ss.txt", host, ss.parse(text, ParseContext.for_zone("UTC")))


def test_server_side_time_wait_never_fires() -> None:
    """Issue 11 item 5: the server closed first, so its TIME-WAIT sockets sit on its listening
    port 5012, one per client port: no ephemeral port is taken, nothing to judge here."""
    header = "State Recv-Q Send-Q Local Address:Port Peer Address:Port"
    rows = [f"TIME-WAIT 0 0 10.77.0.1:5012 10.77.0.2:{40000 + i}" for i in range(1000)]
    listen = "LISTEN 0 4096 0.0.0.0:5012 0.0.0.0:*"
    text = "=== 2026-11-24T05:49:19Z ===\n" + "\n".join([header, listen, *rows]) + "\n"
    sysctl = Capture("sysctl", "server").fact("net.ipv4.ip_local_port_range", "40000 40999")
    data = MemoryIncidentData([parsed_ss(text, "server"), sysctl.artifact()])
    finding = check(data)
    assert finding.verdict == "insufficient_data"


def test_the_client_side_of_the_same_listing_is_judged() -> None:
    header = "State Recv-Q Send-Q Local Address:Port Peer Address:Port"
    rows = [f"TIME-WAIT 0 0 10.77.0.2:{40000 + i} 10.77.0.1:5012" for i in range(950)]
    text = "=== 2026-11-24T05:49:19Z ===\n" + "\n".join([header, *rows]) + "\n"
    sysctl = Capture("sysctl", "client").fact("net.ipv4.ip_local_port_range", "40000 40999")
    sysctl.fact("net.ipv4.tcp_tw_reuse", "0")
    finding = check(MemoryIncidentData([parsed_ss(text, "client"), sysctl.artifact()]))
    assert finding.verdict == "confirmed"
    assert "950 local ports held towards 10.77.0.1:5012" in finding.summary


def test_a_listening_port_is_not_an_ephemeral_one() -> None:
    # A host listening inside its own range (a misconfiguration the reserved ports avoid):
    # sockets on that one port towards one peer are its server side, never exhaustion.
    capture = client([900.0] * 5, ports=(40500, 40500))
    capture.series(
        "tcp.listen.backlog", [128] * 5, labels={"local": "0.0.0.0:40500", "port": "40500"}
    )
    finding = check(incident(capture))
    assert finding.verdict != "confirmed"


def test_insufficient_without_a_socket_listing() -> None:
    finding = check(incident(Capture("sysctl").fact("net.ipv4.ip_local_port_range", "1 2")))
    assert finding.verdict == "insufficient_data"
    assert any("ss -tan" in m.command for m in finding.missing)


# Independent reproduction (indep14): a Java client, 24 threads, 600 connections per second to
# a Java HTTP server that waits for the client to close first, 25 s; the collector's default
# ss -tinm (with a port filter) lists no TIME-WAIT socket; ss -s counted 14 982 on the client.
CLIENT_CLOSES_FIRST = {
    "client": [
        "ss/ss-tinm-client-closes-first.txt",
        "ss/ss-s-client-closes-first.txt",
        "sysctl/sysctl-client-closes-first.txt",
    ]
}


def test_time_wait_left_out_of_the_listing_cannot_rule_ports_out() -> None:
    """18 ESTABLISHED ports at most in the listing, 14 982 client TIME-WAIT sockets in ss -s
    (towards the one destination, each pinning a port for 60 s): 53 % of the 28 232-port
    range may be held. The listing without TIME-WAIT cannot rule the mechanism out."""
    finding = check(fixture_hosts(CLIENT_CLOSES_FIRST))
    assert finding.verdict == "insufficient_data", finding.summary
    assert "ss -s counted 14,982 TIME-WAIT sockets" in finding.summary
    assert "up to 53 % of the 28,232-port range" in finding.summary
    assert any("state all" in m.command for m in finding.missing)


def test_time_wait_left_out_still_rules_out_when_even_all_of_it_is_few(tmp_path: Path) -> None:
    """The same listing with a wider port range (1024-65535: 64 512 ports): even all 14 982
    TIME-WAIT sockets towards this destination would be 23 % of it, below the likely mark."""
    sysctl = tmp_path / "sysctl.txt"
    sysctl.write_text("net.ipv4.ip_local_port_range = 1024\t65535\nnet.ipv4.tcp_tw_reuse = 2\n")
    files = {"client": [*CLIENT_CLOSES_FIRST["client"][:2], str(sysctl)]}
    finding = check(fixture_hosts(files))
    assert finding.verdict == "ruled_out", finding.summary
    assert "23 % even with all 14,982 TIME-WAIT sockets" in finding.summary
