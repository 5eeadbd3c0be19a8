"""Thread-pool samples written by an application or an agent: CSV or JSON lines.

Input: whatever the service logs about its executors, e.g. a scheduled task printing
``ThreadPoolExecutor`` getters every 200 ms (tests/fixtures/java/PoolSaturation.java):

    timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,completed,rejected
    1795246055554,order-service,8,4,8,8,49,50,118,557

or one JSON object per line:

    {"@timestamp":"2026-11-21T07:27:23.955Z","executor":"order-service","activeCount":0,...}

CSV may be separated by commas, semicolons or tabs and must start with a header row. Column
names are matched case-insensitively, ignoring ``_``, ``-``, ``@`` and spaces, against
:data:`COLUMN_ALIASES`; unknown columns are ignored. Timestamps: epoch s / ms / us / ns, ISO
8601, ``yyyy-mm-dd hh:mm:ss[.SSS]`` (zone-less ones in ``context.timezone``).

Series (label ``pool``, ``default`` when there is no pool column):

=================================  ========  =================================================
``threadpool.active``              threads   threads running a task
``threadpool.max``                 threads   maximum pool size
``threadpool.core``                threads   core pool size
``threadpool.pool_size``           threads   threads alive in the pool
``threadpool.queue``               tasks     tasks waiting in the queue
``threadpool.queue_capacity``      tasks     queue capacity (or queue size + remaining)
``threadpool.completed``           tasks     completed tasks, cumulative
``threadpool.completed_per_s``     per_s     its rate (counter_rates)
``threadpool.rejected``            tasks     rejected tasks, cumulative as given
``threadpool.rejected_per_s``      per_s     its rate
=================================  ========  =================================================

Rows that cannot be read (wrong field count, bad timestamp, non-numeric value) become
diagnostics with their line number; empty cells are simply missing values.
"""

from __future__ import annotations

import csv
import json
import math
import re
from array import array
from typing import Any, NamedTuple

import numpy as np

from rootline.parsers.base import ParseContext, ParseResult, SeriesData, json_objects
from rootline.parsers.logtime import (
    _MS_ABOVE,
    _NS_ABOVE,
    _US_ABOVE,
    LATEST_EPOCH_MS,
    HourCache,
    bounded_epoch_ms,
    parse_datetime_text,
)
from rootline.parsers.snmp_counters import vectorised_counter_rates

KIND = "threadpool_metrics"

DEFAULT_POOL = "default"

# Canonical column -> accepted names, normalised (lower case, without "_-@ .").
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "time": (
        "time",
        "timestamp",
        "ts",
        "date",
        "datetime",
        "timestampms",
        "epoch",
        "epochms",
        "timems",
    ),
    "pool": (
        "pool",
        "poolname",
        "name",
        "executor",
        "executorname",
        "threadpool",
        "threadpoolname",
    ),
    "active": ("active", "activecount", "activethreads"),
    "max": ("max", "maxpoolsize", "maximumpoolsize", "maxthreads", "maxsize"),
    "core": ("core", "corepoolsize", "corethreads", "coresize"),
    "pool_size": ("poolsize", "threads", "currentpoolsize", "currentthreads", "threadcount"),
    "queue": ("queue", "queuesize", "queued", "queuedtasks", "queuelength"),
    "queue_capacity": ("queuecapacity", "capacity"),
    "queue_remaining": ("queueremaining", "queueremainingcapacity", "remainingcapacity"),
    "completed": ("completed", "completedtasks", "completedtaskcount"),
    "rejected": ("rejected", "rejectedcount", "rejections", "rejectedtasks"),
}
_CANONICAL_BY_ALIAS = {
    alias: canon for canon, aliases in COLUMN_ALIASES.items() for alias in aliases
}

# Canonical metric column -> (series name, unit).
METRIC_SERIES: dict[str, tuple[str, str]] = {
    "active": ("threadpool.active", "threads"),
    "max": ("threadpool.max", "threads"),
    "core": ("threadpool.core", "threads"),
    "pool_size": ("threadpool.pool_size", "threads"),
    "queue": ("threadpool.queue", "tasks"),
    "queue_capacity": ("threadpool.queue_capacity", "tasks"),
    "completed": ("threadpool.completed", "tasks"),
    "rejected": ("threadpool.rejected", "tasks"),
}
# Cumulative columns that also get a per-second rate series.
COUNTER_RATES = {"completed": "threadpool.completed_per_s", "rejected": "threadpool.rejected_per_s"}
# A sniffed header must name a time column and at least this many metric columns.
MIN_METRIC_COLUMNS = 2

_DELIMITERS = (",", ";", "\t")
# An empty cell: NaN, skipped when points are stored.
_MISSING = math.nan

# (pool, canonical metric) -> (times, values)
_Points = dict[tuple[str, str], tuple["array[int]", "array[float]"]]


def normalise_column(name: str) -> str:
    """``activeCount`` / ``active_count`` / ``@timestamp`` -> ``activecount`` / ``timestamp``."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def canonical_columns(names: list[str]) -> list[str | None]:
    """Each column's canonical name, None for the ones Rootline does not read."""
    return [_CANONICAL_BY_ALIAS.get(normalise_column(n)) for n in names]


def _is_metric_header(canon: list[str | None]) -> bool:
    present = set(canon)
    return "time" in present and len(present & METRIC_SERIES.keys()) >= MIN_METRIC_COLUMNS


def _first_lines(head: str, count: int) -> list[str]:
    lines = [line for line in head.splitlines()[: count * 4] if line.strip()]
    return lines[:count]


def sniff(head: str) -> float:
    lines = _first_lines(head, 3)
    if not lines:
        return 0.0
    first = lines[0].strip()
    if first.startswith("{"):
        try:
            record = json.loads(first)
        except ValueError:
            return 0.0
        if isinstance(record, dict) and _is_metric_header(canonical_columns(list(record))):
            return 0.9
        return 0.0
    delimiter = _detect_delimiter(first)
    if delimiter is None:
        return 0.0
    header = next(csv.reader([first], delimiter=delimiter))
    if not _is_metric_header(canonical_columns(header)):
        return 0.0
    # The rows below the header must have the header's shape.
    rows = lines[1:]
    if rows and all(len(next(csv.reader([r], delimiter=delimiter))) == len(header) for r in rows):
        return 0.9
    return 0.7 if not rows else 0.4


def _detect_delimiter(header_line: str) -> str | None:
    counts = [(header_line.count(d), d) for d in _DELIMITERS]
    best_count, best = max(counts)
    return best if best_count else None


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    fast = _columnar(text)
    if fast is not None:
        _emit_series(fast, result)
        return result
    lines = text.splitlines()
    first_index = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first_index is None:
        result.diagnose(0, "file is empty")
        return result
    points: _Points = {}
    if lines[first_index].lstrip().startswith("{"):
        _parse_json_lines(lines, first_index, context, points, result)
    else:
        _parse_csv(lines, first_index, context, points, result)
    _emit_series(points, result)
    return result


class _Layout(NamedTuple):
    """Where a CSV header puts what is read."""

    delimiter: str
    width: int
    time_col: int
    pool_col: int | None
    metric_cols: list[tuple[int, str]]  # (column, canonical metric)
    canon: list[str | None]


def _layout(header_line: str) -> _Layout | str:
    """The header row's layout, or why it is no thread-pool header (a diagnostic)."""
    delimiter = _detect_delimiter(header_line)
    if delimiter is None:
        return "no header row: expected comma, semicolon or tab separated column names"
    header = next(csv.reader([header_line], delimiter=delimiter))
    canon = canonical_columns(header)
    if "time" not in canon:
        return f"header names no timestamp column ({', '.join(COLUMN_ALIASES['time'])})"
    metric_cols = [
        (i, c) for i, c in enumerate(canon) if c in METRIC_SERIES or c == "queue_remaining"
    ]
    if not metric_cols:
        return "header names no thread-pool metric column"
    pool_col = canon.index("pool") if "pool" in canon else None
    return _Layout(delimiter, len(header), canon.index("time"), pool_col, metric_cols, canon)


def _parse_csv(
    lines: list[str], header_index: int, context: ParseContext, points: _Points, result: ParseResult
) -> None:
    layout = _layout(lines[header_index])
    if isinstance(layout, str):
        result.diagnose(header_index + 1, layout)
        return
    delimiter, width, time_col, pool_col = (
        layout.delimiter,
        layout.width,
        layout.time_col,
        layout.pool_col,
    )
    canon, metric_cols = layout.canon, layout.metric_cols
    metric_indices = [i for i, _ in metric_cols]
    hours = HourCache(context.timezone)
    # pool -> one (times, values) pair per metric column, in metric_cols order
    sinks_by_pool: dict[str, list[tuple[array[int], array[float]]]] = {}
    for index in range(header_index + 1, len(lines)):
        line = lines[index]
        if not line or line.isspace():
            continue
        fields = (
            next(csv.reader([line], delimiter=delimiter)) if '"' in line else line.split(delimiter)
        )
        if len(fields) != width:
            result.diagnose(
                index + 1, f"expected {width} fields as in the header, found {len(fields)}"
            )
            continue
        cell = fields[time_col]
        time_ms = (
            # float: int() refuses more than 4300 digits, float() reads them as infinity
            bounded_epoch_ms(float(cell))
            if cell.isdigit()
            else parse_datetime_text(cell, hours.timezone, hours)
        )
        if time_ms is None:
            result.diagnose(index + 1, f"unreadable timestamp {cell[:40]!r}")
            continue
        try:
            numbers = [float(fields[i]) if fields[i] else _MISSING for i in metric_indices]
        except ValueError:
            bad = next(c for i, c in metric_cols if not _is_number(fields[i]))
            result.diagnose(index + 1, f"{bad} is not a number: {_cut(fields, canon, bad)}")
            continue
        for (_, metric), number in zip(metric_cols, numbers, strict=True):
            if math.isinf(number):  # e.g. 400 digits: that value is lost, not the row
                result.diagnose(
                    index + 1, f"{metric} is out of range: {_cut(fields, canon, metric)}"
                )
        pool = (fields[pool_col].strip() if pool_col is not None else "") or DEFAULT_POOL
        sinks = sinks_by_pool.get(pool)
        if sinks is None:
            sinks = [_sink(points, pool, metric) for _, metric in metric_cols]
            sinks_by_pool[pool] = sinks
        for (times, values), number in zip(sinks, numbers, strict=True):
            if -math.inf < number < math.inf:  # False for NaN (a missing cell) and infinities
                times.append(time_ms)
                values.append(number)


# A CSV body the columnar path reads exactly as the row path would: no quotes (csv.reader's
# rules), no line breaks but \n (str.splitlines breaks at \r, \x0b, \x0c, \x1c-\x1e,
# \x85, \u2028 and \u2029 too), no whitespace-only line (searched from the header's line
# break on). Anything else, the row path.
_ROW_PATH_ONLY = re.compile(r"[\"\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]|\n[ \t]+(?:\n|\Z)")
_NON_SPACE = re.compile(r"\S")
_EPOCH_DIGITS = 19  # an int64's (epoch ns); one past int64 fails the cast: the row path reads it


def _columnar(text: str) -> _Points | None:
    """The usual CSV (a header on the first line, then rows of numbers, epoch timestamps)
    read a column at a time by pyarrow and numpy: the points :func:`_parse_csv` gives, in
    the same order, or None when the file is anything else or any row would be diagnosed
    (the row path then reads it, with line numbers). The 20 MB bench file's ingest: 2.7 CPU
    s by rows, 0.8 s so; the parse's peak 240 MB over the process's start by rows, 190 MB so
    (its points alone are 68 MB: 16 bytes a value written in 4)."""
    body_at = text.find("\n") + 1
    header_line = text[: body_at - 1]
    if (
        not body_at
        or not header_line.strip()
        or header_line[0].isspace()
        or _NON_SPACE.search(text, body_at) is None
    ):
        return None
    layout = _layout(header_line)
    if isinstance(layout, str):
        return None
    metric_cols, time_col, pool_col = layout.metric_cols, layout.time_col, layout.pool_col
    metrics = [c for _, c in metric_cols]
    if len(set(metrics)) != len(metrics) or _ROW_PATH_ONLY.search(text, body_at - 1):
        return None  # (two columns of one metric: their rows interleave)
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    # malloc's heap, not pyarrow's own pool, which keeps what it freed (as ss does).
    heap = pa.system_memory_pool()
    names = [f"c{i}" for i in range(layout.width)]
    types = {names[i]: pa.float64() for i, _ in metric_cols}
    types[names[time_col]] = pa.string()
    if pool_col is not None:
        types[names[pool_col]] = pa.string()
    # The text encoded once; the CSV read from its body (no copy of the body as text).
    data = pa.py_buffer(text.encode()).slice(len(header_line.encode()) + 1)
    try:
        table = pa_csv.read_csv(
            pa.BufferReader(data),
            read_options=pa_csv.ReadOptions(
                column_names=names, use_threads=False, block_size=1 << 30
            ),
            parse_options=pa_csv.ParseOptions(
                delimiter=layout.delimiter,
                quote_char=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types=types,
                include_columns=list(types),
                null_values=[""],
                strings_can_be_null=False,
                check_utf8=False,
            ),
            memory_pool=heap,
        )
    except (pa.ArrowInvalid, ValueError):
        return None  # a row of another width, a cell that is not a number ...
    del data
    cells = table.column(names[time_col])
    digits = pc.match_substring_regex(cells, f"^[0-9]{{1,{_EPOCH_DIGITS}}}$", memory_pool=heap)
    if not pc.all(digits, memory_pool=heap).as_py():
        return None  # a date-time text, an empty cell ...
    try:
        whole = pc.cast(cells, pa.int64(), memory_pool=heap)
    except pa.ArrowInvalid:
        return None  # past int64
    del cells, digits
    # As float(cell): int64 to float64 rounds to nearest as parsing the digits does.
    times = _epoch_ms(whole.to_numpy().astype(np.float64))
    if times is None:
        return None
    values = [table.column(names[i]).to_numpy() for i, _ in metric_cols]  # float64, NaN: empty
    if any(np.isinf(v).any() for v in values):
        return None  # the row path reports the value as out of range
    groups: list[tuple[str, np.ndarray | None]] = []  # pool, its rows (None: every row)
    if pool_col is None:
        groups.append((DEFAULT_POOL, None))
    else:
        pools = pc.dictionary_encode(
            table.column(names[pool_col]).combine_chunks(memory_pool=heap), memory_pool=heap
        )
        codes = pools.indices.to_numpy(zero_copy_only=False)
        # Pools by their first row, as rows create them; names that strip alike merged.
        present, first_row = np.unique(codes, return_index=True)
        by_name: dict[str, list[int]] = {}
        for code, _ in sorted(
            zip(present.tolist(), first_row.tolist(), strict=True), key=lambda p: p[1]
        ):
            name = pools.dictionary[code].as_py().strip() or DEFAULT_POOL
            by_name.setdefault(name, []).append(code)
        groups += [
            (name, codes == found[0] if len(found) == 1 else np.isin(codes, found))
            for name, found in by_name.items()
        ]
    points: _Points = {}
    for pool, rows in groups:
        pool_times = times if rows is None else times[rows]
        for metric, column in zip(metrics, values, strict=True):
            column = column if rows is None else column[rows]
            kept = ~np.isnan(column)
            points[(pool, metric)] = (
                _array("q", pool_times[kept]),
                _array("d", column[kept]),
            )
    return points


def _epoch_ms(values: np.ndarray) -> np.ndarray | None:
    """:func:`bounded_epoch_ms` of every value (whole numbers, >= 0), or None if any has none."""
    ms = np.where(
        values > _NS_ABOVE,
        np.floor_divide(values, 1_000_000.0),
        np.where(
            values > _US_ABOVE,
            np.floor_divide(values, 1000.0),
            np.where(values > _MS_ABOVE, np.trunc(values), np.rint(values * 1000.0)),
        ),
    )
    if len(ms) and not ms.max() <= LATEST_EPOCH_MS:
        return None
    return ms.astype(np.int64)


def _array(typecode: str, values: np.ndarray) -> array[Any]:
    return array(typecode, values.tobytes())


def _cut(fields: list[str], canon: list[str | None], metric: str) -> str:
    """The cell of ``metric``, quoted and cut to 40 characters for a diagnostic."""
    return repr(fields[canon.index(metric)][:40])


def _is_number(text: str) -> bool:
    try:
        float(text or 0)
    except ValueError:
        return False
    return True


def _sink(points: _Points, pool: str, metric: str) -> tuple[array[int], array[float]]:
    pair = points.get((pool, metric))
    if pair is None:
        pair = (array("q"), array("d"))
        points[(pool, metric)] = pair
    return pair


def _parse_json_lines(
    lines: list[str], first_index: int, context: ParseContext, points: _Points, result: ParseResult
) -> None:
    hours = HourCache(context.timezone)
    canon_cache: dict[str, str | None] = {}
    for line_no, record in json_objects(lines[first_index:], result, first_line=first_index + 1):
        row: dict[str, Any] = {}
        for key, value in record.items():
            canon = canon_cache.get(key)
            if canon is None and key not in canon_cache:
                canon = _CANONICAL_BY_ALIAS.get(normalise_column(key))
                canon_cache[key] = canon
            if canon is not None and canon not in row:
                row[canon] = value
        if "time" not in row:
            result.diagnose(line_no, "JSON line has no timestamp field")
            continue
        pool = row.pop("pool", "")
        time_value = row.pop("time")
        _add_row(
            time_value, str(pool) if pool is not None else "", row, line_no, hours, points, result
        )


def _add_row(
    time_value: Any,
    pool: str,
    values: dict[str, Any],
    line_no: int,
    hours: HourCache,
    points: _Points,
    result: ParseResult,
) -> None:
    if isinstance(time_value, (int, float)) and not isinstance(time_value, bool):
        time_ms = bounded_epoch_ms(_as_float(time_value))
    else:
        time_ms = parse_datetime_text(str(time_value), hours.timezone, hours)
    if time_ms is None:
        result.diagnose(line_no, f"unreadable timestamp {str(time_value)[:40]!r}")
        return
    pool = pool or DEFAULT_POOL
    numbers: dict[str, float] = {}
    for metric, raw in values.items():
        if raw is None or raw == "":
            continue
        try:
            number = _as_float(raw)
        except (TypeError, ValueError):
            result.diagnose(line_no, f"{metric} is not a number: {str(raw)[:40]!r}")
            return
        if math.isfinite(number):
            numbers[metric] = number
        elif math.isinf(number):  # that value is lost, not the row
            result.diagnose(line_no, f"{metric} is out of range: {str(raw)[:40]!r}")
    for metric, number in numbers.items():
        times, series_values = _sink(points, pool, metric)
        times.append(time_ms)
        series_values.append(number)


def _as_float(value: Any) -> float:
    """``float(value)``, with integers too large for a float (JSON has no limit) infinite."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _derive_queue_capacity(points: _Points) -> None:
    """Capacity = queue size + remaining capacity, at the instants both were sampled."""
    for pool, metric in list(points):
        if (
            metric != "queue_remaining"
            or (pool, "queue_capacity") in points
            or (pool, "queue") not in points
        ):
            continue
        queue_times, queue_values = points[(pool, "queue")]
        queued = dict(zip(queue_times, queue_values, strict=True))
        capacity = _sink(points, pool, "queue_capacity")
        for time_ms, left in zip(*points[(pool, "queue_remaining")], strict=True):
            in_queue = queued.get(time_ms)
            if in_queue is not None:
                capacity[0].append(time_ms)
                capacity[1].append(in_queue + left)


def _emit_series(points: _Points, result: ParseResult) -> None:
    _derive_queue_capacity(points)
    for (pool, metric), (times, values) in points.items():
        if metric == "queue_remaining":
            continue
        name, unit = METRIC_SERIES[metric]
        labels = {"pool": pool}
        result.series.append(SeriesData(name, labels, unit, times, values))
        rate_name = COUNTER_RATES.get(metric)
        if rate_name is not None:
            # In (time, value) order: samples of one instant by value, so a repeated instant
            # is no step.
            t = np.frombuffer(times, dtype=np.int64)
            v = np.frombuffer(values, dtype=np.float64)
            order = np.lexsort((v, t))
            rate_t, rate_v = vectorised_counter_rates(
                array("q", t[order].tobytes()), array("d", v[order].tobytes())
            )
            if len(rate_t):
                result.series.append(SeriesData(rate_name, dict(labels), "per_s", rate_t, rate_v))
