"""Timestamps as JVM tools and application logs write them, shared by the thread-pool parsers.

Used by :mod:`threadpool_metrics`, :mod:`prometheus`, :mod:`app_log` and :mod:`thread_dump`
(the snapshot-separator lines of shell capture loops are :mod:`timestamps`' business).

Forms read, zone-less ones in the caller's timezone:

====================  ==========================================================
epoch                 ``1700000000`` (s), ``1700000000123`` (ms), with decimals
iso                   ``2024-01-01T12:00:00.123Z``, ``2024-01-01T12:00:00+08:00``
log4j / logback       ``2024-01-01 12:00:00,123`` (comma or dot before the fraction)
jstack                ``2024-01-01 12:00:00`` (the line jstack writes before a dump)
====================  ==========================================================

>>> import datetime as dt
>>> parse_datetime_text("2024-01-01 00:00:01,5", dt.UTC)
1704067201500
>>> epoch_to_ms(1704067201.5)
1704067201500
"""

from __future__ import annotations

import datetime as dt
import math
import re

# The ISO-like form every layout above shares; the fraction may be 1-9 digits.
DATETIME_RE = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})"
    r"(?:[.,](?P<fraction>\d{1,9}))?\s?(?P<zone>Z|[+-]\d{2}:?\d{2})?"
)

# Epoch numbers above these are milliseconds, microseconds, nanoseconds (year 5138 in seconds).
_MS_ABOVE = 1e11
_US_ABOVE = 1e14
_NS_ABOVE = 1e17


# The last instant a JavaScript Date holds (year 275760): later "times" are not times, and
# past 2**63 ms they would not even fit the series' int64 columns.
LATEST_EPOCH_MS = 8_640_000_000_000_000


def bounded_epoch_ms(value: float) -> int | None:
    """:func:`epoch_to_ms`, or None for a number no clock writes (negative, infinite, NaN,
    or past :data:`LATEST_EPOCH_MS` once read as s, ms, us or ns)."""
    if not 0 <= value < math.inf:
        return None
    ms = epoch_to_ms(value)
    return ms if ms <= LATEST_EPOCH_MS else None


def epoch_to_ms(value: float) -> int:
    """An epoch number in s, ms, us or ns (told apart by magnitude) as epoch ms."""
    if value > _NS_ABOVE:
        return int(value // 1_000_000)
    if value > _US_ABOVE:
        return int(value // 1000)
    if value > _MS_ABOVE:
        return int(value)
    return round(value * 1000)


class HourCache:
    """Epoch ms of local hour starts, so a million log lines cost one datetime per hour.

    Offsets change on hour boundaries in every zone Rootline's users run (DST shifts of
    30 minutes, Lord Howe Island only, would be off by the shift for that half hour).
    """

    __slots__ = ("_hours", "timezone")

    def __init__(self, timezone: dt.tzinfo) -> None:
        self.timezone = timezone
        self._hours: dict[tuple[int, int, int, int], int] = {}

    def hour_ms(self, year: int, month: int, day: int, hour: int) -> int:
        key = (year, month, day, hour)
        cached = self._hours.get(key)
        if cached is None:
            moment = dt.datetime(year, month, day, hour, tzinfo=self.timezone)
            cached = int(moment.timestamp()) * 1000
            self._hours[key] = cached
        return cached


def match_to_ms(match: re.Match[str], cache: HourCache) -> int | None:
    """Epoch ms of a :data:`DATETIME_RE` match; None for impossible dates (month 13 ...)."""
    year, month, day, hour, minute, second, fraction, zone = match.group(
        "year", "month", "day", "hour", "minute", "second", "fraction", "zone"
    )
    try:
        if zone:
            tz: dt.tzinfo = dt.UTC if zone == "Z" else _offset_zone(zone)
            base = int(
                dt.datetime(int(year), int(month), int(day), int(hour), tzinfo=tz).timestamp()
            )
            hour_start = base * 1000
        else:
            hour_start = cache.hour_ms(int(year), int(month), int(day), int(hour))
    except ValueError:
        return None
    if int(minute) > 59 or int(second) > 60:
        return None
    millis = int((fraction + "00")[:3]) if fraction else 0
    return hour_start + int(minute) * 60_000 + int(second) * 1000 + millis


def _offset_zone(zone: str) -> dt.tzinfo:
    digits = zone[1:].replace(":", "")
    offset = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return dt.timezone(-offset if zone[0] == "-" else offset)


def parse_datetime_text(
    text: str, timezone: dt.tzinfo, cache: HourCache | None = None
) -> int | None:
    """Epoch ms of a value that is exactly an epoch number or an ISO-like date-time."""
    text = text.strip()
    if not text:
        return None
    if text.replace(".", "", 1).isdigit():
        return bounded_epoch_ms(float(text))
    match = DATETIME_RE.fullmatch(text)
    if match is None:
        return None
    return match_to_ms(match, cache or HourCache(timezone))
