"""time_wait_storm: TIME-WAIT count vs thresholds, ESTAB ratio, port-range share."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import time_wait_storm as detector
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


def states(time_wait, estab, *, step_s=1.0, port_range="32768 60999"):  # type: ignore[no-untyped-def]
    capture = Capture(kind="ss")
    capture.series("tcp.state.time-wait", time_wait, step_s=step_s, unit="sockets")
    capture.series("tcp.state.estab", estab, step_s=step_s, unit="sockets")
    if port_range:
        capture.fact("net.ipv4.ip_local_port_range", port_range)
    return capture


def test_confirmed_on_real_ss_summary_with_17k_time_wait() -> None:
    finding = check(fixture_incident("ss/ss-s.txt", "sysctl/sysctl-a.txt"))
    assert finding.verdict == "confirmed"
    assert "17,074" in finding.summary and "32 ESTABLISHED" in finding.summary
    share = next(e for e in finding.evidence if e.unit == "share")
    assert share.observed == round(17074 / 28232, 4)


def test_confirmed_on_real_sockstat_series_with_close_rate() -> None:
    finding = check(fixture_incident("proc_net/proc-net-series.txt"))
    assert finding.verdict == "confirmed"
    peak = finding.evidence[0]
    assert peak.observed == 10923 and peak.series == "tcp.state.time-wait"
    assert peak.from_ms is not None and peak.to_ms is not None and peak.from_ms <= peak.to_ms
    assert any("TcpExtTW" in e.summary for e in finding.evidence)


def test_likely_when_thousands_but_estab_is_not_small() -> None:
    finding = check(incident(states([3000, 6000, 5500], [1000, 1000, 1000])))
    assert finding.verdict == "likely"
    ratio = next(e for e in finding.evidence if e.unit == "ratio")
    assert ratio.observed == 6.0 and ratio.threshold == detector.TIME_WAIT_PER_ESTAB_CONFIRMED


def test_ruled_out_names_peak_threshold_and_snapshots() -> None:
    finding = check(fixture_incident("ss/ss-tan.txt"))
    assert finding.verdict == "ruled_out"
    assert "25 sockets" in finding.summary and "1,000" in finding.summary
    assert "1 snapshots" in finding.summary


def test_insufficient_without_any_time_wait_count() -> None:
    finding = check(fixture_incident("ss/ss-lnt.txt"))
    assert finding.verdict == "insufficient_data"
    assert any("ss -s" in m.command for m in finding.missing)


def test_boundaries() -> None:
    at_confirmed = states([10, 5000], [500, 500])  # 5000 sockets, ratio exactly 10
    assert check(incident(at_confirmed)).verdict == "confirmed"
    below = states([10, 4999], [10, 10])
    assert check(incident(below)).verdict == "likely"
    at_likely = states([1000], [1000], port_range="")
    assert check(incident(at_likely)).verdict == "likely"
    just_below = states([999], [1], port_range="")
    assert check(incident(just_below)).verdict == "ruled_out"


def test_narrow_port_range_half_full_confirms_below_5000() -> None:
    finding = check(incident(states([1200], [300], port_range="60000 61999")))
    assert finding.verdict == "confirmed"
    assert "60 %" in finding.summary


def test_worst_host_reported_and_others_listed() -> None:
    quiet = states([10, 12], [50, 50])
    quiet.host = "quiet"
    busy = states([100, 9000], [20, 20])
    busy.host = "busy"
    finding = check(incident(quiet, busy))
    assert finding.verdict == "confirmed" and "busy" in finding.summary
    assert any(e.host == "quiet" for e in finding.evidence)


def test_takes_the_listing_with_the_most_time_wait_for_a_host() -> None:
    filtered = states([5, 5, 5, 5], [1, 1, 1, 1])  # a port-filtered ss listing
    summary = Capture(kind="ss-s").series("tcp.state.time-wait", [8000, 9000], unit="sockets")
    assert check(incident(filtered, summary)).verdict == "confirmed"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)
