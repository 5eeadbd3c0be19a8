from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response, status

from rootline.auth import IncidentsDep, ReadIncident, WriteIncident, read_incident
from rootline.deps import SessionDep, StoreDep
from rootline.incidents import service
from rootline.incidents.models import Incident
from rootline.incidents.schemas import (
    IncidentCreate,
    IncidentPage,
    IncidentRead,
    IncidentUpdate,
    IncidentVersion,
)
from rootline.params import OffsetQuery

router = APIRouter(prefix="/api/incidents", tags=["incidents"])

MAX_PAGE = 200


@router.post("", status_code=status.HTTP_201_CREATED)
def create_incident(data: IncidentCreate, _who: IncidentsDep, session: SessionDep) -> IncidentRead:
    """Open a new incident (a draft) to upload artifacts into."""
    incident = service.create(session, data=data)
    return service.to_read(session, incident=incident)


@router.get("")
def list_incidents(
    _who: IncidentsDep,
    session: SessionDep,
    q: Annotated[
        str | None, Query(max_length=200, description="Search in title and summary.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: OffsetQuery = 0,
) -> IncidentPage:
    """Incidents, newest first."""
    return service.list_page(session, search=q, limit=limit, offset=offset)


@router.get("/{incident_id}")
def get_incident(incident: ReadIncident, session: SessionDep) -> IncidentRead:
    """One incident with its time window and artifact count."""
    return service.to_read(session, incident=incident)


@router.patch("/{incident_id}")
def update_incident(
    data: IncidentUpdate, incident: WriteIncident, session: SessionDep
) -> IncidentRead:
    """Change title, summary, time zone, status or the incident window."""
    service.update(session, incident=incident, data=data)
    return service.to_read(session, incident=incident)


@router.delete("/{incident_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_incident(incident: WriteIncident, session: SessionDep, store: StoreDep) -> Response:
    """Delete an incident with its artifacts and everything parsed from them."""
    service.delete(session, store, incident=incident)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["incidents"])

    @router.get("/version")
    def get_version(
        *, response: Response, incident: Incident = Depends(incident_dep)
    ) -> IncidentVersion:
        """A counter that grows with every change of what the incident shows (an upload, a
        parse, new findings, a review, an annotation, an edit): poll it, and read the rest
        again when it moves. As cheap as a request gets: the incident's row, already read
        to check access."""
        response.headers["Cache-Control"] = "no-store"
        return IncidentVersion(version=incident.data_version)

    return router


router.include_router(read_routes(read_incident), prefix="/{incident_id}")
