"""Fixed-window counters kept in the database, so every worker process sees the same counts.

Only failures are counted (failed sign-ins, unknown share tokens); a key over its limit is
refused with 429 until its window ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from sqlalchemy import BigInteger, Integer, String, case, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootline.db import Base
from rootline.errors import ApiError, TooManyRequests
from rootline.timeutil import now_ms

KEY_LENGTH = 200


class RateLimit(Base):
    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    window_start_ms: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(Integer)


def _window_start(now: int, window_s: int) -> int:
    window_ms = window_s * 1000
    return now - now % window_ms


@dataclass(frozen=True, slots=True)
class FailureLimit:
    """At most ``limit`` failures per key in each window of ``window_s`` seconds.

    A route calls `check` before its attempt and `refuse` when the attempt fails.
    """

    keys: list[str]
    limit: int
    window_s: int

    def check(self, session: Session) -> None:
        """Raise 429 when any key already reached the limit in the current window."""
        now = now_ms()
        start = _window_start(now, self.window_s)
        reached = session.scalar(
            select(RateLimit.key)
            .where(
                RateLimit.key.in_([key[:KEY_LENGTH] for key in self.keys]),
                RateLimit.window_start_ms == start,
                RateLimit.count >= self.limit,
            )
            .limit(1)
        )
        if reached is not None:
            retry_after = (start + self.window_s * 1000 - now + 999) // 1000
            raise TooManyRequests(
                "rate_limited",
                "too many failed attempts; try again later",
                retry_after_s=retry_after,
            )

    def refuse(self, session: Session, error: ApiError) -> NoReturn:
        """Count one failure against each key, commit it, and raise ``error``.

        Committed here because ``error`` rolls the request's transaction back, and the failure
        must count all the same.
        """
        _count(session, self.keys, window_s=self.window_s)
        session.commit()
        raise error


def _count(session: Session, keys: list[str], *, window_s: int) -> None:
    """Count one failure against each key (an upsert: one statement per key, no read first)."""
    start = _window_start(now_ms(), window_s)
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    for key in keys:
        statement = insert(RateLimit).values(key=key[:KEY_LENGTH], window_start_ms=start, count=1)
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
