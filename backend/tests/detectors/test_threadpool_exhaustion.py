"""threadpool_exhaustion: saturation, rejections, and whether it came under load or after."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors import threadpool_exhaustion as detector
from rootline.detectors.base import Finding
from tests.detectors.runtime_incident import (
    T0,
    Capture,
    assert_well_formed,
    corpus_incident,
    fixture_incident,
    incident,
    pool_capture,
)


def check(finding: Finding) -> Finding:
    assert_well_formed(finding, detector.ID, detector.PARAMETERS)
    return finding


def test_confirmed_on_the_saturating_jdk17_pool() -> None:
    finding = check(
        detector.detect(fixture_incident("threadpool_metrics/pool-saturation-jdk17.csv"))
    )
    assert finding.verdict == "confirmed"
    assert "order-service" in finding.summary
    assert "8 of max 8" in finding.summary and "1355 tasks rejected" in finding.summary
    assert "under load" in finding.summary
    lead = finding.evidence[0]
    assert lead.series == "threadpool.active" and lead.labels == {"pool": "order-service"}
    # The saturation window of the capture: 07:27:27.5 .. 07:27:51 (bursts, then the drain).
    assert lead.from_ms == 1795246047554
    assert lead.to_ms is not None and lead.to_ms - lead.from_ms > 20_000
    assert "stayed full" in finding.explanation  # it went on draining after the bursts


def test_confirmed_from_the_rejection_log_alone() -> None:
    finding = check(
        detector.detect(fixture_incident("app_log/pool-saturation-jdk17-rejections.log"))
    )
    assert finding.verdict == "confirmed"
    assert "123 thread-pool rejection lines" in finding.summary
    assert finding.evidence[0].event_kind == "threadpool_rejected"


def test_confirmed_from_dubbo_exhausted_line() -> None:
    data = corpus_incident(
        "threads/dubbo-2.6.5-threadpool-exhausted-warn-with-stacktrace-xinsblog.log"
    )
    finding = check(detector.detect(data))
    assert finding.verdict == "confirmed"
    assert "DubboServerHandler" in finding.summary
    assert "active 300 of max 300" in finding.evidence[0].summary


def test_saturation_after_the_load_was_removed_is_called_a_draining_backlog() -> None:
    # Report A: 30 s of traffic, then traffic cut; the pool fills only afterwards.
    segments = [800.0] * 30 + [5.0] * 30
    nstat = Capture("nstat").series("netstat.TcpInSegs", segments, unit="per_s")
    active = [300.0] * 30 + [500.0] * 25 + [200.0] * 5
    pool = pool_capture(active, max_threads=500, pool="DubboServerHandler-10.0.0.1:20880")
    finding = check(detector.detect(incident(nstat, pool)))
    assert finding.verdict == "confirmed"
    assert "after the load was removed" in finding.summary
    assert "AFTER the load was removed" in finding.explanation
    assert "connections" in finding.remedies[0]  # network remedies first
    timing = next(e for e in finding.evidence if e.series == "netstat.TcpInSegs")
    assert timing.observed == 5.0 and timing.from_ms == T0 + 30_000


def test_saturation_under_load_keeps_pool_remedies_first() -> None:
    segments = [800.0] * 60
    nstat = Capture("nstat").series("netstat.TcpInSegs", segments, unit="per_s")
    pool = pool_capture([100.0] * 20 + [200.0] * 40, max_threads=200)
    finding = check(detector.detect(incident(nstat, pool)))
    assert finding.verdict == "confirmed" and "under load" in finding.summary
    assert finding.remedies[0].startswith("Dubbo: size the provider pool")


def test_network_noise_is_not_used_as_a_load_signal() -> None:
    # 3 segments/s is an idle host: too weak to say anything, the pool intake is used instead.
    nstat = Capture("nstat").series("netstat.TcpInSegs", [3.0] * 10 + [0.5] * 20, unit="per_s")
    pool = pool_capture([2.0] * 10 + [8.0] * 20, completed_per_s=[20.0] * 29)
    finding = check(detector.detect(incident(nstat, pool)))
    assert "pool intake" in finding.explanation


def test_likely_when_near_full() -> None:
    finding = check(detector.detect(incident(pool_capture([2, 5, 9, 9, 6], max_threads=10))))
    assert finding.verdict == "likely"
    assert "active peak 9 of max 10" in finding.summary


def test_likely_when_counter_already_held_rejections() -> None:
    pool = pool_capture([1, 2, 1], rejected=[37, 37, 37])
    finding = check(detector.detect(incident(pool)))
    assert finding.verdict == "likely"
    assert any("counter at 37" in e.summary for e in finding.evidence)


def test_ruled_out_names_the_peaks() -> None:
    pool = pool_capture([1, 3, 5, 4, 2], queue=[0, 0, 0, 0, 0], rejected=[0] * 5)
    finding = check(detector.detect(incident(pool)))
    assert finding.verdict == "ruled_out"
    assert "active peak 5/8" in finding.summary and "queue peak 0/50" in finding.summary
    assert "0 rejected over 5 samples" in finding.summary
    assert not finding.remedies


def test_boundary_saturation_duration() -> None:
    # 200 ms sampler: 6 saturated readings span exactly 1000 ms, 5 span 800 ms.
    at_limit = pool_capture([4] + [8] * 6 + [4], step_s=0.2)
    below = pool_capture([4] + [8] * 5 + [4], step_s=0.2)
    assert detector.detect(incident(at_limit)).verdict == "confirmed"
    short = check(detector.detect(incident(below)))
    assert short.verdict == "likely"
    assert "saturated 800 ms" in short.summary
    # One saturated reading of a 10 s scrape is a moment, not 10 s.
    single = check(
        detector.detect(incident(pool_capture([100, 200, 150], max_threads=200, step_s=10)))
    )
    assert single.verdict == "likely"


def test_boundary_near_full_ratio() -> None:
    assert detector.detect(incident(pool_capture([9], max_threads=10))).verdict == "likely"
    assert detector.detect(incident(pool_capture([8.9], max_threads=10))).verdict == "ruled_out"


def test_queue_full_alone_confirms() -> None:
    pool = pool_capture([6] * 5, queue=[10, 50, 50, 50, 20], max_threads=8)
    finding = check(detector.detect(incident(pool)))
    assert finding.verdict == "confirmed"


def test_busy_thread_dump_is_likely_and_io_pools_are_ignored() -> None:
    dump = Capture("thread_dump")
    for pool, state in (("biz-exec", "runnable"), ("New I/O server worker #1", "runnable")):
        dump.series("jvm.threads.pool", [10], unit="threads", labels={"pool": pool})
        dump.series(
            "jvm.threads.pool_state", [10], unit="threads", labels={"pool": pool, "state": state}
        )
    finding = check(detector.detect(incident(dump)))
    assert finding.verdict == "likely"
    assert "biz-exec" in finding.summary
    assert all("I/O" not in e.summary for e in finding.evidence)


def test_insufficient_without_pool_metrics() -> None:
    finding = check(
        detector.detect(fixture_incident("thread_dump/pool-saturation-jdk17-jstack-3-dumps.txt"))
    )
    # The fixture's workers sleep (TIMED_WAITING): the dump shows no busy pool.
    assert finding.verdict == "insufficient_data"
    assert "no thread dump shows a pool mostly RUNNABLE/BLOCKED" in finding.summary
    assert any("jstack" in m.command for m in finding.missing)
    empty = check(detector.detect(incident()))
    assert empty.verdict == "insufficient_data"


def test_pools_on_several_hosts_are_judged_apart() -> None:
    busy = pool_capture([8] * 5, host="provider-1")
    idle = pool_capture([8] * 5, max_threads=100, host="provider-2")
    finding = check(detector.detect(incident(busy, idle)))
    assert finding.verdict == "confirmed"
    assert "biz on provider-1" in finding.summary
    assert finding.evidence[0].host == "provider-1"


def test_saturation_windows_for_other_detectors() -> None:
    windows = detector.pool_saturation_windows(
        fixture_incident("threadpool_metrics/pool-saturation-jdk17.csv")
    )
    assert windows and windows[0].pool == "order-service"
    longest = max(windows, key=lambda w: w.to_ms - w.from_ms)
    assert longest.to_ms - longest.from_ms > 20_000


values = st.lists(st.floats(min_value=-5, max_value=1e6, allow_nan=False), max_size=30)


@settings(max_examples=60, deadline=None)
@given(active=values, maximum=values, queue=values, times=st.lists(st.integers(0, 5), max_size=30))
def test_never_raises_on_odd_series(active, maximum, queue, times) -> None:  # type: ignore[no-untyped-def]
    capture = Capture("threadpool_metrics", host=None)
    for name, points in (
        ("threadpool.active", active),
        ("threadpool.max", maximum),
        ("threadpool.queue", queue),
        ("threadpool.queue_capacity", maximum),
        ("threadpool.rejected", queue),
    ):
        for i, value in enumerate(points):
            at = times[i] if i < len(times) else i  # duplicate and unordered times
            capture.points.add(name, {"pool": "p"}, "", T0 + at * 1000, value)
    finding = detector.detect(incident(capture))
    assert finding.verdict in {"confirmed", "likely", "ruled_out", "insufficient_data"}


def test_rejection_counter_alone_confirms() -> None:
    capture = Capture("prometheus").series(
        "threadpool.rejected", [0, 5, 40], unit="tasks", labels={"pool": "http-nio-8080-exec"}
    )
    finding = check(detector.detect(incident(capture)))
    assert finding.verdict == "confirmed"
    assert finding.summary.startswith("Pool http-nio-8080-exec on h1 rejected 40 tasks")
