"""Application logs, read for the records that say a thread pool, a connection or a call gave out.

Input: the service's own log (logback / log4j / Tomcat juli layouts), e.g. ``logs/app.log``
or ``catalina.out``. Sample lines:

    17:54:34,026 WARN [New I/O server worker #1-4] -  [DUBBO] Thread pool is EXHAUSTED! Thread Name: DubboServerHandler-10.8.64.57:20880, Pool Size: 300 (active: 300, core: 300, max: 300, largest: 300), Task: 5821 (completed: 5621), Executor status:(isShutdown:false, isTerminated:false, isTerminating:false), in dubbo://x.x.x.x:20880!
    2026-11-21 07:27:27,482 WARN  [main] com.example.OrderDispatcher - task rejected in burst 8
    java.util.concurrent.RejectedExecutionException: Task ... rejected from java.util.concurrent.ThreadPoolExecutor@2b193f2d[Running, pool size = 8, active threads = 8, queued tasks = 50, completed tasks = 12]
        at java.base/java.util.concurrent.ThreadPoolExecutor$AbortPolicy.rejectedExecution(ThreadPoolExecutor.java:2065)

A *record* is a line starting with a timestamp plus the lines below it that do not (stack
frames, ``Caused by:``, exception messages); one record gives at most one event, from the first
rule below that matches anywhere in it. Everything else in the file is ordinary log noise and a
known no-op: the parser scans the text for :data:`SIGNATURE_RE` and never looks at the rest,
which is why it is fast and why an app log yields no line diagnostics.

Rules (first match wins):

=========================  ===================  =============================================
rule                       event kind           attrs
=========================  ===================  =============================================
dubbo_exhausted            threadpool_rejected  pool, pool_size, active, core, max, largest,
                                                task, completed, is_shutdown, url
executor_rejected          threadpool_rejected  pool (executor id), run_state, pool_size,
                                                active, queue, completed
tomcat_all_threads_busy    threadpool_rejected  pool (logging thread), active, max
tomcat_max_threads         threadpool_rejected  pool (``connector:<port>``), max
rpc_timeout                rpc_timeout          exception, elapsed_ms (the last "elapsed",
                                                Dubbo's server side), timeout_ms
socket_timeout             socket_timeout       exception (``java.net.SocketTimeoutException``
                                                when named), timeout (``read`` / ``connect``
                                                / ``other``): "Read timed out", "connect
                                                timed out", any SocketTimeoutException
address_not_available      connect_failed       exception, errno (``EADDRNOTAVAIL``: "Cannot
                                                assign requested address", no free local port)
connection_reset           connection_reset     exception
exception                  exception            exception: the first qualified class name
                                                ending in ``Exception`` / ``Error`` in the
                                                record (``java.lang.IllegalStateException``),
                                                any other exception or error, in a record
                                                logged at WARN, ERROR, FATAL or SEVERE or
                                                holding a stack trace (a ``\tat`` frame or
                                                ``Caused by:``): ``INFO ... Mapped
                                                com.example.NotFoundException to 404`` is
                                                no error
=========================  ===================  =============================================

JSON-lines logs (logstash-logback-encoder, ECS and the like: one object a line) are read into
the same records: ``message`` (or ``msg``) with ``stack_trace`` (or ``exception``,
``error.stack_trace``) below it is the record, ``@timestamp`` (``timestamp``, ``time``, ``ts``)
its time, ``level`` (``severity``, ``log.level``), ``logger_name`` (``logger``, ``log.logger``)
and ``thread_name`` (``thread``) its fields; a line that is not such an object is a diagnostic.
Sample line::

    {"@timestamp": "2026-11-26T16:16:50.000+00:00", "@version": "1", "message": "call failed", "logger_name": "c.e.OrderController", "thread_name": "http-nio-8080-exec-1", "level": "ERROR", "level_value": 40000, "stack_trace": "java.net.SocketTimeoutException: Read timed out\n\tat java.net.SocketInputStream.socketRead0(Native Method)"}

Every event also carries ``signature`` (the rule), ``level``, ``thread``, ``logger``,
``message`` (the record's first line, 500 characters at most) and ``line`` (1-based).

Series:

- ``threadpool.rejected_events{pool}``, unit ``per_min``: threadpool_rejected events per
  minute, one point per minute that had any (stamped at the minute's start).
- ``app.log.errors{kind}``, unit ``per_s``: every event above counted per second by its event
  kind (``kind`` = ``exception``, ``socket_timeout``, ``threadpool_rejected`` ...), stamped at
  the second's start. Every second of the log's span (its first to its last timestamped
  line) holds a point, 0 for a quiet one, so that a burst late in the log stands out against
  the quiet before it. Past :data:`MAX_FILLED_SECONDS` of span only the seconds with errors,
  a 0 on each side of each run of them and a 0 at each end of the span hold points (read a
  missing second as 0).

Timestamps: ``2019-01-01 12:00:00,123``, ISO 8601, ``[2019-01-01 12:00:00.123]``, Tomcat's
``21-Nov-2026 07:00:00.123``, zone-less ones in ``context.timezone``. A bare clock
(``17:54:34,026``) is placed on the day of ``context.default_time_ms`` and the fact
``app_log.date_assumed`` gives that day (``2026-11-21``), in a JSON-lines log too. Records
before any timestamp sit at the default time.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from array import array
from collections import Counter
from collections.abc import Callable
from typing import Any

from rootline.parsers.base import (
    DATE_ASSUMED,
    EventData,
    Fact,
    ParseContext,
    ParseResult,
    SeriesData,
    iter_lines,
)
from rootline.parsers.logtime import DATETIME_RE, HourCache, bounded_epoch_ms, match_to_ms

KIND = "app_log"

SATURATION_RE = re.compile(
    r"Thread pool is EXHAUSTED|RejectedExecutionException|are currently busy, waiting"
    r"|Maximum number of threads \(\d+\) created"
)
FAILURE_RE = re.compile(
    r"(?:dubbo\.remoting\.TimeoutException|Waiting server-side response timeout|Sending request timeout in client-side"
    r"|io\.netty\.\S*(?:ReadTimeout|WriteTimeout|ConnectTimeout)Exception|Connection reset"
    r"|Cannot assign requested address)"
)
# Timeouts of a socket read or connect: Java's SocketTimeoutException and its messages.
SOCKET_TIMEOUT_RE = re.compile(
    r"(?P<exception>[\w.$]*SocketTimeoutException)|(?P<read>Read timed out)"
    r"|(?P<connect>[Cc]onnect timed out)"
)
# Any other exception or error, by its qualified class name (``java.lang.IllegalStateException``):
# a package, then a class ending in Exception / Error, and not a frame's ``Class.method(``.
EXCEPTION_RE = re.compile(
    r"(?P<exception>(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))(?![\w$.(])"
)
# Where a record worth reading may be: plain words, so the scan over a big log stays fast
# (the rules below decide; a hit that none of them matches is ordinary noise).
SIGNATURE_RE = re.compile(f"{SATURATION_RE.pattern}|{FAILURE_RE.pattern}|timed out|Exception|Error")

# A record header: a timestamp at the start of the line, optionally in brackets.
HEADER_RE = re.compile(
    r"\[?(?:(?P<iso>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)"
    r"|(?P<tomcat>\d{2}-[A-Z][a-z]{2}-\d{4} \d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)"
    r"|(?P<clock>\d{2}:\d{2}:\d{2}(?:[.,]\d{1,3})?)(?![\d:-]))\]?"
)
LEVEL_RE = re.compile(r"\b(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|SEVERE|FATAL)\b")
THREAD_RE = re.compile(r"\[([^\]]+)\]")
LOGGER_RE = re.compile(r"\b((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*)\b")
TOMCAT_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}

DUBBO_EXHAUSTED_RE = re.compile(
    r"Thread pool is EXHAUSTED! Thread Name: (?P<pool>[^,]+)"
    r"(?:, Pool Size: (?P<pool_size>\d+) \(active: (?P<active>\d+), core: (?P<core>\d+), max: (?P<max>\d+), "
    r"largest: (?P<largest>\d+)\), Task: (?P<task>\d+) \(completed: (?P<completed>\d+)\)"
    r"(?:, Executor status:\(isShutdown:(?P<is_shutdown>\w+), isTerminated:\w+, isTerminating:\w+\))?"
    r"(?:, in (?P<url>[^!\s]+?)!)?)?"
)
EXECUTOR_REJECTED_RE = re.compile(
    r"RejectedExecutionException(?::.*?rejected from (?P<pool>[\w.$]+@[0-9a-f]+)\[(?P<run_state>[A-Za-z ]+), "
    r"pool size = (?P<pool_size>\d+), active threads = (?P<active>\d+), queued tasks = (?P<queue>\d+), "
    r"completed tasks = (?P<completed>\d+)\])?"
)
TOMCAT_BUSY_RE = re.compile(
    r"All threads \((?P<active>\d+)\) are currently busy, waiting\. Increase maxThreads \((?P<max>\d+)\)"
)
TOMCAT_MAX_RE = re.compile(
    r"Maximum number of threads \((?P<max>\d+)\) created for connector with address \[?[^\]\s]*\]? and port \[?(?P<port>\d+)"
)
RPC_TIMEOUT_RE = re.compile(
    r"(?P<exception>[\w.$]*(?:TimeoutException))?[^\n]*?(?:Waiting server-side response timeout|Sending request timeout in client-side"
    r"|TimeoutException)(?:[^\n]*elapsed: (?P<elapsed_ms>\d+) ms)?(?:[^\n]*?timeout: (?P<timeout_ms>\d+) ms)?"
)
CONNECTION_RESET_RE = re.compile(r"(?P<exception>[\w.$]+Exception)?[: ]*Connection reset")
# connect() found no free local port towards the destination (EADDRNOTAVAIL): Java's
# NoRouteToHostException / BindException / ConnectException, Go and Python print the same text.
ADDRESS_NOT_AVAILABLE_RE = re.compile(
    r"(?P<exception>[\w.$]+(?:Exception|Error))?[^\n]*?Cannot assign requested address"
)

# How far a record reaches: a stack trace longer than this is cut (no signature hides that deep).
MAX_RECORD_LINES = 300
# A log spanning up to a day gets a point for every second (86,400 points a kind at most).
MAX_FILLED_SECONDS = 86_400
MESSAGE_CHARS = 500
NUMERIC_ATTRS = (
    "pool_size",
    "active",
    "core",
    "max",
    "largest",
    "task",
    "completed",
    "queue",
    "elapsed_ms",
    "timeout_ms",
    "port",
)


def _dubbo(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {"pool": match["pool"].strip()}


def _executor(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {"pool": match["pool"] or header.thread or "unknown"}


def _tomcat_busy(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {"pool": header.thread or "tomcat"}


def _tomcat_max(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {"pool": f"connector:{match['port']}"}


def _no_pool(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {}


def _eaddrnotavail(match: re.Match[str], header: _Header) -> dict[str, Any]:
    return {"errno": "EADDRNOTAVAIL"}


_TIMEOUT_MESSAGE_RE = re.compile(r"(?P<read>Read timed out)|(?P<connect>[Cc]onnect timed out)")


def _socket_timeout(match: re.Match[str], header: _Header) -> dict[str, Any]:
    # "java.net.SocketTimeoutException: Read timed out": the message after the name says which.
    message = (
        match
        if match["exception"] is None
        else _TIMEOUT_MESSAGE_RE.search(match.string, match.end())
    )
    if message is not None and message["read"]:
        return {"timeout": "read"}
    if message is not None and message["connect"]:
        return {"timeout": "connect"}
    return {"timeout": "other"}


class _Header:
    __slots__ = ("level", "logger", "message", "thread", "time_ms")

    @classmethod
    def of(
        cls, time_ms: int, level: str | None, thread: str | None, logger: str | None, message: str
    ) -> _Header:
        header = cls.__new__(cls)
        header.time_ms, header.level, header.thread, header.logger = time_ms, level, thread, logger
        header.message = message.strip()[:MESSAGE_CHARS]
        return header

    def __init__(self, time_ms: int, line: str, body_start: int) -> None:
        self.time_ms = time_ms
        rest = line[body_start:]
        level = LEVEL_RE.search(rest)
        self.level = level[1] if level else None
        thread = THREAD_RE.search(rest)
        self.thread = thread[1] if thread else None
        logger = LOGGER_RE.search(rest, thread.end() if thread else 0)
        self.logger = logger[1] if logger else None
        self.message = rest.strip()[:MESSAGE_CHARS]


# (rule name, event kind, regex, attrs from the match beyond its numeric groups)
RULES: tuple[
    tuple[str, str, re.Pattern[str], Callable[[re.Match[str], _Header], dict[str, Any]]], ...
] = (
    ("dubbo_exhausted", "threadpool_rejected", DUBBO_EXHAUSTED_RE, _dubbo),
    ("executor_rejected", "threadpool_rejected", EXECUTOR_REJECTED_RE, _executor),
    ("tomcat_all_threads_busy", "threadpool_rejected", TOMCAT_BUSY_RE, _tomcat_busy),
    ("tomcat_max_threads", "threadpool_rejected", TOMCAT_MAX_RE, _tomcat_max),
    ("socket_timeout", "socket_timeout", SOCKET_TIMEOUT_RE, _socket_timeout),
    ("rpc_timeout", "rpc_timeout", RPC_TIMEOUT_RE, _no_pool),
    ("address_not_available", "connect_failed", ADDRESS_NOT_AVAILABLE_RE, _eaddrnotavail),
    ("connection_reset", "connection_reset", CONNECTION_RESET_RE, _no_pool),
    ("exception", "exception", EXCEPTION_RE, _no_pool),
)


# JSON-lines log fields, the first present wins.
JSON_MESSAGE_KEYS = ("message", "msg")
JSON_LEVEL_KEYS = ("level", "severity", "log.level", "loglevel")
JSON_TIME_KEYS = ("@timestamp", "timestamp", "time", "ts", "date")
JSON_LOGGER_KEYS = ("logger_name", "logger", "log.logger", "loggerName")
JSON_THREAD_KEYS = ("thread_name", "thread", "process.thread.name", "threadName")
JSON_STACK_KEYS = ("stack_trace", "exception", "error.stack_trace", "stackTrace", "throwable")


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in record:
            return record[key]
    return None


def is_json_log_record(record: Any) -> bool:
    """A JSON object that is a log event: a message and a level (app_metrics declines it)."""
    return (
        isinstance(record, dict)
        and isinstance(_first(record, JSON_MESSAGE_KEYS), str)
        and isinstance(_first(record, JSON_LEVEL_KEYS), str)
    )


def _json_head_records(head: str) -> list[Any]:
    records = []
    for line in head.splitlines()[:20]:
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                break  # the head may cut the last line
    return records


def sniff(head: str) -> float:
    stripped = head.lstrip()
    if stripped.startswith("{"):
        records = _json_head_records(head)
        if records and all(is_json_log_record(r) for r in records):
            return 0.7 if any(_first(r, JSON_TIME_KEYS) is not None for r in records) else 0.0
        return 0.0
    # Formats with their own parser that may quote these exception names.
    if "Full thread dump" in head or "FULL THREAD DUMP" in head:
        return 0.0
    layout_lines = sum(
        1
        for line in head.splitlines()[:500]
        if HEADER_RE.match(line) and LEVEL_RE.search(line, 0, 120)
    )
    if SATURATION_RE.search(head):
        return 0.75 if layout_lines else 0.6
    if layout_lines and (
        FAILURE_RE.search(head) or SOCKET_TIMEOUT_RE.search(head) or EXCEPTION_RE.search(head)
    ):
        return 0.55
    return 0.0


class _Clock:
    """Turns header matches into epoch ms, remembering whether a date had to be assumed."""

    def __init__(self, context: ParseContext) -> None:
        self.hours = HourCache(context.timezone)
        default = dt.datetime.fromtimestamp(context.default_time_ms / 1000, context.timezone)
        self.default_day = default.date()
        self.date_assumed = False

    def time_ms(self, match: re.Match[str]) -> int | None:
        if match["iso"]:
            iso = DATETIME_RE.match(match["iso"])
            return match_to_ms(iso, self.hours) if iso else None
        if match["tomcat"]:
            text = match["tomcat"]
            month = TOMCAT_MONTHS.get(text[3:6])
            if month is None:
                return None
            day, year, clock = int(text[:2]), int(text[7:11]), text[12:]
            return self._at(year, month, day, clock)
        self.date_assumed = True
        upload_day = self.default_day
        return self._at(upload_day.year, upload_day.month, upload_day.day, match["clock"])

    def _at(self, year: int, month: int, day: int, clock: str) -> int | None:
        hour, minute, second = int(clock[:2]), int(clock[3:5]), int(clock[6:8])
        millis = int((clock[9:] + "000")[:3]) if len(clock) > 9 else 0
        if minute > 59 or second > 60:
            return None
        try:
            return (
                self.hours.hour_ms(year, month, day, hour)
                + minute * 60_000
                + second * 1000
                + millis
            )
        except ValueError:
            return None


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    if not text.strip():
        result.diagnose(0, "file is empty")
        return result
    clock = _Clock(context)
    if text.lstrip().startswith("{"):
        return _parse_json_lines(text, clock, context, result)
    record_end = -1
    line_no, counted_to = 1, 0
    rejected_per_minute: Counter[tuple[str, int]] = Counter()
    errors_per_second: Counter[tuple[str, int]] = Counter()
    for signature in SIGNATURE_RE.finditer(text):
        if signature.start() < record_end:
            continue  # this record already gave its event
        line_start = text.rfind("\n", 0, signature.start()) + 1
        header_start, header = _find_header(text, line_start, clock, context)
        record_end = _record_end(text, line_start)
        line_no += text.count("\n", counted_to, header_start)
        counted_to = header_start
        event = _event(text[header_start:record_end], header, line_no)
        if event is None:
            continue
        result.events.append(event)
        errors_per_second[(event.kind, event.time_ms - event.time_ms % 1000)] += 1
        if event.kind == "threadpool_rejected":
            minute_ms = event.time_ms - event.time_ms % 60_000
            rejected_per_minute[(str(event.attrs.get("pool", "unknown")), minute_ms)] += 1
    _emit_rejection_rate(rejected_per_minute, result)
    _emit_error_rate(errors_per_second, _log_span(text, clock), result)
    _note_date_assumed(clock, result)
    return result


def _note_date_assumed(clock: _Clock, result: ParseResult) -> None:
    """The fact ``app_log.date_assumed`` when a bare clock was put on the default day: the
    date only (YYYY-MM-DD), which the artifact listing words into its note."""
    if clock.date_assumed:
        result.facts.append(Fact(DATE_ASSUMED, clock.default_day.isoformat()))


def _json_time_ms(value: Any, clock: _Clock) -> int | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return bounded_epoch_ms(float(value))
    if isinstance(value, str):
        match = HEADER_RE.fullmatch(value.strip())
        if match is not None:
            return clock.time_ms(match)
    return None


def _parse_json_lines(
    text: str, clock: _Clock, context: ParseContext, result: ParseResult
) -> ParseResult:
    """A JSON-lines log (see the module): each object a record, read by the same rules."""
    rejected_per_minute: Counter[tuple[str, int]] = Counter()
    errors_per_second: Counter[tuple[str, int]] = Counter()
    first = last = None
    for line_no, line in enumerate(iter_lines(text), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            result.diagnose(line_no, f"not a JSON object: {line[:80]!r}")
            continue
        if not is_json_log_record(record):
            result.diagnose(line_no, "JSON line without a message and a level")
            continue
        time_ms = _json_time_ms(_first(record, JSON_TIME_KEYS), clock)
        if time_ms is None:
            result.diagnose(line_no, "JSON log line without a readable time")
            continue
        first = time_ms if first is None else min(first, time_ms)
        last = time_ms if last is None else max(last, time_ms)
        message = str(_first(record, JSON_MESSAGE_KEYS))
        stack = _first(record, JSON_STACK_KEYS)
        body = message if not isinstance(stack, str) else f"{message}\n{stack}"
        if not SIGNATURE_RE.search(body):
            continue
        logger, thread = _first(record, JSON_LOGGER_KEYS), _first(record, JSON_THREAD_KEYS)
        header = _Header.of(
            time_ms,
            str(_first(record, JSON_LEVEL_KEYS)).upper(),
            str(thread) if thread is not None else None,
            str(logger) if logger is not None else None,
            message.split("\n", 1)[0],
        )
        event = _event(body, header, line_no)
        if event is None:
            continue
        result.events.append(event)
        errors_per_second[(event.kind, event.time_ms - event.time_ms % 1000)] += 1
        if event.kind == "threadpool_rejected":
            minute_ms = event.time_ms - event.time_ms % 60_000
            rejected_per_minute[(str(event.attrs.get("pool", "unknown")), minute_ms)] += 1
    _emit_rejection_rate(rejected_per_minute, result)
    span = None if first is None or last is None else (first - first % 1000, last - last % 1000)
    _emit_error_rate(errors_per_second, span, result)
    _note_date_assumed(clock, result)
    return result


def _find_header(
    text: str, line_start: int, clock: _Clock, context: ParseContext
) -> tuple[int, _Header]:
    """The record's first line (the nearest timestamped line at or above ``line_start``)."""
    start = line_start
    for _ in range(MAX_RECORD_LINES):
        match = HEADER_RE.match(text, start)
        if match is not None:
            time_ms = clock.time_ms(match)
            if time_ms is not None:
                line_end = text.find("\n", start)
                line = text[start : line_end if line_end >= 0 else len(text)]
                return start, _Header(time_ms, line, match.end() - start)
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    line_end = text.find("\n", line_start)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    return line_start, _Header(context.default_time_ms, line, 0)


def _record_end(text: str, line_start: int) -> int:
    """Where the record holding ``line_start`` ends: the next timestamped line."""
    position = text.find("\n", line_start)
    for _ in range(MAX_RECORD_LINES):
        if position < 0:
            return len(text)
        position += 1
        if HEADER_RE.match(text, position):
            return position
        position = text.find("\n", position)
    return position if position >= 0 else len(text)


# The levels at which a record naming an exception is an error (the generic rule).
ERROR_LEVELS = {"WARN", "WARNING", "ERROR", "FATAL", "SEVERE"}
STACK_TRACE_RE = re.compile(r"\n\s+at [\w$.]+\(|\nCaused by: ")


def _event(record: str, header: _Header, line_no: int) -> EventData | None:
    for rule, kind, pattern, extra in RULES:
        match = pattern.search(record)
        if match is None:
            continue
        if (
            rule == "exception"
            and header.level not in ERROR_LEVELS
            and not STACK_TRACE_RE.search(record)
        ):
            return None  # an exception class named in passing (INFO ... Mapped X to 404)
        attrs: dict[str, Any] = {"signature": rule}
        groups = match.groupdict()
        for name in NUMERIC_ATTRS:
            value = groups.get(name)
            if value is not None:
                attrs[name] = int(value)
        for name in ("run_state", "url", "exception"):
            if groups.get(name):
                attrs[name] = groups[name]
        if groups.get("is_shutdown"):
            attrs["is_shutdown"] = groups["is_shutdown"] == "true"
        attrs.update(extra(match, header))
        attrs.update(
            level=header.level,
            thread=header.thread,
            logger=header.logger,
            message=header.message,
            line=line_no,
        )
        labels = {"pool": attrs["pool"]} if "pool" in attrs else {}
        return EventData(kind=kind, time_ms=header.time_ms, attrs=attrs, labels=labels)
    return None


def _emit_rejection_rate(per_minute: Counter[tuple[str, int]], result: ParseResult) -> None:
    by_pool: dict[str, tuple[array[int], array[float]]] = {}
    for (pool, minute_ms), count in sorted(per_minute.items()):
        times, values = by_pool.setdefault(pool, (array("q"), array("d")))
        times.append(minute_ms)
        values.append(float(count))
    for pool, (times, values) in by_pool.items():
        result.series.append(
            SeriesData("threadpool.rejected_events", {"pool": pool}, "per_min", times, values)
        )


def _log_span(text: str, clock: _Clock) -> tuple[int, int] | None:
    """The seconds (epoch ms) of the first and the last timestamped lines, looked for among
    the first and the last :data:`MAX_RECORD_LINES` lines; None when either is not found."""
    first = last = None
    start = 0
    for _ in range(MAX_RECORD_LINES):
        match = HEADER_RE.match(text, start)
        if match is not None and (first := clock.time_ms(match)) is not None:
            break
        start = text.find("\n", start) + 1
        if start == 0:
            break
    end = len(text.rstrip("\n"))
    for _ in range(MAX_RECORD_LINES):
        start = text.rfind("\n", 0, end) + 1
        match = HEADER_RE.match(text, start)
        if match is not None and (last := clock.time_ms(match)) is not None:
            break
        if start == 0:
            break
        end = start - 1
    if first is None or last is None or last < first:
        return None
    return first - first % 1000, last - last % 1000


def _emit_error_rate(
    per_second: Counter[tuple[str, int]], span: tuple[int, int] | None, result: ParseResult
) -> None:
    """``app.log.errors{kind}`` per second over the log's span (see the module)."""
    seconds_by_kind: dict[str, dict[int, int]] = {}
    for (kind, second_ms), count in per_second.items():
        seconds_by_kind.setdefault(kind, {})[second_ms] = count
    for kind in sorted(seconds_by_kind):
        counts = seconds_by_kind[kind]
        times: array[int] = array("q")
        values: array[float] = array("d")
        low, high = min(counts), max(counts)
        if span is not None:
            low, high = min(low, span[0]), max(high, span[1])
        if (high - low) // 1000 <= MAX_FILLED_SECONDS:
            times.extend(range(low, high + 1000, 1000))
            values.extend(float(counts.get(second_ms, 0)) for second_ms in times)
            result.series.append(
                SeriesData("app.log.errors", {"kind": kind}, "per_s", times, values)
            )
            continue
        if low not in counts:
            times.append(low)
            values.append(0.0)
        for second_ms in sorted(counts):
            if second_ms - 1000 not in counts and (not times or times[-1] < second_ms - 1000):
                times.append(second_ms - 1000)
                values.append(0.0)
            times.append(second_ms)
            values.append(float(counts[second_ms]))
            if second_ms + 1000 not in counts and second_ms + 1000 <= high:
                times.append(second_ms + 1000)
                values.append(0.0)
        if high not in counts and times[-1] < high:
            times.append(high)
            values.append(0.0)
        result.series.append(SeriesData("app.log.errors", {"kind": kind}, "per_s", times, values))
