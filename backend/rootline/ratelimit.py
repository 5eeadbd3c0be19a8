"""Fixed-window counters kept in the database, so every worker process sees the same counts.

Only failures are counted (failed sign-ins, unknown share tokens); a key over its limit is
refused with 429 until its window ends.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, String, case, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootline.db import Base
from rootline.errors import TooManyRequests
from rootline.timeutil import now_ms


class RateLimit(Base):
    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start_ms: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(Integer)


def _window_start(now: int, window_s: int) -> int:
    window_ms = window_s * 1000
    return now - now % window_ms


def check(session: Session, keys: list[str], *, limit: int, window_s: int) -> None:
    """Raise 429 when any key already reached ``limit`` failures in the current window."""
    now = now_ms()
    start = _window_start(now, window_s)
    reached = session.scalar(
        select(RateLimit.key)
        .where(
            RateLimit.key.in_([k[:200] for k in keys]),
            RateLimit.window_start_ms == start,
            RateLimit.count >= limit,
        )
        .limit(1)
    )
    if reached is not None:
        retry_after = (start + window_s * 1000 - now + 999) // 1000
        raise TooManyRequests(
            "rate_limited", "too many failed attempts; try again later", retry_after_s=retry_after
        )


def hit(session: Session, keys: list[str], *, window_s: int) -> None:
    """Count one failure against each key (an upsert: one statement per key, no read first)."""
    start = _window_start(now_ms(), window_s)
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    for key in keys:
        statement = insert(RateLimit).values(key=key[:200], window_start_ms=start, count=1)
        statement = statement.on_conflict_do_update(
            index_elements=[RateLimit.key],
            set_={
                "count": case((RateLimit.window_start_ms == start, RateLimit.count + 1), else_=1),
                "window_start_ms": start,
            },
        )
        session.execute(statement)
    # Counters of past windows mean nothing any more.
    session.execute(delete(RateLimit).where(RateLimit.window_start_ms < start))
