"""single_connection_bottleneck: one connection with busy queues, many requests, CPU low."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import single_connection_bottleneck as detector
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import Capture, assert_well_formed, incident, odd_incidents

PROVIDER, CONSUMER = "10.0.0.1:20880", "10.0.0.2:50000"


def check(data):  # type: ignore[no-untyped-def]
    finding = detector.detect(data)
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def provider(connections=1, recvq=None, n=10):  # type: ignore[no-untyped-def]
    capture = Capture(kind="ss", host="provider")
    capture.series(
        "tcp.listen.backlog",
        [1024] * n,
        unit="connections",
        labels={"local": "0.0.0.0:20880", "port": "20880"},
    )
    for c in range(connections):
        connection(
            capture,
            PROVIDER,
            f"10.0.0.2:{50000 + c}",
            recvq__bytes=recvq or [27000.0] * n,
            rtt_ms=[20.0] * n,
        )
    return capture  # fmt: skip


def pool(active, completed_per_s=None):  # type: ignore[no-untyped-def]
    capture = Capture(kind="threadpool_metrics", host="provider")
    capture.series(
        "threadpool.active", active, unit="threads", labels={"pool": "DubboServerHandler"}
    )
    capture.series(
        "threadpool.max", [500] * len(active), unit="threads", labels={"pool": "DubboServerHandler"}
    )
    if completed_per_s is not None:
        capture.series(
            "threadpool.completed_per_s",
            completed_per_s,
            unit="per_s",
            labels={"pool": "DubboServerHandler"},
        )
    return capture  # fmt: skip


def cpu(busy):  # type: ignore[no-untyped-def]
    capture = Capture(kind="nmon", host="provider")
    capture.series("cpu.user_pct", [b * 0.7 for b in busy], unit="%")
    return capture.series("cpu.sys_pct", [b * 0.3 for b in busy], unit="%")


def test_confirmed_report_a_shape() -> None:
    finding = check(incident(provider(), pool([100, 300, 300, 250]), cpu([40, 66, 50, 45])))
    assert finding.verdict == "confirmed"
    assert "1 connection (10.0.0.2 -> local :20880 on provider)" in finding.summary
    assert "300 active pool threads per connection" in finding.summary
    queue = finding.evidence[0]
    assert queue.series == "tcp.conn.recvq.bytes" and queue.observed == 1.0
    assert queue.labels == {"local": PROVIDER, "peer": CONSUMER}


def test_confirmed_without_cpu_when_intake_alternates() -> None:
    intake = [0, 900, 0, 0, 1200, 0, 800, 0]
    finding = check(incident(provider(), pool([300] * 8, intake)))
    assert finding.verdict == "confirmed"
    # judged from the first to the last second with intake: 900 0 0 1200 0 800
    assert "pool intake zero in 50% of seconds" in finding.summary


def test_likely_without_pool_or_cpu_data() -> None:
    finding = check(incident(provider()))
    assert finding.verdict == "likely"
    assert finding.missing


def test_likely_when_cpu_is_high() -> None:
    finding = check(incident(provider(), pool([300] * 4), cpu([95, 97, 99, 96])))
    assert finding.verdict == "likely"
    assert "cpu_saturation" in finding.summary


def test_ruled_out_when_load_is_spread_over_many_connections() -> None:
    finding = check(incident(provider(connections=8), pool([300] * 4), cpu([40] * 4)))
    assert finding.verdict == "ruled_out"
    assert "more than 2 connections" in finding.summary and "spread over 8" in finding.summary


def test_ruled_out_when_queues_are_mostly_empty() -> None:
    finding = check(incident(provider(recvq=[0, 0, 0, 500, 0, 0, 0, 0, 0, 0])))
    assert finding.verdict == "ruled_out"
    assert "at most 10% of snapshots" in finding.summary and "threshold 50%" in finding.summary


def test_ruled_out_when_the_pool_is_nearly_idle() -> None:
    finding = check(incident(provider(), pool([2, 3, 1])))
    assert finding.verdict == "ruled_out"
    assert "only 3 active threads per connection (threshold 32)" in finding.summary


def test_boundary_at_two_connections_and_half_the_snapshots() -> None:
    half = [1000.0] * 5 + [0.0] * 5
    assert check(incident(provider(2, half), pool([64] * 3), cpu([30] * 3))).verdict == "confirmed"
    below = [1000.0] * 4 + [0.0] * 6
    assert check(incident(provider(2, below), pool([64] * 3), cpu([30] * 3))).verdict == "ruled_out"
    assert check(incident(provider(3, half), pool([96] * 3), cpu([30] * 3))).verdict == "ruled_out"


def test_insufficient_data_without_ss() -> None:
    finding = check(incident(pool([300] * 3), cpu([40] * 3)))
    assert finding.verdict == "insufficient_data"
    assert any("ss -tinm" in m.command for m in finding.missing)


def test_lab_scenario_confirmed() -> None:
    assert check(lab_incident("single_connection_bottleneck")).verdict == "confirmed"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "no-port", "*:*", sendq__bytes=[1.0, 1.0, 1.0, 1.0])
    connection(capture, "[::1]:80", "[::1]:x", recvq__bytes=[0.0])
    check(incident(capture, pool([0.0]), cpu([])))
