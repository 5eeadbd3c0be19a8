"""``nstat`` (iproute2): kernel SNMP counters by name, absolute (``-a``) or as increments.

Produced by ``nstat -az`` (absolute values since boot, zeros included) or plain ``nstat``
(what changed since the previous call, kept in nstat's history file), once or in a loop
with timestamp lines between snapshots::

    === 2026-11-21T07:27:50.896Z ===
    #kernel
    IpInReceives                    9562               0.0
    TcpActiveOpens                  798                0.0
    TcpExtListenOverflows           8                  0.0

Columns: counter name (the ``nstat`` naming that :mod:`rootline.parsers.snmp_counters` uses
for every counter format), value, and nstat's average rate (per second, an exponentially
weighted average kept in its history; 0.0 when the history is fresh).

The format is the same for absolute and delta output, so the mode is read from the values:

- several snapshots: absolute when no counter ever goes down between two snapshots (or at
  one step only, a reboot, in a capture of 5+ snapshots); else delta, since increments of
  busy counters rise and fall;
- one snapshot: absolute when zero values are listed or 100+ counters are (``nstat -az``,
  what the collector runs; plain ``nstat`` prints only what moved); else delta.

Absolute values give the series and facts of :mod:`rootline.parsers.snmp_counters`:
``netstat.<Name>`` (``per_s``, between snapshots), ``netstat.<Name>.total`` (``count``), a
fact per counter for a single snapshot. Increments give ``netstat.<Name>.delta``
(``count``; a counter not listed in a snapshot moved by 0) and ``netstat.<Name>``
(``per_s``) = increment / time since the previous snapshot, or, for the first snapshot
(whose interval is unknown), nstat's own rate column when that snapshot has any non-zero
rate. A second ``#kernel`` line without a timestamp line opens a new snapshot at the same
time (no rate between the two).

>>> from rootline.parsers.base import ParseContext
>>> r = parse("#kernel\\nTcpActiveOpens  7  0.0\\n", ParseContext())
>>> [(s.name, s.unit, s.values[0]) for s in r.series]
[('netstat.TcpActiveOpens.delta', 'count', 7.0)]
"""

from __future__ import annotations

import itertools
import re
from array import array
from collections.abc import Iterator

import numpy as np

from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from rootline.parsers.snmp_counters import (
    DELTA_SUFFIX,
    GAUGE_UNITS,
    SERIES_PREFIX,
    CounterColumns,
    emit_absolute,
)
from rootline.parsers.timestamps import iter_snapshots

KIND = "nstat"

RULES: dict[str, re.Pattern[str]] = {
    # ``IpInReceives   9562   0.0``: name, value, average rate (the rate may be missing in
    # trimmed copies).
    "COUNTER": re.compile(
        r"^(?P<name>[A-Za-z][A-Za-z0-9_]*)\s+(?P<value>-?\d+)(?:\s+(?P<rate>-?\d+(?:\.\d*)?))?\s*$"
    ),
    # ``#kernel``: the header nstat prints first (``#<netns>`` per namespace with -n).
    "HEADER": re.compile(r"^#\S*\s*$"),
    # The fast path checks whole columns of a snapshot, joined by spaces, at once.
    "NAME_COLUMN": re.compile(r"[A-Za-z][A-Za-z0-9_]*(?: [A-Za-z][A-Za-z0-9_]*)*"),
}
_DATA_PREFIXES = ("Ip", "Icmp", "Tcp", "Udp", "MPTcp", "Sctp", "Xfrm", "#kernel")
# A single snapshot listing this many counters is a full table: ``nstat -a``.
FULL_TABLE_ROWS = 100
# Below this many snapshots, one step where counters fall is read as delta output, not a reboot.
MIN_SNAPSHOTS_FOR_REBOOT = 5


def sniff(head: str) -> float:
    lines = [line for line in head.splitlines()[:400] if line.strip()]
    if not lines:
        return 0.0
    counters = [m for line in lines if (m := RULES["COUNTER"].match(line)) and m["rate"]]
    snmp_names = sum(1 for m in counters if m["name"].startswith(("Ip", "Tcp", "Udp", "Icmp")))
    if any(line.startswith("#kernel") for line in lines[:50]) and counters:
        return 0.95
    if snmp_names >= 5 and snmp_names >= len(lines) // 2:
        return 0.85
    return 0.0


Columns = dict[str, tuple[np.ndarray, np.ndarray]]


class _Table:
    """Every snapshot's rows, grouped by layout.

    Snapshots listing the same counters in the same order (every ``nstat -az`` of one host)
    share a layout, and their values are kept as one flat array to become one matrix: no
    per-value Python work beyond the int conversion, which keeps 50 MB captures fast.
    """

    __slots__ = ("first_rates", "has_zero", "layouts", "rows", "snapshot_times")

    def __init__(self) -> None:
        self.snapshot_times: list[int] = []
        # names -> (snapshot indexes, values of all those snapshots, one array each)
        self.layouts: dict[tuple[str, ...], tuple[list[int], list[np.ndarray]]] = {}
        # nstat's rate column is only ever used for the first snapshot (see _emit_deltas).
        self.first_rates: dict[str, float] = {}
        self.rows = 0
        self.has_zero = False

    def new_snapshot(self, time_ms: int) -> int:
        self.snapshot_times.append(time_ms)
        return len(self.snapshot_times) - 1

    def add_rows(
        self, snapshot: int, names: tuple[str, ...], values: tuple[str, ...], rates: tuple[str, ...]
    ) -> None:
        layout = self.layouts.get(names)
        if layout is None:
            layout = ([], [])
            self.layouts[names] = layout
        layout[0].append(snapshot)
        layout[1].append(_numbers(values))
        if snapshot == 0:
            self.first_rates.update(zip(names, map(_rate, rates), strict=True))
        self.rows += len(names)
        if not self.has_zero and "0" in values:
            self.has_zero = True

    def columns(self) -> Columns:
        """name -> (snapshot indexes, values), in snapshot order."""
        parts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for names, (snapshots, flat_values) in self.layouts.items():
            indexes = np.asarray(snapshots, dtype=np.int64)
            values = _to_matrix(flat_values, len(snapshots), len(names))
            for j, name in enumerate(names):
                parts.setdefault(name, []).append((indexes, values[j]))
        columns: Columns = {}
        for name, pieces in parts.items():
            if len(pieces) == 1:
                columns[name] = pieces[0]
                continue
            indexes = np.concatenate([p[0] for p in pieces])
            order = np.argsort(indexes, kind="stable")
            columns[name] = (indexes[order], np.concatenate([p[1] for p in pieces])[order])
        return columns


def _rate(text: str) -> float:
    try:
        return float(text)
    except ValueError:  # "1.2.3" passes the fast path's column check
        return 0.0


def _numbers(values: tuple[str, ...]) -> np.ndarray:
    """One snapshot's values (decimal integers) as int64, or float64 past 2**63."""
    joined = "".join(values)
    if values and joined.isascii() and joined.isdigit():
        # At C speed. fromstring saturates past int64 instead of raising: a maximal value
        # takes the exact path below.
        numbers = np.fromstring(" ".join(values), dtype=np.int64, sep=" ")
        if len(numbers) == len(values) and numbers.max() < _INT64_MAX:
            return numbers
    try:
        return np.frombuffer(array("q", map(int, values)), dtype=np.int64)
    except OverflowError:  # a u64 counter past 2**63: exact only to 2**53
        return np.asarray(values, dtype=np.float64)


_INT64_MAX = np.iinfo(np.int64).max


def _to_matrix(chunks: list[np.ndarray], rows: int, columns: int) -> np.ndarray:
    numbers = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    # One contiguous row per counter: the column slices below are then plain views.
    return np.ascontiguousarray(numbers.reshape(rows, columns).T, dtype=np.float64)


def parse(text: str, context: ParseContext) -> ParseResult:
    result = ParseResult(kind=KIND)
    table = _Table()
    region = ""
    for start, stop, time_ms, first_line in _snapshots(text, context):
        region = text[start:stop]
        if not _read_clean_snapshot(region, time_ms, table):
            # Lines end at \n only (a CR before it dropped): str.splitlines also breaks at
            # \x1c-\x1e, \x85 and \u2028, which would number every later line wrong.
            lines = [line.removesuffix("\r") for line in region.split("\n")] if region else []
            _read_snapshot(lines, 0, len(lines), time_ms, table, result, first_line)
    # The registry handed the text over (``Decoded.take_text``): once read into the table it
    # goes, so that the series below are built beside the table only, not beside the text too.
    del text, region
    if not table.layouts:
        result.diagnose(0, "no nstat counter lines found")
        return result
    columns = table.columns()
    if _is_absolute(table, columns):
        emit_absolute(result, _absolute_columns(table, columns))
    else:
        _emit_deltas(result, table, columns)
    return result


# The start of a line that is neither empty nor data: a timestamp line, a stray line ...
_OTHER_LINE = re.compile(
    "\n(?!\n|" + "|".join(re.escape(prefix) for prefix in _DATA_PREFIXES) + ")"
)
_NON_SPACE = re.compile(r"\S")


def _snapshots(text: str, context: ParseContext) -> Iterator[tuple[int, int, int, int]]:
    """(start, stop) character offsets of each snapshot's lines (no final newline), its
    time, and the 1-based number of its first line.

    :func:`iter_snapshots` decides where snapshots start and end, over only the lines that
    can matter: every line that is neither empty nor data (``Tcp...``, ``#kernel``), with
    one stand-in data line for each run of data lines between them. Those lines are found
    by one regex scan of the text: a list of all lines cost twice the file.
    """
    kept: list[str] = []  # the lines iter_snapshots sees
    line_of: list[int] = []  # their 0-based line number in text (-1: a stand-in)
    offset_of: list[int] = []  # their first character in text
    end_of: list[int] = []  # the character after their line break

    def stand_in() -> None:
        kept.append(_DATA_PREFIXES[0])
        line_of.append(-1)
        offset_of.append(-1)
        end_of.append(-1)

    starts = (match.end() for match in _OTHER_LINE.finditer(text))
    first_is_other = bool(text) and not text.startswith(("\n", *_DATA_PREFIXES))
    after = 0  # where the text after the previous kept line starts
    line_number = 0
    for start in itertools.chain([0] if first_is_other else [], starts):
        if start >= len(text):
            break  # the text's final line break
        if _NON_SPACE.search(text, after, start):
            stand_in()  # data lines between the previous kept line and this one
        line_number += text.count("\n", after, start)
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        kept.append(text[start:end].rstrip("\n").removesuffix("\r"))
        line_of.append(line_number)
        offset_of.append(start)
        end_of.append(end)
        after = end
        line_number += 1
    if _NON_SPACE.search(text, after):
        stand_in()
    text_end = len(text) - 1 if text.endswith("\n") else len(text)
    for snapshot in iter_snapshots(kept, context.timezone, context.default_time_ms):
        if snapshot.start > 0:
            first = end_of[snapshot.start - 1]
            first_line = line_of[snapshot.start - 1] + 2
        else:
            first, first_line = 0, 1
        # up to the next separator, its line break excluded, or the end of the text
        last = offset_of[snapshot.stop] - 1 if snapshot.stop < len(kept) else text_end
        yield first, max(first, last), snapshot.time_ms, first_line


def _read_clean_snapshot(region: str, time_ms: int, table: _Table) -> bool:
    """The fast path: an optional ``#kernel`` then only well-formed rows. False if not so."""
    if region.startswith("#"):
        header, _, region = region.partition("\n")
        if RULES["HEADER"].match(header.removesuffix("\r")) is None:
            return False
    if not region:
        table.new_snapshot(time_ms)
        return True
    block = region
    tokens = block.split()
    if len(tokens) != 3 * (block.count("\n") + 1):
        return False  # blank, short or long lines inside: read line by line
    names, values, rates = tuple(tokens[0::3]), tuple(tokens[1::3]), tuple(tokens[2::3])
    # Three checks over whole columns at C speed instead of one regex per row (the names
    # only once per layout: every nstat -az of a host lists the same ones).
    if not (
        (joined := "".join(values)).isascii()
        and joined.isdigit()
        and (names in table.layouts or RULES["NAME_COLUMN"].fullmatch(" ".join(names)))
        and "".join(rates).replace(".", "").isdigit()
    ):
        return False
    table.add_rows(table.new_snapshot(time_ms), names, values, rates)
    return True


def _read_snapshot(
    lines: list[str],
    start: int,
    stop: int,
    time_ms: int,
    table: _Table,
    result: ParseResult,
    first_line: int = 1,
) -> None:
    """The careful path: line by line, with diagnostics and repeated ``#kernel`` headers."""
    snapshot = table.new_snapshot(time_ms)
    names: list[str] = []
    values: list[str] = []
    rates: list[str] = []
    row_rule = RULES["COUNTER"]
    for index in range(start, stop):
        line = lines[index]
        if not line or line.isspace():
            continue
        if line[0] == "#":
            if RULES["HEADER"].match(line) is None:
                result.diagnose(index + first_line, f"not an nstat header: {line[:80]!r}")
            elif names:  # a second ``#kernel`` without a timestamp: the next call
                table.add_rows(snapshot, tuple(names), tuple(values), tuple(rates))
                snapshot = table.new_snapshot(time_ms)
                names, values, rates = [], [], []
            continue
        m = row_rule.match(line)
        if m is None:
            result.diagnose(index + first_line, f"not an nstat counter line: {line[:80]!r}")
            continue
        if m["name"] in names:
            result.diagnose(index + first_line, f"counter {m['name']} listed twice in one snapshot")
            continue
        names.append(m["name"])
        values.append(m["value"])
        rates.append(m["rate"] or "0")
    if names:
        table.add_rows(snapshot, tuple(names), tuple(values), tuple(rates))


def _is_absolute(table: _Table, columns: Columns) -> bool:
    if len(table.snapshot_times) == 1:
        return table.has_zero or table.rows >= FULL_TABLE_ROWS
    fell_at = np.zeros(len(table.snapshot_times), dtype=bool)
    for name, (indexes, values) in columns.items():
        if name in GAUGE_UNITS or len(values) < 2:
            continue
        fell_at[indexes[1:][np.diff(values) < 0]] = True
    # Increments of busy counters rise and fall at many steps; absolute counters never fall,
    # except once at a reboot in a long enough capture.
    falls = int(fell_at.sum())
    return falls == 0 or (falls == 1 and len(table.snapshot_times) >= MIN_SNAPSHOTS_FOR_REBOOT)


def _absolute_columns(table: _Table, columns: Columns) -> CounterColumns:
    counters = CounterColumns()
    counters.snapshot_times = table.snapshot_times
    times = np.asarray(table.snapshot_times, dtype=np.int64)
    for name, (indexes, values) in columns.items():
        counters.columns[name] = (
            array("q", times[indexes].tobytes()),
            array("d", values.tobytes()),
        )
    return counters


def _emit_deltas(
    result: ParseResult,
    table: _Table,
    columns: Columns,
) -> None:
    count = len(table.snapshot_times)
    times = np.asarray(table.snapshot_times, dtype=np.int64)
    intervals_s = np.diff(times) / 1000.0
    rate_ok = np.concatenate(([False], intervals_s > 0))
    safe_intervals = np.concatenate(([1.0], np.where(intervals_s > 0, intervals_s, 1.0)))
    # The first snapshot's interval is unknown: nstat's rate column stands in when it is live.
    first_has_rates = any(rate != 0.0 for rate in table.first_rates.values())
    times_array = array("q", times.tobytes())
    for name, (indexes, values) in columns.items():
        dense = np.zeros(count, dtype=np.float64)
        dense[indexes] = values  # a counter not listed in a snapshot moved by 0
        result.series.append(
            SeriesData(
                SERIES_PREFIX + name + DELTA_SUFFIX,
                {},
                "count",
                times_array,
                array("d", dense.tobytes()),
            )
        )
        if name in GAUGE_UNITS:
            continue
        per_s = dense / safe_intervals
        keep = rate_ok.copy()
        if first_has_rates and name in table.first_rates:
            per_s[0] = table.first_rates[name]
            keep[0] = True
        if keep.any():
            result.series.append(
                SeriesData(
                    SERIES_PREFIX + name,
                    {},
                    "per_s",
                    array("q", times[keep].tobytes()),
                    array("d", per_s[keep].tobytes()),
                )
            )
