from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter, Depends, Response, status

from rootline.annotations import repository
from rootline.annotations.models import Annotation
from rootline.annotations.schemas import AnnotationCreate, AnnotationRead
from rootline.auth import PrincipalDep, WriteIncident, read_incident
from rootline.deps import SessionDep
from rootline.errors import NotFound
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.params import IdPath


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["annotations"])

    @router.get("/annotations")
    def list_annotations(
        *, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> list[AnnotationRead]:
        """The incident's notes in time order."""
        return [
            AnnotationRead.model_validate(a)
            for a in repository.list_for_incident(session, incident.id)
        ]

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["annotations"])


@router.post("/annotations", status_code=status.HTTP_201_CREATED)
def create_annotation(
    data: AnnotationCreate, incident: WriteIncident, principal: PrincipalDep, session: SessionDep
) -> AnnotationRead:
    """Pin a note to an instant or a range of the timeline.

    The author is the signed-in user (or the API token's user); `author` is ignored.
    """
    annotation = Annotation(
        incident_id=incident.id, **{**data.model_dump(), "author": principal.username}
    )
    session.add(annotation)
    session.flush()
    incidents_repository.bump_version(session, incident.id)
    return AnnotationRead.model_validate(annotation)


@router.delete("/annotations/{annotation_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_annotation(
    annotation_id: IdPath,
    incident: WriteIncident,
    session: SessionDep,
) -> Response:
    """Remove a note."""
    annotation = repository.get(session, incident.id, annotation_id)
    if annotation is None:
        raise NotFound(
            "annotation_not_found", f"no annotation {annotation_id} in incident {incident.id}"
        )
    session.delete(annotation)
    incidents_repository.bump_version(session, incident.id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


router.include_router(read_routes(read_incident))
