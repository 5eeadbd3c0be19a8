"""Instants are UTC epoch milliseconds in the database and the API."""

from __future__ import annotations

import datetime as dt
import time
from functools import lru_cache
from zoneinfo import available_timezones


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def ms_to_iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).isoformat().replace("+00:00", "Z")


def parse_instant(value: str) -> int:
    """An instant given by a user: epoch ms, epoch seconds (with fraction) or ISO-8601 (UTC if no zone)."""
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        return int(moment.timestamp() * 1000)
    # Ten digits are seconds until the year 2286; thirteen are milliseconds.
    return int(number * 1000) if abs(number) < 1e11 else int(number)


@lru_cache(maxsize=1)
def _known_zones() -> frozenset[str]:
    return frozenset(available_timezones() | {"UTC"})


def check_zone(value: str | None) -> str | None:
    """``value`` if it is an IANA zone name (or None); ValueError otherwise."""
    if value is not None and value not in _known_zones():
        raise ValueError(f"unknown IANA time zone {value!r}")
    return value
