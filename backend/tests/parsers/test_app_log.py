"""Application-log parser: Dubbo EXHAUSTED, RejectedExecutionException, Tomcat, timeouts."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import app_log
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, sniff_scores
from tests.conftest import CORPUS_DIR, FIXTURES_DIR
from tests.parsers.jvm_parser_kit import foreign_files, head_of, mutated, text_of

DUBBO_LOG = (
    CORPUS_DIR / "threads" / "dubbo-2.6.5-threadpool-exhausted-warn-with-stacktrace-xinsblog.log"
)
REJECTIONS_LOG = FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log"
ERRORS_LOG = FIXTURES_DIR / "app_log" / "checkout-errors-handwritten.log"
OWN_FILES = [DUBBO_LOG, REJECTIONS_LOG, ERRORS_LOG]
UPLOAD_DAY_MS = int(dt.datetime(2026, 11, 21, tzinfo=dt.UTC).timestamp() * 1000)


@pytest.mark.corpus
def test_dubbo_exhausted_with_stack_trace_is_one_event(corpus_dir: Path) -> None:
    result = app_log.parse(text_of(DUBBO_LOG), ParseContext(default_time_ms=UPLOAD_DAY_MS))
    assert result.status == "parsed"
    # The WARN line and the "Caused by" line repeat one rejection: one record, one event.
    assert text_of(DUBBO_LOG).count("Thread pool is EXHAUSTED") == 2
    [event] = result.events
    assert event.kind == "threadpool_rejected"
    attrs = event.attrs
    assert attrs["pool"] == "DubboServerHandler-10.8.64.57:20880"
    assert (attrs["pool_size"], attrs["active"], attrs["core"], attrs["max"], attrs["largest"]) == (
        300,
    ) * 5
    assert (attrs["task"], attrs["completed"], attrs["is_shutdown"]) == (5821, 5621, False)
    assert attrs["url"] == "dubbo://x.x.x.x:20880"
    assert (attrs["level"], attrs["thread"], attrs["line"]) == (
        "WARN",
        "New I/O server worker #1-4",
        1,
    )
    # A bare clock: placed on the upload day, and a fact says so.
    assert event.time_ms == UPLOAD_DAY_MS + ((17 * 60 + 54) * 60 + 34) * 1000 + 26
    assert [(f.key, f.value) for f in result.facts] == [("app_log.date_assumed", "2026-11-21")]
    rate, errors = result.series
    assert (rate.name, rate.unit, list(rate.values)) == (
        "threadpool.rejected_events",
        "per_min",
        [1.0],
    )
    # The same event counted per second over the log's span (its one second).
    assert (errors.name, errors.labels, errors.unit) == (
        "app.log.errors",
        {"kind": "threadpool_rejected"},
        "per_s",
    )
    assert list(errors.values) == [1.0]
    second = event.time_ms - event.time_ms % 1000
    assert list(errors.times_ms) == [second]


def test_java_rejections_fixture_golden() -> None:
    text = REJECTIONS_LOG.read_text()
    result = app_log.parse(text, ParseContext())
    assert result.status == "parsed"
    warn_lines = [i for i, line in enumerate(text.splitlines(), 1) if " WARN " in line]
    assert len(result.events) == len(warn_lines) == 123
    assert [e.attrs["line"] for e in result.events] == warn_lines
    first = result.events[0]
    assert first.time_ms == int(
        dt.datetime(2026, 11, 21, 7, 27, 27, 482000, tzinfo=dt.UTC).timestamp() * 1000
    )
    assert first.attrs["signature"] == "executor_rejected"
    assert first.attrs["logger"] == "com.example.OrderDispatcher"
    queued = [int(q) for q in re.findall(r"queued tasks = (\d+)", text)]
    assert [e.attrs["queue"] for e in result.events] == queued
    assert {e.attrs["pool_size"] for e in result.events} == {8}
    by_name = {s.name: s for s in result.series}
    assert sum(by_name["threadpool.rejected_events"].values) == 123
    assert sum(by_name["app.log.errors"].values) == 123


def test_tomcat_timeouts_and_resets_and_noise() -> None:
    text = "\n".join(
        [
            "21-Nov-2026 07:00:00.123 SEVERE [http-nio-8080-Acceptor-0] org.apache.tomcat.util.net.AbstractEndpoint - All threads (200) are currently busy, waiting. Increase maxThreads (200) or check the servlet status",
            "2026-11-21 07:00:01,000 INFO [main] com.example.App - started in 3 s",
            "[2026-11-21 07:00:02.500] ERROR [DubboClientHandler-1] com.example.Client - call failed",
            "com.alibaba.dubbo.remoting.TimeoutException: Waiting server-side response timeout. start time: x, end time: y, client elapsed: 0 ms, server elapsed: 1002 ms, timeout: 1000 ms, request: Request",
            "\tat com.alibaba.dubbo.remoting.exchange.support.DefaultFuture.get(DefaultFuture.java:134)",
            "2026-11-21T07:00:03.000+08:00 WARN [nioEventLoopGroup-3-1] io.netty.Handler - java.io.IOException: Connection reset by peer",
            "some ordinary line",
        ]
    )
    result = app_log.parse(text, ParseContext())
    assert result.status == "parsed" and not result.diagnostics
    kinds = [(e.kind, e.attrs["signature"]) for e in result.events]
    assert kinds == [
        ("threadpool_rejected", "tomcat_all_threads_busy"),
        ("rpc_timeout", "rpc_timeout"),
        ("connection_reset", "connection_reset"),
    ]
    tomcat, timeout, reset = result.events
    assert (tomcat.attrs["active"], tomcat.attrs["max"], tomcat.attrs["level"]) == (
        200,
        200,
        "SEVERE",
    )
    assert (timeout.attrs["elapsed_ms"], timeout.attrs["timeout_ms"], timeout.attrs["line"]) == (
        1002,
        1000,
        3,
    )
    assert reset.time_ms == int(
        dt.datetime(2026, 11, 20, 23, 0, 3, tzinfo=dt.UTC).timestamp() * 1000
    )


def test_log_without_signatures_yields_nothing_and_no_diagnostics() -> None:
    result = app_log.parse("2026-11-21 07:00:01,000 INFO [main] x.Y - hello\n", ParseContext())
    assert result.status == "failed" and not result.diagnostics and not result.events


@pytest.mark.corpus
@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_registry_detects_fixture(path: Path) -> None:
    assert detect_kind(head_of(path)) == "app_log"


@pytest.mark.corpus
@pytest.mark.parametrize("path", foreign_files(set(OWN_FILES)), ids=lambda p: p.name)
def test_does_not_claim_other_kinds(path: Path) -> None:
    assert sniff_scores(head_of(path))["app_log"] < 0.5


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(app_log.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= app_log.sniff(text) <= 1.0


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(st.data())
def test_never_raises_on_mutated_fixture(data: st.DataObject) -> None:
    for path in [REJECTIONS_LOG, *([DUBBO_LOG] if DUBBO_LOG.is_file() else [])]:
        text = data.draw(mutated(text_of(path)))
        assert isinstance(app_log.parse(text, ParseContext()), ParseResult)


def test_cannot_assign_requested_address_is_a_connect_failure() -> None:
    text = (
        "2026-11-24 05:49:25,001 ERROR [worker-3] com.example.Client - call failed\n"
        "java.net.NoRouteToHostException: Cannot assign requested address (Address not available)\n"
        "\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n"
        "2026-11-24 05:49:26,001 INFO [main] com.example.Client - ok\n"
    )
    result = app_log.parse(text, ParseContext.for_zone("UTC"))
    (event,) = result.events
    assert event.kind == "connect_failed" and event.attrs["errno"] == "EADDRNOTAVAIL"
    assert event.attrs["exception"] == "java.net.NoRouteToHostException"


def test_timeouts_exceptions_and_failures_become_events_and_counts_per_second() -> None:
    # Hand-written: one record of each kind between INFO noise (see the fixtures README).
    result = app_log.parse(text_of(ERRORS_LOG), ParseContext.for_zone("UTC"))
    assert result.status == "parsed" and not result.diagnostics
    at_07_52 = int(dt.datetime(2026, 11, 21, 7, 52, tzinfo=dt.UTC).timestamp() * 1000)
    events = [
        (e.time_ms - at_07_52, e.kind, e.attrs.get("exception"), e.attrs["line"])
        for e in result.events
    ]
    assert events == [
        (12_004, "socket_timeout", "java.net.SocketTimeoutException", 3),
        (12_530, "socket_timeout", "java.net.SocketTimeoutException", 8),
        (13_101, "socket_timeout", None, 12),
        # The record's own exception, not the cause below it.
        (14_250, "exception", "java.lang.IllegalStateException", 13),
        (14_900, "threadpool_rejected", None, 20),
        (16_002, "connection_reset", "java.net.SocketException", 23),
        (16_480, "connect_failed", "java.net.BindException", 26),
        # An exception named inside the message line counts too.
        (21_777, "exception", "java.lang.OutOfMemoryError", 30),
    ]
    assert [e.attrs["timeout"] for e in result.events[:3]] == ["read", "read", "connect"]
    rates = {
        s.labels["kind"]: [
            ((t - at_07_52) // 1000, v) for t, v in zip(s.times_ms, s.values, strict=True)
        ]
        for s in result.series
        if s.name == "app.log.errors"
    }
    assert {s.unit for s in result.series if s.name == "app.log.errors"} == {"per_s"}
    # Every second of the log's span holds a point, 0 when quiet.
    (span,) = {tuple(second for second, _ in points) for points in rates.values()}
    assert span == tuple(range(span[0], span[-1] + 1)) and span[0] <= 11 and span[-1] >= 21
    assert {kind: [p for p in points if p[1]] for kind, points in rates.items()} == {
        # Two read timeouts in second 12, the connect timeout in 13.
        "socket_timeout": [(12, 2.0), (13, 1.0)],
        "exception": [(14, 1.0), (21, 1.0)],
        "threadpool_rejected": [(14, 1.0)],
        "connection_reset": [(16, 1.0)],
        "connect_failed": [(16, 1.0)],
    }


def test_a_frame_of_an_exception_class_is_not_an_exception() -> None:
    text = (
        "2026-11-21 07:00:00,000 INFO [main] com.example.App - retry policy set\n"
        "\tat com.example.RetryException.<init>(RetryException.java:10)\n"
        "2026-11-21 07:00:01,000 INFO [main] com.example.App - handler com.example.ErrorHandler(3)\n"
    )
    assert app_log.parse(text, ParseContext()).events == []


def test_a_burst_of_errors_late_in_a_quiet_log_is_counted_over_the_log_span() -> None:
    """Every second of the log's span holds a point (0 when quiet), so the symptom's
    baseline is the quiet start of the log, not the burst."""
    start = dt.datetime(2026, 11, 21, 7, 0, 0, tzinfo=dt.UTC)
    lines = []
    for second in range(1200):
        stamp = (start + dt.timedelta(seconds=second)).strftime("%Y-%m-%d %H:%M:%S,000")
        lines.append(f"{stamp} INFO  [http-nio-8080-exec-1] com.example.Web - GET /ok 200")
        if second >= 1020:
            lines.append(
                f"{stamp} ERROR [http-nio-8080-exec-2] com.example.Web - failed\n"
                "java.lang.IllegalStateException: pool closed\n"
                "\tat com.example.Web.handle(Web.java:42)"
            )
    result = app_log.parse("\n".join(lines) + "\n", ParseContext(default_time_ms=UPLOAD_DAY_MS))
    (errors,) = [s for s in result.series if s.name == "app.log.errors"]
    start_ms = int(start.timestamp() * 1000)
    assert list(errors.times_ms) == [start_ms + 1000 * n for n in range(1200)]
    assert sum(errors.values) == 180 and set(errors.values[:1020]) == {0.0}

    from rootline.detectors import symptom
    from rootline.detectors.data import MemoryIncidentData
    from rootline.offline import ParsedArtifact

    data = MemoryIncidentData([ParsedArtifact("app.log", None, result)])
    found = symptom.find_symptom(data)
    assert found is not None and found.series == "app.log.errors"
    assert found.start_ms == start_ms + 1_020_000


def _json_log() -> str:
    """logstash-logback-encoder lines: INFO noise, then an ERROR with a stack trace."""
    lines = []
    for n in range(30):
        record = {
            "@timestamp": f"2026-11-26T16:16:{n:02d}.000+00:00",
            "@version": "1",
            "message": "GET /orders 200",
            "logger_name": "c.e.OrderController",
            "thread_name": "http-nio-8080-exec-1",
            "level": "INFO",
            "level_value": 20000,
        }
        if n >= 25:
            record.update(
                message="call failed",
                level="ERROR",
                level_value=40000,
                stack_trace="java.net.SocketTimeoutException: Read timed out\n"
                "\tat java.net.SocketInputStream.socketRead0(Native Method)",
            )
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def test_json_lines_logs_are_read_into_the_same_events() -> None:
    from rootline.parsers import app_metrics

    text = _json_log()
    assert detect_kind(text) == "app_log" and app_metrics.sniff(text) == 0.0
    result = app_log.parse(text, ParseContext.for_zone("UTC"))
    assert result.status == "parsed" and not result.diagnostics
    assert [(e.kind, e.attrs["exception"], e.attrs["line"]) for e in result.events] == [
        ("socket_timeout", "java.net.SocketTimeoutException", line) for line in range(26, 31)
    ]
    event = result.events[0]
    assert (event.attrs["level"], event.attrs["thread"], event.attrs["logger"]) == (
        "ERROR",
        "http-nio-8080-exec-1",
        "c.e.OrderController",
    )
    assert event.attrs["message"] == "call failed" and event.attrs["timeout"] == "read"
    at_16_16 = int(dt.datetime(2026, 11, 26, 16, 16, tzinfo=dt.UTC).timestamp() * 1000)
    assert event.time_ms == at_16_16 + 25_000
    (errors,) = result.series
    assert len(errors.times_ms) == 30 and sum(errors.values) == 5


def test_a_json_lines_log_with_a_bare_clock_says_the_date_was_assumed() -> None:
    line = (
        '{"time": "17:54:34.026", "level": "ERROR", "message": "call failed", '
        '"stack_trace": "java.net.SocketTimeoutException: Read timed out"}\n'
    )
    result = app_log.parse(line, ParseContext(default_time_ms=UPLOAD_DAY_MS))
    [event] = result.events
    assert event.time_ms == UPLOAD_DAY_MS + ((17 * 60 + 54) * 60 + 34) * 1000 + 26
    assert [(f.key, f.value) for f in result.facts] == [("app_log.date_assumed", "2026-11-21")]
    dated = app_log.parse(line.replace("17:54", "2026-11-20T17:54"), ParseContext())
    assert dated.events and not dated.facts


def test_an_exception_class_named_on_an_info_line_is_no_error() -> None:
    text = (
        "2026-11-21 07:52:00,000 INFO  [main] com.example.Web - Mapped"
        " com.example.errors.NotFoundException to 404\n"
        "2026-11-21 07:52:01,000 DEBUG [main] com.example.Web - registered"
        " com.example.errors.ConflictException handler\n"
        "2026-11-21 07:52:02,000 WARN  [main] com.example.Web - lookup failed:"
        " com.example.errors.NotFoundException: order 7\n"
        "2026-11-21 07:52:03,000 INFO  [main] com.example.Web - retrying after\n"
        "java.lang.IllegalStateException: pool closed\n"
        "\tat com.example.Web.handle(Web.java:42)\n"
    )
    result = app_log.parse(text, ParseContext.for_zone("UTC"))
    assert [(e.attrs["level"], e.attrs["exception"]) for e in result.events] == [
        ("WARN", "com.example.errors.NotFoundException"),
        ("INFO", "java.lang.IllegalStateException"),  # a stack trace: an error at any level
    ]
