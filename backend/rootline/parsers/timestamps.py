"""Timestamp lines that capture loops write between snapshots.

STUB: being written; the API below is the contract.
"""

from __future__ import annotations

import datetime as dt


def parse_timestamp_line(line: str, timezone: dt.tzinfo) -> int | None:
    """Epoch ms if ``line`` is a snapshot separator holding a timestamp, else None."""
    return None
