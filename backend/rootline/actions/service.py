"""Rules about action items: made by hand or from a remedy, synced by external id, verified
fixed only by an incident whose checklist rules the cause out."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence

from sqlalchemy.orm import Session

from rootline.actions import remedies, repository
from rootline.actions.models import ActionItem
from rootline.actions.schemas import (
    ActionItemCreate,
    ActionItemPage,
    ActionItemRead,
    ActionItemUpdate,
)
from rootline.checklist import service as checklist_service
from rootline.detectors import registry
from rootline.errors import BadRequest, Conflict, NotFound
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.timeutil import now_ms


def to_read(item: ActionItem, incident_title: str, verified_title: str | None) -> ActionItemRead:
    read = ActionItemRead.model_validate(item)
    return read.model_copy(
        update={"incident_title": incident_title, "verified_incident_title": verified_title}
    )


def _read(session: Session, item: ActionItem) -> ActionItemRead:
    session.flush()
    row = repository.with_titles(session, item.id)
    assert row is not None
    return to_read(*row)


def get_or_404(session: Session, *, incident: Incident, item_id: int) -> ActionItem:
    item = repository.get(session, incident.id, item_id)
    if item is None:
        raise NotFound("action_item_not_found", f"no action item {item_id} in this incident")
    return item


def _check_external_id(session: Session, external_id: str | None, item_id: int | None) -> None:
    if external_id is None:
        return
    other = repository.by_external_id(session, external_id)
    if other is not None and other.id != item_id:
        raise Conflict(
            "external_id_taken",
            f"action item {other.id} already has external id {external_id!r}",
            item_id=other.id,
        )


def _from_remedy(
    session: Session, *, incident: Incident, finding_id: str, remedy_index: int | None
) -> tuple[str, str]:
    """The remedy's text and its setting or command, as the incident's checklist reads now."""
    if finding_id not in registry.CHECKLIST_ORDER:
        raise BadRequest("finding_not_found", f"no checklist item {finding_id!r}")
    if remedy_index is None:
        return "", ""
    checklist = checklist_service.get(session, incident=incident)
    finding = next((f for f in checklist.findings if f.id == finding_id), None)
    if finding is None or remedy_index >= len(finding.remedies):
        raise BadRequest(
            "remedy_not_found", f"{finding_id} has no remedy {remedy_index} in this incident"
        )
    text = finding.remedies[remedy_index]
    return text, remedies.setting_or_command(text)


def create(
    session: Session, *, incident: Incident, data: ActionItemCreate, author: str
) -> ActionItemRead:
    """A new item; from a remedy (`finding_id` + `remedy_index`) it copies the remedy's text,
    its setting or command, and a title from its first words."""
    if data.remedy_index is not None and data.finding_id is None:
        raise BadRequest("finding_required", "remedy_index needs the finding_id it indexes")
    remedy, command = "", ""
    if data.finding_id is not None:
        remedy, command = _from_remedy(
            session, incident=incident, finding_id=data.finding_id, remedy_index=data.remedy_index
        )
    title = data.title or (remedies.remedy_title(remedy) if remedy else None)
    if not title:
        raise BadRequest("title_required", "an action item needs a title")
    _check_external_id(session, data.external_id, None)
    item = ActionItem(
        incident_id=incident.id,
        title=title,
        owner=data.owner or "",
        due_date=data.due_date,
        status=data.status or "open",
        ticket_url=data.ticket_url,
        external_id=data.external_id,
        notes=data.notes or "",
        finding_id=data.finding_id,
        remedy_index=data.remedy_index,
        remedy=remedy,
        command=data.command if data.command is not None else command,
        created_by=author,
        created_at_ms=now_ms(),
    )
    session.add(item)
    return _read(session, item)


def update(
    session: Session, *, item: ActionItem, data: ActionItemUpdate, author: str
) -> ActionItemRead:
    """Change the fields given; a new `verified_incident_id` is checked first."""
    given = data.model_fields_set
    if "external_id" in given:
        _check_external_id(session, data.external_id, item.id)
        item.external_id = data.external_id
    for field in ("title", "status"):
        value = getattr(data, field)
        if field in given and value is not None:
            setattr(item, field, value)
    for field in ("owner", "notes", "command"):
        if field in given:
            setattr(item, field, getattr(data, field) or "")
    for field in ("due_date", "ticket_url"):
        if field in given:
            setattr(item, field, getattr(data, field))
    if "verified_incident_id" in given:
        if data.verified_incident_id is None:
            item.verified_incident_id = item.verified_at_ms = item.verified_by = None
        elif data.verified_incident_id != item.verified_incident_id:
            verify(session, item=item, incident_id=data.verified_incident_id)
            item.verified_incident_id = data.verified_incident_id
            item.verified_at_ms = now_ms()
            item.verified_by = author
    item.updated_at_ms = now_ms()
    return _read(session, item)


def verify(session: Session, *, item: ActionItem, incident_id: uuid.UUID) -> None:
    """Refuse (400) unless ``incident_id`` is another incident whose checklist computes the
    item's checklist id `ruled_out`: a team's override does not count as a measurement."""
    if item.finding_id is None:
        raise BadRequest(
            "no_finding", "only an item made for a checklist item can be verified by a capture"
        )
    if incident_id == item.incident_id:
        raise BadRequest(
            "same_incident", "verify with a capture taken after the change: another incident"
        )
    after = incidents_service.get_or_404(session, incident_id=incident_id)
    checklist = checklist_service.get(session, incident=after)
    finding = next((f for f in checklist.findings if f.id == item.finding_id), None)
    verdict = finding.verdict if finding else "insufficient_data"
    if verdict != "ruled_out":
        raise BadRequest(
            "not_ruled_out",
            f"{after.title!r} does not rule {item.finding_id} out (its checklist says"
            f" {verdict.replace('_', ' ')})",
            verdict=verdict,
        )


def upsert_external(
    session: Session, *, incident: Incident, external_id: str, data: ActionItemCreate, author: str
) -> tuple[ActionItemRead, bool]:
    """Create the item with this external id in ``incident``, or update it; and whether it
    was created. An id already used in another incident is a conflict."""
    existing = repository.by_external_id(session, external_id)
    if existing is None:
        created = create(
            session,
            incident=incident,
            data=data.model_copy(update={"external_id": external_id}),
            author=author,
        )
        return created, True
    if existing.incident_id != incident.id:
        raise Conflict(
            "external_id_taken",
            f"external id {external_id!r} belongs to an item of another incident",
            item_id=existing.id,
        )
    fields = data.model_dump(
        include=data.model_fields_set - {"finding_id", "remedy_index", "external_id"}
    )
    return update(session, item=existing, data=ActionItemUpdate(**fields), author=author), False


def delete(session: Session, *, item: ActionItem) -> None:
    session.delete(item)
    session.flush()


def list_for_incident(session: Session, *, incident: Incident) -> list[ActionItemRead]:
    return [to_read(*row) for row in repository.list_for_incident(session, incident.id)]


def search(
    session: Session,
    *,
    owner: str | None = None,
    statuses: Sequence[str] = (),
    due_before: dt.date | None = None,
    incident_id: uuid.UUID | None = None,
    limit: int = 200,
    offset: int = 0,
) -> ActionItemPage:
    """Items across incidents by owner, then due date (undated last)."""
    rows, total = repository.search(
        session,
        owner=owner,
        statuses=statuses,
        due_before=due_before,
        incident_id=incident_id,
        limit=limit,
        offset=offset,
    )
    return ActionItemPage(
        items=[to_read(*row) for row in rows], total=total, limit=limit, offset=offset
    )
