"""Timestamp lines that capture loops write between snapshots, and splitting text on them.

A capture loop such as::

    while true; do echo "=== $(date -Is) ==="; ss -tinm; sleep 5; done

writes one separator line per snapshot. The forms read here (alone, or decorated with
``=== ... ===``, ``### ...``, ``--- ... ---``, or after a label such as ``timestamp:``,
``TIME=`` or ``snapshot 3 at``):

===================  ==========================================  ==========================
rule                 example                                     zone
===================  ==========================================  ==========================
``EPOCH``            ``1700000000``, ``1700000000.123456789``,   absolute (UTC)
                     ``1700000000123`` (``date +%s%3N``)
``ISO``              ``2026-11-21T07:21:03``, ``2026-11-21       offset / ``Z`` / UTC / GMT
                     07:21:03,123+08:00``, ``...Z``              when written, else local
``DATE_C``           ``Tue Nov 21 07:21:03 UTC 2026`` (``date``  UTC/GMT/UT/Z or ``+0800``
                     in the C locale), ``Tue Nov 21 07:21:03     when written; other names
                     2026``                                      (CST, CET ...) local
``DATE_LOCALE``      ``Tue 21 Nov 2026 07:21:03 AM UTC``,        as ``DATE_C``
                     ``Tue, 21 Nov 2026 07:21:03 +0000`` (-R)
===================  ==========================================  ==========================

"Local" means the ``timezone`` the caller gives (the upload's zone): zone abbreviations
other than UTC/GMT are ambiguous (CST is China, US Central or Cuba) and are never guessed.
When a line holds several forms (``=== 1700000000 2026-11-21T07:21:03+00:00 ===``) the
absolute one wins over a local one, then the one with the finer fraction, then a written
date over an epoch number.

A line counts as a separator only when, besides the timestamp, it holds at most a few
label words (one small number allowed, as in ``snapshot 3 at``) and no address or
decimal: ``ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555`` and ``TcpInSegs 1700000000 0.0`` are
data. An epoch number must end the line (up to decoration), so the ``netstat -s`` line
``1234567890 segments received`` is data too. Indented lines are never separators (they
are ``ss -i`` continuation lines or ``netstat -s`` counters).

>>> parse_timestamp_line("=== 2026-11-21T07:21:03+00:00 ===", dt.UTC)
1795245663000
>>> parse_timestamp_line("Tue Nov 21 07:21:03 UTC 2026", dt.UTC)
1795245663000
>>> parse_timestamp_line("ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555", dt.UTC) is None
True
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# Epoch seconds between 2001-09-09 and 2100: ten digits, optional fraction; or 13-digit ms.
_EPOCH_MIN_S = 1_000_000_000
_EPOCH_MAX_S = 4_102_444_800
_MONTHS = {
    "Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
    "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
}  # fmt: skip
_MONTH_ALT = "|".join(_MONTHS)
_WEEKDAY_ALT = "Mon|Tue|Wed|Thu|Fri|Sat|Sun"
_UTC_NAMES = frozenset({"UTC", "GMT", "UT", "Z", "ZULU"})

_TIME = r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9}))?"
_AMPM = r"(?:\s*(?P<ampm>AM|PM|am|pm))?"
_ZONE_WORD = r"(?P<zone>[A-Z]{1,5}|[+-]\d{2}:?\d{2})"

RULES: dict[str, re.Pattern[str]] = {
    "ISO": re.compile(
        r"(?<!\d)(?P<y>\d{4})[-/](?P<mo>\d{2})[-/](?P<d>\d{2})(?:T|\s+)"
        r"(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9}))?)?"
        r"(?:\s*(?P<zone>Z(?![A-Za-z])|[+-]\d{2}(?::?\d{2})?(?!\d)|UTC|GMT)"
        r"|\s+(?P<zonename>[A-Z]{3,5})\b)?(?![\d:])"
    ),
    "DATE_C": re.compile(
        rf"(?:\b(?:{_WEEKDAY_ALT})[a-z]*,?\s+)?\b(?P<mon>{_MONTH_ALT})[a-z]*\.?\s+(?P<d>\d{{1,2}})"
        rf"\s+{_TIME}{_AMPM}(?:\s+{_ZONE_WORD})?\s+(?P<y>\d{{4}})(?!\d)"
    ),
    "DATE_LOCALE": re.compile(
        rf"(?:\b(?:{_WEEKDAY_ALT})[a-z]*,?\s+)?(?<!\d)(?P<d>\d{{1,2}})\s+(?P<mon>{_MONTH_ALT})[a-z]*\.?"
        rf"\s+(?P<y>\d{{4}}),?\s+{_TIME}{_AMPM}(?:\s+{_ZONE_WORD}\b)?"
    ),
    "EPOCH": re.compile(r"(?<![\w.:/-])(?P<int>\d{13}|\d{10})(?:\.(?P<frac>\d{1,9}))?(?![\w.:/-])"),
}

# What may surround a timestamp: decoration characters become spaces, then few label words.
_DECORATION = str.maketrans({c: " " for c in "=#-*[](){}<>|~:;,@'\"`_/+"})
_MAX_LABEL_WORDS = 6
_MAX_LABEL_NUMBER_DIGITS = 6
_MAX_STAMPS = 3
# First characters and first words that can open a separator line; everything else is data.
_OPENING_CHARS = frozenset("=#-*[<>|~+@'\"`0123456789")
_OPENING_WORDS = frozenset(
    {
        *(w.lower() for w in _WEEKDAY_ALT.split("|")),
        *(m.lower() for m in _MONTHS),
        "time", "timestamp", "date", "datetime", "snapshot", "sample", "ts", "at", "now",
        "capture", "captured", "collected", "start", "begin", "iteration", "run",
    }
)  # fmt: skip
_MIN_LINE = 10
_MAX_LINE = 160


@dataclass(frozen=True, slots=True)
class _Stamp:
    time_ms: int
    # Ordering when a line holds several forms: absolute zone, then precision, then date form.
    rank: tuple[int, int, int]
    span: tuple[int, int]
    is_epoch: bool


def could_be_timestamp_line(line: str) -> bool:
    """Cheap pre-check: False for lines that certainly are not separators (most data lines)."""
    n = len(line)
    if n < _MIN_LINE or n > _MAX_LINE:
        return False
    first = line[0]
    if first in _OPENING_CHARS:
        return True
    if not first.isalpha():
        return False
    word = line.split(None, 1)[0]
    if ":" in word or "=" in word:  # a label: ``TIME: ...``, ``ts=...``
        return True
    return word.lower().rstrip(",.") in _OPENING_WORDS


def parse_timestamp_line(line: str, timezone: dt.tzinfo) -> int | None:
    """Epoch ms if ``line`` is a snapshot separator holding a timestamp, else None."""
    stamp = _best_stamp(line, timezone)
    return None if stamp is None else stamp.time_ms


def _best_stamp(line: str, timezone: dt.tzinfo) -> _Stamp | None:
    if not could_be_timestamp_line(line):
        return None
    line = line.rstrip()
    try:
        stamps = _find_stamps(line, timezone)
    except (ValueError, OverflowError):  # e.g. 2026-02-31: not a time, so not a separator
        return None
    if not stamps or not _only_labels_around(line, stamps):
        return None
    return max(stamps, key=lambda s: s.rank)


def _find_stamps(line: str, timezone: dt.tzinfo) -> list[_Stamp]:
    stamps: list[_Stamp] = []
    taken: list[tuple[int, int]] = []
    for name in ("ISO", "DATE_C", "DATE_LOCALE"):
        for m in RULES[name].finditer(line):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            stamps.append(_date_stamp(m, name, timezone))
            taken.append(m.span())
    for m in RULES["EPOCH"].finditer(line):
        if any(m.start() < end and start < m.end() for start, end in taken):
            continue
        stamp = _epoch_stamp(m)
        if stamp is not None:
            stamps.append(stamp)
            taken.append(m.span())
    return stamps


def _epoch_stamp(m: re.Match[str]) -> _Stamp | None:
    digits = m["int"]
    frac = m["frac"] or ""
    if len(digits) == 13:
        if frac:
            return None
        ms = int(digits)
        precision = 3
    else:
        ms = int(digits) * 1000 + int((frac + "000")[:3])
        precision = len(frac)
    if not _EPOCH_MIN_S * 1000 <= ms < _EPOCH_MAX_S * 1000:
        return None
    return _Stamp(ms, (1, precision, 0), m.span(), True)


def _date_stamp(m: re.Match[str], rule: str, timezone: dt.tzinfo) -> _Stamp:
    groups = m.groupdict()
    month = int(groups["mo"]) if rule == "ISO" else _MONTHS[groups["mon"]]
    hour = int(groups["h"])
    ampm = groups.get("ampm")
    if ampm:
        if not 1 <= hour <= 12:
            raise ValueError("hour out of range for AM/PM")
        hour = hour % 12 + (12 if ampm.upper() == "PM" else 0)
    frac = groups["frac"] or ""
    micro = int((frac + "000000")[:6])
    zone_text = groups["zone"] or ""
    zone, absolute = _zone(zone_text, timezone)
    moment = dt.datetime(
        int(groups["y"]),
        month,
        int(groups["d"]),
        hour,
        int(groups["mi"]),
        int(groups["s"] or 0),
        micro,
        tzinfo=zone or timezone,
    )
    ms = int(moment.timestamp() * 1000)
    return _Stamp(ms, (1 if absolute else 0, len(frac), 1), m.span(), False)


def _zone(text: str, timezone: dt.tzinfo) -> tuple[dt.tzinfo | None, bool]:
    """The zone written after a time: (tzinfo or None for the caller's zone, is it absolute)."""
    if not text:
        return None, False
    if text.upper() in _UTC_NAMES:
        return dt.UTC, True
    if text[0] in "+-":
        digits = text[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
        if hours > 18 or minutes > 59:
            raise ValueError("offset out of range")
        sign = -1 if text[0] == "-" else 1
        return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes)), True
    return None, False  # CST, CET ...: ambiguous, read in the caller's zone


def _only_labels_around(line: str, stamps: list[_Stamp]) -> bool:
    """True when everything besides the timestamps is decoration and a few label words."""
    if sum(s.is_epoch for s in stamps) > 1 or len(stamps) > _MAX_STAMPS:
        return False  # a row of numbers is data, not one instant written several ways
    pieces: list[str] = []
    last = 0
    for start, end in sorted(s.span for s in stamps):
        pieces.append(line[last:start])
        last = end
    tail_words = line[last:].translate(_DECORATION).split()
    if tail_words and all(s.is_epoch for s in stamps):
        return False  # a bare number followed by words is a counter line, not a separator
    words = " ".join(pieces).translate(_DECORATION).split() + tail_words
    if len(words) > _MAX_LABEL_WORDS:
        return False
    numbers = 0
    for word in words:
        if any(c.isdigit() for c in word):
            if not word.isdigit() or len(word) > _MAX_LABEL_NUMBER_DIGITS:
                return False
            numbers += 1
    return numbers <= 1


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Lines ``lines[start:stop]`` of one snapshot, stamped ``time_ms``.

    ``separator_line`` is the 1-based number of the timestamp line that opened it (0 when the
    snapshot had none and sits at the default time). Body line ``i`` is line number ``i + 1``.
    """

    time_ms: int
    separator_line: int
    start: int
    stop: int


def iter_snapshots(
    lines: Sequence[str],
    timezone: dt.tzinfo,
    default_time_ms: int,
    data_prefixes: tuple[str, ...] = (),
) -> Iterator[Snapshot]:
    """Split ``lines`` on separator lines, yielding index ranges (no line is copied).

    Lines before the first separator form a snapshot at ``default_time_ms`` unless they are
    all blank. Separators with only blank lines between them describe one instant: the more
    absolute / precise one stamps the snapshot. ``data_prefixes`` (e.g. ``(" ", "tcp ")``)
    skip the separator check for lines that start like data, which keeps huge files fast.
    """
    time_ms = default_time_ms
    rank: tuple[int, int, int] | None = None
    separator_line = 0
    start = 0
    has_body = False
    for index, line in enumerate(lines):
        if not line or (data_prefixes and line.startswith(data_prefixes)):
            has_body = has_body or bool(line.strip())
            continue
        stamp = _best_stamp(line, timezone) if could_be_timestamp_line(line) else None
        if stamp is None:
            has_body = has_body or bool(line.strip())
            continue
        if has_body:
            yield Snapshot(time_ms, separator_line, start, index)
        elif rank is not None and stamp.rank < rank:
            start = index + 1  # a second stamp for the same instant: keep the better first one
            continue
        time_ms, rank, separator_line = stamp.time_ms, stamp.rank, index + 1
        start = index + 1
        has_body = False
    if has_body:
        yield Snapshot(time_ms, separator_line, start, len(lines))
