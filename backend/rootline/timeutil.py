"""Instants are UTC epoch milliseconds in the database and the API."""

from __future__ import annotations

import datetime as dt
import math
import time
from functools import lru_cache
from typing import Annotated
from zoneinfo import available_timezones

from pydantic import Field

# Every instant the API accepts or shows lies in 1970-01-01 .. 2200-01-01 UTC (epoch ms). A
# browser Date holds at most 8.64e15 ms: one incident with a time past that (a typo, a forged
# jvm_start, a huge clock offset) threw RangeError on every page that listed it.
MIN_INSTANT_MS = 0
MAX_INSTANT_MS = 7_258_118_400_000  # 2200-01-01T00:00:00Z
INSTANT_RANGE = "1970-01-01..2200-01-01 UTC"
# A host clock may be off by decades (one reset to 1970), never by more than a century.
MAX_CLOCK_OFFSET_S = 100 * 366 * 86_400.0

InstantMs = Annotated[
    int,
    Field(
        ge=MIN_INSTANT_MS,
        le=MAX_INSTANT_MS,
        description=f"UTC epoch ms, within {INSTANT_RANGE}.",
    ),
]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def ms_to_iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).isoformat().replace("+00:00", "Z")


def in_instant_range(ms: float) -> bool:
    """Whether ``ms`` is a finite instant within :data:`INSTANT_RANGE`."""
    return math.isfinite(ms) and MIN_INSTANT_MS <= ms <= MAX_INSTANT_MS


def parse_instant(value: str, *, clamp: bool = False) -> int:
    """An instant given by a user: epoch ms, epoch seconds (with fraction) or ISO-8601 (UTC if
    no zone); ValueError when unreadable or outside :data:`INSTANT_RANGE` (moved to its
    nearest end instead with ``clamp``, for the bounds of a range to look in)."""
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        number = moment.timestamp() * 1000
    else:
        # Ten digits are seconds until the year 2286; thirteen are milliseconds.
        number = number * 1000 if abs(number) < 1e11 else number
    if clamp and math.isfinite(number):
        number = min(max(number, MIN_INSTANT_MS), MAX_INSTANT_MS)
    if not in_instant_range(number):
        raise ValueError(f"{value[:40]!r} is outside {INSTANT_RANGE}")
    return int(number)


def check_clock_offset(seconds: float) -> float:
    """``seconds`` if it is a finite clock offset within ±:data:`MAX_CLOCK_OFFSET_S`;
    ValueError otherwise."""
    if not (math.isfinite(seconds) and abs(seconds) <= MAX_CLOCK_OFFSET_S):
        raise ValueError(
            f"clock_offset_s must be a finite number of seconds within ±{MAX_CLOCK_OFFSET_S:.0f}"
        )
    return seconds


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones() | {"UTC"})


def check_zone(value: str | None) -> str | None:
    """``value`` if it is an IANA zone name (or None); ValueError otherwise."""
    if value is not None and value not in _known_zones():
        raise ValueError(f"unknown IANA time zone {value!r}")
    return value
