"""Who is asking, and what they may do: every authorization rule of the API lives here.

A request's principal comes from, in order: an ``Authorization: Bearer rl_...`` API token;
the ``rootline_session`` cookie (a signed-in user; writes must carry the CSRF header and,
when the browser sends one, a same-origin ``Origin``); else nobody.

Routes say what they need through one of the dependencies below (`ReadIncident`,
`WriteIncident`, `IngestIncident`, `UserDep`, `AdminDep`, `IncidentsDep`, ...), each
marked with an access class; `route_access` reads a route's class back (the app puts it
in the OpenAPI document as ``x-rootline-access``).
"""

from __future__ import annotations

import hmac
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from fastapi import BackgroundTasks, Depends, FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session, sessionmaker

from rootline.accounts import crypto
from rootline.accounts import repository as accounts_repository
from rootline.accounts import service as accounts_service
from rootline.accounts.models import User
from rootline.deps import SAFE_METHODS, SessionDep, SettingsDep
from rootline.errors import Forbidden, Unauthorized
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.settings import Settings
from rootline.timeutil import now_ms

SESSION_COOKIE = "rootline_session"
CSRF_COOKIE = "rootline_csrf"
CSRF_HEADER = "X-CSRF-Token"

Action = Literal["read", "write", "ingest"]


@dataclass(frozen=True, slots=True)
class Principal:
    """A signed-in user (``token_id`` None) or an API token acting for its user."""

    user_id: int
    username: str
    is_admin: bool
    has_password: bool
    session_id: str | None = None
    csrf_token: str | None = None
    token_id: int | None = None
    scope: str | None = None
    incident_id: uuid.UUID | None = None

    @property
    def is_token(self) -> bool:
        return self.token_id is not None


def may(principal: Principal, action: Action, incident_id: uuid.UUID) -> bool:
    """The rule: a user may do anything; a read-write token what its user may, on its
    incident when scoped; an ingest token only upload artifacts (to its incident when scoped)."""
    if not principal.is_token:
        return True
    if principal.incident_id is not None and principal.incident_id != incident_id:
        return False
    return principal.scope == "read-write" or action == "ingest"


# --- Where the request comes from -------------------------------------------------------


def _forwarded(request: Request, settings: Settings, header: str) -> str | None:
    if not settings.trust_proxy_headers:
        return None
    value = request.headers.get(header, "").split(",", 1)[0].strip()
    return value or None


def request_scheme(request: Request, settings: Settings) -> str:
    return (_forwarded(request, settings, "x-forwarded-proto") or request.url.scheme).lower()


def request_origin(request: Request, settings: Settings) -> str:
    host = _forwarded(request, settings, "x-forwarded-host") or request.headers.get(
        "host", request.url.netloc
    )
    return f"{request_scheme(request, settings)}://{host}".lower()


def client_ip(request: Request, settings: Settings) -> str:
    forwarded = _forwarded(request, settings, "x-forwarded-for")
    if forwarded:
        return forwarded
    return request.client.host if request.client else "unknown"


def cookie_secure(request: Request, settings: Settings) -> bool:
    if settings.cookie_secure == "auto":
        return request_scheme(request, settings) == "https"
    return settings.cookie_secure == "true"


def check_origin(request: Request, settings: Settings) -> None:
    """Refuse a request a browser sent from another site (its ``Origin`` is not ours).

    "Ours" is the configured public URL's origin; only without one is it the origin the
    request itself names (its Host), which a page served by a rebinding DNS name controls.
    """
    origin = request.headers.get("origin")
    ours = settings.public_origin or request_origin(request, settings)
    if origin is not None and origin.lower() != ours:
        raise Forbidden("csrf_failed", "cross-origin request refused")


def _check_csrf(request: Request, settings: Settings, principal: Principal) -> None:
    check_origin(request, settings)
    sent = request.headers.get(CSRF_HEADER, "")
    expected = principal.csrf_token or ""
    if not sent or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise Forbidden("csrf_failed", f"missing or wrong {CSRF_HEADER} header")


# --- Resolving the principal ---------------------------------------------------------------

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="api_token",
    description="An API token, `Authorization: Bearer rl_...`.",
)
session_cookie_scheme = APIKeyCookie(
    name=SESSION_COOKIE,
    auto_error=False,
    scheme_name="session",
    description="The sign-in cookie; writes also need the `X-CSRF-Token` header.",
)


def _principal(user: User, **grant: Any) -> Principal:
    return Principal(
        user_id=user.id,
        username=user.username,
        is_admin=user.is_admin,
        has_password=user.password_hash is not None,
        **grant,
    )


def _token_principal(
    session: Session, background: BackgroundTasks, factory: sessionmaker[Session], secret: str
) -> Principal:
    found = accounts_repository.live_token(session, crypto.digest(secret))
    if found is None or found[1].disabled:
        raise Unauthorized("unauthenticated", "unknown, revoked or disabled API token")
    token, user = found
    now = now_ms()
    if accounts_service.use_is_due(token, now):
        # Recorded after the response, in a short transaction of its own: a GET stays a
        # read, and the write neither waits behind nor holds up the route's transaction.
        background.add_task(accounts_service.record_use, factory, token.id, now)
    return _principal(user, token_id=token.id, scope=token.scope, incident_id=token.incident_id)


def _session_principal(session: Session, secret: str) -> Principal | None:
    found = accounts_repository.live_session(session, crypto.digest(secret), now_ms())
    if found is None or found[1].disabled:
        return None
    login, user = found
    return _principal(user, session_id=login.id, csrf_token=login.csrf_token)


def current_principal(
    request: Request,
    settings: SettingsDep,
    session: SessionDep,
    background: BackgroundTasks,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    session_cookie: Annotated[str | None, Depends(session_cookie_scheme)],
) -> Principal | None:
    """The caller, or None; a bad token is 401 and a cookie write without CSRF proof 403.

    Looked up in the route's own session and transaction: one query, no transaction more.
    """
    if bearer is not None:
        factory = request.app.state.writer_sessionmaker
        return _token_principal(session, background, factory, bearer.credentials)
    if not session_cookie:
        return None
    principal = _session_principal(session, session_cookie)
    if principal is not None and request.method not in SAFE_METHODS:
        _check_csrf(request, settings, principal)
    return principal


MaybePrincipal = Annotated[Principal | None, Depends(current_principal)]


# --- What a route needs ----------------------------------------------------------------------

ACCESS: dict[Callable[..., Any], str] = {}
# Most demanding first: a route's class is the first of these its dependencies include.
ACCESS_ORDER = ("admin", "user", "ingest", "write", "read", "incidents", "principal", "shared")

F = TypeVar("F", bound=Callable[..., Any])


def access(name: str) -> Callable[[F], F]:
    """Mark a dependency as granting the access class ``name`` (see `route_access`)."""
    assert name in ACCESS_ORDER, name

    def mark(function: F) -> F:
        ACCESS[function] = name
        return function

    return mark


@access("principal")
def require_principal(principal: MaybePrincipal) -> Principal:
    """Anyone authenticated: a signed-in user or an API token (401 otherwise)."""
    if principal is None:
        raise Unauthorized("unauthenticated", "sign in, or send an API token")
    return principal


PrincipalDep = Annotated[Principal, Depends(require_principal)]


@access("user")
def require_user(principal: PrincipalDep) -> Principal:
    """A signed-in user (cookie); API tokens may not manage tokens, shares or users."""
    if principal.is_token:
        raise Forbidden("forbidden", "API tokens may not do this; sign in")
    return principal


UserDep = Annotated[Principal, Depends(require_user)]


@access("admin")
def require_admin(user: UserDep) -> Principal:
    if not user.is_admin:
        raise Forbidden("forbidden", "only an administrator may do this")
    return user


AdminDep = Annotated[Principal, Depends(require_admin)]


@access("incidents")
def require_incidents(principal: PrincipalDep) -> Principal:
    """Listing and creating incidents: a user, or a read-write token not tied to one incident."""
    if principal.is_token and (principal.scope != "read-write" or principal.incident_id):
        raise Forbidden("forbidden", "this API token may not list or create incidents")
    return principal


IncidentsDep = Annotated[Principal, Depends(require_incidents)]


def _incident(
    session: Session, principal: Principal, incident_id: uuid.UUID, action: Action
) -> Incident:
    if not may(principal, action, incident_id):
        raise Forbidden("forbidden", f"this API token may not {action} incident {incident_id}")
    return incidents_service.get_or_404(session, incident_id=incident_id)


@access("read")
def read_incident(incident_id: uuid.UUID, principal: PrincipalDep, session: SessionDep) -> Incident:
    return _incident(session, principal, incident_id, "read")


@access("write")
def write_incident(
    incident_id: uuid.UUID, principal: PrincipalDep, session: SessionDep
) -> Incident:
    return _incident(session, principal, incident_id, "write")


@access("ingest")
def ingest_incident(
    incident_id: uuid.UUID, principal: PrincipalDep, session: SessionDep
) -> Incident:
    return _incident(session, principal, incident_id, "ingest")


@access("user")
def user_incident(incident_id: uuid.UUID, user: UserDep, session: SessionDep) -> Incident:
    """An incident a signed-in user acts on (e.g. its share links)."""
    return incidents_service.get_or_404(session, incident_id=incident_id)


ReadIncident = Annotated[Incident, Depends(read_incident)]
WriteIncident = Annotated[Incident, Depends(write_incident)]
IngestIncident = Annotated[Incident, Depends(ingest_incident)]
UserIncident = Annotated[Incident, Depends(user_incident)]


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from _calls(dependency)


def route_access(route: APIRoute) -> str:
    """The access class of a route: "public" when none of its dependencies asks for one."""
    found = {ACCESS[call] for call in _calls(route.dependant) if call in ACCESS}
    return next((name for name in ACCESS_ORDER if name in found), "public")


def api_routes(app: FastAPI) -> Iterator[tuple[str, APIRoute]]:
    """Every API route with its full path (routers included in routers too)."""
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and context.path_format:
            yield context.path_format, route


def annotate_routes(app: FastAPI) -> None:
    """Write each operation's access class into the OpenAPI document (``x-rootline-access``)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()  # also kept as app.openapi_schema: annotated once
        for path, route in api_routes(app):
            for method in route.methods or ():
                operation = schema["paths"].get(path, {}).get(method.lower())
                if operation is not None:
                    operation["x-rootline-access"] = route_access(route)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
