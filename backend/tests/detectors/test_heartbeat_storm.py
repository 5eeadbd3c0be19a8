"""heartbeat_storm: many connections plus a period shared by CPU, packets or queues."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from rootline import offline
from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from rootline.parsers.base import ParseContext
from tests.conftest import CORPUS_DIR
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


def test_one_real_ss_listing_is_not_enough_to_rule_out() -> None:
    """One count at an unknown moment, no series: the count is context, not a rule-out."""
    finding = check(fixture_incident("ss/ss-tan.txt"))
    assert finding.verdict == "insufficient_data"
    assert (
        "only a connection count was captured (28 ESTABLISHED connections at most, read 1 time)"
        in (finding.summary)
    )
    assert any("28 ESTABLISHED connections at most" in e.summary for e in finding.evidence)


def test_ruled_out_on_real_ss_loop_with_few_connections() -> None:
    finding = check(fixture_incident("ss/ss-tinm-loop.txt"))
    assert finding.verdict == "ruled_out"
    assert "28 ESTABLISHED connections at most (threshold 1,000), read" in finding.summary


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


# --- absence is not evidence: what the series could show ---------------------------------


def sampled(seconds: int, step_s: int, *, period: int = 0, seed: int = 1) -> Capture:
    """nmon CPU and packets, one sample every ``step_s`` (a spike train of ``period``, else
    noise), as nmon -s STEP records them: each sample is the average over its interval."""
    rng = np.random.default_rng(seed)
    per_second_cpu = 10 + rng.normal(0, 0.5, seconds)
    per_second_packets = 200 + rng.normal(0, 10, seconds)
    if period:
        wave = np.arange(seconds) % period < 3
        per_second_cpu += np.where(wave, 40.0, 0.0)
        per_second_packets += np.where(wave, 7000.0, 0.0)
    cut = seconds - seconds % step_s
    cpu = per_second_cpu[:cut].reshape(-1, step_s).mean(axis=1)
    packets = per_second_packets[:cut].reshape(-1, step_s).mean(axis=1)
    capture = Capture(kind="nmon")
    capture.series("cpu.user_pct", list(cpu), step_s=step_s, unit="%")
    capture.series("net.packets_in", list(packets), step_s=step_s, unit="/s", labels={"if": "e0"})
    return capture


def test_coarse_samples_cannot_rule_out() -> None:
    """nmon every 20 min or 5 min: no period of 5 s - 5 min can show, whatever happened."""
    for step_s, shown in ((1200, "20.0 min"), (300, "5.0 min")):
        for period in (0, 60):  # a real 60 s storm averages away in these samples too
            data = incident(sampled(36_000, step_s, period=period))
            finding = check(data)
            assert finding.verdict == "insufficient_data", (step_s, period, finding.summary)
            assert f"sampled every {shown}" in finding.summary
            assert "nmon -s 1 or -s 5" in finding.summary
            assert not any("no period between" in e.summary for e in finding.evidence)
            blind = [e for e in finding.evidence if "cannot show a period" in e.summary]
            assert blind and all(e.met is None for e in blind)
            # thousands of connections beside them do not make the series able to look
            more = check(incident(sampled(36_000, step_s, period=period), connections(7000)))
            assert more.verdict == "insufficient_data"


def test_partly_observable_range_is_named() -> None:
    """Samples every 60 s show only periods of 2-5 min: not the 60 s heartbeat."""
    finding = check(incident(sampled(7200, 60), connections(7000, 7200)))
    assert finding.verdict == "insufficient_data", finding.summary
    assert "could show periods from 2.0 min to 5.0 min (a sample every 60 s" in finding.summary
    assert any("no period between 2.0 min and 5.0 min" in e.summary for e in finding.evidence)


def test_samples_fine_enough_for_the_60_s_heartbeat_still_rule_out() -> None:
    """30 s (two samples per 60 s period), 5 s and 1 s samples over an hour: judged."""
    for step_s, searched in ((30, "1.0 min and 5.0 min"), (5, "10 s and 5.0 min"), (1, "5.0 s")):
        finding = check(incident(sampled(3600, step_s), connections(7000, 3600)))
        assert finding.verdict == "ruled_out", (step_s, finding.summary)
        assert "no CPU, packet or queue signal repeats with spikes" in finding.summary
        # a "no period" line names the periods this sampling could search
        nothing = [e.summary for e in finding.evidence if "no period between" in e.summary]
        assert all(f"no period between {searched}" in text for text in nothing), nothing
    # and a 60 s storm in 5 s samples is found, not ruled out
    storm = check(incident(sampled(3600, 5, period=60), connections(7000, 3600)))
    assert storm.verdict == "confirmed", storm.summary


def test_one_periodic_family_without_a_connection_count_is_not_ruled_out() -> None:
    """CPU repeats every 60 s, packets do not, no count: the count is the missing half."""
    rng = np.random.default_rng(3)
    capture = Capture(kind="nmon")
    capture.series("cpu.user_pct", spikes(3000, 60, 5, 10, 4), step_s=1, unit="%")
    capture.series("net.packets_out", list(200 + rng.normal(0, 10, 3000)), unit="/s")
    finding = check(incident(capture))
    assert finding.verdict == "insufficient_data", finding.summary
    # what met leads the text
    assert finding.summary.startswith("On host h1: user + sys CPU: period 60 s")
    assert "One signal family (cpu) spiked every ~60 s and no connection count" in (finding.summary)
    # with the count: few connections rule it out, thousands make it likely
    for count, verdict in ((300, "ruled_out"), (5000, "likely")):
        counted = check(incident(capture, connections(count, 3000)))
        assert counted.verdict == verdict, (count, counted.summary)


def test_a_single_connection_reading_without_series_is_not_a_rule_out() -> None:
    for count in (139, 7000):
        reading = Capture(kind="netstat-s").series("netstat.TcpCurrEstab", [count])
        finding = check(incident(reading))
        assert finding.verdict == "insufficient_data", (count, finding.summary)
        assert "only a connection count was captured" in finding.summary
        assert "no CPU, packet or queue signal repeats" not in " ".join(
            e.summary for e in finding.evidence
        )
    # two listings of one moment are still one reading
    same = Capture(kind="ss").series("tcp.state.estab", [7, 7], step_s=0)
    assert check(incident(same)).verdict == "insufficient_data"
    # the count followed over a capture is the level during it: few connections rule out
    followed = Capture(kind="ss").series("tcp.state.estab", [139, 140, 138], step_s=5)
    finding = check(incident(followed))
    assert finding.verdict == "ruled_out"
    assert "140 ESTABLISHED connections at most (threshold 1,000), read 3 times over 10 s" in (
        finding.summary
    )
    # with series able to show the wave, one reading of few connections still rules out
    assert check(incident(nmon(), connections(300, 5))).verdict == "ruled_out"


def _corpus(rel: str) -> Finding:
    findings, _ = offline.analyze(
        [CORPUS_DIR / rel], ParseContext.for_zone("UTC", default_time_ms=1_700_000_000_000)
    )
    return next(f for f in findings if f.id == ID)


def test_corpus_coarse_nmon_is_insufficient() -> None:
    for rel, shown in (
        ("nmon/aix61-tl07-power7-topas-nmon-top-uarg-nfs-nmonchart-sampleC.nmon", "20.1 min"),
        ("nmon/aix61-tl09-power7-topas-nmon-vg-diskserv-top-nmonchart-sampleD.nmon", "5.0 min"),
        ("nmon/aix71-tl03-power7-topas-nmon-300s-nmon2influxdb.nmon", "5.0 min"),
    ):
        finding = _corpus(rel)
        assert finding.verdict == "insufficient_data", (rel, finding.summary)
        assert f"sampled every {shown}" in finding.summary


def test_corpus_60_s_cpu_wave_without_count_is_insufficient() -> None:
    finding = _corpus("nmon/linux-centos7-kvm-nmon16g-top-1000x5s-nmon-analysis-tools.nmon")
    assert finding.verdict == "insufficient_data", finding.summary
    assert finding.summary.startswith("On host VM-12-13-centos: user + sys CPU: period 60 s")


def test_corpus_single_count_readings_are_insufficient() -> None:
    for rel in (
        "netstat/netstat-s-rhel7-insights.txt",
        "netstat/proc-net-snmp-kernel3.19-pcp.txt",
        "ss/ss-a-centos77-jc.txt",
        "ss/ss-s-summary-old-iproute2-orphaned-kernel-doc.txt",
    ):
        finding = _corpus(rel)
        assert finding.verdict == "insufficient_data", (rel, finding.summary)
        assert "only a connection count was captured" in finding.summary


def test_corpus_1_s_nmon_without_a_period_still_rules_out() -> None:
    finding = _corpus("nmon/linux-rhel7-s390x-nmon16f-1000x1s-omp-nmonrrd.nmon")
    assert finding.verdict == "ruled_out"
    assert "no period between 5.0 s and 5.0 min" in finding.summary


def test_capture_length_decides_whether_a_60_s_period_could_show() -> None:
    """5 s samples: 2 min hold two 60 s periods (insufficient), 3 min and more hold three."""
    for seconds, verdict in ((120, "insufficient_data"), (175, "insufficient_data")):
        finding = check(incident(sampled(seconds, 5), connections(7000, seconds)))
        assert finding.verdict == verdict, (seconds, finding.summary)
    for seconds in (200, 600, 3600):
        finding = check(incident(sampled(seconds, 5), connections(7000, seconds)))
        assert finding.verdict == "ruled_out", (seconds, finding.summary)
