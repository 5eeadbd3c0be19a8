"""Share links: managed by signed-in users, read by anyone holding the token.

`/api/shared/{token}/...` serves the same read routes as `/api/incidents/{id}/...` (the
routes are defined once, in each domain's ``read_routes``); only the dependency resolving
the incident differs. Nothing there writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import sqlalchemy.exc
from fastapi import APIRouter, Depends, Path, Request, Response, status
from sqlalchemy.orm import Session

from rootline.actions.endpoints import read_routes as action_item_reads
from rootline.annotations.endpoints import read_routes as annotation_reads
from rootline.artifacts.endpoints import read_routes as artifact_reads
from rootline.auth import UserDep, UserIncident, access, client_ip
from rootline.checklist.endpoints import read_routes as checklist_reads
from rootline.deps import SessionDep, SettingsDep
from rootline.errors import Forbidden, NotFound
from rootline.events.endpoints import read_routes as event_reads
from rootline.facts.endpoints import read_routes as fact_reads
from rootline.incidents import repository as incidents_repository
from rootline.incidents import service as incidents_service
from rootline.incidents.endpoints import read_routes as incident_reads
from rootline.incidents.models import Incident
from rootline.params import IdPath
from rootline.postmortems.endpoints import read_routes as postmortem_reads
from rootline.ratelimit import FailureLimit, Limit
from rootline.series.endpoints import read_routes as series_reads
from rootline.settings import Settings
from rootline.shares import service
from rootline.shares.schemas import (
    ShareCreate,
    ShareCreated,
    SharedIncident,
    ShareRead,
    ShareView,
)

router = APIRouter(prefix="/api/incidents/{incident_id}/shares", tags=["shares"])


@router.post("", status_code=status.HTTP_201_CREATED)
def create_share(
    data: ShareCreate, incident: UserIncident, user: UserDep, session: SessionDep
) -> ShareCreated:
    """A read-only link to this incident; the token is in this answer only."""
    return service.create(session, incident=incident, user=user, data=data)


@router.get("")
def list_shares(incident: UserIncident, session: SessionDep) -> list[ShareRead]:
    """The incident's share links, newest first (never their tokens)."""
    return list(service.list_for_incident(session, incident=incident))


@router.delete("/{share_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_share(share_id: IdPath, incident: UserIncident, session: SessionDep) -> Response:
    """Revoke a share link: it stops working at once."""
    service.revoke(session, incident=incident, share_id=share_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# --- The shared, read-only view ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SharedAccess:
    incident: Incident
    allow_raw: bool
    view: ShareView | None = None
    redacted: bool = False


@access("shared")
def shared_access(
    token: Annotated[str, Path(max_length=128, description="The share token.")],
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
) -> SharedAccess:
    """The incident behind a live share token.

    A live token always works. Failed lookups are counted per client IP and, past the
    limit, answered 429 instead of 404: tokens are 256 random bits, so the count is there
    to slow a flood down and flag it, not to stop guessing, and a valid viewer behind the
    same address must not pay for it.
    """
    try:
        share = service.resolve(session, token)
        incident = None if share is None else incidents_repository.get(session, share.incident_id)
    except sqlalchemy.exc.TimeoutError:
        # No connection came free in time: counted too, or a flood could go on uncounted.
        _count_failed_lookup(request, settings, session)
        raise
    if share is None or incident is None:
        _count_failed_lookup(request, settings, session)
        raise NotFound("share_not_found", "this share link is unknown, revoked or expired")
    return SharedAccess(
        incident=incident,
        allow_raw=share.allow_raw and not share.redacted,
        view=ShareView.model_validate(share.view) if share.view else None,
        redacted=share.redacted,
    )


def _count_failed_lookup(request: Request, settings: Settings, session: Session) -> None:
    """Count one failed lookup of this client (429 past the limit).

    This request only reads: the count is written on the rate limiter's own connections
    (see `rootline.app`), never on a second connection of the pool the request already
    holds one of. Waiting on that pool while holding it is how a few dozen failed lookups
    at once used to freeze every route until the pool timed out.

    Nor does it keep its own connection while it waits for the count: a flood's lookups
    queue for the limiter (a few connections, one counter row per address), and if each
    held a connection of the request pool meanwhile, they would hold all of them and every
    other request of the process would wait for the counts (8.5 s for a share read in the
    load-and-kill bench). The lookup's transaction ends first; the request fails anyway.
    """
    session.rollback()
    failures = FailureLimit(
        [Limit(f"share:ip:{client_ip(request, settings)}", settings.share_rate_limit)],
        settings.rate_limit_window_s,
    )
    with request.app.state.limiter_sessionmaker.begin() as limiter:
        failures.admit(limiter)


SharedAccessDep = Annotated[SharedAccess, Depends(shared_access)]


def shared_incident(shared: SharedAccessDep) -> Incident:
    return shared.incident


def shared_raw_allowed(shared: SharedAccessDep) -> None:
    if not shared.allow_raw:
        raise Forbidden("raw_not_allowed", "this share link does not include raw artifacts")


shared_router = APIRouter(prefix="/api/shared/{token}", tags=["shared"])


@shared_router.get("")
def get_shared(shared: SharedAccessDep, session: SessionDep) -> SharedIncident:
    """The shared incident, whether its raw artifacts may be downloaded, the view the link
    opens, and whether its names and addresses are pseudonyms."""
    return SharedIncident(
        incident=incidents_service.to_read(session, incident=shared.incident),
        allow_raw=shared.allow_raw,
        view=shared.view,
        redacted=shared.redacted,
    )


for _reads in (
    incident_reads(shared_incident),
    series_reads(shared_incident),
    event_reads(shared_incident),
    fact_reads(shared_incident),
    checklist_reads(shared_incident),
    annotation_reads(shared_incident),
    postmortem_reads(shared_incident, published_only=True),
    action_item_reads(shared_incident),
    artifact_reads(shared_incident, raw_guard=shared_raw_allowed),
):
    shared_router.include_router(_reads)
