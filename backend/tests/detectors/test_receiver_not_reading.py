"""receiver_not_reading: the kernel's three signs of a reader falling behind: the receive
buffer full (skmem r against rb), the sender rwnd_limited, zero windows advertised or probed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_hosts,
    fixture_incident,
    incident,
    odd_incidents,
)

ID = "receiver_not_reading"
SERVER, CLIENT = "10.0.0.1:5003", "10.0.0.2:52424"
RULE = registry.CHECKLISTS[ID].rule
RB = 8_000_000.0


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, RULE.thresholds)
    return finding


def receiver(fill, rb=RB):  # type: ignore[no-untyped-def]
    """The receiving end: skmem r at ``fill`` x rb, Recv-Q the payload of it."""
    capture = Capture(kind="ss", host="receiver")
    return connection(
        capture, SERVER, CLIENT, recvq__bytes=[f * rb * 0.64 for f in fill],
        skmem_r=[f * rb for f in fill], skmem_rb=[rb] * len(fill),
    )  # fmt: skip


def sender(rwnd_ms, busy_ms, sendq=None):  # type: ignore[no-untyped-def]
    capture = Capture(kind="ss", host="sender")
    fields = {"rwnd_limited_ms": rwnd_ms, "busy_ms": busy_ms}
    if sendq is not None:
        fields["sendq__bytes"] = sendq
    return connection(capture, CLIENT, SERVER, **fields)


def zero_windows(host: str, name: str, increments: list[float]) -> Capture:
    return Capture(kind="nstat", host=host).counter(name, increments)


STALL = [0.0, 0.04] + [0.999] * 6 + [0.0, 0.0]
BUSY = [1000.0 * (i + 1) for i in range(10)]
RWND = [0.0, 500.0] + [500.0 + 1000 * i for i in range(1, 9)]


def test_confirmed_with_the_buffer_full_and_an_rwnd_limited_sender() -> None:
    finding = check(incident(receiver(STALL), sender(RWND, BUSY, [1.8e6] * 10)))
    assert finding.verdict == "confirmed", finding.summary
    assert "for 6 snapshots in a row" in finding.summary
    assert "rwnd_limited 94 % of 9.0 s busy" in finding.summary  # (8500 - 0) / (10000 - 1000)
    pile = next(e for e in finding.evidence if e.series == "tcp.conn.recvq.bytes")
    assert pile.host == "receiver" and pile.to_ms - pile.from_ms == 5000
    assert pile.symptom and pile.symptom.startswith("recvq_full@")
    # the sender's Send-Q is on the same entity: this mechanism explains it
    sendq = next(e for e in finding.evidence if e.symptom and e.symptom.startswith("sendq_full"))
    assert sendq.symptom.split("@")[1] == pile.symptom.split("@")[1]
    assert not finding.missing


def test_confirmed_by_the_buffer_and_zero_window_counters_one_source_per_host() -> None:
    # nstat and netstat -s of one host both carry the counter: read once, not summed
    nstat = zero_windows("receiver", "TcpExtTCPToZeroWindowAdv", [0, 2, 0])
    netstat = zero_windows("receiver", "TcpExtTCPToZeroWindowAdv", [0, 2, 0])
    want = zero_windows("receiver", "TcpExtTCPWantZeroWindowAdv", [0, 2, 0])  # same events
    finding = check(incident(receiver(STALL), nstat, netstat, want))
    assert finding.verdict == "confirmed", finding.summary
    zero = next(e for e in finding.evidence if e.threshold_name == "zero_window_min_events")
    assert zero.observed == 2.0


def test_confirmed_on_real_slow_reader_capture_and_zero_window_counters() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed", finding.summary
    assert "127.0.0.1:5001" in finding.summary and "advertised" in finding.summary


def test_likely_with_zero_windows_alone() -> None:
    finding = check(incident(zero_windows("h1", "TcpExtTCPToZeroWindowAdv", [0, 2, 0])))
    assert finding.verdict == "likely"
    assert "2 advertised" in finding.summary and finding.entity == "host h1"


def test_a_healthy_run_is_ruled_out_with_its_numbers() -> None:
    # Issue 11 item 4: a healthy run got likely with two of three items below thresholds and a
    # hint to collect the ss -tinm that was there. A likely needs an item past its threshold.
    nstat = zero_windows("receiver", "TcpExtTCPToZeroWindowAdv", [0, 0, 0, 0])
    finding = check(
        incident(receiver([0.0, 0.01, 0.0, 0.0, 0.005]), sender([0.0] * 5, BUSY[:5]), nstat)
    )
    assert finding.verdict == "ruled_out", finding.summary
    assert "rwnd_limited 0 %" in finding.summary and "threshold 25 %" in finding.summary
    assert "0 advertised" in finding.summary
    assert not finding.missing


def test_boundary_three_full_snapshots_in_a_row() -> None:
    at = [0.0, 0.9, 0.9, 0.9, 0.0]  # exactly 90 % of rb, 3 in a row
    assert check(incident(receiver(at))).verdict == "likely"
    two = [0.0, 0.9, 0.9, 0.0, 0.9]
    assert check(incident(receiver(two))).verdict == "ruled_out"
    below = [0.0, 0.89, 0.89, 0.89, 0.0]
    assert check(incident(receiver(below))).verdict == "ruled_out"


def test_a_reader_keeping_a_steady_queue_is_not_a_stalled_reader() -> None:
    # One I/O thread behind many requests keeps the queue at ~60 % of rb (the window it can
    # offer): requests wait, but the buffer never fills and no zero window is sent.
    finding = check(incident(receiver([0.6] * 10, rb=131072.0)))
    assert finding.verdict == "ruled_out"


def test_another_hosts_counters_are_not_this_connections() -> None:
    elsewhere = zero_windows("elsewhere", "TcpExtTCPToZeroWindowAdv", [0, 3, 0])
    finding = check(incident(receiver([0.0, 0.0, 0.0]), elsewhere))
    # the connection is ruled out on its own host; the other host is judged on its own
    assert finding.verdict == "likely" and finding.entity == "host elsewhere"


def test_a_reader_standing_still_with_its_buffer_full_is_a_stall() -> None:
    # The kernel: with the buffer full, bytes arrive only as fast as the application reads.
    # bytes_received flat over the full snapshots is a reader that stopped.
    capture = receiver(STALL)
    received = [1e6, 5e6] + [9e6] * 6 + [2e7, 3e7]
    capture.series(
        "tcp.conn.bytes_received", received, unit="bytes",
        labels={"local": SERVER, "peer": CLIENT},
    )  # fmt: skip
    finding = check(incident(capture))
    assert finding.verdict == "confirmed", finding.summary  # the full buffer and the stall
    stalled = next(e for e in finding.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.met and stalled.observed == 1.0 and stalled.symptom is None
    assert stalled.series == "tcp.conn.bytes_received" and stalled.host == "receiver"
    assert stalled.to_ms - stalled.from_ms == 5000  # the 5 intervals the buffer stayed full
    assert "stayed flat in 5 of 5 intervals" in stalled.summary


def test_a_slow_reader_reading_through_a_full_buffer_is_no_stall() -> None:
    # One I/O thread reading at a capped pace: bytes_received grows in every full interval.
    capture = receiver(STALL)
    capture.series(
        "tcp.conn.bytes_received", [1e6 + 4e6 * i for i in range(10)], unit="bytes",
        labels={"local": SERVER, "peer": CLIENT},
    )  # fmt: skip
    finding = check(incident(capture))
    assert finding.verdict == "likely", finding.summary  # the full buffer alone
    stalled = next(e for e in finding.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.met is False and stalled.observed == 0.0


def test_a_stall_seen_from_the_sender_alone() -> None:
    # Only the sender captured: the peer's window held it back and bytes_acked stood still.
    acked = [1e6] + [5e6] * 9  # moved in the first held interval, then never
    capture = sender(RWND, BUSY, [1.8e6] * 10)
    capture.series(
        "tcp.conn.bytes_acked", acked, unit="bytes", labels={"local": CLIENT, "peer": SERVER}
    )
    finding = check(incident(capture))
    assert finding.verdict == "confirmed", finding.summary  # rwnd_limited and the stall
    stalled = next(e for e in finding.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.series == "tcp.conn.bytes_acked" and stalled.host == "sender"
    assert "stayed flat in 8 of 9 intervals" in stalled.summary


def test_evidence_is_keyed_to_the_connection_from_both_ends() -> None:
    # Zero-window counters are host-wide, but they are keyed like the rest to the connection,
    # so a cause confirmed on the same connection (single_connection_bottleneck) matches them.
    nstat = zero_windows("receiver", "TcpExtTCPToZeroWindowAdv", [0, 2, 0])
    finding = check(incident(receiver(STALL), sender(RWND, BUSY, [1.8e6] * 10), nstat))
    keys = {e.symptom.split("@", 1)[1] for e in finding.evidence if e.symptom}
    assert keys == {"conn:10.0.0.1:5003|10.0.0.2:52424"}
    assert {e.symptom.split("@")[0] for e in finding.evidence if e.symptom} == {
        "recvq_full", "rwnd_limited", "zero_window", "sendq_full",
    }  # fmt: skip


def test_insufficient_data_without_ss_or_counters() -> None:
    finding = check(incident(Capture(kind="nmon").series("cpu.user_pct", [5, 5])))
    assert finding.verdict == "insufficient_data"
    assert any("nstat" in m.command for m in finding.missing)


def test_a_recv_q_without_the_buffer_size_rules_nothing_out() -> None:
    """ss -tan or /proc/net/tcp give Recv-Q alone: how full the buffer is stays unknown, so
    the finding says insufficient data, never "ruled out" with "0 % of its n/a buffer"."""
    capture = Capture(kind="ss", host="receiver")
    connection(capture, SERVER, CLIENT, recvq__bytes=[0.0, 4e6, 4e6, 4e6, 4e6])
    finding = check(incident(capture))
    assert finding.verdict == "insufficient_data", finding.summary


def test_lab_stalled_reader_confirmed_healthy_and_single_connection_ruled_out() -> None:
    finding = check(lab_incident("receiver_not_reading/base"))
    assert finding.verdict == "confirmed", finding.summary
    stalled = next(e for e in finding.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.met and stalled.observed == 1.0  # bytes_received flat the whole stall
    for other in ("healthy/base", "single_connection_bottleneck/sleep_decode"):
        assert check(lab_incident(other)).verdict == "ruled_out", other


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "a", "b", recvq__bytes=[7.0], skmem_rb=[0.0])
    connection(capture, "c:1", "d:2", busy_ms=[5.0, 5.0, 5.0], rwnd_limited_pct=[100.0])
    connection(capture, "e:1", "f:2", recvq__bytes=[5.0, 5.0], skmem_r=[1.0], skmem_rb=[1.0, 0.0])
    check(incident(capture))


# Independent reproductions (indep14: a Java reader on one namespace, a Java bulk writer on
# the other, RTT 30 ms, ss -tinm and nstat of both ends as the collector wrote them; see
# tests/fixtures/ss/README.md and tests/fixtures/nstat/README.md).


def both_ends(name: str, *, nstat: bool = False) -> IncidentData:
    """The fixtures of both hosts, parsed with the real parsers, each with its host."""
    return fixture_hosts(
        {
            host: [f"ss/ss-tinm-{name}-{host}.txt"]
            + ([f"nstat/nstat-az-{name}-{host}.txt"] if nstat else [])
            for host in ("receiver", "sender")
        }
    )


def test_a_small_receive_buffer_read_at_once_is_not_a_reader_falling_behind() -> None:
    """SO_RCVBUF 64 KB (rb 128 KiB), a reader that reads whatever arrives: the sender is
    rwnd_limited 43 % of its busy time (the window is the buffer's size), while the
    receiver's Recv-Q is 0 in all 17 snapshots (so ss's Recv-Q series is not even kept)."""
    finding = check(both_ends("rcvbuf64k-reader-keeps-up"))
    assert finding.verdict == "ruled_out", finding.summary
    lag = next(e for e in finding.evidence if e.threshold_name == "recv_lag_min_ratio")
    assert lag.observed == 0.0 and not lag.met
    full = next(e for e in finding.evidence if e.threshold_name == "min_full_snapshots")
    assert full.observed == 0 and "on receiver" in full.summary


def test_zero_windows_counted_on_the_senders_host_are_not_the_readers() -> None:
    """An autotuned reader keeping up with a bulk writer: the receiver's host counted no zero
    window; the sender's host counted 22 TCPWantZeroWindowAdv (its own socket, which receives
    nothing but ACKs). A zero window is the receiving end's advertisement."""
    finding = check(both_ends("bulk-reader-keeps-up", nstat=True))
    assert finding.verdict == "ruled_out", finding.summary
    zero = next(e for e in finding.evidence if e.threshold_name == "zero_window_min_events")
    assert zero.observed == 0.0 and not zero.met
