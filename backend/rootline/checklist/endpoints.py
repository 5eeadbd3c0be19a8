from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from rootline.auth import IncidentsDep, PrincipalDep, WriteIncident, read_incident
from rootline.checklist import compare, service
from rootline.checklist.schemas import Checklist, Comparison, FindingRead, ReviewUpdate
from rootline.deps import SessionDep
from rootline.errors import BadRequest
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.params import time_param


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


compare_router = APIRouter(prefix="/api/compare", tags=["checklist"])


@compare_router.get("")
def compare_checklists(
    principal: IncidentsDep,
    session: SessionDep,
    a: Annotated[uuid.UUID, Query(description="Incident A (before).")],
    b: Annotated[uuid.UUID, Query(description="Incident B (after); may be A with other ranges.")],
    a_from: Annotated[str | None, Query(description="Range of A: epoch ms/s or ISO-8601.")] = None,
    a_to: Annotated[str | None, Query()] = None,
    b_from: Annotated[str | None, Query(description="Range of B.")] = None,
    b_to: Annotated[str | None, Query()] = None,
) -> Comparison:
    """Before and after: both checklists side by side, verdicts with their key numbers, and
    what changed from A to B. A side with a range (`a_from` and `a_to`) has its checklist
    computed over that range only; without one, the incident's checklist is read."""
    ranges = []
    for side, start, end in (("a", a_from, a_to), ("b", b_from, b_to)):
        from_ms, to_ms = time_param(start, f"{side}_from"), time_param(end, f"{side}_to")
        if (from_ms is None) != (to_ms is None) or (
            from_ms is not None and to_ms is not None and to_ms <= from_ms
        ):
            raise BadRequest("invalid_range", f"give {side}_from before {side}_to, or neither")
        ranges.append((from_ms, to_ms))
    return compare.compare(
        session,
        a=incidents_service.get_or_404(session, incident_id=a),
        b=incidents_service.get_or_404(session, incident_id=b),
        a_range=ranges[0],
        b_range=ranges[1],
    )
