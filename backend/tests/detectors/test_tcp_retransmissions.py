"""tcp_retransmissions: RetransSegs / OutSegs (SYN retries apart), windows, ss sockets."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import tcp_retransmissions as detector
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)


def check(data):  # type: ignore[no-untyped-def]
    finding = detector.detect(data)
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def counters(out, retrans, syn=None):  # type: ignore[no-untyped-def]
    capture = Capture(kind="nstat")
    capture.counter("TcpOutSegs", out, start=1000)
    capture.counter("TcpRetransSegs", retrans, start=10)
    if syn is not None:
        capture.counter("TcpExtTCPSynRetrans", syn)
    return capture


def test_ruled_out_on_real_capture_names_rate_and_volume() -> None:
    finding = check(fixture_incident("nstat/nstat-az-series.txt"))
    assert finding.verdict == "ruled_out"
    assert "0.031 % of 297,830 segments" in finding.summary
    assert "threshold 1.0 %" in finding.summary
    # the listener that never accepts caused SYN+ACK retries: counted apart
    assert any("134 SYN" in e.summary for e in finding.evidence)


def test_confirmed_when_three_percent_sustained() -> None:
    finding = check(incident(counters([1000] * 60, [40] * 60)))
    assert finding.verdict == "confirmed"
    assert "4.0 % of 60,000 segments" in finding.summary
    assert finding.evidence[0].threshold == detector.RETRANS_PCT_CONFIRMED
    assert "~6 segments per round trip" in finding.explanation


def test_likely_for_one_burst_in_a_long_capture() -> None:
    out = [1000] * 120
    retrans = [0] * 120
    for i in range(40, 70):
        retrans[i] = 50  # 5 % for 30 s, 1.25 % overall
    finding = check(incident(counters(out, retrans)))
    assert finding.verdict == "likely"
    window = finding.evidence[1]
    assert window.observed == 5.0
    assert window.from_ms is not None and window.to_ms is not None
    assert window.to_ms - window.from_ms == 30_000


def test_syn_retransmissions_do_not_count_as_data_loss() -> None:
    finding = check(incident(counters([1000] * 30, [50] * 30, syn=[50] * 30)))
    assert finding.verdict == "ruled_out"
    assert any("1,500 SYN" in e.summary for e in finding.evidence)


def test_low_volume_cannot_confirm() -> None:
    finding = check(incident(counters([10] * 20, [1] * 20)))  # 10 % of 200 segments
    assert finding.verdict == "likely"
    assert "below 1,000" in finding.summary


def test_boundaries() -> None:
    assert check(incident(counters([1000] * 10, [30] * 10))).verdict == "confirmed"  # 3.0 %
    assert check(incident(counters([1000] * 10, [29] * 10))).verdict == "likely"  # 2.9 %
    assert check(incident(counters([1000] * 10, [10] * 10))).verdict == "likely"  # 1.0 %
    assert check(incident(counters([10000] * 10, [99] * 10))).verdict == "ruled_out"  # 0.99 %


def test_socket_data_alone_is_at_most_likely() -> None:
    capture = Capture(kind="ss")
    labels = {"local": "10.0.0.1:40000", "peer": "10.0.0.2:20880"}
    capture.series("tcp.conn.retrans", [0, 20, 40, 60], unit="segments", labels=labels)
    capture.series("tcp.conn.segs_out", [0, 500, 1000, 1500], unit="segments", labels=labels)
    finding = check(incident(capture))
    assert finding.verdict == "likely"
    assert "4.0 %" in finding.summary and "no kernel counters" in finding.summary
    worst = next(e for e in finding.evidence if e.labels)
    assert worst.labels["peer"] == "10.0.0.2:20880"


def test_real_ss_loop_with_too_few_segments_is_ruled_out() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt"))
    assert finding.verdict == "ruled_out"
    assert "too few segments" in finding.summary


def test_insufficient_with_a_single_snapshot() -> None:
    finding = check(fixture_incident("nstat/nstat-az.txt"))
    assert finding.verdict == "insufficient_data"
    assert any("nstat -az" in m.command for m in finding.missing)


def test_delta_and_rate_counters_are_read_too() -> None:
    finding = check(fixture_incident("nstat/nstat-delta-series.txt"))
    assert finding.verdict == "ruled_out"
    assert "127 SYN" in " ".join(e.summary for e in finding.evidence)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)
