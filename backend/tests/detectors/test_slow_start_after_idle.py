"""slow_start_after_idle: the sending host's own sysctl, idle > RTO then bursts, cwnd falling
back, bbr exempt."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from rootline.detectors.slow_start_after_idle import SYSCTL
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

ID = "slow_start_after_idle"
SERVER, CLIENT = "10.0.0.1:5004", "10.0.0.2:41000"
MB = 1024 * 1024.0
RULE = registry.CHECKLISTS[ID].rule


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, RULE.thresholds)
    return finding


def bursty(setting="1", cc="cubic", *, cwnd=None, retrans=None, sendq=None, host="server"):  # type: ignore[no-untyped-def]
    """A server sending 4 MB every 3 s, snapshots every second: idle 2 s (> RTO 220 ms) at the
    snapshot before each burst; the snapshot during a burst catches cwnd climbing from 10."""
    acked = [0, 4, 4, 4, 8, 8, 8, 12, 12, 12]
    lastsnd = [50, 950, 1950, 2950, 30, 1000, 2000, 40, 1040, 2040]
    capture = Capture(kind="ss", host=host)
    connection(
        capture, SERVER, CLIENT,
        cwnd=cwnd or [300, 300, 300, 300, 12, 300, 300, 16, 300, 300],
        lastsnd_ms=lastsnd, rto_ms=[220.0] * 10, bytes_acked=[a * MB for a in acked],
        mss=[1448.0] * 10, retrans=retrans or [0.0] * 10,
        **({"sendq__bytes": sendq} if sendq else {}),
    )  # fmt: skip
    if setting is not None:
        capture.fact(SYSCTL, setting)
    capture.fact(f"tcp.conn.cc[{SERVER} {CLIENT}]", cc)
    return capture


def test_confirmed_with_cwnd_falling_back_after_idle() -> None:
    finding = check(incident(bursty()))
    assert finding.verdict == "confirmed", finding.summary
    assert "= 1 on this connection's own host" in finding.summary
    assert "2 bursts" in finding.summary
    assert "2 cwnd restarts caught: 300 -> 12 segments" in finding.summary
    restart = next(e for e in finding.evidence if e.threshold_name == "min_restarts")
    assert restart.observed == 2.0 and restart.met and restart.host == "server"
    assert restart.series == "tcp.conn.cwnd" and restart.from_ms is not None
    assert any("tcp_slow_start_after_idle=0" in r for r in finding.remedies)


def test_likely_when_no_snapshot_caught_a_burst() -> None:
    finding = check(incident(bursty(cwnd=[300.0] * 10)))
    assert finding.verdict == "likely"
    assert "no snapshot caught cwnd falling back" in finding.summary
    assert not finding.missing  # hints only when data is missing


def test_drop_after_loss_is_not_a_restart() -> None:
    retrans = [0, 0, 0, 0, 5, 5, 5, 9, 9, 9]
    assert check(incident(bursty(retrans=retrans))).verdict == "likely"


def test_ruled_out_when_the_setting_is_zero() -> None:
    finding = check(incident(bursty(setting="0")))
    assert finding.verdict == "ruled_out"
    assert "tcp_slow_start_after_idle = 0" in finding.summary


def test_ruled_out_for_bbr() -> None:
    finding = check(incident(bursty(cc="bbr")))
    assert finding.verdict == "ruled_out"
    assert "congestion control bbr" in finding.summary
    assert not any("tcp_slow_start_after_idle=0" in r for r in finding.remedies)


def test_a_stall_with_data_queued_is_not_idle() -> None:
    finding = check(incident(bursty(sendq=[5e5] * 10)))
    assert finding.verdict == "ruled_out"
    assert "no burst of >= 2 initial windows followed an idle period" in finding.summary


def test_another_hosts_setting_is_not_this_hosts() -> None:
    # The client's sysctl says nothing of the server's sockets (issue 11 item 6).
    client = Capture(kind="sysctl", host="client").fact(SYSCTL, "1")
    finding = check(incident(bursty(setting=None), client))
    assert finding.verdict == "insufficient_data"
    assert any("tcp_slow_start_after_idle" in m.command for m in finding.missing)
    # and the other way round: the server's 0 does not clear the client's 1
    client_conn = bursty(setting="1", host="client")
    server_zero = Capture(kind="sysctl", host="server").fact(SYSCTL, "0")
    assert check(incident(client_conn, server_zero)).verdict == "confirmed"


def test_ruled_out_on_real_capture_with_steady_senders() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "sysctl/sysctl-net.txt"))
    assert finding.verdict == "ruled_out"
    assert "35 judged" in finding.summary


def test_boundary_burst_size() -> None:
    # a burst of exactly 2 initial windows (2 x 10 x 1448 bytes) counts; one byte less does not
    def run(burst: float) -> str:
        capture = Capture(kind="ss", host="server")
        connection(capture, SERVER, CLIENT, cwnd=[40, 40, 8, 40, 40, 8], lastsnd_ms=[5, 900, 10, 5, 900, 10],
                   rto_ms=[200.0] * 6, bytes_acked=[0, 0, burst, burst, burst, 2 * burst], mss=[1448.0] * 6)  # fmt: skip
        capture.fact(SYSCTL, "1")
        return check(incident(capture)).verdict

    assert run(2 * 10 * 1448.0) == "confirmed"
    assert run(2 * 10 * 1448.0 - 1) == "ruled_out"


def test_insufficient_data_without_sysctl() -> None:
    finding = check(incident(bursty(setting=None)))
    assert finding.verdict == "insufficient_data"
    assert any("tcp_slow_start_after_idle" in m.command for m in finding.missing)


def test_insufficient_data_with_sysctl_but_no_ss() -> None:
    finding = check(incident(Capture(kind="sysctl").fact(SYSCTL, "1")))
    assert finding.verdict == "insufficient_data"
    assert any("ss -tinm" in m.command for m in finding.missing)


def test_ruled_out_with_the_setting_zero_and_no_ss() -> None:
    finding = check(incident(Capture(kind="sysctl").fact(SYSCTL, "0")))
    assert finding.verdict == "ruled_out"
    assert "= 0" in finding.summary


def test_lab_restart_confirmed_and_sysctl0_ruled_out() -> None:
    finding = check(lab_incident("slow_start_after_idle/base"))
    assert finding.verdict == "confirmed", finding.summary
    contrast = check(lab_incident("slow_start_after_idle/sysctl0"))
    assert contrast.verdict == "ruled_out", contrast.summary
    assert check(lab_incident("healthy/base")).verdict == "ruled_out"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss").fact(SYSCTL, "garbage")
    connection(capture, "a", "b", cwnd=[5.0], lastsnd_ms=[1e9])
    connection(capture, "c:1", "d:2", cwnd=[5.0, 5.0, 5.0], bytes_acked=[3.0, 1.0, 1e12])
    check(incident(capture))
