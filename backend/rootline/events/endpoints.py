from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from rootline.auth import read_incident
from rootline.deps import SessionDep, StoreDep
from rootline.events import service
from rootline.events.schemas import EventPage, ThreadDumpRead
from rootline.incidents.models import Incident
from rootline.params import IdPath, OffsetQuery, split_list, time_param

MAX_EVENTS_PAGE = 10_000


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["timeline"])

    @router.get("/events")
    def list_events(
        *,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        kind: Annotated[
            list[str] | None,
            Query(description="Kinds, e.g. gc_pause (comma-separated or repeated)."),
        ] = None,
        host: Annotated[str | None, Query(max_length=255)] = None,
        from_: Annotated[str | None, Query(alias="from")] = None,
        to: Annotated[str | None, Query()] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_EVENTS_PAGE)] = 1000,
        offset: OffsetQuery = 0,
    ) -> EventPage:
        """Events in time order (GC pauses, rejections, dumps ...) with per-kind counts."""
        return service.list_page(
            session,
            incident_id=incident.id,
            kinds=split_list(kind),
            host=host,
            from_ms=time_param(from_, "from"),
            to_ms=time_param(to, "to"),
            limit=limit,
            offset=offset,
        )

    @router.get("/events/{event_id}/threads")
    def get_dump_threads(
        *,
        event_id: IdPath,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        store: StoreDep,
    ) -> ThreadDumpRead:
        """Every thread of one thread dump (a `thread_dump` event): name, pool, state, the whole
        stack and its locks, read again from the stored file."""
        return service.dump_threads(session, store, incident=incident, event_id=event_id)

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}")
router.include_router(read_routes(read_incident))
