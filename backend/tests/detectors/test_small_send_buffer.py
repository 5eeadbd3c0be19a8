"""small_send_buffer: the buffer's payload per RTT bounds the connection; the kernel's word first."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

ID = "small_send_buffer"
SENDER, RECEIVER = "10.0.0.1:5001", "10.0.0.2:40000"
RULE = registry.CHECKLISTS[ID].rule


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, RULE.thresholds)
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
    # the payload the 32 KiB buffer holds (Send-Q / w = 0.64 of it) per RTT
    # the payload the full buffer held (Send-Q 21 720 B) per RTT, not tb / RTT
    assert "here 21 KiB (the largest Send-Q while the 32 KiB buffer was full" in finding.explanation
    assert "/ 20 ms = 1.0 MiB/s" in finding.explanation
    assert any("SO_SNDBUF" in r and "autotuning" in r for r in finding.remedies)
    bound = next(e for e in finding.evidence if e.series == "tcp.conn.unacked")
    assert (
        bound.observed == 1.0 and bound.threshold == RULE.thresholds["buffer_bound_min_share"].value
    )
    assert bound.met and bound.threshold_name == "buffer_bound_min_share"
    assert bound.host == "sender" and bound.labels == {"local": SENDER, "peer": RECEIVER}


def kernel_says_sndbuf_limited(n: int = 10, *, rtt_ms: float = 20.4) -> Capture:
    """Issue 11 item 2: SO_SNDBUF 16 KB (tb 32 KiB), a 20 ms path, cwnd far above what the
    buffer lets out, sndbuf_limited ~70 % of busy time, Send-Q pinned, no retransmits, an idle
    receiver; throughput from bytes_acked. No other connection to learn the path from."""
    capture = Capture(kind="ss", host="sender")
    payload_per_s = 21720.0 / (rtt_ms / 1000.0) * 0.95
    connection(
        capture, SENDER, RECEIVER,
        skmem_tb=[32768.0] * n, skmem_w=[33280.0] * n, sendq__bytes=[21720.0] * n,
        unacked=[30.0] * n, cwnd=[200.0] * n, mss=[1448.0] * n, rtt_ms=[rtt_ms] * n,
        busy_ms=[1000.0 * (i + 1) for i in range(n)],
        sndbuf_limited_ms=[700.0 * (i + 1) for i in range(n)],
        bytes_acked=[payload_per_s * i for i in range(n)],
        delivery_rate_bps=[8 * 2.7 * 1024 * 1024] * n,  # one bursty sample, not the throughput
    )  # fmt: skip
    return capture


def test_confirmed_by_the_kernels_sndbuf_limited_without_a_control_run() -> None:
    finding = check(incident(kernel_says_sndbuf_limited()))
    assert finding.verdict == "confirmed", finding.summary
    assert "sndbuf_limited 70 %" in finding.summary
    # the path's capacity comes from the connection itself: cwnd x mss / RTT
    assert "cwnd x mss / RTT" in finding.summary


def test_the_bound_holds_against_the_kernels_accounting() -> None:
    """A bound the measurement beats is a wrong bound: skmem counts truesize, Send-Q payload."""
    finding = check(incident(kernel_says_sndbuf_limited()))
    ratio = next(e for e in finding.evidence if e.series == "tcp.conn.bytes_acked")
    assert isinstance(ratio.observed, float) and 0.8 <= ratio.observed <= 1.0, ratio.summary
    assert ratio.met
    # the old bound, tb / RTT (32 KiB / 20.4 ms = 1.5 MiB/s), is not what the evidence states
    assert "1.5 MiB/s" not in finding.summary


def test_a_measurement_past_the_bound_refutes_it() -> None:
    capture = kernel_says_sndbuf_limited()
    fast = Capture(kind="ss", host="sender")
    n = 10
    connection(
        fast, SENDER, RECEIVER,
        skmem_tb=[32768.0] * n, skmem_w=[33280.0] * n, sendq__bytes=[21720.0] * n,
        unacked=[15.0] * n, cwnd=[200.0] * n, mss=[1448.0] * n, rtt_ms=[20.4] * n,
        bytes_acked=[3_000_000.0 * i for i in range(n)],  # 3 MB/s through a 1 MB/s bound
    )  # fmt: skip
    assert capture and check(incident(fast)).verdict == "ruled_out"


def test_healthy_fast_sender_with_autotuned_buffers_is_ruled_out() -> None:
    """80 ms path, autotuning grew tb to 6 MiB, the peer's window or cwnd holds the data."""
    capture = Capture(kind="ss", host="sender")
    n = 20
    connection(
        capture, SENDER, RECEIVER,
        skmem_tb=[6.0 * 2**20] * n, skmem_w=[1.5 * 2**20] * n, sendq__bytes=[1.0 * 2**20] * n,
        unacked=[700.0] * n, cwnd=[700.0] * n, mss=[1448.0] * n, rtt_ms=[80.0] * n,
        busy_ms=[1000.0 * (i + 1) for i in range(n)],
        bytes_acked=[12e6 * i for i in range(n)],
    )  # fmt: skip
    finding = check(incident(capture))
    assert finding.verdict == "ruled_out"
    assert not any(e.met for e in finding.evidence if e.symptom)


def test_likely_without_unacked_or_busy_data() -> None:
    capture = Capture(kind="ss", host="sender")
    connection(capture, SENDER, RECEIVER, skmem_tb=[32768.0] * 5, sendq__bytes=[30000.0] * 5,
               rtt_ms=[20.0] * 5, delivery_rate_bps=[10e6] * 5)  # fmt: skip
    assert check(incident(capture)).verdict == "likely"


def test_ruled_out_when_the_peer_window_holds_the_data() -> None:
    # a slow receiver: Send-Q at the buffer but in flight only 2 segments (zero window)
    finding = check(incident(lab_like(unacked=2.0)))
    assert finding.verdict == "ruled_out"
    assert "in 0 % of the snapshots" in finding.summary and "threshold 50 %" in finding.summary


def test_ruled_out_on_real_loopback_capture_with_cwnd_bound_retransmissions() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "sysctl/sysctl-net.txt"))
    assert finding.verdict == "ruled_out"
    assert "14 judged" in finding.summary


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
    assert check(lab_incident("small_send_buffer/base")).verdict == "confirmed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "x", "y", skmem_tb=[0.0], sendq__bytes=[5.0], rtt_ms=[0.0])
    connection(capture, "[::1]:1", "[::1]:2", skmem_tb=[], busy_ms=[0.0, 0.0])
    check(incident(capture))


def _idle_client(n: int, *, app_limited: float | None) -> Capture:
    """A desktop's HTTPS connection (corpus: ss ... desktop-pcp): initial cwnd, 7.5 KB sent in
    its life, pacing 2.37 Mbit/s from cwnd / RTT, nothing queued in an 85 KiB buffer."""
    capture = Capture(kind="ss", host="desktop")
    extra = {} if app_limited is None else {"app_limited": [app_limited] * n}
    connection(
        capture, "10.0.0.10:33370", "142.250.70.164:443",
        skmem_tb=[87040.0] * n, skmem_w=[0.0] * n, sendq__bytes=[0.0] * n, cwnd=[10.0] * n,
        mss=[1448.0] * n, rtt_ms=[48.0] * n, pacing_rate_bps=[2371376.0] * n,
        bytes_acked=[7525.0] * n, busy_ms=[1150.0] * n, delivery_rate_bps=[460000.0] * n,
        **extra,
    )  # fmt: skip
    return capture


def test_an_application_limited_connection_does_not_tell_the_path_capacity() -> None:
    """ss marks app_limited where the application had nothing more to send: its cwnd (still
    the initial 10) and the pacing rate derived from it say what was sent, not what the path
    would carry, so no capacity or BDP is stated from them (DOMAIN: only when not buffer- or
    application-limited). The verdict is the same: nothing was ever queued."""
    for n in (1, 5, 30):
        limited = check(incident(_idle_client(n, app_limited=1.0)))
        assert limited.verdict == "ruled_out"
        # nothing was ever queued: no "0 % of the snapshots with data queued (0 of 0)"
        assert "(0 of 0" not in limited.summary and not any(
            "(0 of 0" in e.summary for e in limited.evidence
        ), limited.summary
        assert "The path would carry" not in limited.explanation, limited.explanation
        assert "pacing rate" not in limited.explanation + limited.summary
        # Snapshots without the flag tell it, as before.
        for flag in (None, 0.0):
            free = check(incident(_idle_client(n, app_limited=flag)))
            assert free.verdict == "ruled_out"
            assert "The path would carry 295 KiB/s (cwnd x mss / RTT)" in free.explanation, (
                free.explanation
            )


# Independent reproductions (indep14: a Python sender with SO_SNDBUF 16 KB and TCP_CONGESTION
# set per socket, a Java sink, RTT 50 ms; the sender's ss -tinm as the collector wrote it;
# tests/fixtures/ss/README.md).


def test_the_kernels_sndbuf_limited_stands_for_a_send_q_below_80_percent() -> None:
    """bbr, 8 KB writes: the kernel wakes the writer when the buffer is a third free, so w
    swings between ~22 and 33 KiB of tb 32 KiB and snapshots see it past 80 % in only 8 of 20;
    the kernel's clock says sndbuf_limited 46 % of busy time: its word, not the proxy's."""
    data = fixture_incident("ss/ss-tinm-sndbuf16k-bbr-8k-writes-rtt50.txt", host="sender")
    finding = check(data)
    assert finding.verdict == "confirmed", finding.summary
    assert "sndbuf_limited 46 %" in finding.summary
    pinned = next(e for e in finding.evidence if e.threshold_name == "pinned_min_share")
    assert not pinned.met and pinned.observed == 0.4


def test_the_bound_is_the_most_the_full_buffer_let_out() -> None:
    """cubic, GSO at the veth's 64 KB, 128 KB writes: every write lands whole when w drops
    under tb, so Send-Q is 128 KiB in most snapshots and 384 KiB in some; 5.3 MiB/s moved
    (270 KB per 50 ms). The typical Send-Q / RTT (2.5 MiB/s) is beaten by the measurement;
    the most the full buffer let out (384 KiB / RTT) holds, and the buffer held the sender to
    a sixth of what its cwnd and pacing rate would carry."""
    data = fixture_incident(
        "ss/ss-tinm-sndbuf16k-cubic-gso64k-128k-writes-rtt50.txt", host="sender"
    )
    finding = check(data)
    assert finding.verdict == "confirmed", finding.summary
    ratio = next(e for e in finding.evidence if e.series == "tcp.conn.bytes_acked")
    assert isinstance(ratio.observed, float) and 0.5 <= ratio.observed <= 1.0, ratio.summary
    assert "384 KiB in flight" in ratio.summary


def test_the_full_buffer_the_kernel_states_explains_the_queue_other_items_see() -> None:
    """The same bbr capture through the whole checklist: the Send-Q single_connection_bottleneck
    sees on the one connection (past half of tb in 19 of 20 snapshots) is the send buffer the
    kernel says held the sender back, not requests sharing a connection (one symptom, one
    cause)."""
    data = fixture_incident("ss/ss-tinm-sndbuf16k-bbr-8k-writes-rtt50.txt", host="sender")
    findings = {f.id: f for f in registry.run_all(data)}
    assert findings[ID].verdict == "confirmed"
    single = findings["single_connection_bottleneck"]
    assert single.verdict == "ruled_out" and single.explained_by == [ID], single.summary
