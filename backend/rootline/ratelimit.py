"""Fixed-window counters kept in the database, so every worker process sees the same counts.

Only failures count (failed sign-ins, unknown share tokens). An attempt is admitted and
counted in one atomic statement per key (an upsert that adds one only while the key is
under its limit), so concurrent attempts can never be evaluated more often than the limit
allows, on any database and in any number of processes; an attempt that then succeeds is
forgiven (its count taken back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import BigInteger, Integer, String, case, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootline.db import Base
from rootline.errors import TooManyRequests
from rootline.timeutil import now_ms

KEY_LENGTH = 200


class RateLimit(Base):
    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    window_start_ms: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(Integer)


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``limit`` failures counted against ``key`` in one window."""

    key: str
    limit: int


@dataclass(frozen=True, slots=True)
class FailureLimit:
    """Failures per key in each window of ``window_s`` seconds.

    `admit` before an attempt (or, where only a failure is worth a write, after a failed
    one), `forgive` once the attempt succeeded. Keys are admitted in the order given: put
    the narrowest first (user name + IP, then IP, then user name), so an attempt refused by
    its own narrow key never counts against the wider ones (an attacker behind one address
    cannot use up a user's budget across all addresses).
    """

    limits: list[Limit]
    window_s: int
    now_ms: int = field(default_factory=now_ms)

    @property
    def window_start_ms(self) -> int:
        return self.now_ms - self.now_ms % (self.window_s * 1000)

    def admit(self, session: Session) -> None:
        """Count one attempt against every key, or raise 429 (counting nothing) when a key
        already reached its limit in this window."""
        admitted: list[str] = []
        for limit in self.limits:
            if not _count_if_under(session, limit, self.window_start_ms):
                _uncount(session, admitted, self.window_start_ms)
                retry_after_ms = self.window_start_ms + self.window_s * 1000 - self.now_ms
                raise TooManyRequests(
                    "rate_limited",
                    "too many failed attempts; try again later",
                    retry_after_s=(retry_after_ms + 999) // 1000,
                )
            admitted.append(limit.key)

    def forgive(self, session: Session) -> None:
        """Take back the attempt `admit` counted: it succeeded."""
        _uncount(session, [limit.key for limit in self.limits], self.window_start_ms)


def _upsert(session: Session) -> type[postgresql.Insert] | type[sqlite.Insert]:
    dialect = session.get_bind().dialect.name
    return postgresql.Insert if dialect == "postgresql" else sqlite.Insert


def _count_if_under(session: Session, limit: Limit, start: int) -> bool:
    """One statement: add one to the key's count of this window unless it is at the limit;
    whether it was added (no row comes back from an update its condition refused)."""
    key = limit.key[:KEY_LENGTH]
    statement = (
        _upsert(session)(RateLimit)
        .values(key=key, window_start_ms=start, count=1)
        .on_conflict_do_update(
            index_elements=[RateLimit.key],
            set_={
                "count": case((RateLimit.window_start_ms == start, RateLimit.count + 1), else_=1),
                "window_start_ms": start,
            },
            where=(RateLimit.window_start_ms != start) | (RateLimit.count < limit.limit),
        )
        .returning(RateLimit.count)
    )
    count = session.scalar(statement)
    if count == 1:
        # A new key or a new window: counters of past windows mean nothing any more.
        session.execute(delete(RateLimit).where(RateLimit.window_start_ms < start))
    return count is not None


def _uncount(session: Session, keys: list[str], start: int) -> None:
    if not keys:
        return
    session.execute(
        update(RateLimit)
        .where(
            RateLimit.key.in_([key[:KEY_LENGTH] for key in keys]),
            RateLimit.window_start_ms == start,
            RateLimit.count > 0,
        )
        .values(count=RateLimit.count - 1)
    )
