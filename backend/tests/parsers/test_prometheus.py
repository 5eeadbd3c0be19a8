"""Prometheus exposition parser: Micrometer capture, Dubbo/Tomcat scrapes, generic metrics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import prometheus
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, sniff_scores
from tests.conftest import FIXTURES_DIR
from tests.parsers.jvm_parser_kit import foreign_files, head_of, mutated

MICROMETER = FIXTURES_DIR / "prometheus" / "pool-saturation-jdk17-micrometer.prom"
SCRAPES = FIXTURES_DIR / "prometheus" / "dubbo-tomcat-two-scrapes-handwritten.prom"
OWN_FILES = [MICROMETER, SCRAPES]


def _by_key(
    result: ParseResult,
) -> dict[tuple[str, tuple[tuple[str, str], ...]], tuple[list[int], list[float]]]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): (list(s.times_ms), list(s.values))
        for s in result.series
    }


def _samples(path: Path, metric: str) -> list[tuple[int, float]]:
    pattern = re.compile(rf"^{metric}\{{[^}}]*\}} (\S+) (\d+)$", re.MULTILINE)
    return [(int(t), float(v)) for v, t in pattern.findall(path.read_text())]


def test_micrometer_capture_golden() -> None:
    result = prometheus.parse(MICROMETER.read_text(), ParseContext())
    assert result.status == "parsed"
    series = _by_key(result)
    pool = (("pool", "order-service"),)
    expected_active = _samples(MICROMETER, "executor_active_threads")
    assert len(expected_active) == 31
    times, values = series[("threadpool.active", pool)]
    assert list(zip(times, values, strict=True)) == expected_active
    assert max(values) == 8.0
    assert (
        series[("threadpool.rejected", pool)][1][-1]
        == _samples(MICROMETER, "executor_rejected_tasks_total")[-1][1]
    )
    queued = dict(_samples(MICROMETER, "executor_queued_tasks"))
    remaining = dict(_samples(MICROMETER, "executor_queue_remaining_tasks"))
    cap_t, cap_v = series[("threadpool.queue_capacity", pool)]
    assert cap_v == [queued[t] + remaining[t] for t in cap_t] and set(cap_v) == {50.0}
    assert ("threadpool.completed_per_s", pool) in series
    timed_waiting = re.findall(
        r'^jvm_threads_states_threads\{state="timed-waiting",\} (\S+)',
        MICROMETER.read_text(),
        re.MULTILINE,
    )
    assert series[("jvm.threads", (("state", "timed_waiting"),))][1] == [
        float(v) for v in timed_waiting
    ]


def test_two_scrapes_separated_by_timestamp_lines() -> None:
    result = prometheus.parse(SCRAPES.read_text(), ParseContext())
    assert result.status == "parsed"
    series = _by_key(result)
    t0, t1 = 1795246200000, 1795246210000  # 2026-11-21T07:30:00Z and +10 s
    dubbo = (("pool", "DubboServerHandler-10.0.0.1:20880"),)
    assert series[("threadpool.active", dubbo)] == ([t0, t1], [180.0, 200.0])
    assert series[("threadpool.largest", dubbo)][1] == [200.0, 200.0]
    assert series[("threadpool.rejected_per_s", dubbo)] == ([t1], [3.7])
    tomcat = (("pool", "http-nio-8080"),)
    assert series[("threadpool.active", tomcat)][1] == [12.0, 200.0]
    assert series[("threadpool.max", tomcat)][1] == [200.0, 200.0]
    assert series[("jvm.threads", (("state", "blocked"),))][1] == [0.0, 150.0]
    assert series[("prom.process_cpu_usage", ())][1] == [0.21, 0.35]
    # Nine labels: the first eight by name are kept ("uri" is dropped) and a fact says so.
    generic = [s for s in result.series if s.name == "prom.http_server_requests_seconds_sum"]
    assert len(generic) == 1 and len(generic[0].labels) == prometheus.MAX_GENERIC_LABELS
    assert "uri" not in generic[0].labels and generic[0].unit == "s"
    assert result.facts[0].key == "prometheus.labels_dropped"


def test_samples_without_time_use_default_and_bad_lines_are_diagnosed() -> None:
    text = '# TYPE executor_active_threads gauge\nexecutor_active_threads{executor="a"} 3\nthis is not a sample at all\nexecutor_active_threads{executor="a"} abc\n'
    result = prometheus.parse(text, ParseContext(default_time_ms=5000))
    assert _by_key(result)[("threadpool.active", (("pool", "a"),))] == ([5000], [3.0])
    assert [d.line for d in result.diagnostics] == [3, 4]
    assert result.status == "partial"


def test_generic_series_are_capped() -> None:
    lines = [f'm{{id="{i}"}} 1' for i in range(prometheus.MAX_GENERIC_SERIES + 5)]
    result = prometheus.parse("# TYPE m gauge\n" + "\n".join(lines), ParseContext())
    assert len(result.series) == prometheus.MAX_GENERIC_SERIES
    assert "5 samples" in result.diagnostics[0].message


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_registry_detects_fixture(path: Path) -> None:
    assert detect_kind(head_of(path)) == "prometheus"


@pytest.mark.corpus
@pytest.mark.parametrize("path", foreign_files(set(OWN_FILES)), ids=lambda p: p.name)
def test_does_not_claim_other_kinds(path: Path) -> None:
    assert sniff_scores(head_of(path))["prometheus"] < 0.5


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(prometheus.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= prometheus.sniff(text) <= 1.0


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(st.data())
def test_never_raises_on_mutated_fixture(data: st.DataObject) -> None:
    for path in OWN_FILES:
        text = data.draw(mutated(path.read_text()))
        assert isinstance(prometheus.parse(text, ParseContext()), ParseResult)


@pytest.mark.parametrize(
    "control", ["\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\x0b", "\x0c"]
)
def test_control_characters_in_label_values_do_not_split_lines(control: str) -> None:
    text = (
        "# TYPE http_requests_total counter\n"
        f'http_requests_total{{path="/a{control}b",code="200"}} 7\n'
        "garbage line\n"
        'http_requests_total{path="/c",code="500"} 2\r\n'
    )
    result = prometheus.parse(text, ParseContext(default_time_ms=1_000))
    values = sorted(
        (s.labels.get("path"), s.values[0])
        for s in result.series
        if s.name == "prom.http_requests_total"
    )
    assert values == [(f"/a{control}b", 7.0), ("/c", 2.0)]
    # The bad line is line 3 of the file, counted by "\n" as every other tool counts lines.
    assert [d.line for d in result.diagnostics] == [3]
    assert prometheus.sniff(text.replace("garbage line\n", "")) >= 0.5
