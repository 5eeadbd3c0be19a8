"""Every query on facts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from rootline.db import bulk_insert
from rootline.facts.models import Fact

INSERT_BATCH = 5000


def insert_many(session: Session, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), INSERT_BATCH):
        bulk_insert(session, Fact, rows[start : start + INSERT_BATCH])


def delete_for_artifact(session: Session, artifact_id: uuid.UUID) -> None:
    session.execute(delete(Fact).where(Fact.artifact_id == artifact_id))


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    prefix: str | None,
    host: str | None,
    limit: int,
    offset: int,
) -> tuple[Sequence[Fact], int]:
    query = select(Fact).where(Fact.incident_id == incident_id)
    if prefix:
        query = query.where(Fact.key.startswith(prefix, autoescape=True))
    if host:
        query = query.where(Fact.host == host)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(query.order_by(Fact.key, Fact.id).limit(limit).offset(offset)).all()
    return rows, total


def of_artifacts(
    session: Session, *, artifact_ids: Sequence[uuid.UUID], keys: Sequence[str]
) -> Sequence[Fact]:
    """The facts with one of ``keys`` recorded from these artifacts."""
    if not artifact_ids or not keys:
        return []
    query = select(Fact).where(Fact.artifact_id.in_(artifact_ids), Fact.key.in_(keys))
    return session.scalars(query.order_by(Fact.artifact_id, Fact.key, Fact.id)).all()


def keys_and_hosts(session: Session, *, incident_id: uuid.UUID) -> set[tuple[str, str | None]]:
    """(key, host) of every fact of the incident."""
    query = select(Fact.key, Fact.host).where(Fact.incident_id == incident_id).distinct()
    return {(key, host) for key, host in session.execute(query)}


def matching(
    session: Session, *, incident_id: uuid.UUID, key: str, host: str | None
) -> Sequence[Fact]:
    query = select(Fact).where(Fact.incident_id == incident_id)
    if key.endswith("*"):
        query = query.where(Fact.key.startswith(key[:-1], autoescape=True))
    else:
        query = query.where(Fact.key == key)
    if host:
        query = query.where(Fact.host == host)
    return session.scalars(query.order_by(Fact.key, Fact.id)).all()
