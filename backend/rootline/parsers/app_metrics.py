"""The application's own numbers: any CSV / TSV / JSON-lines file of timed numeric columns.

Input: whatever the service or its load generator writes about itself, one row per sample:
a latency export, a load tool's report, a dashboard's CSV download. Sample lines:

    timestamp_ms,p99_ms,rps,errors
    1795247520000,12.0,480,0

    time	p99LatencyMs	qps
    2026-11-21T07:52:00Z	12.5	470

    {"ts": "2026-11-21T07:52:00.000Z", "p99_ms": 12.0, "rps": 480, "errors": 0}

The file must start with a header row (CSV separated by commas, semicolons or tabs) or be one
JSON object per line. The *time column* is found by content: the column whose sampled cells
(the first 20 rows; three in four of them at least) are times (epoch s / ms / us / ns between 2000 and 2100, or ISO 8601 / ``yyyy-mm-dd
hh:mm:ss[.SSS]``, zone-less ones in ``context.timezone``); when several qualify, one whose
header names a time (``time``, ``timestamp``, ``ts`` ...) wins, then the leftmost. Every other
column whose sampled cells are numbers becomes a series; text columns (an endpoint, a status
word) are known and ignored, and so are *code* columns, numeric or not (a name ending in
``code`` or ``status``: ``responseCode``, ``http_status``, ``rc``): a code is not a
measurement.

Series, one per numeric column, no labels: ``app.<file>.<column>``, where ``<file>`` is the
uploaded file's name without its extensions (``api-latency.csv.gz`` -> ``api_latency``;
``metrics`` when no name is known) and ``<column>`` the header, both made series-name safe by
:func:`token` (lower case, camelCase split, anything but ``[a-z0-9]`` -> ``_``).

Units are guessed from the column name's words (:func:`guess_unit`; camelCase and snake_case
both split into words: ``errorPercent`` is ``error``, ``percent``), first match wins:

======================================================  ========
column words                                            unit
======================================================  ========
``..._ms``, ``..._millis``                              ms
``..._us``, ``..._micros``                              us
``..._ns``, ``..._nanos``                               ns
``pct``, ``percent``, ``util``                          %
``bytes``, ``response_size``, ``resp_size`` (a size     bytes
of a response, request, body, payload or message)
``..._count``, ``..._cnt``                              count
``error_rate``, ``success_rate`` (a rate of an          ratio (per_s when a value
outcome: error, success, failure, hit, miss ...)        is over 1)
``rps``, ``qps``, ``tps``, ``ops``, ``..._per_s(ec)``,  per_s
``throughput``, ``rate``
``..._s``, ``..._sec``, ``..._seconds``                 s
``errors``, ``failures``, ``timeouts``, ``5xx`` ...     count
``p50``..``p9999``, ``latency``, ``duration``,          ms (latency written without a
``response_time``, ``rt``, ``elapsed``, ``connect``     unit is milliseconds in practice:
                                                        JMeter's ``elapsed``, ``Latency``,
                                                        ``Connect``)
anything else                                           (none)
======================================================  ========

In a JSON line only JSON numbers are numbers (``"level_value": 20000`` is, ``"@version":
"1"`` is not). Sniffing declines JSON lines that are log events (a ``message`` or ``msg`` and a
``level``: :mod:`app_log` reads those), files whose header is a thread-pool export
(:mod:`threadpool_metrics` owns those) and answers 0.6, below the specific formats, so nothing another parser claims is taken.
Rows that cannot be read (wrong field count, unreadable time) become line diagnostics; a cell
that is not a number costs that value and a diagnostic; empty cells are missing values.

Decimal commas (``5,95``, as a German or French Excel writes them) are read as decimal points
in a file separated by semicolons or tabs (``timestamp;p99_ms`` / ``2026-11-26T16:16:00Z;5,95``
is 5.95). In a comma-separated file such a (quoted) column cannot be told from a list: it is
not read, and a diagnostic names it.

>>> result = parse("time,p99_ms,rps\\n1795247520000,12,480\\n1795247521000,15,470\\n",
...                ParseContext(filename="latency.csv"))
>>> [(s.name, s.unit, list(s.values)) for s in result.series]
[('app.latency.p99_ms', 'ms', [12.0, 15.0]), ('app.latency.rps', 'per_s', [480.0, 470.0])]
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import re
from array import array
from collections.abc import Sequence
from typing import Any

from rootline.parsers import app_log, threadpool_metrics
from rootline.parsers.base import ParseContext, ParseResult, SeriesData, json_objects
from rootline.parsers.logtime import (
    DATETIME_RE,
    HourCache,
    bounded_epoch_ms,
    epoch_to_ms,
    match_to_ms,
)

KIND = "app_metrics"

# Below the specific formats' 0.7-0.9: a generic table never shadows them.
CONFIDENCE = 0.6
# Rows sampled to find the time column and the numeric ones.
SAMPLE_ROWS = 20
# The share of a column's sampled cells that must be times (numbers) for it to be the time
# column (a numeric one): a damaged row among the first ones must not hide the column.
COLUMN_AGREEMENT = 0.75
# A time column's epochs must fall in [2000-01-01, 2100-01-01): counters and ids rarely do.
EARLIEST_MS = 946_684_800_000
LATEST_MS = 4_102_444_800_000
DEFAULT_FILE_TOKEN = "metrics"
# Series names are at most 200 characters in the store.
MAX_TOKEN_CHARS = 60

_DELIMITERS = ("\t", ",", ";")
_TIME_NAMES = {
    "time",
    "timestamp",
    "ts",
    "date",
    "datetime",
    "epoch",
    "epochms",
    "timems",
    "timestampms",
    "t",
    "when",
}
_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
# A number written with a decimal comma (``12,5``, ``-0,25``).
_DECIMAL_COMMA_RE = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
# Separators after which a comma inside a cell is a decimal comma.
_DECIMAL_COMMA_DELIMITERS = (";", "\t")
_FILE_EXTENSIONS = {
    "csv",
    "tsv",
    "txt",
    "json",
    "jsonl",
    "ndjson",
    "log",
    "out",
    "dat",
    "gz",
    "bz2",
    "xz",
    "zst",
}


# --- names and units ---------------------------------------------------------------------


def token(name: str) -> str:
    """``p99LatencyMs`` -> ``p99_latency_ms``; ``Errors/s`` -> ``errors_s``; ``HTTPStatus``
    -> ``http_status``; "" stays ""."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name.strip())
    cleaned = re.sub(r"[^a-z0-9]+", "_", spaced.lower()).strip("_")
    return cleaned[:MAX_TOKEN_CHARS].rstrip("_")


def file_token(filename: str | None) -> str:
    """The series-name token of a file: its name without extensions (``app.latency.csv.gz``
    -> ``app_latency``)."""
    if not filename:
        return DEFAULT_FILE_TOKEN
    parts = filename.rsplit("/", 1)[-1].split(".")
    while len(parts) > 1 and parts[-1].lower() in _FILE_EXTENSIONS:
        parts.pop()
    name = token("_".join(parts)) or DEFAULT_FILE_TOKEN
    # ``app.log.*`` are the application log's counts (app_log): keep a metrics file apart.
    return "log_file" if name == "log" else name


_LATENCY_WORD = re.compile(r"p\d{2,4}|latency|duration|rt|elapsed|response|resp|connect")
_CODE_WORDS = {"code", "status", "rc"}
_SIZE_OF = {"response", "resp", "request", "req", "body", "payload", "message", "msg"}
_OUTCOME_WORDS = {"error", "errors", "success", "failure", "fail", "hit", "miss", "drop", "loss"}
_ERROR_WORDS = {
    "error",
    "errors",
    "err",
    "errs",
    "failure",
    "failures",
    "failed",
    "fail",
    "fails",
    "timeout",
    "timeouts",
    "exception",
    "exceptions",
    "5xx",
    "4xx",
    "rejected",
    "rejections",
}
_RATE_WORDS = {"rps", "qps", "tps", "ops", "throughput", "rate", "persec", "ps"}


def is_code_column(column: str) -> bool:
    """A column of codes (``responseCode``, ``http_status``, ``rc``): not a measurement."""
    return token(column).split("_")[-1] in _CODE_WORDS


def guess_unit(column: str) -> str:
    """The unit a column's name suggests (see the module table); "" when it says none."""
    words = token(column).split("_")
    last, names = words[-1], set(words)
    if last in _CODE_WORDS:
        return ""  # a code: no measurement, no unit
    if last in {"ms", "millis", "msec", "milliseconds"}:
        return "ms"
    if last in {"us", "micros", "usec", "microseconds"}:
        return "us"
    if last in {"ns", "nanos", "nsec", "nanoseconds"}:
        return "ns"
    if {"pct", "percent", "percentage", "util", "utilization", "utilisation"} & names:
        return "%"
    if names & {"bytes", "byte"} or (last == "size" and _SIZE_OF & names):
        return "bytes"
    if last in {"count", "cnt"}:
        return "count"
    if "rate" in names and _OUTCOME_WORDS & names:
        return "ratio"
    joined = "_".join(words)
    if _RATE_WORDS & names or re.search(r"per_s(ec(ond)?)?$", joined):
        return "per_s"
    if last in {"s", "sec", "secs", "seconds"}:
        return "s"
    if _ERROR_WORDS & names:
        return "count"
    if any(_LATENCY_WORD.fullmatch(word) for word in words):
        return "ms"
    return ""


# --- cells -------------------------------------------------------------------------------


def _number(cell: Any, decimal_comma: bool = False, text: bool = True) -> float | None:
    """A cell as a number: JSON numbers, and (when ``text``) text that is one number (with a
    decimal comma too when ``decimal_comma``); None otherwise."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, (int, float)):
        try:
            return float(cell)
        except OverflowError:
            return math.inf
    if isinstance(cell, str) and text:
        stripped = cell.strip()
        if _NUMBER_RE.fullmatch(stripped):
            return float(stripped)
        if decimal_comma and _DECIMAL_COMMA_RE.fullmatch(stripped):
            return float(stripped.replace(",", "."))
    return None


def _plausible_time(cell: Any, hours: HourCache) -> bool:
    """Whether ``cell`` reads as an instant between 2000 and 2100 (for finding the column)."""
    number = _number(cell)
    if number is not None:
        return 0 <= number < math.inf and EARLIEST_MS <= epoch_to_ms(number) < LATEST_MS
    if isinstance(cell, str):
        match = DATETIME_RE.fullmatch(cell.strip())
        if match is not None:
            ms = match_to_ms(match, hours)
            return ms is not None and EARLIEST_MS <= ms < LATEST_MS
    return False


def _time_ms(cell: Any, hours: HourCache) -> int | None:
    number = _number(cell)
    if number is not None:
        return bounded_epoch_ms(number)
    if isinstance(cell, str):
        match = DATETIME_RE.fullmatch(cell.strip())
        if match is not None:
            return match_to_ms(match, hours)
    return None


# --- columns -----------------------------------------------------------------------------


def _columns(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    hours: HourCache,
    decimal_comma: bool = False,
    json_cells: bool = False,
) -> tuple[int, list[int]] | None:
    """(time column, numeric columns) read from sample ``rows``; None when there is no time
    column or no numeric column."""
    if not rows:
        return None
    width = len(header)
    times: list[int] = []
    numeric: list[int] = []
    for index in range(width):
        cells = [row[index] for row in rows if index < len(row) and row[index] not in ("", None)]
        if not cells:
            continue
        enough = len(cells) * COLUMN_AGREEMENT
        if sum(_plausible_time(cell, hours) for cell in cells) >= enough:
            times.append(index)
        elif is_code_column(header[index]):
            continue  # a code (an HTTP status) is no measurement
        elif (
            sum(_number(cell, decimal_comma, not json_cells) is not None for cell in cells)
            >= enough
        ):
            numeric.append(index)
    if not times:
        return None
    named = [i for i in times if threadpool_metrics.normalise_column(header[i]) in _TIME_NAMES]
    time_index = (named or times)[0]
    numeric.extend(i for i in times if i != time_index)  # a second epoch-like column is data
    numeric.sort()
    return (time_index, numeric) if numeric else None


def _is_threadpool_header(names: Sequence[str]) -> bool:
    """A thread-pool export's header (a time and two pool metrics): threadpool_metrics' file."""
    canon = set(threadpool_metrics.canonical_columns(list(names)))
    pool_metrics = canon & threadpool_metrics.METRIC_SERIES.keys()
    return "time" in canon and len(pool_metrics) >= threadpool_metrics.MIN_METRIC_COLUMNS


def _detect_delimiter(lines: Sequence[str]) -> str | None:
    """The separator splitting the header (``lines[0]``) into 2 or more fields and (three in
    four of) the sampled rows below it into as many."""
    for delimiter in _DELIMITERS:
        width = len(next(csv.reader([lines[0]], delimiter=delimiter)))
        rows = lines[1:]
        same = sum(len(next(csv.reader([line], delimiter=delimiter))) == width for line in rows)
        if width >= 2 and rows and same >= len(rows) * COLUMN_AGREEMENT:
            return delimiter
    return None


def _split(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter)) if '"' in line else line.split(delimiter)


# --- sniff -------------------------------------------------------------------------------


def sniff(head: str) -> float:
    lines = [line for line in head.splitlines()[: SAMPLE_ROWS * 4] if line.strip()][
        : SAMPLE_ROWS + 1
    ]
    if len(lines) < 2:
        return 0.0
    hours = HourCache(dt.UTC)  # zone-less times need only parse here, not be placed exactly
    if lines[0].lstrip().startswith("{"):
        records = _json_records(lines)
        if records is None:
            return 0.0
        keys = list(records[0])
        if _is_threadpool_header(keys) or any(app_log.is_json_log_record(r) for r in records):
            return 0.0  # a thread-pool export, or a JSON log (app_log's)
        cells = [[record.get(key) for key in keys] for record in records]
        return CONFIDENCE if _columns(keys, cells, hours, json_cells=True) else 0.0
    delimiter = _detect_delimiter(lines)
    if delimiter is None:
        return 0.0
    header = _split(lines[0], delimiter)
    if _is_threadpool_header(header) or any(_plausible_time(c, hours) for c in header):
        return 0.0  # a thread-pool export, or no header row (a log line, a data row)
    rows = [_split(line, delimiter) for line in lines[1:]]
    decimal_comma = delimiter in _DECIMAL_COMMA_DELIMITERS
    return CONFIDENCE if _columns(header, rows, hours, decimal_comma) else 0.0


def _json_records(lines: Sequence[str]) -> list[dict[str, Any]] | None:
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        records.append(record)
    return records


# --- parse -------------------------------------------------------------------------------


class _Sink:
    """Points per numeric column, with the series names and units fixed at the header."""

    def __init__(self, file: str, names: Sequence[str]) -> None:
        self.names: list[str] = []
        self.units: list[str] = []
        seen: set[str] = set()
        for position, name in enumerate(names, 1):
            column = token(name) or f"column{position}"
            base, suffix = column, 2
            while column in seen:
                column, suffix = f"{base}_{suffix}", suffix + 1
            seen.add(column)
            self.names.append(f"app.{file}.{column}")
            self.units.append(guess_unit(name))
        self.times: list[array[int]] = [array("q") for _ in names]
        self.values: list[array[float]] = [array("d") for _ in names]

    def add(self, column: int, time_ms: int, value: float) -> None:
        self.times[column].append(time_ms)
        self.values[column].append(value)

    def emit(self, result: ParseResult) -> None:
        for name, unit, times, values in zip(
            self.names, self.units, self.times, self.values, strict=True
        ):
            if len(times):
                if unit == "ratio" and max(values) > 1:
                    unit = "per_s"  # an error "rate" counted per second, not a share
                result.series.append(SeriesData(name, {}, unit, times, values))


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        result.diagnose(0, "file is empty")
        return result
    hours = HourCache(context.timezone)
    file = file_token(context.filename)
    if lines[first].lstrip().startswith("{"):
        _parse_json_lines(lines, first, file, hours, result)
    else:
        _parse_table(lines, first, file, hours, result)
    return result


def _sample(lines: Sequence[str], start: int) -> list[tuple[int, str]]:
    """The first :data:`SAMPLE_ROWS` non-empty lines from ``start`` with their indices."""
    sample: list[tuple[int, str]] = []
    for index in range(start, len(lines)):
        if lines[index].strip():
            sample.append((index, lines[index]))
            if len(sample) >= SAMPLE_ROWS:
                break
    return sample


def _parse_table(
    lines: list[str], header_index: int, file: str, hours: HourCache, result: ParseResult
) -> None:
    sample = _sample(lines, header_index + 1)
    delimiter = _detect_delimiter([lines[header_index], *(line for _, line in sample[:5])])
    if delimiter is None:
        result.diagnose(
            header_index + 1,
            "no header row with the rows' shape: expected comma, semicolon or tab separated"
            " columns",
        )
        return
    header = _split(lines[header_index], delimiter)
    width = len(header)
    sample_rows = [
        row for row in (_split(line, delimiter) for _, line in sample) if len(row) == width
    ]
    decimal_comma = delimiter in _DECIMAL_COMMA_DELIMITERS
    columns = _columns(header, sample_rows, hours, decimal_comma)
    if columns is None:
        result.diagnose(
            header_index + 1, "no column holds times (epoch or ISO 8601) beside numeric columns"
        )
        return
    time_index, numeric = columns
    if not decimal_comma:
        for index in range(width):
            cells = [row[index].strip() for row in sample_rows if row[index].strip()]
            if (
                index != time_index
                and index not in numeric
                and cells
                and sum(bool(_DECIMAL_COMMA_RE.fullmatch(c)) for c in cells)
                >= len(cells) * COLUMN_AGREEMENT
            ):
                result.diagnose(
                    header_index + 1,
                    f"column {header[index][:40]!r} holds numbers with a decimal comma in a"
                    " comma-separated file: not read (separate the columns with ';' or tabs)",
                )
    sink = _Sink(file, [header[i] for i in numeric])
    for index in range(header_index + 1, len(lines)):
        line = lines[index]
        if not line or line.isspace():
            continue
        fields = _split(line, delimiter)
        if len(fields) != width:
            result.diagnose(
                index + 1, f"expected {width} fields as in the header, found {len(fields)}"
            )
            continue
        _add_row(fields, time_index, numeric, header, index + 1, hours, sink, result, decimal_comma)
    sink.emit(result)


def _add_row(
    cells: Sequence[Any],
    time_index: int,
    numeric: Sequence[int],
    header: Sequence[str],
    line_no: int,
    hours: HourCache,
    sink: _Sink,
    result: ParseResult,
    decimal_comma: bool = False,
    json_cells: bool = False,
) -> None:
    time_ms = _time_ms(cells[time_index], hours)
    if time_ms is None:
        result.diagnose(line_no, f"unreadable time {str(cells[time_index])[:40]!r}")
        return
    for column, index in enumerate(numeric):
        cell = cells[index] if index < len(cells) else None
        if cell is None or cell == "":
            continue
        value = _number(cell, decimal_comma, not json_cells)
        if value is None:
            result.diagnose(line_no, f"{header[index][:40]} is not a number: {str(cell)[:40]!r}")
        elif math.isinf(value):
            result.diagnose(line_no, f"{header[index][:40]} is out of range: {str(cell)[:40]!r}")
        elif not math.isnan(value):
            sink.add(column, time_ms, value)


def _parse_json_lines(
    lines: list[str], first: int, file: str, hours: HourCache, result: ParseResult
) -> None:
    records = list(json_objects(lines[first:], result, first_line=first + 1))
    if not records:
        return
    keys = list(dict.fromkeys(k for _, r in records[:SAMPLE_ROWS] for k in r))
    rows = [[record.get(key) for key in keys] for _, record in records[:SAMPLE_ROWS]]
    columns = _columns(keys, rows, hours, json_cells=True)
    if columns is None:
        result.diagnose(
            records[0][0], "no field holds times (epoch or ISO 8601) beside numeric fields"
        )
        return
    time_index, numeric = columns
    time_key = keys[time_index]
    sink = _Sink(file, [keys[i] for i in numeric])
    for line_no, record in records:
        if record.get(time_key) in (None, ""):
            result.diagnose(line_no, f"JSON line has no {time_key!r} field")
            continue
        cells = [record.get(key) for key in keys]
        _add_row(cells, time_index, numeric, keys, line_no, hours, sink, result, json_cells=True)
    sink.emit(result)
