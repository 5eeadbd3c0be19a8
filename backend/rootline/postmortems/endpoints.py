from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response, status

from rootline.auth import PrincipalDep, ReadIncident, WriteIncident, read_incident
from rootline.deps import SessionDep, SettingsDep
from rootline.incidents.models import Incident
from rootline.postmortems import service
from rootline.postmortems.schemas import (
    ExportFormat,
    PostmortemRead,
    RevisionRead,
    SectionConflict,
    SectionKey,
    SectionRead,
    SectionUpdate,
    StatusConflict,
    StatusUpdate,
)

FindingPath = Annotated[str, Path(max_length=64, pattern=r"^[a-z0-9_]+$")]
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": SectionConflict, "description": "Saved by someone else meanwhile."}
}
STATUS_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": StatusConflict, "description": "Changed by someone else meanwhile."}
}


def read_routes(
    incident_dep: Callable[..., Incident], *, published_only: bool = False
) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared);
    ``published_only`` hides a postmortem that is not published (share links)."""
    router = APIRouter(tags=["postmortems"])

    @router.get("/postmortem")
    def get_postmortem(
        *, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> PostmortemRead:
        """The incident's postmortem: status and every Markdown section with who changed it last.

        404 `postmortem_not_found` until one is drafted (and, at a share link,
        `postmortem_not_published` until it is published).
        """
        return service.get(session, incident=incident, published_only=published_only)

    @router.get(
        "/postmortem/charts/{finding_id}.svg",
        response_class=Response,
        responses={200: {"content": {"image/svg+xml": {}}, "description": "The chart."}},
    )
    def get_chart(
        *, finding_id: FindingPath, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> Response:
        """A finding's evidence chart: its series over its time range, as the timeline draws them."""
        if published_only:
            service.get(session, incident=incident, published_only=True)
        svg = service.chart(session, incident=incident, finding_id=finding_id)
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["postmortems"])


@router.post("/postmortem", status_code=status.HTTP_201_CREATED)
def create_postmortem(
    incident: WriteIncident, principal: PrincipalDep, session: SessionDep
) -> PostmortemRead:
    """Draft the postmortem from what Rootline knows (checklist, annotations, series).

    409 `postmortem_exists` when the incident has one already.
    """
    return service.create(session, incident=incident, author=principal.username)


@router.put("/postmortem/sections/{section}", responses=CONFLICT)
def save_section(
    section: SectionKey,
    data: SectionUpdate,
    incident: WriteIncident,
    principal: PrincipalDep,
    session: SessionDep,
) -> SectionRead:
    """Save one section's Markdown, edited from the section version `version`.

    When someone saved it since, nothing is stored and the answer is 409 with the stored
    section (`current`), so the editor keeps its text and can show both.
    """
    return service.save_section(
        session, incident=incident, key=section, data=data, author=principal.username
    )


@router.patch("/postmortem", responses=STATUS_CONFLICT)
def set_status(
    data: StatusUpdate, incident: WriteIncident, principal: PrincipalDep, session: SessionDep
) -> PostmortemRead:
    """Move the postmortem to `draft`, `in_review` or `published` (share links show it then)."""
    return service.set_status(session, incident=incident, data=data, author=principal.username)


@router.get("/postmortem/revisions")
def list_revisions(
    incident: ReadIncident,
    session: SessionDep,
    section: Annotated[SectionKey | None, Query(description="One section's changes only.")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[RevisionRead]:
    """Who changed what, newest first: each change's author, time and the text before it."""
    return service.revisions(session, incident=incident, section=section, limit=limit)


@router.get(
    "/postmortem/export",
    response_class=Response,
    responses={
        200: {
            "content": {"application/zip": {}, "text/html": {}, "application/pdf": {}},
            "description": "The file, as an attachment.",
        },
        503: {"description": "PDF: Chromium is not installed or failed."},
    },
)
def export_postmortem(
    incident: ReadIncident,
    session: SessionDep,
    settings: SettingsDep,
    format: Annotated[
        ExportFormat, Query(description="md (a zip with the charts as SVG), html or pdf.")
    ] = "md",
) -> Response:
    """The postmortem as a file (a fresh draft when none is stored yet)."""
    content, filename, media_type = service.export(
        session, incident=incident, format_=format, chromium=settings.chromium
    )
    return Response(
        content,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


router.include_router(read_routes(read_incident))
