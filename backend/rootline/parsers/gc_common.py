"""What the GC log parsers (:mod:`gc_legacy`, :mod:`gc_unified`, and those of other JVMs:
:mod:`gc_ibm_xml`, :mod:`gc_ibm_text`, :mod:`gc_jrockit`, :mod:`gc_hpux`) share.

The parsers read lines into :class:`Pause`, :class:`Concurrent` and :class:`Stall` records
that carry the clock readings the line had (a wall-clock datestamp, a JVM uptime, or both);
:func:`build_result` anchors them on one clock and turns them into events, series and facts:

- events ``gc_pause`` (a stop-the-world pause; ``duration_ms``; attrs ``collector``,
  ``type``, ``cause``, ``heap_before_mb``, ``heap_after_mb``, ``heap_total_mb``,
  ``gc_id``, ``uptime_s``), ``gc_concurrent`` (a concurrent phase or a whole concurrent
  cycle, attrs ``collector``, ``phase``, ``gc_id``, heap attrs when the line has them),
  ``gc_allocation_stall`` (a ZGC allocation or relocation stall, attr ``stall`` and
  ``thread``) and ``gc_to_space_exhausted`` (G1 evacuation failure, at the pause's start,
  with the pause's ``gc_id``; the pause also carries ``to_space_exhausted: True``).
- series ``gc.pause_ms`` (ms, one point per pause at its start) and
  ``gc.heap_before_mb`` / ``gc.heap_after_mb`` / ``gc.heap_total_mb`` (MB, one point per
  pause that reports the heap; for ZGC and Shenandoah, whose pauses do not, one point per
  concurrent cycle or phase that does).
- facts ``jvm.start_time`` (ISO UTC, only when a line carries both a datestamp and an
  uptime), ``gc.collector``, ``gc.pause_count``, ``gc.pause_total_ms``, ``gc.pause_max_ms``,
  ``gc.pause_p99_ms`` (nearest rank), ``gc.log_span_ms`` (the time the log covers, from its
  first clock reading to its last, or its pauses' span when longer), ``gc.log_tail_ms`` (from
  the end of the last pause to the log's last clock reading, 0 when none is later),
  ``gc.time_share_pct`` (pause total / log span),
  ``gc.allocation_rate_mb_s`` and ``gc.promotion_rate_mb_s`` (MB/s between the first and
  the last pause; promotion needs young-generation sizes).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rootline.parsers.base import (
    EventColumns,
    Fact,
    KindColumns,
    ParseContext,
    ParseResult,
    SeriesData,
)

KB_PER_UNIT = {"B": 1.0 / 1024.0, "K": 1.0, "M": 1024.0, "G": 1024.0 * 1024.0, "T": 1024.0**3}

# A datestamp as both log families write it: 2022-08-01T17:16:33.170+0000 (offset optional).
DATESTAMP = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?:([+-])(\d\d):?(\d\d)|Z)?"
)


def number(text: str) -> float:
    """A decimal number written with a point or, in some locales, a comma."""
    try:
        return float(text)  # float() takes no comma: only a decimal comma fails here
    except ValueError:
        return float(text.replace(",", "."))


_KB_PER_UNIT_ANY_CASE = KB_PER_UNIT | {unit.lower(): kb for unit, kb in KB_PER_UNIT.items()}


def size_kb(value: str, unit: str) -> float:
    """``1024``, ``K`` -> 1024.0 KB; units are B, K, M, G (JVM sizes are binary)."""
    factor = _KB_PER_UNIT_ANY_CASE.get(unit)
    if factor is None:
        factor = KB_PER_UNIT[unit.upper()]
    return number(value) * factor


# A shape of UTF-8 bytes (line_shapes): every ASCII digit written 0, as str.translate of
# "0123456789" to "0"s writes it (in UTF-8 those bytes are never part of another character).
DIGIT_BYTES_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
_SHAPE_BLOCK = 1 << 20
# Text to UTF-8 and back, any str (a lone surrogate too).
_UTF8, _ANY = "utf-8", "surrogatepass"


def line_shapes(
    text: str, group_start: str | None = None, group_marker: str | None = None
) -> set[str]:
    r"""The distinct lines of ``text`` (split at ``\n`` only) with every digit written ``0``.

    A big log has a few hundred of them: a rule that names no digit (``\d``, never ``7``)
    matches a line exactly when it matches the line's shape, so the shapes can be checked
    instead of millions of lines. Read a block at a time (bounded memory), as UTF-8 bytes
    (bytes.translate takes fewer steps a character than str.translate); the distinct lines
    are decoded back.

    ``group_start`` (a line break and what the shape of a log's record line starts with,
    ``"\n0"`` for a stamped one) splits a block first into groups of lines, a record line
    and its detail lines: a log repeats a few groups, each distinct one split into its lines
    once instead of every copy of it. ``group_marker`` (no digit, no line break in it) finds
    a block's ``group_start`` in the block, for a log whose lines start with more than a
    stamp (unified logging's decorations, whose uptime grows digits): the shape of the
    block's first line holding the marker, to the marker.
    """
    shapes: set[bytes] = set()
    fixed_start = None if group_start is None else group_start.encode(_UTF8, _ANY)
    marker = None if group_marker is None else group_marker.encode(_UTF8, _ANY)
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start + _SHAPE_BLOCK)
        stop = end if stop < 0 else stop + 1
        block = digits_as_zero(text[start:stop].encode(_UTF8, _ANY))
        start = stop
        block_start = fixed_start
        if marker is not None:
            at = block.find(marker)
            line_break = block.rfind(b"\n", 0, at) if at >= 0 else -1
            block_start = block[line_break:at] if line_break >= 0 else None
        if block_start is None:
            shapes.update(block.split(b"\n"))
            continue
        first, *groups = block.split(block_start)
        shapes.update(first.split(b"\n"))
        line_start = block_start[1:]  # what the line break split off each group
        for group in set(groups):
            shapes.update((line_start + group).split(b"\n"))
    return {shape.decode(_UTF8, _ANY) for shape in shapes}


# Below this many bytes digits_as_zero translates (numpy's setup costs more than it saves).
_NUMPY_BYTES = 4096


def digits_as_zero(data: bytes) -> bytes:
    """``data.translate(DIGIT_BYTES_AS_ZERO)``, a big block in a third of the steps: as
    numpy arithmetic on its bytes, each ``b - d`` where ``d = b - ord("0")`` (wrapping) for
    a digit and 0 for any other byte (no test per byte, unlike translate's table).

    >>> digits_as_zero(b"GC(12) 7.5ms")
    b'GC(00) 0.0ms'
    """
    if len(data) < _NUMPY_BYTES:
        return data.translate(DIGIT_BYTES_AS_ZERO)
    raw = np.frombuffer(data, dtype=np.uint8)
    offset = raw - np.uint8(48)  # a digit: 0-9; any other byte: 10-255
    offset *= offset < 10
    np.subtract(raw, offset, out=offset)
    return offset.tobytes()


_MINUTE_CACHE: dict[tuple[object, ...], int] = {}


def datestamp_ms(match: re.Match[str], timezone: dt.tzinfo, group: int = 0) -> int | None:
    """Epoch ms of a :data:`DATESTAMP` match (None if no such date); zone-less in ``timezone``.

    ``group`` is the number of the group holding the stamp when :data:`DATESTAMP` is
    embedded in a larger pattern (its ten groups follow it).
    """
    year, month, day, hour, minute, second, fraction, sign, off_h, off_m = match.groups()[
        group : group + 10
    ]
    # Building a datetime per line is the costliest step of a big log: reuse each minute's.
    stamp = match.group(group)
    key = (stamp[:16], sign, off_h, off_m, stamp[-1] == "Z", timezone)
    minute_ms = _MINUTE_CACHE.get(key)
    if minute_ms is None:
        if len(_MINUTE_CACHE) > 4096:
            _MINUTE_CACHE.clear()
        try:
            minute_ms = _minute_ms(
                year, month, day, hour, minute, sign, off_h, off_m, stamp, timezone
            )
        except (ValueError, OverflowError):
            return None
        _MINUTE_CACHE[key] = minute_ms
    millis = int((fraction or "0").ljust(3, "0")[:3])
    return minute_ms + int(second) * 1000 + millis


def _minute_ms(
    year: str,
    month: str,
    day: str,
    hour: str,
    minute: str,
    sign: str | None,
    off_h: str | None,
    off_m: str | None,
    stamp: str,
    timezone: dt.tzinfo,
) -> int:
    if sign is not None and off_h is not None and off_m is not None:
        offset = dt.timedelta(hours=int(off_h), minutes=int(off_m))
        zone: dt.tzinfo = dt.timezone(-offset if sign == "-" else offset)
    elif stamp.endswith("Z"):
        zone = dt.UTC
    else:
        zone = timezone
    moment = dt.datetime(int(year), int(month), int(day), int(hour), int(minute), tzinfo=zone)
    return int(moment.timestamp()) * 1000


_MONTHS = {
    "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
    "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
}  # fmt: skip
# A C-locale date as older IBM JVMs write it: "Thu Sep 25 15:57:30 2003", "Mar 25 22:40:24 2010".
MONTH_DATE = re.compile(
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) +)?(" + "|".join(_MONTHS) + r") +(\d{1,2}) +"
    r"(\d{1,2}):(\d\d):(\d\d) +(\d{4})"
)


def month_date_ms(text: str, timezone: dt.tzinfo) -> int | None:
    """Epoch ms of the first :data:`MONTH_DATE` in ``text``, read in ``timezone`` (no zone is written).

    >>> month_date_ms("GC cycle started Thu Sep 25 15:57:30 2003", dt.UTC)
    1064505450000
    """
    match = MONTH_DATE.search(text)
    if match is None:
        return None
    month, day, hour, minute, second, year = match.groups()
    try:
        moment = dt.datetime(
            int(year), _MONTHS[month], int(day), int(hour), int(minute), int(second),
            tzinfo=timezone,
        )  # fmt: skip
    except (ValueError, OverflowError):
        return None
    return int(moment.timestamp()) * 1000


# The first decoration of a unified-logging line: a time, an uptime, a pid, or a level.
UNIFIED_DECORATION = re.compile(
    r"\[(?:\d{4}-\d\d-\d\dT[\d:.,]+(?:[+-]\d\d:?\d\d|Z)?|\d+(?:[.,]\d+)?(?:s|ms|ns)|\d+"
    r"|trace|debug|info|warning|error) *\]"
)


def unified_line_share(head: str) -> float:
    """Share of the first non-blank lines that start with a unified-logging decoration."""
    lines = [line for line in head.splitlines()[:300] if line.strip()][:200]
    if not lines:
        return 0.0
    decorated = sum(1 for line in lines if UNIFIED_DECORATION.match(line))
    return decorated / len(lines)


@dataclass(slots=True)
class Clock:
    """The clock readings one log line carried: wall clock (epoch ms) and/or uptime (s)."""

    wall_ms: float | None
    uptime_s: float | None

    def shifted(self, delta_ms: float) -> Clock:
        return Clock(
            None if self.wall_ms is None else self.wall_ms + delta_ms,
            None if self.uptime_s is None else self.uptime_s + delta_ms / 1000.0,
        )


@dataclass(slots=True)
class Pause:
    """One stop-the-world pause; ``clock`` is its start, heap sizes in KB."""

    clock: Clock
    duration_ms: float
    collector: str
    type: str
    cause: str | None = None
    heap_before_kb: float | None = None
    heap_after_kb: float | None = None
    heap_total_kb: float | None = None
    young_before_kb: float | None = None
    young_after_kb: float | None = None
    gc_id: int | None = None
    to_space_exhausted: bool = False
    detail: str | None = None


@dataclass(slots=True)
class Concurrent:
    """One concurrent phase (or cycle); ``clock`` is its start when the duration is known."""

    clock: Clock
    duration_ms: float | None
    collector: str
    phase: str
    gc_id: int | None = None
    heap_before_kb: float | None = None
    heap_after_kb: float | None = None
    heap_total_kb: float | None = None


@dataclass(slots=True)
class Stall:
    """A ZGC allocation or relocation stall of one thread; ``clock`` is its start."""

    clock: Clock
    duration_ms: float
    kind: str
    thread: str


@dataclass(slots=True)
class GcLog:
    """Everything a GC parser read, before it is placed on the wall clock."""

    pauses: list[Pause]
    concurrents: list[Concurrent]
    stalls: list[Stall]
    # The earliest and latest clock readings of the log, for its span.
    first: Clock | None = None
    last: Clock | None = None
    # JVM start (epoch ms) revealed by a line that carried both a datestamp and an uptime.
    start_ms: float | None = None
    collector: str | None = None
    jvm_version: str | None = None
    command_line: str | None = None

    @classmethod
    def empty(cls) -> GcLog:
        return cls([], [], [])

    def see(self, clock: Clock) -> None:
        """Note a clock reading: it may anchor the log and it widens the span."""
        if self.start_ms is None and clock.wall_ms is not None and clock.uptime_s is not None:
            self.start_ms = clock.wall_ms - clock.uptime_s * 1000.0
        if self.first is None:
            self.first = clock
        self.last = clock


def _mb(kb: float | None) -> float | None:
    return None if kb is None else round(kb / 1024.0, 3)


def _fmt(value: float) -> str:
    """Three decimals, or six significant digits for values below 1 (a 0.001 % share)."""
    if abs(value) < 1:
        return f"{value:.6g}"
    return f"{value:.3f}".rstrip("0").rstrip(".")


# Distinct heap sizes build_result keeps rounded at most (then starts again).
ROUNDED_CACHE_SIZE = 65536


def build_result(kind: str, log: GcLog, context: ParseContext, result: ParseResult) -> ParseResult:
    """Anchor ``log`` on the wall clock and fill ``result`` with its events, series and facts."""
    start_ms = log.start_ms
    if start_ms is None and context.jvm_start_ms is not None:
        start_ms = float(context.jvm_start_ms)
    has_wall = any(c is not None and c.wall_ms is not None for c in (log.first, log.last)) or any(
        p.clock.wall_ms is not None for p in log.pauses
    )
    if start_ms is None and not has_wall:
        result.anchored = False
    base_ms = start_ms if start_ms is not None else 0.0

    def wall(clock: Clock) -> float:
        if clock.wall_ms is not None:
            return clock.wall_ms
        return base_ms + (clock.uptime_s or 0.0) * 1000.0

    series = _Series()
    # The events by column (EventColumns): no EventData per pause. Those the result held
    # already (none, from these parsers) come first.
    events = EventColumns.of(result.events)
    result.events = events
    durations: list[float] = []
    pause_starts: list[float] = []
    # The commonest loop of a big log: names bound once, the series' arrays (and the
    # events' columns) filled directly.
    pause_durations: list[float | None] = []
    pause_attrs: list[dict[str, Any]] = []
    add_duration = pause_durations.append
    add_attrs = pause_attrs.append
    # (place among the pauses, time, gc id) of each pause whose to-space was exhausted:
    # its gc_to_space_exhausted event comes right before it.
    exhausted: list[tuple[int, int, int | None]] = []
    pause_times, pause_values = series.points["gc.pause_ms"]
    before_times, before_values = series.points["gc.heap_before_mb"]
    after_times, after_values = series.points["gc.heap_after_mb"]
    total_times, total_values = series.points["gc.heap_total_mb"]
    rounded_mb: dict[float, float] = {}
    # round(x, 6) is a decimal conversion too; a log's durations repeat (a few thousand
    # distinct readings of a ms clock), so each distinct one is rounded once.
    rounded_ms: dict[float, float] = {}
    for pause in log.pauses:
        clock = pause.clock
        at = clock.wall_ms
        uptime_s = clock.uptime_s
        if at is None:
            at = base_ms + (uptime_s or 0.0) * 1000.0
        at_ms = round(at)
        duration_ms = pause.duration_ms
        durations.append(duration_ms)
        pause_starts.append(at)
        cause = pause.cause
        detail = pause.detail
        before_kb = pause.heap_before_kb
        after_kb = pause.heap_after_kb
        total_kb = pause.heap_total_kb
        gc_id = pause.gc_id
        # round() to digits is slow (a decimal conversion); a log's sizes repeat, so each
        # distinct one is rounded once (sizes are never -0.0, which would share 0.0's entry).
        if before_kb is not None:
            before_mb = rounded_mb.get(before_kb)
            if before_mb is None:
                before_mb = rounded_mb[before_kb] = round(before_kb / 1024.0, 3)
        if after_kb is not None:
            after_mb = rounded_mb.get(after_kb)
            if after_mb is None:
                after_mb = rounded_mb[after_kb] = round(after_kb / 1024.0, 3)
        if total_kb is not None:
            total_mb = rounded_mb.get(total_kb)
            if total_mb is None:
                total_mb = rounded_mb[total_kb] = round(total_kb / 1024.0, 3)
        if (
            cause
            and not detail
            and before_kb is not None
            and after_kb is not None
            and total_kb is not None
            and gc_id is not None
            and uptime_s is not None
        ):
            # The commonest pause (a young pause with its cause, heap and both clocks): its
            # attrs in one step, in the order the general case below adds them.
            attrs: dict[str, object] = {
                "collector": pause.collector,
                "type": pause.type,
                "cause": cause,
                "heap_before_mb": before_mb,
                "heap_after_mb": after_mb,
                "heap_total_mb": total_mb,
                "gc_id": gc_id,
                "uptime_s": round(uptime_s, 6),
            }
        else:
            attrs = {"collector": pause.collector, "type": pause.type}
            if cause:
                attrs["cause"] = cause
            if detail:
                attrs["detail"] = detail
            if before_kb is not None:
                attrs["heap_before_mb"] = before_mb
            if after_kb is not None:
                attrs["heap_after_mb"] = after_mb
            if total_kb is not None:
                attrs["heap_total_mb"] = total_mb
            if gc_id is not None:
                attrs["gc_id"] = gc_id
            if uptime_s is not None:
                attrs["uptime_s"] = round(uptime_s, 6)
        if len(rounded_mb) > ROUNDED_CACHE_SIZE:
            rounded_mb.clear()
        if pause.to_space_exhausted:
            attrs["to_space_exhausted"] = True
            exhausted.append((len(pause_attrs), at_ms, gc_id))
        duration_rounded = rounded_ms.get(duration_ms)
        if duration_rounded is None or not duration_ms:  # -0.0 would share 0.0's entry
            if len(rounded_ms) > ROUNDED_CACHE_SIZE:
                rounded_ms.clear()
            duration_rounded = rounded_ms[duration_ms] = round(duration_ms, 6)
        add_duration(duration_rounded)
        add_attrs(attrs)
        pause_times.append(at_ms)
    pause_values.extend(durations)  # each pause's duration_ms, in order
    _add_pause_events(events, pause_times, pause_durations, pause_attrs, exhausted)
    # A point of each heap series per pause that reports it, at the pause's start (taken
    # after the loop: fewer steps a pause than three appends a series).
    pauses = log.pauses
    for times, values, sizes in (
        (before_times, before_values, [p.heap_before_kb for p in pauses]),
        (after_times, after_values, [p.heap_after_kb for p in pauses]),
        (total_times, total_values, [p.heap_total_kb for p in pauses]),
    ):
        if None not in sizes:
            times.extend(pause_times)
            values.extend([kb / 1024.0 for kb in sizes])  # type: ignore[operator]
        else:
            times.extend([at for at, kb in zip(pause_times, sizes, strict=True) if kb is not None])
            values.extend([kb / 1024.0 for kb in sizes if kb is not None])
    heap_from_cycles = not any(p.heap_after_kb is not None for p in log.pauses)
    # (the concurrent phases' events: filled by column as the pauses' are)
    phases = events.column("gc_concurrent") if log.concurrents else KindColumns([], [], [], None)
    phase_times, phase_durations, phase_attrs = phases.times, phases.durations, phases.attrs
    for phase in log.concurrents:
        clock = phase.clock
        at = clock.wall_ms  # wall(clock), inline
        uptime_s = clock.uptime_s
        if at is None:
            at = base_ms + (uptime_s or 0.0) * 1000.0
        at_ms = round(at)
        attrs = {"collector": phase.collector, "phase": phase.phase}
        if phase.gc_id is not None:
            attrs["gc_id"] = phase.gc_id
        if uptime_s is not None:
            attrs["uptime_s"] = round(uptime_s, 6)
        if phase.heap_after_kb is not None:
            attrs["heap_before_mb"] = _mb(phase.heap_before_kb)
            attrs["heap_after_mb"] = _mb(phase.heap_after_kb)
            attrs["heap_total_mb"] = _mb(phase.heap_total_kb)
            if heap_from_cycles:
                end_ms = at_ms + round(phase.duration_ms or 0.0)
                _add_heap_points(
                    series, end_ms, phase.heap_before_kb, phase.heap_after_kb, phase.heap_total_kb
                )
        duration = phase.duration_ms
        if duration is not None:
            rounded = rounded_ms.get(duration)
            if rounded is None or not duration:
                if len(rounded_ms) > ROUNDED_CACHE_SIZE:
                    rounded_ms.clear()
                rounded = rounded_ms[duration] = round(duration, 6)
            duration = rounded
        phase_times.append(at_ms)
        phase_durations.append(duration)
        phase_attrs.append(attrs)
    events.add_run("gc_concurrent", len(log.concurrents))
    if log.stalls:
        stalls = events.column("gc_allocation_stall")
        for stall in log.stalls:
            stalls.times.append(round(wall(stall.clock)))
            stalls.durations.append(round(stall.duration_ms, 6))
            stalls.attrs.append({"stall": stall.kind, "thread": stall.thread})
        events.add_run("gc_allocation_stall", len(log.stalls))
    result.series.extend(series.finished())
    _add_facts(log, result, durations, pause_starts, wall)
    return result


def _add_pause_events(
    events: EventColumns,
    times: array[int],
    durations: list[float | None],
    attrs: list[dict[str, Any]],
    exhausted: list[tuple[int, int, int | None]],
) -> None:
    """The pauses' events, of these columns (``times`` as the pause series has them), and a
    gc_to_space_exhausted event right before each pause ``exhausted`` names (by its place
    among the pauses), appended to ``events`` in that order."""
    if not attrs:
        return
    pauses = events.column("gc_pause")
    pauses.times.extend(times.tolist())
    pauses.durations.extend(durations)
    pauses.attrs.extend(attrs)
    done = 0
    for place, at_ms, gc_id in exhausted:
        events.add_run("gc_pause", place - done)
        failures = events.column("gc_to_space_exhausted")
        failures.times.append(at_ms)
        failures.durations.append(None)
        failures.attrs.append({"gc_id": gc_id})
        events.add_run("gc_to_space_exhausted", 1)
        done = place
    events.add_run("gc_pause", len(attrs) - done)


def _add_heap_points(
    series: _Series,
    at_ms: int,
    before_kb: float | None,
    after_kb: float | None,
    total_kb: float | None,
) -> None:
    if before_kb is not None:
        series.add("gc.heap_before_mb", at_ms, before_kb / 1024.0)
    if after_kb is not None:
        series.add("gc.heap_after_mb", at_ms, after_kb / 1024.0)
    if total_kb is not None:
        series.add("gc.heap_total_mb", at_ms, total_kb / 1024.0)


class _Series:
    """The four unlabelled GC series, appended to without a per-point key lookup."""

    UNITS = {
        "gc.pause_ms": "ms",
        "gc.heap_before_mb": "MB",
        "gc.heap_after_mb": "MB",
        "gc.heap_total_mb": "MB",
    }

    def __init__(self) -> None:
        self.points: dict[str, tuple[array[int], array[float]]] = {
            name: (array("q"), array("d")) for name in self.UNITS
        }

    def add(self, name: str, at_ms: int, value: float) -> None:
        times, values = self.points[name]
        times.append(at_ms)
        values.append(value)

    def finished(self) -> list[SeriesData]:
        return [
            SeriesData(name, {}, self.UNITS[name], times, values)
            for name, (times, values) in self.points.items()
            if len(times)
        ]


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def _add_facts(
    log: GcLog,
    result: ParseResult,
    durations: list[float],
    pause_starts: list[float],
    wall: Callable[[Clock], float],
) -> None:
    facts = result.facts
    if log.start_ms is not None:
        moment = dt.datetime.fromtimestamp(log.start_ms / 1000.0, tz=dt.UTC)
        facts.append(Fact("jvm.start_time", moment.isoformat(timespec="milliseconds")))
    if log.jvm_version:
        facts.append(Fact("jvm.version", log.jvm_version))
    if log.command_line:
        facts.append(Fact("jvm.command_line", log.command_line))
    collector = log.collector or (log.pauses[0].collector if log.pauses else None)
    if collector:
        facts.append(Fact("gc.collector", collector))
    total = sum(durations)
    facts.append(Fact("gc.pause_count", str(len(durations))))
    facts.append(Fact("gc.pause_total_ms", _fmt(total)))
    if not durations:
        return
    facts.append(Fact("gc.pause_max_ms", _fmt(max(durations))))
    facts.append(Fact("gc.pause_p99_ms", _fmt(percentile(durations, 0.99))))
    if log.first is not None and log.last is not None:
        span_ms = max(
            wall(log.last) - wall(log.first),
            max(s + d for s, d in zip(pause_starts, durations, strict=True)) - min(pause_starts),
        )
        if span_ms > 0:
            facts.append(Fact("gc.log_span_ms", _fmt(span_ms)))
            facts.append(Fact("gc.time_share_pct", _fmt(100.0 * total / span_ms)))
            # Where the log ends after its last pause, as a duration (times may be shifted
            # after parsing: a JVM start given at upload): no window of pauses runs past it.
            last_end = max(s + d for s, d in zip(pause_starts, durations, strict=True))
            facts.append(Fact("gc.log_tail_ms", _fmt(max(0.0, wall(log.last) - last_end))))
    _add_rates(log.pauses, pause_starts, facts)


def _add_rates(pauses: list[Pause], starts: list[float], facts: list[Fact]) -> None:
    """Allocation: what filled the heap (young gen when known) between consecutive pauses.

    Promotion: the old generation's growth across young pauses (heap growth minus young
    growth), which needs young-generation sizes.
    """
    order = sorted(range(len(pauses)), key=starts.__getitem__)
    allocated_kb = 0.0
    promoted_kb = 0.0
    promotion_known = False
    previous: Pause | None = None
    first_ms = last_ms = None
    for index in order:
        pause = pauses[index]
        if pause.heap_before_kb is None or pause.heap_after_kb is None:
            continue
        if first_ms is None:
            first_ms = starts[index]
        last_ms = starts[index]
        if previous is not None:
            if pause.young_before_kb is not None and previous.young_after_kb is not None:
                grown = pause.young_before_kb - previous.young_after_kb
            else:
                grown = pause.heap_before_kb - (previous.heap_after_kb or 0.0)
            allocated_kb += 0.0 if grown < 0.0 else grown  # max(grown, 0.0), no call
        if pause.young_before_kb is not None and pause.young_after_kb is not None:
            promotion_known = True
            if pause.type in ("young", "mixed"):
                old_growth = (pause.heap_after_kb - pause.heap_before_kb) - (
                    pause.young_after_kb - pause.young_before_kb
                )
                promoted_kb += 0.0 if old_growth < 0.0 else old_growth  # max(..., 0.0)
        previous = pause
    if first_ms is None or last_ms is None or last_ms <= first_ms:
        return
    seconds = (last_ms - first_ms) / 1000.0
    facts.append(Fact("gc.allocation_rate_mb_s", _fmt(allocated_kb / 1024.0 / seconds)))
    if promotion_known:
        facts.append(Fact("gc.promotion_rate_mb_s", _fmt(promoted_kb / 1024.0 / seconds)))
