"""short_lived_connections: open rate, Little's-law lifetime, segments/requests per open."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import short_lived_connections as detector
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


def opens(active, passive=None, *, estab=None, segments=None):  # type: ignore[no-untyped-def]
    capture = Capture(kind="nstat")
    capture.counter("TcpActiveOpens", active)
    if passive is not None:
        capture.counter("TcpPassiveOpens", passive)
    if segments is not None:
        capture.counter("TcpInSegs", segments)
        capture.counter("TcpOutSegs", segments)
    if estab is not None:
        capture.series("tcp.state.estab", [estab] * (len(active) + 1), unit="sockets")
    return capture


def test_confirmed_on_real_proc_net_series_with_lifetime() -> None:
    finding = check(fixture_incident("proc_net/proc-net-series.txt"))
    assert finding.verdict == "confirmed"
    assert "1952 connections opened per second" in finding.summary
    lifetime = next(e for e in finding.evidence if e.unit == "s")
    assert lifetime.observed is not None and float(lifetime.observed) < 0.05
    assert lifetime.threshold == detector.MAX_MEAN_LIFETIME_S
    assert any("TIME-WAIT peaked at 10,923" in e.summary for e in finding.evidence)


def test_confirmed_on_real_nstat_by_segments_per_connection() -> None:
    finding = check(fixture_incident("nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed"
    segments = next(e for e in finding.evidence if e.unit == "segments")
    assert segments.observed is not None and float(segments.observed) < 50


def test_likely_on_real_light_load() -> None:
    finding = check(fixture_incident("nstat/nstat-delta-series.txt"))
    assert finding.verdict == "likely"
    assert finding.summary.startswith("16 connections opened per second")


def test_ruled_out_for_long_lived_pooled_connections() -> None:
    # 20 opens/s but 2000 connections open: they live ~100 s, and carry 4000 segments each
    finding = check(incident(opens([10] * 30, [10] * 30, estab=2000, segments=[40000] * 30)))
    assert finding.verdict == "ruled_out"
    assert "lifetime ~100 s" in finding.summary and "thresholds 10/s" in finding.summary


def test_ruled_out_when_few_connections_open() -> None:
    finding = check(incident(opens([1] * 30, estab=5)))
    assert finding.verdict == "ruled_out"
    assert "1.0 connections opened per second" in finding.summary


def test_insufficient_without_counters_or_ss_churn() -> None:
    finding = check(fixture_incident("ss/ss-lnt.txt"))
    assert finding.verdict == "insufficient_data"
    assert any("nstat -az" in m.command for m in finding.missing)


def test_boundaries() -> None:
    assert check(incident(opens([100] * 10, estab=1000))).verdict == "confirmed"  # 100/s, 10 s
    assert check(incident(opens([100] * 10, estab=1001))).verdict == "ruled_out"  # 10.01 s
    assert check(incident(opens([99] * 10, estab=10))).verdict == "likely"
    assert check(incident(opens([10] * 10, estab=10))).verdict == "likely"
    assert check(incident(opens([9] * 10, estab=10))).verdict == "ruled_out"


def test_many_opens_with_nothing_to_tell_lifetime_is_likely() -> None:
    finding = check(incident(opens([500] * 10)))
    assert finding.verdict == "likely"


def test_requests_per_connection_from_thread_pool() -> None:
    capture = opens([200] * 10, segments=[200 * 400] * 10)  # 400 segments per open: not small
    capture.series("threadpool.completed_per_s", [300] * 11, unit="per_s", labels={"pool": "dubbo"})
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    requests = next(e for e in finding.evidence if e.unit == "requests")
    assert requests.observed == 1.5


def test_ss_only_churn_is_likely() -> None:
    capture = Capture(kind="ss")
    for snapshot in range(5):
        for i in range(40):
            labels = {"local": "10.0.0.1:80", "peer": f"10.0.0.2:{40000 + snapshot * 100 + i}"}
            capture.series("tcp.conn.cwnd", [10], start_s=snapshot, unit="segments", labels=labels)
    finding = check(incident(capture))
    assert finding.verdict == "likely"
    assert "200 of 200 connections" in finding.summary


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)
