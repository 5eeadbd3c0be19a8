from __future__ import annotations

from fastapi import APIRouter, Response, status

from rootline.annotations import repository
from rootline.annotations.models import Annotation
from rootline.annotations.schemas import AnnotationCreate, AnnotationRead
from rootline.deps import IncidentDep, SessionDep
from rootline.errors import NotFound

router = APIRouter(prefix="/api/incidents/{incident_id}/annotations", tags=["annotations"])


@router.post("", status_code=status.HTTP_201_CREATED)
def create_annotation(
    data: AnnotationCreate, incident: IncidentDep, session: SessionDep
) -> AnnotationRead:
    """Pin a note to an instant or a range of the timeline."""
    annotation = Annotation(incident_id=incident.id, **data.model_dump())
    session.add(annotation)
    session.flush()
    return AnnotationRead.model_validate(annotation)


@router.get("")
def list_annotations(incident: IncidentDep, session: SessionDep) -> list[AnnotationRead]:
    """The incident's notes in time order."""
    return [
        AnnotationRead.model_validate(a) for a in repository.list_for_incident(session, incident.id)
    ]


@router.delete("/{annotation_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_annotation(annotation_id: int, incident: IncidentDep, session: SessionDep) -> Response:
    """Remove a note."""
    annotation = repository.get(session, incident.id, annotation_id)
    if annotation is None:
        raise NotFound(
            "annotation_not_found", f"no annotation {annotation_id} in incident {incident.id}"
        )
    session.delete(annotation)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
