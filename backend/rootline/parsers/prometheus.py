"""Prometheus text exposition snapshots: executor, Dubbo, Tomcat and JVM thread metrics.

Input: one or many scrapes saved to a file, e.g. a loop of
``date -Is; curl -s http://host:8080/actuator/prometheus; sleep 10``, or samples carrying
their own timestamp (the optional last field, epoch ms):

    # HELP executor_active_threads The approximate number of threads that are actively executing tasks
    # TYPE executor_active_threads gauge
    executor_active_threads{name="order-service",} 8.0 1795246055554
    dubbo_thread_pool_active_size{thread_pool_name="DubboServerHandler-10.0.0.1:20880"} 200
    tomcat_threads_busy_threads{name="http-nio-8080",} 200.0

A sample's time is its own timestamp, else the last timestamp line above it (read by
:func:`rootline.parsers.timestamps.parse_timestamp_line`, with :mod:`logtime` as the fallback
for epoch / ISO lines while that module cannot read them), else ``context.default_time_ms``.

Series: the metrics in :data:`THREADPOOL_METRICS` become the same ``threadpool.*`` series as
CSV metrics (label ``pool`` from the first of :data:`POOL_LABELS` present; units threads,
tasks, per_s); ``executor_queue_remaining_tasks`` + ``executor_queued_tasks`` at one instant
give ``threadpool.queue_capacity``; counters also give ``*_per_s`` rates.
``jvm_threads_states_threads{state}`` becomes ``jvm.threads{state}`` (threads, states as in
thread dumps: ``timed-waiting`` -> ``timed_waiting``). Every other metric becomes
``prom.<metric_name>`` with its labels, at most :data:`MAX_GENERIC_LABELS` of them (the first
by name; the metrics that lost labels are listed in the fact ``prometheus.labels_dropped``), and
at most :data:`MAX_GENERIC_SERIES` such series per file (the rest: one diagnostic).

Line rules:

=============  =================================================  ==============================
rule           pattern                                            handler
=============  =================================================  ==============================
comment        ``# HELP`` / ``# TYPE`` / ``# UNIT`` / ``# EOF``   known no-op
sample         ``name{labels} value [timestamp]``                 a point
timestamp      a line holding only a time (``date``, epoch, ISO)  starts a scrape
=============  =================================================  ==============================

Lines end at ``\n`` only (a CR before it is dropped): a label value may hold control
characters such as ``\x1c`` or ``\u2028`` that ``str.splitlines`` would take for line ends.
"""

from __future__ import annotations

import math
import re
from array import array

from rootline.parsers import timestamps
from rootline.parsers.base import Fact, ParseContext, ParseResult, SeriesData, counter_rates
from rootline.parsers.logtime import DATETIME_RE, HourCache, epoch_to_ms, match_to_ms

KIND = "prometheus"

SAMPLE_RE = re.compile(
    r"(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?[ \t]+(?P<value>\S+)"
    r"(?:[ \t]+(?P<timestamp>-?\d+(?:\.\d+)?))?[ \t]*"
)
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"')
TYPE_RE = re.compile(
    r"# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)\s*$"
)
EPOCH_LINE_RE = re.compile(r"\d{9,19}(?:\.\d+)?")

# Labels naming the pool, in order of preference.
POOL_LABELS = ("name", "thread_pool_name", "pool", "executor")
DEFAULT_POOL = "default"

# Prometheus metric -> (Rootline series, unit); a None series is read but derived elsewhere.
THREADPOOL_METRICS: dict[str, tuple[str, str]] = {
    # Micrometer ExecutorServiceMetrics
    "executor_active_threads": ("threadpool.active", "threads"),
    "executor_pool_max_threads": ("threadpool.max", "threads"),
    "executor_pool_core_threads": ("threadpool.core", "threads"),
    "executor_pool_size_threads": ("threadpool.pool_size", "threads"),
    "executor_queued_tasks": ("threadpool.queue", "tasks"),
    "executor_queue_remaining_tasks": ("threadpool.queue_remaining", "tasks"),
    "executor_completed_tasks_total": ("threadpool.completed", "tasks"),
    "executor_rejected_tasks_total": ("threadpool.rejected", "tasks"),
    # Dubbo 3 metrics
    "dubbo_thread_pool_active_size": ("threadpool.active", "threads"),
    "dubbo_thread_pool_max_size": ("threadpool.max", "threads"),
    "dubbo_thread_pool_core_size": ("threadpool.core", "threads"),
    "dubbo_thread_pool_largest_size": ("threadpool.largest", "threads"),
    "dubbo_thread_pool_thread_count": ("threadpool.pool_size", "threads"),
    "dubbo_thread_pool_queue_size": ("threadpool.queue", "tasks"),
    "dubbo_thread_pool_reject_thread_count": ("threadpool.rejected", "tasks"),
    # Micrometer TomcatMetrics
    "tomcat_threads_busy_threads": ("threadpool.active", "threads"),
    "tomcat_threads_config_max_threads": ("threadpool.max", "threads"),
    "tomcat_threads_current_threads": ("threadpool.pool_size", "threads"),
}
RATE_SERIES = {
    "threadpool.completed": "threadpool.completed_per_s",
    "threadpool.rejected": "threadpool.rejected_per_s",
}
JVM_THREAD_STATES = "jvm_threads_states_threads"

MAX_GENERIC_LABELS = 8
MAX_GENERIC_SERIES = 2000
# Unit of a generic series by metric-name suffix, first match wins.
UNIT_SUFFIXES = (
    ("_seconds_total", "s"),
    ("_seconds_sum", "s"),
    ("_seconds", "s"),
    ("_bytes_total", "bytes"),
    ("_bytes", "bytes"),
    ("_threads", "threads"),
    ("_tasks", "tasks"),
    ("_ratio", "ratio"),
    ("_total", "count"),
    ("_count", "count"),
)
# A label set is parsed once per distinct text; big files repeat few of them.
_LABEL_CACHE_LIMIT = 100_000

_Key = tuple[str, tuple[tuple[str, str], ...]]
# The exposition format's blanks (plus the CR of a CRLF file); nothing else is trimmed.
_BLANKS = " \t\r"


def sniff(head: str) -> float:
    type_lines = samples = labelled = other = 0
    for raw in head.split("\n", 400)[:400]:
        line = raw.strip(_BLANKS)
        if not line:
            continue
        if line.startswith("#"):
            if TYPE_RE.match(line):
                type_lines += 1
            continue
        match = SAMPLE_RE.fullmatch(line)
        if match is not None and _number(match["value"]) is not None:
            samples += 1
            labelled += match["labels"] is not None
        elif not _fallback_timestamp(line):
            other += 1
    if samples == 0 or other > samples // 10:
        return 0.0
    if type_lines:
        return 0.9
    # No TYPE lines: only labelled samples (nstat's "Name value rate" lines have no braces).
    return 0.7 if labelled * 2 > samples else 0.0


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _fallback_timestamp(line: str) -> bool:
    return bool(EPOCH_LINE_RE.fullmatch(line) or ("{" not in line and DATETIME_RE.search(line)))


class _Collector:
    """Points per (series, labels), built straight into arrays."""

    def __init__(self) -> None:
        self.points: dict[_Key, tuple[array[int], array[float]]] = {}
        self.units: dict[str, str] = {}

    def add(self, key: _Key, unit: str, time_ms: int, value: float) -> None:
        pair = self.points.get(key)
        if pair is None:
            pair = (array("q"), array("d"))
            self.points[key] = pair
            self.units.setdefault(key[0], unit)
        pair[0].append(time_ms)
        pair[1].append(value)


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    collector = _Collector()
    hours = HourCache(context.timezone)
    label_cache: dict[str, tuple[tuple[str, str], ...]] = {}
    generic_keys: set[_Key] = set()
    dropped_generic = 0
    labels_dropped: set[str] = set()
    scrape_time = context.default_time_ms
    # Lines end at "\n" only: a label value may hold \x1c, \x85 or \u2028, which
    # str.splitlines would take for line ends (and then miscount every later line).
    for line_no, raw in enumerate(text.split("\n"), 1):
        line = raw.strip(_BLANKS)
        if not line or line[0] == "#":
            continue
        match = SAMPLE_RE.fullmatch(line)
        if match is None:
            stamp = _timestamp_line(line, context, hours)
            if stamp is None:
                result.diagnose(
                    line_no,
                    "neither a sample (name{labels} value [timestamp]) nor a timestamp line",
                )
            else:
                scrape_time = stamp
            continue
        value = _number(match["value"])
        if value is None:
            result.diagnose(line_no, f"sample value is not a number: {match['value'][:40]!r}")
            continue
        if not math.isfinite(value):
            continue
        name = match["name"]
        sample_stamp = match["timestamp"]
        time_ms = epoch_to_ms(float(sample_stamp)) if sample_stamp else scrape_time
        label_text = match["labels"] or ""
        labels = label_cache.get(label_text)
        if labels is None:
            labels = tuple(sorted(LABEL_RE.findall(label_text)))
            if len(label_cache) < _LABEL_CACHE_LIMIT:
                label_cache[label_text] = labels
        mapped = THREADPOOL_METRICS.get(name)
        if mapped is not None:
            series, unit = mapped
            collector.add((series, (("pool", _pool(labels)),)), unit, time_ms, value)
        elif name == JVM_THREAD_STATES:
            state = dict(labels).get("state", "unknown").lower().replace("-", "_")
            collector.add(("jvm.threads", (("state", state),)), "threads", time_ms, value)
        else:
            if len(labels) > MAX_GENERIC_LABELS:
                labels = labels[:MAX_GENERIC_LABELS]
                labels_dropped.add(name)
            key = ("prom." + name, labels)
            if key not in generic_keys:
                if len(generic_keys) >= MAX_GENERIC_SERIES:
                    dropped_generic += 1
                    continue
                generic_keys.add(key)
            collector.add(key, _generic_unit(name), time_ms, value)
    if dropped_generic:
        result.diagnose(
            0,
            f"{dropped_generic} samples of generic metrics skipped: more than {MAX_GENERIC_SERIES} prom.* series",
        )
    if labels_dropped:
        result.facts.append(_labels_dropped_fact(labels_dropped))
    _emit(collector, result)
    return result


def _labels_dropped_fact(metrics: set[str]) -> Fact:
    return Fact(
        "prometheus.labels_dropped",
        f"kept the first {MAX_GENERIC_LABELS} labels by name of: "
        + ", ".join(sorted(metrics)[:50]),
    )


def _timestamp_line(line: str, context: ParseContext, hours: HourCache) -> int | None:
    stamp = timestamps.parse_timestamp_line(line, context.timezone)
    if stamp is not None:
        return stamp
    if EPOCH_LINE_RE.fullmatch(line):
        return epoch_to_ms(float(line))
    if "{" in line:
        return None
    match = DATETIME_RE.search(line)
    return match_to_ms(match, hours) if match else None


def _pool(labels: tuple[tuple[str, str], ...]) -> str:
    found = dict(labels)
    for label in POOL_LABELS:
        value = found.get(label)
        if value:
            return value
    return DEFAULT_POOL


def _generic_unit(name: str) -> str:
    for suffix, unit in UNIT_SUFFIXES:
        if name.endswith(suffix):
            return unit
    return ""


def _emit(collector: _Collector, result: ParseResult) -> None:
    remaining: dict[tuple[str, int], float] = {}
    queued: dict[tuple[str, int], float] = {}
    for (series, labels), (times, values) in collector.points.items():
        if series == "threadpool.queue_remaining":
            remaining.update(zip(((labels[0][1], t) for t in times), values, strict=True))
            continue
        if series == "threadpool.queue":
            queued.update(zip(((labels[0][1], t) for t in times), values, strict=True))
        label_dict = dict(labels)
        result.series.append(SeriesData(series, label_dict, collector.units[series], times, values))
        rate_name = RATE_SERIES.get(series)
        if rate_name is not None:
            ordered = sorted(zip(times, values, strict=True))
            rate_t, rate_v = counter_rates((t for t, _ in ordered), (v for _, v in ordered))
            if len(rate_t):
                result.series.append(
                    SeriesData(rate_name, dict(label_dict), "per_s", rate_t, rate_v)
                )
    capacity: dict[str, tuple[array[int], array[float]]] = {}
    for (pool, time_ms), left in sorted(remaining.items()):
        in_queue = queued.get((pool, time_ms))
        if in_queue is None:
            continue
        pair = capacity.setdefault(pool, (array("q"), array("d")))
        pair[0].append(time_ms)
        pair[1].append(in_queue + left)
    for pool, (times, values) in capacity.items():
        result.series.append(
            SeriesData("threadpool.queue_capacity", {"pool": pool}, "tasks", times, values)
        )
