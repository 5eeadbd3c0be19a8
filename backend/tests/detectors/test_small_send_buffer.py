"""small_send_buffer: Send-Q pinned at a small tb, buffer-bound in-flight data, rate ~ tb / RTT."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import small_send_buffer as detector
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

SENDER, RECEIVER = "10.0.0.1:5001", "10.0.0.2:40000"


def check(data):  # type: ignore[no-untyped-def]
    finding = detector.detect(data)
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def lab_like(
    n=8, *, sendq=21720.0, unacked=15.0, cwnd=30.0, tb=32768.0, w=34200.0, rate=8.5e6, **extra
):  # type: ignore[no-untyped-def]
    """The lab's sender: SO_SNDBUF 16 KB (tb 32 KB), RTT 20 ms, everything queued in flight."""
    capture = Capture(kind="ss", host="sender")
    connection(
        capture, SENDER, RECEIVER,
        skmem_tb=[tb] * n, skmem_w=[w] * n, sendq__bytes=[sendq] * n, unacked=[unacked] * n,
        mss=[1448.0] * n, cwnd=[cwnd] * n, snd_wnd=[82944.0] * n, rtt_ms=[20.5] * n,
        delivery_rate_bps=[rate] * n, busy_ms=[1000.0 * (i + 1) for i in range(n)], **extra,
    )  # fmt: skip
    capture.fact("net.ipv4.tcp_wmem", "4096 16384 4194304").fact("net.core.wmem_max", "212992")
    return capture


def test_confirmed_when_only_the_buffer_holds_data_back() -> None:
    finding = check(incident(lab_like()))
    assert finding.verdict == "confirmed"
    assert "32 KiB / 20.5 ms = 1.5 MiB/s" in finding.summary
    assert "autotuning" in finding.explanation and "SO_SNDBUF" in finding.explanation
    bound = next(e for e in finding.evidence if e.series == "tcp.conn.unacked")
    assert bound.observed == 1.0 and bound.threshold == detector.BUFFER_BOUND_MIN_SHARE
    assert bound.host == "sender" and bound.labels == {"local": SENDER, "peer": RECEIVER}


def test_confirmed_by_the_kernels_sndbuf_limited_and_bdp_from_a_faster_connection() -> None:
    capture = lab_like(
        unacked=30.0,  # at cwnd: not bound by construction, so sndbuf_limited decides
        sndbuf_limited_ms=[400.0 * (i + 1) for i in range(8)],
    )
    # another connection to the same peer host shows what the path carries: 100 Mbit/s
    connection(
        capture, "10.0.0.1:5009", "10.0.0.2:40001", delivery_rate_bps=[100e6] * 8, rtt_ms=[20.0] * 8
    )
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    assert "sndbuf_limited 40 %" in finding.summary
    assert "BDP = 100 Mbit/s x 20.5 ms = 250 KiB" in finding.explanation


def test_likely_without_unacked_or_busy_data() -> None:
    capture = Capture(kind="ss", host="sender")
    connection(capture, SENDER, RECEIVER, skmem_tb=[32768.0] * 5, sendq__bytes=[30000.0] * 5,
               rtt_ms=[20.0] * 5, delivery_rate_bps=[10e6] * 5)  # fmt: skip
    assert check(incident(capture)).verdict == "likely"


def test_ruled_out_when_the_peer_window_holds_the_data() -> None:
    # a slow receiver: Send-Q at the buffer but in flight only 2 segments (zero window)
    finding = check(incident(lab_like(unacked=2.0)))
    assert finding.verdict == "ruled_out"
    assert "at most 0% of the snapshots" in finding.summary and "threshold 50%" in finding.summary


def test_ruled_out_on_real_loopback_capture_with_cwnd_bound_retransmissions() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "sysctl/sysctl-net.txt"))
    assert finding.verdict == "ruled_out"
    assert "35 connections" in finding.summary


def test_boundary_at_the_bound_share() -> None:
    # 4 of 8 snapshots bound (= 50 %, the threshold) -> limited; 3 of 8 -> not
    def run(bound: int):  # type: ignore[no-untyped-def]
        capture = Capture(kind="ss", host="sender")
        unacked = [15.0] * bound + [2.0] * (8 - bound)
        connection(capture, SENDER, RECEIVER, skmem_tb=[32768.0] * 8, skmem_w=[34200.0] * 8,
                   sendq__bytes=[21720.0] * 8, unacked=unacked, mss=[1448.0] * 8, cwnd=[30.0] * 8,
                   rtt_ms=[20.5] * 8, delivery_rate_bps=[8.5e6] * 8)  # fmt: skip
        return check(incident(capture)).verdict

    assert run(4) == "confirmed"
    assert run(3) == "ruled_out"


def test_insufficient_data_without_ss_m() -> None:
    finding = check(incident(Capture(kind="nstat").counter("TcpOutSegs", [5, 5])))
    assert finding.verdict == "insufficient_data"
    assert any("ss -tinm" in m.command for m in finding.missing)


def test_lab_scenario_confirmed() -> None:
    assert check(lab_incident("small_send_buffer")).verdict == "confirmed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "x", "y", skmem_tb=[0.0], sendq__bytes=[5.0], rtt_ms=[0.0])
    connection(capture, "[::1]:1", "[::1]:2", skmem_tb=[], busy_ms=[0.0, 0.0])
    check(incident(capture))
