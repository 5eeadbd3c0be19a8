from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from rootline.auth import read_incident
from rootline.deps import SessionDep
from rootline.facts import service
from rootline.facts.schemas import FactPage
from rootline.incidents.models import Incident
from rootline.params import OffsetQuery

MAX_FACTS_PAGE = 10_000


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["timeline"])

    @router.get("/facts")
    def list_facts(
        *,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        prefix: Annotated[
            str | None, Query(max_length=255, description="Key prefix, e.g. net.ipv4.")
        ] = None,
        host: Annotated[str | None, Query(max_length=255)] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_FACTS_PAGE)] = 1000,
        offset: OffsetQuery = 0,
    ) -> FactPage:
        """Settings and derived values read from the artifacts (sysctl keys, GC totals ...)."""
        return service.list_page(
            session, incident_id=incident.id, prefix=prefix, host=host, limit=limit, offset=offset
        )

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}")
router.include_router(read_routes(read_incident))
