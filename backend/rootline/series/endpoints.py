from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from rootline.auth import read_incident
from rootline.deps import SessionDep
from rootline.incidents.models import Incident
from rootline.params import OffsetQuery, split_list, time_param
from rootline.series import service
from rootline.series.schemas import ConnectionPage, SeriesPage, Timeline

MAX_SERIES_PAGE = 5000
MAX_POINTS = 20_000


def read_routes(incident_dep: Callable[..., Incident]) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared)."""
    router = APIRouter(tags=["timeline"])

    @router.get("/series")
    def list_series(
        *,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        name: Annotated[
            list[str] | None, Query(description="Names to match; `prefix*` matches a prefix.")
        ] = None,
        host: Annotated[str | None, Query(max_length=255)] = None,
        connection: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=255,
                description="Only the per-connection series of connections whose local or "
                "peer address contains this (e.g. `10.0.3.7` or `:5005`).",
            ),
        ] = None,
        limit: Annotated[int, Query(ge=1, le=MAX_SERIES_PAGE)] = 1000,
        offset: OffsetQuery = 0,
    ) -> SeriesPage:
        """Stored series with unit, labels, point count, first/last time and min/max value.

        Per-connection series (`tcp.conn.*`) are listed for the 50 busiest connections (peak
        bytes acked, received or sent), after the other series; `connection=` finds any other
        one by address. `connections_total` says how many there are."""
        return service.list_page(
            session,
            incident_id=incident.id,
            names=split_list(name),
            host=host,
            limit=limit,
            offset=offset,
            connection=connection,
        )

    @router.get("/connections")
    def list_connections(
        *,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        q: Annotated[
            str | None,
            Query(
                min_length=1,
                max_length=255,
                description="Text the local or peer address:port contains.",
            ),
        ] = None,
        host: Annotated[str | None, Query(max_length=255)] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 20,
    ) -> ConnectionPage:
        """TCP connections with per-connection series, busiest first (peak bytes acked,
        received or sent); `q` finds any of them by address. Their series:
        `/series?connection=<peer>`."""
        return service.list_connections(
            session, incident_id=incident.id, text=q, host=host, limit=limit
        )

    @router.get("/timeline")
    def get_timeline(
        *,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        series: Annotated[
            list[str] | None,
            Query(
                description="Series ids or names (comma-separated or repeated); `prefix*` matches a prefix."
            ),
        ] = None,
        host: Annotated[str | None, Query(max_length=255)] = None,
        from_: Annotated[
            str | None, Query(alias="from", description="Start: epoch ms/s or ISO-8601.")
        ] = None,
        to: Annotated[str | None, Query(description="End: epoch ms/s or ISO-8601.")] = None,
        max_points: Annotated[int, Query(ge=2, le=MAX_POINTS)] = 2000,
    ) -> Timeline:
        """Points of the chosen series in the range, at most `max_points` each.

        Downsampled with MinMaxLTTB, which keeps every spike's extreme, from pre-computed min/max
        rollups when the range holds far more points than asked for.
        """
        wanted = split_list(series)
        ids = [int(s) for s in wanted if s.isdigit()]
        names = [s for s in wanted if not s.isdigit()]
        return service.timeline(
            session,
            incident_id=incident.id,
            ids=ids,
            names=names,
            host=host,
            from_ms=time_param(from_, "from"),
            to_ms=time_param(to, "to"),
            max_points=max_points,
        )

    return router


router = APIRouter(prefix="/api/incidents/{incident_id}")
router.include_router(read_routes(read_incident))
