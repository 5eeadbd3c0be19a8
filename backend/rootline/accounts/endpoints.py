from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response, status
from fastapi.responses import RedirectResponse

from rootline.accounts import repository, service
from rootline.accounts.models import User
from rootline.accounts.schemas import (
    LoginRequest,
    Me,
    PasswordChange,
    TokenCreate,
    TokenCreated,
    TokenRead,
    UserBrief,
    UserRead,
)
from rootline.auth import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AdminDep,
    MaybePrincipal,
    UserDep,
    check_origin,
    client_ip,
    cookie_secure,
)
from rootline.deps import SessionDep, SettingsDep, WriterSessionDep
from rootline.errors import BadRequest, NotFound, Unauthorized
from rootline.params import IdPath
from rootline.ratelimit import FailureLimit, Limit
from rootline.settings import Settings

auth_router = APIRouter(prefix="/api/auth", tags=["auth"])
users_router = APIRouter(prefix="/api/users", tags=["users"])
tokens_router = APIRouter(prefix="/api/tokens", tags=["tokens"])

DAY_MS = 24 * 3600 * 1000


def _sign_in(
    session: SessionDep, user: User, request: Request, response: Response, settings: Settings
) -> service.NewSession:
    """Start a session for ``user`` and set its cookies on ``response``."""
    lifetime_ms = int(settings.session_days * DAY_MS)
    new = service.start_session(session, user, lifetime_ms=lifetime_ms)
    secure = cookie_secure(request, settings)
    # The CSRF cookie is readable by the web app, which sends it back as a header.
    for name, value, httponly in (
        (SESSION_COOKIE, new.secret, True),
        (CSRF_COOKIE, new.row.csrf_token, False),
    ):
        response.set_cookie(
            name,
            value,
            max_age=lifetime_ms // 1000,
            path="/",
            httponly=httponly,
            samesite="lax",
            secure=secure,
        )
    return new


def login_failures(settings: Settings, *, username: str, ip: str) -> FailureLimit:
    """Failed sign-ins, narrowest key first: one user name from one address (the limit
    that stops guessing), any name from that address (5x: spraying many names), and one
    name from any address (10x: a guesser spread over many addresses). Ten wrong passwords
    from one address lock that address out of that account, not the real user elsewhere."""
    name = username.lower()
    limit = settings.login_rate_limit
    return FailureLimit(
        [
            Limit(f"login:user-ip:{name}:{ip}", limit),
            Limit(f"login:ip:{ip}", 5 * limit),
            Limit(f"login:user:{name}", 10 * limit),
        ],
        settings.rate_limit_window_s,
    )


def _clear_cookies(response: Response) -> None:
    for name in (SESSION_COOKIE, CSRF_COOKIE):
        response.delete_cookie(name, path="/", samesite="lax")


def _user(session: SessionDep, user_id: int) -> User:
    user = repository.user_by_id(session, user_id)
    if user is None or user.disabled:
        raise Unauthorized("unauthenticated", "sign in")
    return user


@auth_router.post("/login", responses={401: {}, 429: {}})
def login(
    data: LoginRequest,
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
) -> Me:
    """Sign in with a user name and password; sets the session and CSRF cookies."""
    check_origin(request, settings)
    failures = login_failures(settings, username=data.username, ip=client_ip(request, settings))
    failures.admit(session)
    # Counted for good before the (slow) password check, so concurrent attempts cannot pass
    # the limit; an attempt that succeeds is forgiven below.
    session.commit()
    user = service.authenticate(session, data.username, data.password)
    if user is None:
        raise Unauthorized("invalid_credentials", "wrong user name or password")
    failures.forgive(session)
    new = _sign_in(session, user, request, response, settings)
    return Me(user=service.brief(user), csrf_token=new.row.csrf_token)


@auth_router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(principal: MaybePrincipal, session: SessionDep) -> Response:
    """Sign out: the session ends and the cookies are cleared."""
    if principal is not None and principal.session_id is not None:
        repository.delete_session(session, principal.session_id)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    _clear_cookies(response)
    return response


@auth_router.get("/me", responses={401: {}})
def me(user: UserDep) -> Me:
    """The signed-in user and the CSRF token to send on writes."""
    # All from the principal, read with the session: no query of its own.
    brief = UserBrief(
        id=user.user_id,
        username=user.username,
        is_admin=user.is_admin,
        has_password=user.has_password,
    )
    return Me(user=brief, csrf_token=user.csrf_token or "")


@auth_router.post("/password", status_code=status.HTTP_204_NO_CONTENT, responses={429: {}})
def change_password(
    data: PasswordChange, user: UserDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Set a new password; the current one is needed unless the user has none yet.

    Every other session of the user ends.
    """
    row = _user(session, user.user_id)
    failures = FailureLimit(
        [Limit(f"password:user:{row.username.lower()}", settings.login_rate_limit)],
        settings.rate_limit_window_s,
    )
    failures.admit(session)
    session.commit()  # counted for good before the check (see `login`)
    if not service.check_current_password(row, data.current_password):
        raise BadRequest("wrong_password", "the current password is wrong")
    failures.forgive(session)
    service.set_password(session, row, data.new_password)
    repository.delete_sessions_of(session, row.id, keep=user.session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@auth_router.get(
    "/one-time/{token}",
    status_code=status.HTTP_303_SEE_OTHER,
    response_class=RedirectResponse,
    responses={
        303: {
            "description": (
                "Signed in; go to the web app. A browser (`Accept: text/html`) holding a link "
                "that is unknown, used or expired is sent to `/login?link=invalid` instead of 404."
            )
        },
        404: {},
        429: {},
    },
)
def one_time_sign_in(
    token: Annotated[str, Path(max_length=128)],
    request: Request,
    session: WriterSessionDep,
    settings: SettingsDep,
) -> RedirectResponse:
    """Sign in through a one-time link (single use, valid 24 hours), then go to the app."""
    user = service.redeem_link(session, token)
    if user is None:
        # Like a share link: a live link always works, failures are counted per client IP
        # (past the limit they are answered 429). Committed: the error rolls back the rest,
        # and a link spent on a disabled user stays spent.
        failures = FailureLimit(
            [Limit(f"link:ip:{client_ip(request, settings)}", settings.share_rate_limit)],
            settings.rate_limit_window_s,
        )
        session.commit()
        failures.admit(session)
        session.commit()
        if "text/html" in request.headers.get("accept", ""):
            # Someone clicked the link: a page that says why, not a JSON body.
            return RedirectResponse("/login?link=invalid", status_code=status.HTTP_303_SEE_OTHER)
        raise NotFound("link_not_found", "this sign-in link is unknown, used or expired")
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    _sign_in(session, user, request, response, settings)
    return response


@users_router.get("")
def list_users(_admin: AdminDep, session: SessionDep) -> list[UserRead]:
    """Every user (administrators only)."""
    return [service.to_read(u) for u in repository.list_users(session)]


@tokens_router.get("")
def list_tokens(user: UserDep, session: SessionDep) -> list[TokenRead]:
    """The signed-in user's API tokens, newest first (never their secrets)."""
    return [service.token_read(t) for t in service.list_tokens(session, user_id=user.user_id)]


@tokens_router.post("", status_code=status.HTTP_201_CREATED)
def create_token(data: TokenCreate, user: UserDep, session: SessionDep) -> TokenCreated:
    """A new API token for the signed-in user; the secret is in this answer only."""
    return service.create_token(
        session,
        _user(session, user.user_id),
        name=data.name,
        scope=data.scope,
        incident_id=data.incident_id,
    )


@tokens_router.delete("/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_token(token_id: IdPath, user: UserDep, session: SessionDep) -> Response:
    """Revoke one of the signed-in user's tokens (an administrator may revoke any)."""
    service.revoke_token(session, token_id, owner_id=None if user.is_admin else user.user_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
