from __future__ import annotations

from fastapi import APIRouter

from rootline.checklist import service
from rootline.checklist.schemas import Checklist, FindingRead, ReviewUpdate
from rootline.deps import IncidentDep, SessionDep

router = APIRouter(prefix="/api/incidents/{incident_id}/checklist", tags=["checklist"])


@router.get("")
def get_checklist(incident: IncidentDep, session: SessionDep) -> Checklist:
    """Every checklist item with its verdict, evidence, remedies and the team's review."""
    return service.get(session, incident=incident)


@router.patch("/{finding_id}")
def review_finding(
    finding_id: str, data: ReviewUpdate, incident: IncidentDep, session: SessionDep
) -> FindingRead:
    """Override a verdict and/or write a note; the computed verdict is kept and survives recomputation."""
    service.review(session, incident=incident, finding_id=finding_id, data=data)
    return next(f for f in service.get(session, incident=incident).findings if f.id == finding_id)
