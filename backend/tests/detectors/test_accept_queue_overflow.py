"""accept_queue_overflow: ListenOverflows deltas (the kernel's count, primary), full LISTEN
sockets, backlog vs the listening host's own somaxconn."""

from __future__ import annotations

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

ID = "accept_queue_overflow"
THRESHOLDS = registry.CHECKLISTS[ID].rule.thresholds


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, THRESHOLDS)
    return finding


def overflows(increments, *, start=0.0):  # type: ignore[no-untyped-def]
    return Capture(kind="nstat").counter("TcpExtListenOverflows", increments, start=start)


def listener(queue, backlog, *, port="8080", host="h1"):  # type: ignore[no-untyped-def]
    labels = {"local": f"0.0.0.0:{port}", "port": port}
    capture = Capture(kind="ss", host=host)
    capture.series("tcp.listen.recvq", queue, unit="connections", labels=labels)
    capture.series("tcp.listen.backlog", [backlog] * len(queue), unit="connections", labels=labels)
    return capture


def test_confirmed_on_real_nstat_series_with_syn_retransmits() -> None:
    finding = check(fixture_incident("nstat/nstat-az-series.txt"))
    assert finding.verdict == "confirmed"
    assert "155 times" in finding.summary
    counter = finding.evidence[0]
    assert counter.observed == 155 and counter.threshold == THRESHOLDS["overflows_min"].value
    assert counter.from_ms is not None and counter.to_ms is not None
    assert any("TcpExtTCPSynRetrans" in e.summary for e in finding.evidence)


def test_confirmed_on_real_netstat_s_and_proc_net_series() -> None:
    for path in ("netstat_s/netstat-s-series.txt", "proc_net/proc-net-series.txt"):
        assert check(fixture_incident(path)).verdict == "confirmed"


def test_likely_on_real_full_listener_without_counters() -> None:
    finding = check(fixture_incident("ss/ss-lnt.txt", "sysctl/sysctl-a.txt"))
    assert finding.verdict == "likely"
    assert "port 5004" in finding.summary and "peak 5 of 4" in finding.summary
    port = next(e for e in finding.evidence if e.labels.get("port") == "5004")
    assert port.observed == 1 and port.series == "tcp.listen.recvq"
    assert any("somaxconn = 4,096" in e.summary for e in finding.evidence)
    assert "application's listen backlog is the limit" in finding.explanation
    assert "Raise the application's listen backlog" in finding.remedies[0]


def test_likely_when_few_overflows_and_no_full_listener() -> None:
    finding = check(incident(overflows([0, 3, 0, 2])))
    assert finding.verdict == "likely"


def test_ruled_out_when_counters_flat_and_queues_short() -> None:
    finding = check(incident(overflows([0] * 9, start=12), listener([0, 3, 1], 128)))
    assert finding.verdict == "ruled_out"
    assert "rose 0 times over 10 snapshots" in finding.summary
    assert "in 0 of 3 ss -lnt snapshots taken every 1.0 s over 2.0 s (peak 3 of 128" in (
        finding.summary
    )


def test_ruled_out_when_zero_since_boot() -> None:
    capture = Capture(kind="netstat_s").fact("netstat.TcpExtListenOverflows", "0")
    finding = check(incident(capture))
    assert finding.verdict == "ruled_out" and "0 since boot" in finding.summary


def test_insufficient_with_only_a_since_boot_total() -> None:
    finding = check(fixture_incident("nstat/nstat-az.txt"))
    assert finding.verdict == "insufficient_data"
    assert "since boot: 12" in finding.summary
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


def test_somaxconn_of_another_host_never_judges_this_listener() -> None:
    """Issue 11 item 6: the client's somaxconn was used to judge the server's listen queue."""
    server = listener([0, 50, 50], 50, host="server").counter("TcpExtListenOverflows", [0, 30])
    client = Capture(host="client").fact("net.core.somaxconn", "50")
    finding = check(incident(server, client))
    assert finding.verdict == "confirmed" and finding.entity == "host server"
    assert "somaxconn" not in " ".join(e.summary for e in finding.evidence)
    # the server's somaxconn is unknown: the explanation names none (not the client's 50)
    assert "somaxconn is" not in finding.explanation
    assert any("Raise both limits" in r for r in finding.remedies)
    server.fact("net.core.somaxconn", "4096")
    finding = check(incident(server, client))
    assert "application's listen backlog is the limit" in finding.explanation


def test_kernel_cap_is_named_when_the_backlog_reaches_somaxconn() -> None:
    capture = listener([0, 128, 129], 128).counter("TcpExtListenOverflows", [0, 40])
    capture.fact("net.core.somaxconn", "128")
    finding = check(incident(capture))
    assert finding.verdict == "confirmed"
    assert finding.remedies[0].startswith("Raise the kernel cap")


def test_nstat_and_netstat_s_of_one_host_are_not_summed() -> None:
    nstat = overflows([0, 6])
    netstat = Capture(kind="netstat_s").counter("TcpExtListenOverflows", [0, 6])
    finding = check(incident(nstat, netstat))
    assert finding.verdict == "likely"  # 6, not 12
    assert finding.evidence[0].observed == 6


def test_lab_capture_confirmed_by_the_kernels_count() -> None:
    finding = check(lab_incident("accept_queue_overflow/base"))
    assert finding.verdict == "confirmed" and finding.entity == "host server"
    assert "3,848 times" in finding.summary
    assert "application's listen backlog is the limit" in finding.explanation


def test_lab_other_scenarios_ruled_out() -> None:
    for capture in ("healthy/base", "time_wait_storm/base", "heartbeat_storm/base"):
        assert check(lab_incident(capture)).verdict == "ruled_out", capture


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


# --- an empty queue at one instant is not evidence of no burst ---------------------------


def test_listen_snapshots_with_empty_queues_cannot_rule_out() -> None:
    """One ss -lnt (or a few) with every Recv-Q 0 and no overflow counter: a drained queue is
    empty at almost any instant; the burst of a reconnect is not in it."""
    for queue in ([0], [0, 0, 0], [0] * 30, [2] * 59):  # 30 s loop: shorter than a storm
        finding = check(incident(listener(queue, 128)))
        assert finding.verdict == "insufficient_data", (len(queue), finding.summary)
        assert "a few snapshots cannot rule them out" in finding.summary
        assert "nstat -az TcpExtListenOverflows TcpExtListenDrops" in finding.summary
        assert any(
            "nstat -az TcpExtListenOverflows TcpExtListenDrops" in m.command
            for m in finding.missing
        )
        # the listing stays as context
        listing = [e for e in finding.evidence if "reached its backlog in 0 of" in e.summary]
        assert listing


def test_slow_listen_loop_cannot_rule_out() -> None:
    """Snapshots every 10 s fall between reconnect waves (clients retry every 2 s)."""
    slow = Capture(kind="ss")
    labels = {"local": "0.0.0.0:8080", "port": "8080"}
    slow.series("tcp.listen.recvq", [0] * 30, step_s=10, unit="connections", labels=labels)
    slow.series("tcp.listen.backlog", [128] * 30, step_s=10, unit="connections", labels=labels)
    assert check(incident(slow)).verdict == "insufficient_data"


def test_long_fast_listen_loop_far_from_the_backlog_rules_out() -> None:
    """Every second for 2 minutes, never near the backlog: a burst would have shown."""
    finding = check(incident(listener([0, 1, 0, 3] * 30, 128)))
    assert finding.verdict == "ruled_out", finding.summary
    assert "in 0 of 120 ss -lnt snapshots taken every 1.0 s over 119 s" in finding.summary
    # near the backlog (but never at it) between 1 s snapshots: it may have filled in between
    near = check(incident(listener([0, 100, 0, 3] * 30, 128)))
    assert near.verdict == "insufficient_data", near.summary
    # at the backlog once: the burst was seen
    assert check(incident(listener([0, 128, 0, 3] * 30, 128))).verdict == "likely"


def test_the_kernels_count_still_rules_out_beside_a_single_snapshot() -> None:
    flat = check(incident(overflows([0] * 60), listener([0], 128)))
    assert flat.verdict == "ruled_out"
    zero = Capture(kind="netstat_s").fact("netstat.TcpExtListenOverflows", "0")
    assert check(incident(zero, listener([0], 128))).verdict == "ruled_out"


def _corpus(*rel: str) -> Finding:
    findings, _ = offline.analyze(
        [CORPUS_DIR / r for r in rel],
        ParseContext.for_zone("UTC", default_time_ms=1_700_000_000_000),
    )
    return next(f for f in findings if f.id == ID)


def test_corpus_single_listen_snapshots_are_insufficient() -> None:
    for rel in (
        "ss/ss-a-centos77-jc.txt",
        "ss/ss-lt-listen-backlog-old-iproute2-k8s-node-plantegg.txt",
        "ss/ss-tulpn-rhel-workstation-insights.txt",
        "ss/ss-noemitauOH-oneline-tcpinfo-skmem-desktop-pcp.txt",
    ):
        finding = _corpus(rel)
        assert finding.verdict == "insufficient_data", (rel, finding.summary)
        assert "a few snapshots cannot rule them out" in finding.summary


def test_corpus_zero_overflows_since_boot_still_rule_out() -> None:
    for rel in ("netstat/proc-net-netstat-jc.txt", "netstat/proc-net-netstat-node-exporter.txt"):
        finding = _corpus(rel)
        assert finding.verdict == "ruled_out", (rel, finding.summary)
        assert "TcpExtListenOverflows 0 since boot" in finding.summary
