from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends

from rootline.auth import PrincipalDep, WriteIncident, read_incident
from rootline.checklist import service
from rootline.checklist.schemas import Checklist, FindingRead, ReviewUpdate
from rootline.deps import SessionDep
from rootline.incidents.models import Incident


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["checklist"])

    @router.get("/checklist")
    def get_checklist(
        *, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> Checklist:
        """Every checklist item with its verdict, evidence, remedies and the team's review."""
        return service.get(session, incident=incident)

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["checklist"])


@router.patch("/checklist/{finding_id}")
def review_finding(
    finding_id: str,
    data: ReviewUpdate,
    incident: WriteIncident,
    principal: PrincipalDep,
    session: SessionDep,
) -> FindingRead:
    """Override a verdict and/or write a note; the computed verdict is kept and survives recomputation.

    The review's author is the signed-in user (or the API token's user); `author` is ignored.
    """
    data = data.model_copy(update={"author": principal.username})
    service.review(session, incident=incident, finding_id=finding_id, data=data)
    return next(f for f in service.get(session, incident=incident).findings if f.id == finding_id)


router.include_router(read_routes(read_incident))
