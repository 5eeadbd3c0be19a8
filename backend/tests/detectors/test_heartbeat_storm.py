"""heartbeat_storm: many connections plus a period shared by CPU, packets or queues."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.conn_incident import lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_incident,
    incident,
    odd_incidents,
)

ID = "heartbeat_storm"
THRESHOLDS = registry.CHECKLISTS[ID].rule.thresholds


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, THRESHOLDS)
    return finding


def spikes(seconds: int, period: int, base: float, height: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return [
        base + rng.normal(0, base * 0.05) + (height if i % period < 3 else 0.0)
        for i in range(seconds)
    ]


def nmon(seconds=300, *, cpu_period=60, packet_period=60, seed=1):  # type: ignore[no-untyped-def]
    capture = Capture(kind="nmon")
    if cpu_period:
        capture.series("cpu.user_pct", spikes(seconds, cpu_period, 10, 40, seed), unit="%")
        capture.series("cpu.sys_pct", spikes(seconds, cpu_period, 5, 20, seed + 1), unit="%")
    else:
        rng = np.random.default_rng(seed)
        capture.series("cpu.user_pct", list(10 + rng.normal(0, 1, seconds)), unit="%")
    if packet_period:
        capture.series(
            "net.packets_in",
            spikes(seconds, packet_period, 200, 7000, seed + 2),
            unit="/s",
            labels={"if": "eth0"},
        )
    return capture


def connections(count: float, seconds: int = 300) -> Capture:
    return Capture(kind="ss").series(
        "tcp.state.estab", [count] * (seconds // 5), step_s=5, unit="sockets"
    )


def test_confirmed_when_cpu_and_packets_spike_together_with_7000_connections() -> None:
    finding = check(incident(nmon(), connections(7000)))
    assert finding.verdict == "confirmed"
    assert finding.summary.startswith(
        "A heartbeat wave on host h1: 7,000 ESTABLISHED connections at most (threshold"
    )
    assert "2 signal families spike at one period (cpu and packets, ~60 s" in finding.summary
    periodic = [e for e in finding.evidence if e.unit == "autocorrelation" and e.met]
    assert {e.series for e in periodic} == {"cpu.user_pct", "net.packets_in"}
    assert all("period 60 s" in e.summary for e in periodic)
    # the range sits on a spike: spikes are at multiples of 60 s from the start
    first = periodic[0]
    assert first.from_ms is not None and first.to_ms is not None
    centre_s = ((first.from_ms + first.to_ms) / 2 - 1_795_000_000_000) / 1000
    assert centre_s % 60 < 3


def test_any_period_between_5_and_300_s() -> None:
    finding = check(incident(nmon(120, cpu_period=8, packet_period=8), connections(3000, 120)))
    assert finding.verdict == "confirmed" and "~8.0 s" in finding.summary


def test_likely_with_one_periodic_family() -> None:
    finding = check(incident(nmon(cpu_period=0), connections(5000)))
    assert finding.verdict == "likely"
    assert "net.packets_in (all interfaces): period 60 s" in finding.summary


def test_likely_with_two_families_and_no_connection_count() -> None:
    finding = check(incident(nmon()))
    assert finding.verdict == "likely"
    assert "(cpu and packets, ~60 s" in finding.summary


def test_periods_that_disagree_do_not_confirm() -> None:
    finding = check(incident(nmon(cpu_period=25, packet_period=60), connections(7000)))
    assert finding.verdict == "likely"


def test_ruled_out_with_few_connections_even_if_periodic() -> None:
    finding = check(incident(nmon(), connections(300)))
    assert finding.verdict == "ruled_out"
    assert "300 ESTABLISHED connections at most" in finding.summary and "1,000" in finding.summary


def test_ruled_out_on_real_ss_listing() -> None:
    finding = check(fixture_incident("ss/ss-tan.txt"))
    assert finding.verdict == "ruled_out"
    assert "28 ESTABLISHED connections at most" in finding.summary


def test_ruled_out_when_many_connections_but_no_period_over_a_long_capture() -> None:
    finding = check(incident(nmon(cpu_period=0, packet_period=0), connections(7000)))
    assert finding.verdict == "ruled_out"
    assert "no CPU, packet or queue signal repeats with spikes" in finding.summary


def test_insufficient_when_capture_too_short_for_a_60_s_period() -> None:
    finding = check(incident(nmon(60, cpu_period=0, packet_period=0), connections(7000, 60)))
    assert finding.verdict == "insufficient_data"
    assert "at least 3.0 min" in finding.summary
    assert any("--duration 300" in m.command for m in finding.missing)


def test_insufficient_on_real_nmon_without_connection_count() -> None:
    finding = check(fixture_incident("nmon/linux-debian12-nmon16n-stress-60x1s.nmon"))
    assert finding.verdict == "insufficient_data"


def test_boundary_at_1000_connections() -> None:
    assert check(incident(nmon(), connections(1000))).verdict == "confirmed"
    assert check(incident(nmon(), connections(999))).verdict == "ruled_out"


def test_noise_has_no_period() -> None:
    rng = np.random.default_rng(7)
    capture = Capture(kind="nmon")
    capture.series("cpu.user_pct", list(rng.exponential(10, 600)), unit="%")
    capture.series("net.packets_in", list(rng.exponential(500, 600)), unit="/s")
    finding = check(incident(capture, connections(5000, 600)))
    assert finding.verdict == "ruled_out"


def test_lab_heartbeat_capture_confirmed() -> None:
    """3000 connections, a heartbeat wave every 10 s in CPU (nmon) and TcpInSegs."""
    finding = check(lab_incident("heartbeat_storm/base"))
    assert finding.verdict == "confirmed" and finding.entity == "host provider"
    assert "3,000 ESTABLISHED" in finding.summary and "~10 s" in finding.summary


def test_lab_other_scenarios_ruled_out() -> None:
    for capture in ("healthy/base", "accept_queue_overflow/base", "time_wait_storm/base"):
        assert check(lab_incident(capture)).verdict == "ruled_out", capture


def test_kernel_packet_rates_of_one_host_are_read_from_one_tool() -> None:
    """nstat and netstat -s both give TcpInSegs per second: one is read, never their sum."""
    wave = spikes(300, 60, 200, 7000, 3)
    one = Capture(kind="nstat").series("netstat.TcpInSegs", wave, unit="per_s")
    two = Capture(kind="netstat-s").series("netstat.TcpInSegs", wave, unit="per_s")
    finding = check(incident(nmon(packet_period=0), one, two, connections(7000)))
    assert finding.verdict == "confirmed"
    packets = next(e for e in finding.evidence if e.series == "netstat.TcpInSegs")
    assert "spikes" in packets.summary and packets.met


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_cpu_rising_at_the_packet_waves_confirms_without_a_period_of_its_own() -> None:
    """A busy machine hides the CPU's own period; the CPU at the heartbeat waves does not."""
    packets = spikes(300, 60, 200, 7000, 3)
    wave = np.array(packets) > 2 * np.median(packets)
    noise = np.random.default_rng(7).normal(0, 12, 300)
    capture = Capture(kind="nmon")
    capture.series("net.packets_in", packets, unit="/s", labels={"if": "eth0"})
    capture.series("cpu.user_pct", list(50 + noise + np.where(wave, 35.0, 0.0)), unit="%")
    finding = check(incident(capture, connections(7000)))
    assert finding.verdict == "confirmed", finding.summary
    lift = next(e for e in finding.evidence if e.threshold_name == "wave_lift_min")
    assert lift.met and float(lift.observed or 0) >= 1.5
    # the same noise with no bump at the waves: the wave exists, its harm does not
    quiet = Capture(kind="nmon")
    quiet.series("net.packets_in", packets, unit="/s", labels={"if": "eth0"})
    quiet.series("cpu.user_pct", list(50 + noise), unit="%")
    assert check(incident(quiet, connections(7000))).verdict == "likely"
