"""Storing parsed facts and listing them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.facts import repository
from rootline.facts.schemas import FactPage, FactRead
from rootline.parsers.base import Fact


def store(
    session: Session,
    *,
    incident_id: uuid.UUID,
    artifact_id: uuid.UUID,
    host: str | None,
    facts: Sequence[Fact],
    offset_ms: int = 0,
) -> int:
    """Write the facts of one artifact; returns how many."""
    repository.insert_many(
        session,
        [
            {
                "incident_id": incident_id,
                "artifact_id": artifact_id,
                "host": host,
                "key": f.key,
                "value": f.value,
                "time_ms": None if f.time_ms is None else f.time_ms + offset_ms,
            }
            for f in facts
        ],
    )
    return len(facts)


def list_page(
    session: Session,
    *,
    incident_id: uuid.UUID,
    prefix: str | None,
    host: str | None,
    limit: int,
    offset: int,
) -> FactPage:
    """Facts of an incident by key."""
    rows, total = repository.list_page(
        session, incident_id=incident_id, prefix=prefix, host=host, limit=limit, offset=offset
    )
    return FactPage(
        items=[FactRead.model_validate(r) for r in rows], total=total, limit=limit, offset=offset
    )
