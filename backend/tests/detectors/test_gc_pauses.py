"""gc_pauses: long pauses, GC time share, full GCs, stalls, and overlap with the slow period."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.detectors import gc_pauses as detector
from rootline.detectors.base import Finding
from rootline.parsers.base import EventData
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


def gc_log(pauses: list[tuple[float, float, str]], host: str | None = "h1") -> Capture:
    """A GC log with pauses (start s, duration ms, type)."""
    capture = Capture("gc_unified", host, name="gc.log")
    for at_s, duration_ms, kind in pauses:
        capture.event("gc_pause", at_s, duration_ms, type=kind, collector="g1", cause="test")
    capture.fact("gc.collector", "g1").fact("gc.allocation_rate_mb_s", "412.5")
    return capture


def young(
    n: int, every_s: float, duration_ms: float, start_s: float = 0.0
) -> list[tuple[float, float, str]]:
    return [(start_s + i * every_s, duration_ms, "young") for i in range(n)]


def test_ruled_out_on_a_healthy_g1_log_names_the_numbers() -> None:
    finding = check(detector.detect(fixture_incident("gc_unified/g1-time-uptime-level-tags.log")))
    assert finding.verdict == "ruled_out"
    assert "max pause 5.6 ms" in finding.summary
    assert "0.9 % GC" in finding.summary and "66 pauses" in finding.summary
    assert "98.1 MB/s allocated" in " ".join(e.summary for e in finding.evidence)


def test_confirmed_by_a_long_full_gc_in_a_real_log() -> None:
    finding = check(
        detector.detect(
            corpus_incident("gc/jdk7-parallel-datestamps-gccause-tenuring-gctoolkit.log")
        )
    )
    assert finding.verdict == "confirmed"
    assert "2.4 s pause" in finding.summary
    longest = finding.evidence[0]
    assert longest.event_kind == "gc_pause" and longest.observed == 2411.52
    assert longest.to_ms is not None and longest.from_ms is not None
    assert longest.to_ms - longest.from_ms == 2412


def test_confirmed_by_time_share_of_short_pauses() -> None:
    # 50 ms every 0.5 s = 10 % of every window, no pause longer than 50 ms.
    finding = check(detector.detect(incident(gc_log(young(60, 0.5, 50.0)))))
    assert finding.verdict == "confirmed"
    assert "10.0 % GC time in a 10 s window" in finding.summary


def test_boundary_max_pause() -> None:
    at_limit = detector.detect(incident(gc_log([*young(30, 1.0, 5.0), (40.0, 1000.0, "full")])))
    below = detector.detect(incident(gc_log([*young(30, 1.0, 5.0), (40.0, 999.0, "full")])))
    assert at_limit.verdict == "confirmed"
    assert below.verdict == "likely"
    assert "999 ms" in below.summary


def test_boundary_ruled_out_share() -> None:
    # 19 ms per second = 1.9 % < 2 %: ruled out; 20 ms per second = 2.0 %: likely.
    assert detector.detect(incident(gc_log(young(60, 1.0, 19.0)))).verdict == "ruled_out"
    assert detector.detect(incident(gc_log(young(60, 1.0, 20.0)))).verdict == "likely"


def test_likely_on_p99_and_full_gcs() -> None:
    finding = check(detector.detect(incident(gc_log(young(20, 30.0, 250.0)))))
    assert finding.verdict == "likely"
    assert "p99 pause 250 ms" in finding.summary
    full = check(detector.detect(incident(gc_log([*young(30, 5.0, 5.0), (200.0, 450.0, "full")]))))
    assert full.verdict == "likely" and "1 full GCs" in full.summary


def test_short_full_gcs_do_not_count() -> None:
    # A 13 ms full GC of a small heap (the corpus' Parallel sample) stops nothing callers feel.
    finding = check(
        detector.detect(incident(gc_log([*young(30, 5.0, 5.0), (200.0, 13.0, "full")])))
    )
    assert finding.verdict == "ruled_out"
    assert "1 full GCs, longest 13 ms" in finding.summary


def test_allocation_stalls_and_to_space_exhausted() -> None:
    stalls = check(detector.detect(corpus_incident("gc/jdk-ujl-zgc-allocation-stall-gcviewer.txt")))
    assert stalls.verdict == "likely" and "14 allocation stalls" in stalls.summary
    log = gc_log(young(10, 5.0, 20.0))
    log.event("gc_to_space_exhausted", 25.0, gc_id=5)
    finding = check(detector.detect(incident(log)))
    assert finding.verdict == "likely" and "1 to-space exhausted" in finding.summary


def test_long_pause_inside_the_saturation_window_stays_confirmed() -> None:
    pool = pool_capture([2] * 10 + [8] * 10 + [2] * 10, max_threads=8)
    finding = check(
        detector.detect(incident(pool, gc_log([*young(5, 2.0, 5.0), (12.0, 1500.0, "full")])))
    )
    assert finding.verdict == "confirmed"
    overlap = finding.evidence[1]
    assert "pool biz saturated" in overlap.summary
    assert overlap.observed is not None and float(overlap.observed) >= 1500


def test_long_pause_outside_the_slow_period_is_only_likely() -> None:
    pool = pool_capture([2] * 10 + [8] * 10 + [2] * 10, max_threads=8)
    finding = check(
        detector.detect(incident(pool, gc_log([*young(5, 2.0, 5.0), (28.0, 1500.0, "full")])))
    )
    assert finding.verdict == "likely"
    assert "none of it inside the slow period" in finding.summary
    assert "holds 0 ms of GC pauses" in finding.explanation


def test_unanchored_log_is_not_placed_against_the_slow_period() -> None:
    pool = pool_capture([8] * 10, max_threads=8)
    log = Capture("gc_unified", "h1", name="gc.log")
    log.events.append(EventData("gc_pause", 5_000, 1500.0, {"type": "full"}))  # uptime 5 s
    finding = check(detector.detect(incident(pool, log)))
    assert finding.verdict == "confirmed"
    assert "JVM uptime only" in finding.explanation


def test_insufficient_without_gc_log() -> None:
    finding = check(detector.detect(incident(pool_capture([1, 2]))))
    assert finding.verdict == "insufficient_data"
    assert any("-Xlog:gc*" in m.command for m in finding.missing)


def test_gc_log_without_pauses_rules_out() -> None:
    empty = Capture("gc_unified", "h1")
    empty.fact("gc.collector", "zgc")
    finding = detector.detect(incident(empty))
    assert finding.verdict == "ruled_out"


def test_worst_of_several_jvms_leads() -> None:
    calm = gc_log(young(30, 1.0, 5.0), host="a")
    stormy = gc_log([*young(30, 1.0, 5.0), (31.0, 3000.0, "full")], host="b")
    finding = check(detector.detect(incident(calm, stormy)))
    assert finding.verdict == "confirmed"
    assert finding.evidence[0].host == "b"
    assert "worst of 2 GC logs" in finding.summary


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-10, 10_000),
            st.floats(min_value=0, max_value=1e5, allow_nan=False),
            st.sampled_from(["young", "full", "remark", "", "degenerated"]),
        ),
        max_size=40,
    )
)
def test_never_raises(pauses) -> None:  # type: ignore[no-untyped-def]
    capture = Capture("gc_legacy", None)
    for at, duration, kind in pauses:
        capture.event("gc_pause", at / 10.0, duration, type=kind)
        capture.event("gc_allocation_stall", at / 10.0, duration / 2)
    finding = detector.detect(incident(capture, pool_capture([8, 8, 1], host=None)))
    assert finding.verdict in {"confirmed", "likely", "ruled_out", "insufficient_data"}
    assert T0 > 0
