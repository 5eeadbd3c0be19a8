"""Small key/value state the whole deployment shares (never kept in a process)."""

from __future__ import annotations

from sqlalchemy import String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from rootline.db import Base


class AppMeta(Base):
    __tablename__ = "app_meta"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def get_value(session: Session, key: str) -> str | None:
    return session.scalar(select(AppMeta.value).where(AppMeta.key == key))


def set_value(session: Session, key: str, value: str) -> None:
    session.merge(AppMeta(key=key, value=value))
