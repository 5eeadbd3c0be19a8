"""Every query on action items."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence

from sqlalchemy import Select, case, func, select
from sqlalchemy.orm import Session, aliased

from rootline.actions.models import ActionItem
from rootline.incidents.models import Incident

Row = tuple[ActionItem, str, str | None]

_verified = aliased(Incident)


def _with_titles() -> Select[ActionItem, str, str]:
    return (
        select(ActionItem, Incident.title, _verified.title)
        .join(Incident, Incident.id == ActionItem.incident_id)
        .outerjoin(_verified, _verified.id == ActionItem.verified_incident_id)
    )


def _rows(session: Session, statement: Select[ActionItem, str, str]) -> list[Row]:
    return [(row[0], row[1], row[2]) for row in session.execute(statement).all()]


def get(session: Session, incident_id: uuid.UUID, item_id: int) -> ActionItem | None:
    row = session.get(ActionItem, item_id)
    return row if row is not None and row.incident_id == incident_id else None


def by_external_id(session: Session, external_id: str) -> ActionItem | None:
    return session.scalar(select(ActionItem).where(ActionItem.external_id == external_id))


def with_titles(session: Session, item_id: int) -> Row | None:
    rows = _rows(session, _with_titles().where(ActionItem.id == item_id))
    return rows[0] if rows else None


def list_for_incident(session: Session, incident_id: uuid.UUID) -> list[Row]:
    return _rows(
        session,
        _with_titles()
        .where(ActionItem.incident_id == incident_id)
        .order_by(ActionItem.created_at_ms, ActionItem.id),
    )


def search(
    session: Session,
    *,
    owner: str | None,
    statuses: Sequence[str],
    due_before: dt.date | None,
    incident_id: uuid.UUID | None,
    limit: int,
    offset: int,
) -> tuple[list[Row], int]:
    """Items across incidents by owner, then due date (undated last), then age; and how many
    match in all."""
    conditions = []
    if owner is not None:
        conditions.append(ActionItem.owner == owner)
    if statuses:
        conditions.append(ActionItem.status.in_(statuses))
    if due_before is not None:
        conditions.append(ActionItem.due_date < due_before)
    if incident_id is not None:
        conditions.append(ActionItem.incident_id == incident_id)
    total = session.scalar(select(func.count()).select_from(ActionItem).where(*conditions)) or 0
    undated_last = case((ActionItem.due_date.is_(None), 1), else_=0)
    rows = _rows(
        session,
        _with_titles()
        .where(*conditions)
        .order_by(ActionItem.owner, undated_last, ActionItem.due_date, ActionItem.id)
        .limit(limit)
        .offset(offset),
    )
    return rows, total
