from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from rootline.deps import IncidentDep, SessionDep
from rootline.facts import service
from rootline.facts.schemas import FactPage

router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["timeline"])

MAX_FACTS_PAGE = 10_000


@router.get("/facts")
def list_facts(
    incident: IncidentDep,
    session: SessionDep,
    prefix: Annotated[
        str | None, Query(max_length=255, description="Key prefix, e.g. net.ipv4.")
    ] = None,
    host: Annotated[str | None, Query(max_length=255)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_FACTS_PAGE)] = 1000,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> FactPage:
    """Settings and derived values read from the artifacts (sysctl keys, GC totals ...)."""
    return service.list_page(
        session, incident_id=incident.id, prefix=prefix, host=host, limit=limit, offset=offset
    )
