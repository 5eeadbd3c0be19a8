"""short_lived_connections: opens per second relative to the work, Little's-law lifetime,
connections that also end, and transfers that spend their life in slow start; a TIME_WAIT
storm explains the churn it is made of."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import engine, registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.conn_incident import lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

ID = "short_lived_connections"
THRESHOLDS = registry.CHECKLISTS[ID].rule.thresholds


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, THRESHOLDS)
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
    assert "connections opened per second" in finding.summary
    lifetime = next(e for e in finding.evidence if e.unit == "s")
    assert lifetime.observed is not None and float(lifetime.observed) < 0.05
    assert lifetime.threshold == THRESHOLDS["max_lifetime_s"].value
    assert any("TIME-WAIT peaked at 10,923" in e.summary for e in finding.evidence)


def test_confirmed_on_real_nstat_by_segments_per_connection() -> None:
    finding = check(fixture_incident("nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed"
    segments = next(e for e in finding.evidence if e.unit == "segments")
    assert segments.observed is not None and float(segments.observed) < 50


def test_likely_on_real_light_load() -> None:
    finding = check(fixture_incident("nstat/nstat-delta-series.txt"))
    assert finding.verdict == "likely"
    assert "16.4 connections opened per second" in finding.summary


def test_ruled_out_for_long_lived_pooled_connections() -> None:
    # 20 opens/s but 2000 connections open: they live ~100 s, and carry 4000 segments each
    finding = check(incident(opens([10] * 30, [10] * 30, estab=2000, segments=[40000] * 30)))
    assert finding.verdict == "ruled_out"
    assert "lifetime ~100 s" in finding.summary


def test_ruled_out_when_few_connections_open() -> None:
    finding = check(incident(opens([1] * 30, estab=5)))
    assert finding.verdict == "ruled_out"
    assert "1 connection opened per second" in finding.summary


def test_a_reconnect_burst_that_keeps_its_connections_is_not_churn() -> None:
    """3000 clients connecting at once (heartbeat_storm, accept_queue_overflow) open 3000
    connections and keep them: ESTABLISHED grows by what was opened, nothing ends."""
    capture = Capture(kind="nstat").counter("TcpPassiveOpens", [3000.0] + [0.0] * 9)
    capture.series("tcp.state.estab", [0] + [3000] * 10, unit="sockets")
    finding = check(incident(capture))
    assert finding.verdict == "ruled_out"
    assert "0 % of the connections opened also ended" in finding.summary


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


def test_few_opens_each_paying_slow_start_is_confirmed() -> None:
    """Report B: 5 new connections a second, each carrying a 4 MB response from the initial
    window (~2900 segments: ~8 slow-start round trips), is the mechanism at any rate."""
    capture = opens([5] * 20, estab=1, segments=[5 * 2900] * 20)
    rtt = {"local": "10.0.0.1:40000", "peer": "10.0.0.2:80"}
    capture.series("tcp.conn.rtt_ms", [20.0, 20.0], unit="ms", labels=rtt)
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    assert "slow start needs ~8.2 round trips" in finding.summary
    # 1 ESTABLISHED / 5 opens/s = 0.2 s = 10 RTTs, of which 9.2 are handshake + slow start
    assert "lives ~10 round trips of 20 ms" in finding.summary
    assert any("initcwnd" in r for r in finding.remedies)


def test_many_segments_over_a_long_keep_alive_life_are_not_slow_start() -> None:
    """250 small requests on each connection move as many segments as one 4 MB transfer,
    but over hundreds of round trips: slow start is a sliver of the connection's life."""
    capture = opens([5] * 20, estab=1, segments=[5 * 2900] * 20)
    rtt = {"local": "10.0.0.1:40000", "peer": "10.0.0.2:80"}
    capture.series("tcp.conn.rtt_ms", [0.2, 0.2], unit="ms", labels=rtt)
    finding = check(incident(capture))
    assert finding.verdict == "ruled_out"


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


def test_nstat_and_netstat_of_one_host_are_not_summed() -> None:
    """Issue 11 item 6: the collector captures both tools; one source per host and counter."""
    one = opens([100] * 10, estab=10)
    two = Capture(kind="netstat-s").counter("TcpActiveOpens", [100.0] * 10)
    finding = check(incident(one, two))
    assert "100 connections opened per second" in finding.summary


# --- the lab captures and the differential diagnosis with time_wait_storm ----------------


def test_lab_short_lived_connections_confirmed_by_slow_start() -> None:
    finding = check(lab_incident("short_lived_connections/base"))
    assert finding.verdict == "confirmed"
    assert "slow start needs" in finding.summary


def test_lab_time_wait_storm_churn_is_explained_by_the_storm() -> None:
    """Tiny requests on a connection each: the churn is the storm's (conn_churn), and nothing
    of this item's own mechanism (slow start) is shown, so it is not a second cause."""
    data = lab_incident("time_wait_storm/base")
    findings = {f.id: f for f in registry.run_all(data)}
    storm, churn = findings["time_wait_storm"], findings[ID]
    assert storm.verdict == "confirmed"
    assert churn.verdict == "ruled_out" and churn.explained_by == ["time_wait_storm"]
    assert churn.summary.startswith('Explained by "TIME_WAIT storm": what this item saw')


def test_slow_start_keeps_it_standing_beside_a_storm() -> None:
    """Both mechanisms at once: the storm explains the churn, not the slow-start cost."""
    capture = opens([200] * 20, estab=20, segments=[200 * 2900] * 20)
    rtt = {"local": "10.0.0.1:40000", "peer": "10.0.0.2:80"}
    capture.series("tcp.conn.rtt_ms", [20.0, 20.0], unit="ms", labels=rtt)
    capture.series("tcp.state.time-wait", [0] + [4000 * (i + 1) for i in range(3)] + [12000] * 17)
    capture.counter("TcpExtTW", [200.0] * 20)
    data = incident(capture)
    findings = engine.diagnose(
        [registry.judge("time_wait_storm", data), registry.judge(ID, data)],
        {k: c.rule for k, c in registry.CHECKLISTS.items()},
    )
    assert [f.verdict for f in findings] == ["confirmed", "confirmed"]
    assert not findings[1].explained_by


def test_lab_contrasts_and_other_scenarios_ruled_out() -> None:
    for capture in ("time_wait_storm/reused_contrast", "healthy/base", "heartbeat_storm/base"):
        assert check(lab_incident(capture)).verdict == "ruled_out", capture


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)
