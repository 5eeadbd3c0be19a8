"""slow_start_after_idle: the sysctl, idle > RTO then bursts, cwnd falling back, bbr exempt."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import slow_start_after_idle as detector
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

SERVER, CLIENT = "10.0.0.1:5004", "10.0.0.2:41000"
MB = 1024 * 1024.0


def check(data):  # type: ignore[no-untyped-def]
    finding = detector.detect(data)
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def bursty(setting="1", cc="cubic", *, cwnd=None, retrans=None, sendq=None):  # type: ignore[no-untyped-def]
    """A server sending 4 MB every 3 s, snapshots every second: idle 2 s (> RTO 220 ms) at the
    snapshot before each burst; the snapshot during a burst catches cwnd climbing from 10."""
    acked = [0, 4, 4, 4, 8, 8, 8, 12, 12, 12]
    lastsnd = [50, 950, 1950, 2950, 30, 1000, 2000, 40, 1040, 2040]
    capture = Capture(kind="ss", host="server")
    connection(
        capture, SERVER, CLIENT,
        cwnd=cwnd or [300, 300, 300, 300, 12, 300, 300, 16, 300, 300],
        lastsnd_ms=lastsnd, rto_ms=[220.0] * 10, bytes_acked=[a * MB for a in acked],
        mss=[1448.0] * 10, retrans=retrans or [0.0] * 10,
        **({"sendq__bytes": sendq} if sendq else {}),
    )  # fmt: skip
    if setting is not None:
        capture.fact(detector.SYSCTL, setting)
    capture.fact(f"tcp.conn.cc[{SERVER} {CLIENT}]", cc)
    return capture


def test_confirmed_with_cwnd_falling_back_after_idle() -> None:
    finding = check(incident(bursty()))
    assert finding.verdict == "confirmed"
    assert "= 1 and 2 burst(s)" in finding.summary
    assert "cwnd falling from 300 to 12 segments" in finding.summary
    restart = next(e for e in finding.evidence if e.series == "tcp.conn.cwnd")
    assert restart.observed == 12 and restart.threshold == 150 and restart.host == "server"


def test_likely_when_no_snapshot_caught_a_burst() -> None:
    finding = check(incident(bursty(cwnd=[300.0] * 10)))
    assert finding.verdict == "likely"
    assert "no snapshot caught a burst" in finding.summary


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
    assert "bbr" in finding.summary


def test_a_stall_with_data_queued_is_not_idle() -> None:
    finding = check(incident(bursty(sendq=[5e5] * 10)))
    assert finding.verdict == "ruled_out"
    assert "no connection idled longer than its RTO" in finding.summary


def test_ruled_out_on_real_capture_with_steady_senders() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "sysctl/sysctl-net.txt"))
    assert finding.verdict == "ruled_out"
    assert "35 connections, 350 snapshots" in finding.summary


def test_boundary_burst_size() -> None:
    # a burst of exactly 2 initial windows (2 x 10 x 1448 bytes) counts; one byte less does not
    def run(burst: float) -> str:
        capture = Capture(kind="ss", host="server")
        connection(capture, SERVER, CLIENT, cwnd=[40, 40, 8, 40, 40, 8], lastsnd_ms=[5, 900, 10, 5, 900, 10],
                   rto_ms=[200.0] * 6, bytes_acked=[0, 0, burst, burst, burst, 2 * burst], mss=[1448.0] * 6)  # fmt: skip
        capture.fact(detector.SYSCTL, "1")
        return check(incident(capture)).verdict

    assert run(2 * 10 * 1448.0) == "confirmed"
    assert run(2 * 10 * 1448.0 - 1) == "ruled_out"


def test_insufficient_data_without_sysctl() -> None:
    finding = check(incident(bursty(setting=None)))
    assert finding.verdict == "insufficient_data"
    assert any("tcp_slow_start_after_idle" in m.command for m in finding.missing)


def test_insufficient_data_with_sysctl_but_no_ss() -> None:
    finding = check(incident(Capture(kind="sysctl").fact(detector.SYSCTL, "1")))
    assert finding.verdict == "insufficient_data"
    assert "= 1 (enabled)" in finding.summary
    assert any("ss -tinm" in m.command for m in finding.missing)


def test_lab_scenario_confirmed() -> None:
    assert check(lab_incident("slow_start_after_idle")).verdict == "confirmed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss").fact(detector.SYSCTL, "garbage")
    connection(capture, "a", "b", cwnd=[5.0], lastsnd_ms=[1e9])
    connection(capture, "c:1", "d:2", cwnd=[5.0, 5.0, 5.0], bytes_acked=[3.0, 1.0, 1e12])
    check(incident(capture))
