from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Response, status

from rootline.actions import service
from rootline.actions.schemas import (
    ActionItemCreate,
    ActionItemPage,
    ActionItemRead,
    ActionItemUpdate,
    ActionStatus,
)
from rootline.auth import IncidentsDep, PrincipalDep, WriteIncident, may, read_incident
from rootline.deps import SessionDep
from rootline.errors import BadRequest, Forbidden
from rootline.incidents.models import Incident
from rootline.params import IdPath, OffsetQuery


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["action items"])

    @router.get("/action-items")
    def list_action_items(
        *, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> list[ActionItemRead]:
        """The incident's action items, oldest first."""
        return service.list_for_incident(session, incident=incident)

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["action items"])


@router.post("/action-items", status_code=status.HTTP_201_CREATED)
def create_action_item(
    data: ActionItemCreate, incident: WriteIncident, principal: PrincipalDep, session: SessionDep
) -> ActionItemRead:
    """Add an action item. With `finding_id` and `remedy_index` it is made from that remedy:
    its text and its setting or command are copied in (and its first words are the title
    unless one is given)."""
    return service.create(session, incident=incident, data=data, author=principal.username)


ExternalIdPath = Annotated[
    str, Path(min_length=1, max_length=200, description="The ticketing system's id.")
]


@router.put(
    "/action-items/external/{external_id}",
    responses={201: {"model": ActionItemRead, "description": "Created."}},
)
def upsert_action_item(
    external_id: ExternalIdPath,
    data: ActionItemCreate,
    incident: WriteIncident,
    principal: PrincipalDep,
    session: SessionDep,
    response: Response,
) -> ActionItemRead:
    """Create or update the item carrying this external id (a ticketing integration's sync):
    201 when created, 200 when updated. Fields left out stay as they are."""
    item, created = service.upsert_external(
        session, incident=incident, external_id=external_id, data=data, author=principal.username
    )
    response.status_code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    return item


@router.patch("/action-items/{item_id}")
def update_action_item(
    item_id: IdPath,
    data: ActionItemUpdate,
    incident: WriteIncident,
    principal: PrincipalDep,
    session: SessionDep,
) -> ActionItemRead:
    """Change an action item; `verified_incident_id` marks it verified fixed by an
    after-capture incident (refused unless that incident's checklist rules its cause out)."""
    if data.verified_incident_id is not None and not may(
        principal, "read", data.verified_incident_id
    ):
        raise Forbidden("forbidden", "this API token may not read the verifying incident")
    item = service.get_or_404(session, incident=incident, item_id=item_id)
    return service.update(session, item=item, data=data, author=principal.username)


@router.delete("/action-items/{item_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_action_item(item_id: IdPath, incident: WriteIncident, session: SessionDep) -> Response:
    """Remove an action item."""
    service.delete(session, item=service.get_or_404(session, incident=incident, item_id=item_id))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


router.include_router(read_routes(read_incident))


all_router = APIRouter(prefix="/api/action-items", tags=["action items"])


@all_router.get("")
def search_action_items(
    principal: IncidentsDep,
    session: SessionDep,
    owner: Annotated[str | None, Query(max_length=255, description="Exactly this owner.")] = None,
    status_: Annotated[
        list[ActionStatus] | None,
        Query(alias="status", description="Any of these states (repeat the parameter)."),
    ] = None,
    due_before: Annotated[
        str | None,
        Query(
            pattern=r"^\d{4}-\d{2}-\d{2}$",
            description="Due before this date, YYYY-MM-DD (undated items never match).",
        ),
    ] = None,
    incident: Annotated[uuid.UUID | None, Query(description="Only this incident's.")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    offset: OffsetQuery = 0,
) -> ActionItemPage:
    """Action items across incidents, by owner, then due date (undated last), then age."""
    try:
        before = dt.date.fromisoformat(due_before) if due_before else None
    except ValueError as exc:
        raise BadRequest("invalid_date", f"due_before: not a date: {due_before}") from exc
    return service.search(
        session,
        owner=owner,
        statuses=status_ or (),
        due_before=before,
        incident_id=incident,
        limit=limit,
        offset=offset,
    )
