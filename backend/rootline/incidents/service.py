"""Rules about incidents."""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from rootline.artifacts import repository as artifacts_repository
from rootline.artifacts import service as artifacts_service
from rootline.checklist import service as checklist_service
from rootline.detectors import registry as detectors_registry
from rootline.errors import NotFound
from rootline.incidents import repository
from rootline.incidents.models import Incident
from rootline.incidents.schemas import (
    CauseRead,
    IncidentCreate,
    IncidentPage,
    IncidentRead,
    IncidentUpdate,
)
from rootline.storage import ArtifactStore
from rootline.timeutil import in_instant_range


def create(session: Session, *, data: IncidentCreate) -> Incident:
    """A new draft incident."""
    incident = Incident(
        title=data.title, summary=data.summary, timezone=data.timezone, status="draft"
    )
    session.add(incident)
    session.flush()
    # An empty incident already has a checklist: every item asks for the data it needs.
    checklist_service.recompute(session, incident=incident)
    return incident


def get_or_404(session: Session, *, incident_id: uuid.UUID) -> Incident:
    """The incident, or a 404 error."""
    incident = repository.get(session, incident_id)
    if incident is None:
        raise NotFound("incident_not_found", f"no incident {incident_id}")
    return incident


def to_read(
    session: Session,
    *,
    incident: Incident,
    summary: repository.ArtifactSummary | None = None,
    confirmed: list[str] | None = None,
) -> IncidentRead:
    """The API view, with the window derived from the artifacts where the team set none."""
    if summary is None:
        summary = repository.artifact_summaries(session, [incident.id]).get(
            incident.id, repository.ArtifactSummary()
        )
    if confirmed is None:
        confirmed = repository.confirmed_finding_ids(session, [incident.id]).get(incident.id, [])
    read = IncidentRead.model_validate(incident)
    if read.window_start_ms is None:
        read.window_start_ms = summary.first_ms
    if read.window_end_ms is None:
        read.window_end_ms = summary.last_ms
    # Instants stored before the API bounded them must not break every page listing this one.
    read.window_start_ms = _showable(read.window_start_ms)
    read.window_end_ms = _showable(read.window_end_ms)
    read.artifact_count = summary.count
    read.top_causes = _causes(confirmed)
    return read


def _showable(ms: int | None) -> int | None:
    """``ms`` if a browser can show it (see ``timeutil.INSTANT_RANGE``), else None."""
    return ms if ms is not None and in_instant_range(ms) else None


def _causes(finding_ids: list[str]) -> list[CauseRead]:
    order = detectors_registry.CHECKLIST_ORDER
    known = sorted((f for f in finding_ids if f in order), key=order.__getitem__)
    return [CauseRead(id=f, title=detectors_registry.title(f)) for f in known]


def list_page(session: Session, *, search: str | None, limit: int, offset: int) -> IncidentPage:
    """One page of incidents, newest first."""
    rows, total = repository.list_page(session, search=search, limit=limit, offset=offset)
    ids = [r.id for r in rows]
    summaries = repository.artifact_summaries(session, ids)
    confirmed = repository.confirmed_finding_ids(session, ids)
    empty = repository.ArtifactSummary()
    items = [
        to_read(
            session,
            incident=r,
            summary=summaries.get(r.id, empty),
            confirmed=confirmed.get(r.id, []),
        )
        for r in rows
    ]
    return IncidentPage(items=items, total=total, limit=limit, offset=offset)


def update(session: Session, *, incident: Incident, data: IncidentUpdate) -> Incident:
    """Apply the fields the caller sent."""
    for field, value in data.model_dump(exclude_unset=True).items():
        if field in {"title", "summary", "timezone", "status"} and value is None:
            continue
        setattr(incident, field, value)
    session.flush()
    repository.bump_version(session, incident.id)
    return incident


def delete(session: Session, store: ArtifactStore, *, incident: Incident) -> None:
    """Delete an incident and all it holds; raw blobs no other incident uses go after the commit."""
    digests = artifacts_repository.sha256s_for_incident(session, incident.id)
    session.delete(incident)
    session.flush()
    artifacts_service.forget_blobs_after_delete(session, store, sha256s=digests)
