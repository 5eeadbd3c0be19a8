"""receiver_not_reading: Recv-Q piling up to rb, rwnd_limited senders, zero-window counters."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import receiver_not_reading as detector
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

SERVER, CLIENT = "10.0.0.1:5003", "10.0.0.2:52424"


def check(data):  # type: ignore[no-untyped-def]
    finding = detector.detect(data)
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def receiver(recvq, rb=8_000_000.0):  # type: ignore[no-untyped-def]
    capture = Capture(kind="ss", host="receiver")
    return connection(capture, SERVER, CLIENT, recvq__bytes=recvq, skmem_rb=[rb] * len(recvq))


def sender(rwnd_ms, busy_ms):  # type: ignore[no-untyped-def]
    capture = Capture(kind="ss", host="sender")
    return connection(capture, CLIENT, SERVER, rwnd_limited_ms=rwnd_ms, busy_ms=busy_ms)


STALL = [0, 300_000] + [5_000_000] * 6 + [0, 0]


def test_confirmed_with_recvq_at_rb_and_rwnd_limited_sender() -> None:
    busy = [1000.0 * (i + 1) for i in range(10)]
    rwnd = [0.0, 500.0] + [500.0 + 1000 * i for i in range(1, 9)]
    finding = check(incident(receiver(STALL), sender(rwnd, busy)))
    assert finding.verdict == "confirmed"
    assert "6 snapshots in a row" in finding.summary
    assert "rwnd_limited 94 % of 9.0 s busy" in finding.summary  # (8500 - 0) / (10000 - 1000)
    pile = next(e for e in finding.evidence if e.series == "tcp.conn.recvq.bytes")
    assert (
        pile.host == "receiver" and pile.from_ms is not None and pile.to_ms - pile.from_ms == 5000
    )


def test_confirmed_on_real_slow_reader_capture_and_zero_window_counters() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt", "nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed"
    assert "127.0.0.1:5001" in finding.summary and "zero-window counters rose" in finding.summary


def test_likely_with_zero_windows_alone() -> None:
    nstat = Capture(kind="nstat").counter("TcpExtTCPToZeroWindowAdv", [0, 2, 0])
    finding = check(incident(nstat))
    assert finding.verdict == "likely"
    assert "1 of 3 signs" in finding.summary


def test_ruled_out_names_the_numbers() -> None:
    busy = [1000.0 * (i + 1) for i in range(5)]
    nstat = Capture(kind="nstat").counter("TcpExtTCPToZeroWindowAdv", [0, 0, 0])
    finding = check(incident(receiver([0, 1000, 0, 0, 500]), sender([0.0] * 5, busy), nstat))
    assert finding.verdict == "ruled_out"
    assert "rwnd_limited peaked at 0 %" in finding.summary and "threshold 25 %" in finding.summary
    assert "zero-window counters +0" in finding.summary


def test_boundary_three_full_snapshots_in_a_row() -> None:
    rb = 1_000_000.0
    at = [0, 500_000, 500_000, 500_000, 0]  # exactly 50 % of rb, 3 in a row
    assert check(incident(receiver(at, rb))).verdict == "likely"
    two = [0, 500_000, 500_000, 0, 500_000]
    assert check(incident(receiver(two, rb))).verdict == "ruled_out"
    below = [0, 499_999, 499_999, 499_999, 0]
    assert check(incident(receiver(below, rb))).verdict == "ruled_out"


def test_insufficient_data_without_ss_or_counters() -> None:
    finding = check(incident(Capture(kind="nmon").series("cpu.user_pct", [5, 5])))
    assert finding.verdict == "insufficient_data"
    assert any("nstat" in m.command for m in finding.missing)


def test_lab_scenario_confirmed() -> None:
    assert check(lab_incident("receiver_not_reading")).verdict == "confirmed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "a", "b", recvq__bytes=[7.0], skmem_rb=[0.0])
    connection(capture, "c:1", "d:2", busy_ms=[5.0, 5.0, 5.0], rwnd_limited_pct=[100.0])
    check(incident(capture))
