"""accept_queue_overflow: ListenOverflows deltas, full LISTEN sockets, backlog vs somaxconn."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import accept_queue_overflow as detector
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


def overflows(increments, *, start=0.0):  # type: ignore[no-untyped-def]
    return Capture(kind="nstat").counter("TcpExtListenOverflows", increments, start=start)


def listener(queue, backlog, *, port="8080"):  # type: ignore[no-untyped-def]
    labels = {"local": f"0.0.0.0:{port}", "port": port}
    capture = Capture(kind="ss")
    capture.series("tcp.listen.recvq", queue, unit="connections", labels=labels)
    capture.series("tcp.listen.backlog", [backlog] * len(queue), unit="connections", labels=labels)
    return capture


def test_confirmed_on_real_nstat_series_with_syn_retransmits() -> None:
    finding = check(fixture_incident("nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed"
    assert "155 times" in finding.summary
    counter = finding.evidence[0]
    assert counter.observed == 155 and counter.threshold == detector.OVERFLOWS_CONFIRMED
    assert counter.from_ms is not None and counter.to_ms is not None
    assert any("TcpExtTCPSynRetrans" in e.summary for e in finding.evidence)


def test_confirmed_on_real_netstat_s_and_proc_net_series() -> None:
    for path in ("netstat_s/netstat-s-series.txt", "proc_net/proc-net-series.txt"):
        assert check(fixture_incident(path)).verdict == "confirmed"


def test_likely_on_real_full_listener_without_counters() -> None:
    finding = check(fixture_incident("ss/ss-lnt.txt", "sysctl/sysctl-a.txt"))
    assert finding.verdict == "likely"
    assert "Port 5004" in finding.summary and "backlog of 4" in finding.summary
    port = next(e for e in finding.evidence if e.labels.get("port") == "5004")
    assert port.observed == 5 and port.threshold == 4
    assert any("somaxconn" in e.summary and e.threshold == 4096 for e in finding.evidence)
    assert "application's listen backlog is the limit" in finding.explanation


def test_likely_when_few_overflows_and_no_full_listener() -> None:
    finding = check(incident(overflows([0, 3, 0, 2])))
    assert finding.verdict == "likely"


def test_ruled_out_when_counters_flat_and_queues_short() -> None:
    finding = check(incident(overflows([0] * 9, start=12), listener([0, 3, 1], 128)))
    assert finding.verdict == "ruled_out"
    assert "stayed flat over 10 snapshots" in finding.summary
    assert "port 8080 with 3 of 128" in finding.summary


def test_ruled_out_when_zero_since_boot() -> None:
    capture = Capture(kind="netstat_s").fact("netstat.TcpExtListenOverflows", "0")
    finding = check(incident(capture))
    assert finding.verdict == "ruled_out" and "0 since boot" in finding.summary


def test_insufficient_with_only_a_since_boot_total() -> None:
    finding = check(fixture_incident("nstat/nstat-az.txt"))
    assert finding.verdict == "insufficient_data"
    assert "12 since boot" in finding.summary
    assert any("nstat -az" in m.command for m in finding.missing)


def test_insufficient_without_anything() -> None:
    finding = check(fixture_incident("sysctl/sysctl-a.txt"))
    assert finding.verdict == "insufficient_data"


def test_boundaries() -> None:
    assert check(incident(overflows([5, 5]))).verdict == "confirmed"  # exactly 10
    assert check(incident(overflows([5, 4]))).verdict == "likely"  # 9
    # one overflow while a listener is seen at its backlog: confirmed
    assert check(incident(overflows([0, 1]), listener([0, 50, 2], 50))).verdict == "confirmed"
    # one short of the backlog is not full
    assert check(incident(overflows([0, 0]), listener([0, 49, 2], 50))).verdict == "ruled_out"


def test_evidence_points_at_the_overflow_window() -> None:
    finding = check(incident(overflows([0, 0, 0, 20, 30, 0, 0])))
    counter = finding.evidence[0]
    # overflows happened in the intervals ending at t=4 s and t=5 s
    assert counter.to_ms is not None and counter.from_ms is not None
    assert counter.to_ms - counter.from_ms == 2000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)
