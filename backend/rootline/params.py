"""Path and query parameters shared by several routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from rootline.errors import BadRequest
from rootline.timeutil import parse_instant

# A BIGINT primary key in a path: anything larger would fail in the database, not here.
IdPath = Annotated[int, Path(ge=1, le=2**63 - 1)]
# Rows to skip in a page: an OFFSET past int64 would fail in the database, not here.
OffsetQuery = Annotated[int, Query(ge=0, le=2**63 - 1, description="Items to skip.")]


def split_list(values: list[str] | None) -> list[str]:
    """``?a=x,y&a=z`` as ``[x, y, z]``."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def time_param(value: str | None, name: str) -> int | None:
    """An instant given as epoch ms, epoch seconds or ISO-8601, as epoch ms; a bound of the
    range to look in, so one past the instants shown is moved to the nearest end."""
    if value is None or value == "":
        return None
    try:
        return parse_instant(value, clamp=True)
    except (ValueError, OverflowError) as exc:  # OverflowError: "Inf", "1e400"
        raise BadRequest(
            "invalid_time", f"{name} must be epoch ms, epoch seconds or ISO-8601"
        ) from exc
