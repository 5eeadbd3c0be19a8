"""The contract every parser module follows.

A parser module exposes three names and touches neither the database nor the network:

- ``KIND``: the artifact kind it reads, e.g. ``"ss"`` or ``"nstat"``.
- ``sniff(head: str) -> float``: how sure it is (0.0 to 1.0) that ``head``, the first
  64 KiB of a file decoded as text, is its kind. Sniffing reads content, never names.
- ``parse(text: str, context: ParseContext) -> ParseResult``: everything it could read,
  with a diagnostic (1-based line number and reason) for everything it could not.

Times are UTC epoch milliseconds everywhere. A timestamp written without a zone is read in
``context.timezone``; a snapshot with no timestamp at all is placed at
``context.default_time_ms`` (the upload time unless the uploader says otherwise).

Parsers accumulate points in a :class:`SeriesSet`, which keeps one growing pair of arrays per
(name, labels) so that a 200 MB capture costs two appends per point and nothing more.
"""

from __future__ import annotations

import collections
import datetime as dt
import gc
import itertools
import json
import math
import operator
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, cast, overload
from zoneinfo import ZoneInfo

import numpy as np

ParseStatus = Literal["parsed", "partial", "failed"]

# A file where more than this many lines could not be read gets its first diagnostics listed
# one by one and the rest summed up in one line: the reader needs the first few, not a million.
MAX_DIAGNOSTICS = 200

LabelKey = tuple[tuple[str, str], ...]

# Facts that say a parser had to assume part of the file's times (key: what was assumed).
# The artifact listing shows them beside the file (``ArtifactRead.time_assumptions``): a
# reader must know that a time on the timeline is a guess before reading an incident off it.
# A file with no time of its own at all is told apart without a fact (``placed_at_upload``),
# and so is a GC log with JVM uptimes only (``anchored`` false): see :func:`assumed_times`.
DATE_ASSUMED = "app_log.date_assumed"
TIME_ASSUMPTION_FACTS: dict[str, str] = {
    DATE_ASSUMED: (
        "log lines carry a time of day but no date; the value is the date they were put on "
        "(the upload's, in the file's zone), YYYY-MM-DD"
    ),
}
# The two assumptions told without a fact (:func:`assumed_times`).
PLACED_AT_UPLOAD = "placed_at_upload"
UNANCHORED = "unanchored"


def placed_at_default(kind: str, time_start_ms: int | None, default_time_ms: int) -> bool:
    """Whether a file's data sits at the time it was given for want of its own (the upload
    time, plus any clock offset): it holds no timestamp, so when it was captured is unknown."""
    return time_start_ms is not None and kind != "bundle" and time_start_ms == default_time_ms


def assumed_times(
    *,
    kind: str,
    time_start_ms: int | None,
    default_time_ms: int | None,
    anchored: bool,
    facts: Iterable[tuple[str, str]],
    clock_offset_ms: int = 0,
) -> tuple[tuple[str, str], ...]:
    """What of a file's times was assumed rather than read, as (what, detail) pairs: the
    one list the checklist reads (``IncidentData.artifact_times``), online and offline.

    - (``placed_at_upload``, ""): no time of its own; its data sits at ``default_time_ms``;
    - (a key of :data:`TIME_ASSUMPTION_FACTS`, the fact's value): e.g. the date put on lines
      with a time of day only;
    - (``unanchored``, ""): JVM uptimes only, counted from the epoch.

    A clock offset given to the file (``clock_offset_ms`` not 0) is its uploader stating when
    it was captured: its placement and an assumed date are then theirs, not a guess.

    >>> assumed_times(kind="ss", time_start_ms=5, default_time_ms=5, anchored=True, facts=[])
    (('placed_at_upload', ''),)
    >>> assumed_times(kind="app_log", time_start_ms=9, default_time_ms=5, anchored=True,
    ...               facts=[("app_log.date_assumed", "2026-11-21"), ("other", "x")])
    (('app_log.date_assumed', '2026-11-21'),)
    """
    found: list[tuple[str, str]] = []
    if not anchored:
        found.append((UNANCHORED, ""))
    if clock_offset_ms:
        return tuple(found)
    if default_time_ms is not None and placed_at_default(kind, time_start_ms, default_time_ms):
        found.append((PLACED_AT_UPLOAD, ""))
    found += [(key, value) for key, value in facts if key in TIME_ASSUMPTION_FACTS]
    return tuple(found)


@dataclass(frozen=True, slots=True)
class ParseContext:
    """What a parser may know beyond the text: where and when it was captured."""

    timezone: dt.tzinfo = dt.UTC
    default_time_ms: int = 0
    host: str | None = None
    jvm_start_ms: int | None = None
    # The artifact's file name as uploaded (``latency.csv``), for parsers that name series
    # after their file (``app_metrics``); None when the text came without one.
    filename: str | None = None

    @classmethod
    def for_zone(cls, zone: str | None, **kwargs: Any) -> ParseContext:
        """A context reading zone-less timestamps in the IANA ``zone`` (UTC when None)."""
        tz: dt.tzinfo = ZoneInfo(zone) if zone and zone.upper() != "UTC" else dt.UTC
        return cls(timezone=tz, **kwargs)


@dataclass(slots=True)
class Diagnostic:
    """Something the parser could not read: ``line`` is 1-based, 0 means the whole file."""

    line: int
    message: str


@dataclass(slots=True)
class SeriesData:
    """One named numeric time series; ``times_ms`` ascending is not required of parsers."""

    name: str
    labels: dict[str, str]
    unit: str
    times_ms: array[int]
    values: array[float]

    def __len__(self) -> int:
        return len(self.times_ms)


@dataclass(slots=True)
class EventData:
    """A point (``duration_ms`` None) or a span on the timeline, e.g. one GC pause."""

    kind: str
    time_ms: int
    duration_ms: float | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


class EventColumns(Sequence[EventData]):
    """Events held by column, kind by kind: what :func:`gc_common.build_result` gives, a
    list of times, durations and attrs per kind instead of an :class:`EventData` per event (a
    200 MB GC log has 211,682 pauses). It reads as the list of :class:`EventData` it stands
    for (in order, equal to that list), made one at a time when read;
    :func:`rootline.events.chunks.encode`, :meth:`ParseResult.keep_within` and
    :meth:`ParseResult.time_range` read the columns instead.

    ``runs`` is the order: (kind, count) for each run of events of one kind. Every event's
    labels are empty unless a kind holds a ``labels`` column."""

    __slots__ = ("columns", "runs")

    def __init__(self) -> None:
        self.columns: dict[str, KindColumns] = {}
        self.runs: list[list[Any]] = []  # [kind, count]

    @classmethod
    def of(cls, events: Iterable[EventData]) -> EventColumns:
        batch = cls()
        for event in events:
            batch.append(event)
        return batch

    def column(self, kind: str) -> KindColumns:
        """The columns of ``kind`` (made empty when it has none yet)."""
        found = self.columns.get(kind)
        if found is None:
            found = self.columns[kind] = KindColumns([], [], [], None)
        return found

    def add_run(self, kind: str, count: int) -> None:
        """Note that the next ``count`` events (already in ``kind``'s columns) come next."""
        if count <= 0:
            return
        runs = self.runs
        if runs and runs[-1][0] == kind:
            runs[-1][1] += count
        else:
            runs.append([kind, count])

    def append(self, event: EventData) -> None:
        found = self.column(event.kind)
        if event.labels and found.labels is None:
            found.labels = [{} for _ in found.times]
        found.times.append(event.time_ms)
        found.durations.append(event.duration_ms)
        found.attrs.append(event.attrs)
        if found.labels is not None:
            found.labels.append(event.labels)
        self.add_run(event.kind, 1)

    def extend(self, events: Iterable[EventData]) -> None:
        for event in events:
            self.append(event)

    def __len__(self) -> int:
        return sum(len(found.times) for found in self.columns.values())

    def __bool__(self) -> bool:
        return any(found.times for found in self.columns.values())

    def __iter__(self) -> Iterator[EventData]:
        at: dict[str, int] = {}
        for kind, count in self.runs:
            found = self.columns[kind]
            start = at.get(kind, 0)
            stop = at[kind] = start + count
            labels = found.labels
            if labels is None:
                for time_ms, duration_ms, attrs in zip(
                    found.times[start:stop],
                    found.durations[start:stop],
                    found.attrs[start:stop],
                    strict=True,
                ):
                    yield EventData(kind, time_ms, duration_ms, attrs, {})
            else:
                for time_ms, duration_ms, attrs, label in zip(
                    found.times[start:stop],
                    found.durations[start:stop],
                    found.attrs[start:stop],
                    labels[start:stop],
                    strict=True,
                ):
                    yield EventData(kind, time_ms, duration_ms, attrs, label)

    @overload
    def __getitem__(self, index: int) -> EventData: ...

    @overload
    def __getitem__(self, index: slice) -> list[EventData]: ...

    def __getitem__(self, index: int | slice) -> EventData | list[EventData]:
        if isinstance(index, slice):
            return list(self)[index]
        size = len(self)
        place = index + size if index < 0 else index
        if not 0 <= place < size:
            raise IndexError("event index out of range")
        at: dict[str, int] = {}
        for kind, count in self.runs:
            start = at.get(kind, 0)
            if place < count:
                found = self.columns[kind]
                i = start + place
                labels = {} if found.labels is None else found.labels[i]
                return EventData(kind, found.times[i], found.durations[i], found.attrs[i], labels)
            place -= count
            at[kind] = start + count
        raise IndexError("event index out of range")  # (runs shorter than the columns)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventColumns | list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EventColumns({list(self)!r})"

    def kept_within(self, low_ms: int, high_ms: int) -> EventColumns:
        """The events :meth:`ParseResult.keep_within` keeps (:func:`shown_within`), as
        columns in their order (self when all are kept)."""
        keep = {
            kind: [
                shown_within(t, d, low_ms, high_ms)
                for t, d in zip(found.times, found.durations, strict=True)
            ]
            for kind, found in self.columns.items()
        }
        if all(all(flags) for flags in keep.values()):
            return self
        kept = EventColumns()
        done: dict[str, int] = {}
        for kind, count in self.runs:
            start = done.get(kind, 0)
            stop = done[kind] = start + count
            found, into = self.columns[kind], kept.column(kind)
            chosen = list(itertools.compress(range(start, stop), keep[kind][start:stop]))
            into.times += [found.times[i] for i in chosen]
            into.durations += [found.durations[i] for i in chosen]
            into.attrs += [found.attrs[i] for i in chosen]
            if found.labels is not None:
                if into.labels is None:
                    into.labels = []
                into.labels += [found.labels[i] for i in chosen]
            kept.add_run(kind, len(chosen))
        return kept

    def time_range(self) -> tuple[int, int] | None:
        """(first start, last end) as :meth:`ParseResult.time_range` reads events."""
        starts: list[int] = []
        ends: list[int] = []
        for found in self.columns.values():
            if not found.times:
                continue
            starts.append(min(found.times))
            durations = found.durations
            spans = cast(
                "list[float]",
                [0.0 if d is None else d for d in durations] if None in durations else durations,
            )
            # (e.time_ms + int(e.duration_ms or 0): int(0.0) and int(-0.0) are 0 as well)
            ends.append(max(map(operator.add, found.times, map(int, spans))))
        if not starts:
            return None
        return min(starts), max(ends)


@dataclass(slots=True)
class KindColumns:
    """The events of one kind in an :class:`EventColumns`: times, durations (None: a point
    event), attrs and labels (None: all empty), one entry per event."""

    times: list[int]
    durations: list[float | None]
    attrs: list[dict[str, Any]]
    labels: list[dict[str, str]] | None


def shown_within(time_ms: int, duration_ms: float | None, low_ms: int, high_ms: int) -> bool:
    """Whether an event starting at ``time_ms`` and lasting ``duration_ms`` (None: a point)
    lies within [low_ms, high_ms]: what :meth:`ParseResult.keep_within` keeps."""
    return low_ms <= time_ms <= high_ms and (
        duration_ms is None or (math.isfinite(duration_ms) and time_ms + duration_ms <= high_ms)
    )


@dataclass(slots=True)
class Fact:
    """A named setting or derived value, e.g. ``net.ipv4.tcp_wmem`` = ``4096 16384 4194304``."""

    key: str
    value: str
    time_ms: int | None = None


class SeriesSet:
    """Collects points per (name, labels) with the unit fixed at first use."""

    __slots__ = ("_series",)

    def __init__(self) -> None:
        self._series: dict[tuple[str, LabelKey], SeriesData] = {}

    def add(
        self, name: str, labels: Mapping[str, str], unit: str, time_ms: int, value: float
    ) -> None:
        key = (name, tuple(sorted(labels.items())))
        series = self._series.get(key)
        if series is None:
            series = SeriesData(name, dict(labels), unit, array("q"), array("d"))
            self._series[key] = series
        series.times_ms.append(time_ms)
        series.values.append(value)

    def __iter__(self) -> Iterator[SeriesData]:
        return iter(self._series.values())

    def __len__(self) -> int:
        return len(self._series)


@dataclass(slots=True)
class ParseResult:
    """Everything read from one artifact."""

    kind: str
    series: list[SeriesData] = field(default_factory=list)
    events: list[EventData] | EventColumns = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Read from the content when it names them (nmon's AAA host, a bundle's folder ...).
    host: str | None = None
    # False for GC logs that carry only JVM uptime and had no start time to anchor them.
    anchored: bool = True
    # Count of diagnostics beyond MAX_DIAGNOSTICS, summed up instead of listed.
    diagnostics_dropped: int = 0

    @property
    def status(self) -> ParseStatus:
        has_data = bool(self.series or self.events or self.facts)
        if not has_data:
            return "failed"
        return "partial" if self.diagnostics else "parsed"

    def diagnose(self, line: int, message: str) -> None:
        """Record a diagnostic, summing up past :data:`MAX_DIAGNOSTICS`."""
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(Diagnostic(line, message))
        else:
            self.diagnostics_dropped += 1

    def keep_within(self, low_ms: int, high_ms: int) -> tuple[int, int]:
        """Drop points and events outside ``[low_ms, high_ms]`` (an event counts with its
        duration); ``(points, events)`` dropped. For times no page could show (year 20000)."""
        dropped_points = 0
        # Parsers may give many series one times array (a connection's fields): each array
        # is checked once.
        outside_of: dict[int, tuple[np.ndarray, int, array[int]]] = {}
        for series in self.series:
            key = id(series.times_ms)
            if key not in outside_of:
                times = np.frombuffer(series.times_ms, dtype=np.int64)
                inside = (times >= low_ms) & (times <= high_ms)
                # (the array is held, so that its id cannot be reused while this runs)
                count = len(times) - int(np.count_nonzero(inside))
                outside_of[key] = (inside, count, series.times_ms)
            inside, outside, _ = outside_of[key]
            if outside:
                times = np.frombuffer(series.times_ms, dtype=np.int64)
                values = np.frombuffer(series.values, dtype=np.float64)
                series.times_ms = array("q", times[inside].tobytes())
                series.values = array("d", values[inside].tobytes())
                dropped_points += outside
        self.series = [s for s in self.series if len(s)]
        if isinstance(self.events, EventColumns):
            kept = self.events.kept_within(low_ms, high_ms)
            dropped_events = len(self.events) - len(kept)
            self.events = kept
            return dropped_points, dropped_events
        kept_events = [
            e for e in self.events if shown_within(e.time_ms, e.duration_ms, low_ms, high_ms)
        ]
        dropped_events = len(self.events) - len(kept_events)
        self.events = kept_events
        return dropped_points, dropped_events

    def time_range(self) -> tuple[int, int] | None:
        """First and last instant of any point or event, in epoch ms."""
        starts: list[int] = []
        ends: list[int] = []
        seen: set[int] = set()
        for s in self.series:
            if len(s) and id(s.times_ms) not in seen:
                seen.add(id(s.times_ms))  # one times array may serve many series
                # numpy over the raw buffer: Python's min() costs 0.2 s per 3 M points.
                times = np.frombuffer(s.times_ms, dtype=np.int64)
                starts.append(int(times.min()))
                ends.append(int(times.max()))
        if isinstance(self.events, EventColumns):
            found = self.events.time_range()
            if found is not None:
                starts.append(found[0])
                ends.append(found[1])
        elif self.events:
            starts.append(min(e.time_ms for e in self.events))
            ends.append(max(e.time_ms + int(e.duration_ms or 0) for e in self.events))
        if not starts:
            return None
        return min(starts), max(ends)


def counter_rates(
    times_ms: Iterable[int], counters: Iterable[float]
) -> tuple[array[int], array[float]]:
    """Per-second rates of a monotonically increasing counter.

    One point per interval, stamped at the interval's end. A counter that goes down (a
    reboot or a wrap) starts a new run instead of giving a negative rate.
    """
    out_t: array[int] = array("q")
    out_v: array[float] = array("d")
    prev_t: int | None = None
    prev_v = 0.0
    for t, v in zip(times_ms, counters, strict=True):
        if prev_t is not None and t > prev_t and v >= prev_v:
            out_t.append(t)
            out_v.append((v - prev_v) * 1000.0 / (t - prev_t))
        prev_t, prev_v = t, v
    return out_t, out_v


def decode_text(data: bytes) -> tuple[str, list[Diagnostic]]:
    """Bytes to text: UTF-16 when a byte-order mark says so, else UTF-8, noting what was
    replaced.

    Captures are ASCII in practice; a wrong encoding must not cost the readable rest.
    """
    data = data.removeprefix(_UTF8_BOM)
    if data.startswith(_UTF16_BOMS):
        # The byte-order mark declares the encoding: nothing guessed, nothing to report
        # unless bytes had to be replaced (a cut-off last character).
        try:
            return data.decode("utf-16"), []
        except UnicodeDecodeError:
            return data.decode("utf-16", errors="replace"), [
                Diagnostic(0, "file is UTF-16 with undecodable bytes; they were replaced")
            ]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return data.decode("utf-8", errors="replace"), [
            Diagnostic(line, f"not valid UTF-8 from byte {exc.start}; undecodable bytes replaced")
        ]


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# Text split into lines a block of about this size at a time (see iter_lines).
_LINE_BLOCK = 1024 * 1024


def iter_lines(text: str) -> Iterator[str]:
    r"""The lines of ``text``, without their ending, a block at a time.

    Lines end at ``\n`` only, the CRs before it dropped (``\r\r\n``, a Windows capture
    written again in text mode, ends one line as ``\r\n`` does): ``str.splitlines`` also
    breaks at ``\x0b``, ``\x0c``, ``\x1c``-``\x1e``, ``\x85`` and U+2028, which a damaged
    capture holds, and then line numbers point past the file's end. A text ending in ``\n`` has no empty
    last line. Blocks keep memory bounded: a list of a 200 MB file's lines costs twice the
    file again, a 1 MiB block of them 2 MiB.

    >>> list(iter_lines("a\r\nb\x1ec\n\nd\r\r\ne"))
    ['a', 'b\x1ec', '', 'd', 'e']
    """
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start + _LINE_BLOCK)
        stop = end if stop < 0 else stop + 1
        block = text[start:stop]
        start = stop
        lines = block.split("\n")
        if block.endswith("\n"):
            lines.pop()
        if "\r" in block:
            lines = [line.rstrip("\r") for line in lines]
        yield from lines


# The longest line any parser is handed. A capture's lines are a few KiB at most (ss -tinm
# with every option, nmon with hundreds of disks); a 300 MB line split into words took 3 GB.
MAX_LINE_BYTES = 256 * 1024
# Over-long lines listed one by one up to here, then summed up.
_MAX_LONG_LINES_LISTED = 20


def bound_lines(data: bytes, limit: int = MAX_LINE_BYTES) -> tuple[bytes, list[Diagnostic]]:
    """``data`` with every line longer than ``limit`` bytes emptied (its line break kept, so
    the lines after it keep their numbers), and a diagnostic naming each such line.

    Every parser reads its text through this (see :func:`decode_blocks`): none ever holds a
    line past the limit, and the rest of the file is still parsed. No copy is made unless a
    line is cut.

    >>> text, (diagnostic,) = bound_lines(b"short\\n" + b"x" * 10 + b"\\nlast", limit=8)
    >>> text, diagnostic.line
    (b'short\\n\\nlast', 2)
    """
    if data.startswith(_UTF16_BOMS):
        return data, []  # UTF-16 has no byte-wise lines
    cuts = _long_lines(data, limit)
    return _without(data, cuts), _long_line_diagnostics(
        [(line, end - start) for line, start, end in cuts], limit
    )


def _long_lines(data: bytes, limit: int) -> list[tuple[int, int, int]]:
    """(1-based line number, start, end) of each line of ``data`` longer than ``limit`` bytes.

    A line longer than ``limit`` holds a whole ``limit // 2``-byte window aligned on that
    step, so only windows without a line break are looked at closely: a file of short lines
    costs one ``find`` per window, not a look at every byte."""
    if len(data) <= limit:
        return []
    step = max(1, limit // 2)
    cuts: list[tuple[int, int, int]] = []
    lines_before, counted_to = 0, 0
    position = 0
    while position + step <= len(data):
        if data.find(b"\n", position, position + step) >= 0:
            position += step
            continue
        start = data.rfind(b"\n", 0, position) + 1
        end = data.find(b"\n", position + step)
        if end < 0:
            end = len(data)
        if end - start > limit:
            lines_before += data.count(b"\n", counted_to, start)
            counted_to = start
            cuts.append((lines_before + 1, start, end))
        position = (end // step + 1) * step
    return cuts


def _without(data: bytes, cuts: list[tuple[int, int, int]]) -> bytes:
    """``data`` with the bytes of each cut line left out (its line break kept)."""
    if not cuts:
        return data
    kept: list[bytes] = []
    position = 0
    for _, start, end in cuts:
        kept.append(data[position:start])
        position = end
    kept.append(data[position:])
    return b"".join(kept)


def _long_line_diagnostics(cuts: list[tuple[int, int]], limit: int) -> list[Diagnostic]:
    """One diagnostic per over-long line, (line number, length), up to a few, then a sum."""
    diagnostics = [
        Diagnostic(line, f"line of {length} bytes is over the {limit}-byte line limit: skipped")
        for line, length in cuts[:_MAX_LONG_LINES_LISTED]
    ]
    if len(cuts) > _MAX_LONG_LINES_LISTED:
        diagnostics.append(
            Diagnostic(0, f"{len(cuts) - _MAX_LONG_LINES_LISTED} more over-long lines skipped")
        )
    return diagnostics


_UTF8_BOM = b"\xef\xbb\xbf"


def decode_blocks(
    blocks: Iterable[bytes], limit: int = MAX_LINE_BYTES
) -> tuple[str, list[Diagnostic]]:
    """The text and diagnostics of ``decode_text(bound_lines(b"".join(blocks)))``, read a
    block at a time: the joined bytes are never held, so a 200 MB capture costs its text and
    a block or two, not its bytes and its text.

    Blocks are cut at their last line break; a line longer than ``limit`` is skipped as it
    streams by, never gathered."""
    return TextPieces(blocks, limit).joined()


class TextPieces:
    """The text :func:`decode_blocks` gives, a piece at a time as the blocks are decoded:
    whole lines, of a block's size or so, but the last piece's last line, which may be cut.
    A parser that reads these never holds the whole text (see ``nmon.parse_pieces``).

    Once every piece is read, ``clean`` says whether decoding cut or replaced anything, and
    :meth:`diagnostics` (which needs the whole text to number lines) says what.
    :meth:`joined` gives the whole text instead."""

    def __init__(self, blocks: Iterable[bytes], limit: int = MAX_LINE_BYTES) -> None:
        blocks = iter(blocks)
        head = b""
        for opening in blocks:
            head += opening
            if len(head) >= 8:
                break
        self._decoder: _BlockDecoder | None = None
        self._whole: list[Diagnostic] = []
        self._whole_chars = 0
        self._peeked: collections.deque[str] = collections.deque()  # read, not yet handed out
        if head.startswith(_UTF16_BOMS) or head.removeprefix(_UTF8_BOM).startswith(_UTF16_BOMS):
            # UTF-16 has no byte-wise lines: decoded whole (Windows' small captures).
            bounded, long_lines = bound_lines(head + b"".join(blocks), limit)
            text, decoded = decode_text(bounded)
            del bounded
            self._whole, self._whole_chars = long_lines + decoded, len(text)
            self._pieces: Iterator[str] = iter((text,) if text else ())
        else:
            self._decoder = _BlockDecoder(limit)
            self._pieces = self._decoder.pieces(itertools.chain((head,), blocks))

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        if self._peeked:
            return self._peeked.popleft()
        return next(self._pieces)

    def peek(self, chars: int) -> str:
        """The text's first ``chars`` characters (all of it if shorter), before any piece is
        handed out: the pieces holding them are decoded and kept for the iteration."""
        held = sum(map(len, self._peeked))
        while held < chars:
            piece = next(self._pieces, None)
            if piece is None:
                break
            self._peeked.append(piece)
            held += len(piece)
        opening = ""
        for piece in self._peeked:
            if len(opening) >= chars:
                break
            opening += piece[: chars - len(opening)]
        return opening

    def ascii_as_bytes(self) -> Iterator[str | bytes]:
        """These pieces, but each one decoded from here on that is all ASCII as its bytes,
        not decoded (for a parser that would encode it again: ``nmon.parse_pieces``). Its
        characters are its bytes, so it reads as the text would; the others are text."""
        if self._decoder is not None:
            self._decoder.ascii_as_bytes = True
        return cast("Iterator[str | bytes]", self)

    def joined(self) -> tuple[str, list[Diagnostic]]:
        """The whole text (the pieces not handed out yet, appended in place; see
        :func:`_joined`) and its diagnostics."""
        text = _joined(self)
        return text, self.diagnostics(text)

    @property
    def decoded_chars(self) -> int:
        """Characters of text decoded so far."""
        return self._whole_chars if self._decoder is None else self._decoder.chars

    @property
    def clean(self) -> bool:
        """No line was cut and no byte replaced in the pieces read so far."""
        if self._decoder is None:
            return not self._whole
        return not self._decoder.cuts and self._decoder.broken is None

    def diagnostics(self, text: str) -> list[Diagnostic]:
        """What decoding cut or replaced, on the lines of ``text``: every piece, joined."""
        return self._whole if self._decoder is None else self._decoder.diagnostics(text)


def _joined(pieces: Iterable[str]) -> str:
    """The pieces appended into one string, grown in place: CPython appends to a string
    nothing else refers to without copying it (``BINARY_OP_INPLACE_ADD_UNICODE``), and moves
    a big one with ``mremap``, so the text never exists twice (``"".join`` holds the pieces
    and the result: twice the text). The interpreter only does so in a loop it has warmed up,
    hence the call below at import; ``test_the_text_is_not_held_twice`` measures it.

    Under a tracer or profiler (a debugger, coverage, cProfile: ``sys.settrace`` or
    ``sys.setprofile`` on this thread) it does not: each ``+=`` would copy the text so far,
    a 200 MB capture's decode turning quadratic. ``"".join`` then, twice the text but linear.
    """
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return "".join(pieces)
    text = ""
    for piece in pieces:
        text += piece
    return text


_joined(["warm", "up"] * 8)


class _BlockDecoder:
    """What :func:`decode_blocks` reads: lines cut at their breaks, over-long ones dropped,
    decoded a piece at a time, and where each diagnostic falls. A position is noted as (the
    text's length before its piece, lines of the piece before it), and turned into a line
    number once the whole text is there: lines are counted only when a diagnostic asks."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.cuts: list[tuple[int, int, int]] = []  # (text offset, lines in piece, length)
        self.broken: tuple[int, int, int] | None = None  # (offset, lines, byte) of bad UTF-8
        self.chars = 0  # characters decoded so far
        # An all-ASCII piece handed out as its bytes (see TextPieces.ascii_as_bytes).
        self.ascii_as_bytes = False

    def pieces(self, blocks: Iterator[bytes]) -> Iterator[str]:
        # (Bytes too, once ascii_as_bytes is set: typed as text for the readers of text.)
        limit = self.limit
        first = True  # a UTF-8 byte-order mark at the very start is dropped
        decoded_bytes = 0  # bytes decoded so far, after the byte-order mark
        carry = b""  # the start of a line whose end has not been read
        skipped = -1  # bytes of an over-long line skipped so far, while one streams by
        final = False
        while not final:
            block = next(blocks, None)
            if block is None:
                final = True
                if skipped >= 0:
                    self.cuts.append((self.chars, 0, skipped))
                    return
                data, carry = carry, b""
            elif skipped >= 0:
                newline = block.find(b"\n")
                if newline < 0:
                    skipped += len(block)
                    continue
                self.cuts.append((self.chars, 0, skipped + newline))
                skipped = -1
                data = block[newline:]
            else:
                data = block
            block = None
            if not final:
                # The carried line start and the whole lines that follow it, copied once.
                last = data.rfind(b"\n") + 1
                if last:
                    data, carry = b"".join((carry, memoryview(data)[:last])), data[last:]
                else:
                    data, carry = b"", carry + data
                if len(carry) > limit:
                    skipped, carry = len(carry), b""
            if not data:
                continue
            piece_cuts = _long_lines(data, limit)
            for line, start, end in piece_cuts:
                self.cuts.append((self.chars, line - 1, end - start))
            data = _without(data, piece_cuts)
            if first:
                # (A cut or skipped first line took the mark with it: the bytes start at "\n".)
                data, first = data.removeprefix(_UTF8_BOM), False
            if self.ascii_as_bytes and isinstance(data, bytes) and data.isascii():
                piece = cast("str", data)  # see TextPieces.ascii_as_bytes
            elif self.broken is None:
                try:
                    piece = str(data, "utf-8")
                except UnicodeDecodeError as exc:
                    lines = data.count(b"\n", 0, exc.start)
                    self.broken = (self.chars, lines, decoded_bytes + exc.start)
                    piece = str(data, "utf-8", "replace")
            else:
                piece = str(data, "utf-8", "replace")
            decoded_bytes += len(data)
            del data
            self.chars += len(piece)
            yield piece
            del piece

    def diagnostics(self, text: str) -> list[Diagnostic]:
        counted_to = lines = 0

        def line_of(offset: int, lines_in_piece: int) -> int:
            nonlocal counted_to, lines
            lines += text.count("\n", counted_to, offset)
            counted_to = offset
            return lines + lines_in_piece + 1

        cuts = [(line_of(offset, within), length) for offset, within, length in self.cuts]
        diagnostics = _long_line_diagnostics(cuts, self.limit)
        if self.broken is not None:
            counted_to = lines = 0
            offset, within, byte = self.broken
            diagnostics.append(
                Diagnostic(
                    line_of(offset, within),
                    f"not valid UTF-8 from byte {byte}; undecodable bytes replaced",
                )
            )
        return diagnostics


def looks_binary(data: bytes) -> bool:
    """True when the first KiB holds NUL bytes: not a text capture. UTF-16 text (what
    Windows PowerShell's ``>`` writes) is half NULs: its byte-order mark says it is text."""
    return not data.startswith(_UTF16_BOMS) and b"\x00" in data[:1024]


def to_ms(moment: dt.datetime) -> int:
    """An aware datetime as UTC epoch milliseconds."""
    return int(moment.timestamp() * 1000)


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a big capture is parsed.

    A 200 MB capture makes millions of small objects, none of them in cycles; each full
    collection would walk all of them again, which halved the speed of the GC log parsers.
    The pause is process-wide but brief, and nested or concurrent uses end enabled.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def json_objects(
    lines: Iterable[str], result: ParseResult, *, first_line: int = 1
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) of each JSON-lines record; a blank line is skipped, a
    line that is no JSON object costs a diagnostic."""
    for line_no, line in enumerate(lines, first_line):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            result.diagnose(line_no, f"not a JSON object: {exc}")
            continue
        if not isinstance(record, dict):
            result.diagnose(line_no, "JSON line is not an object")
            continue
        yield line_no, record
