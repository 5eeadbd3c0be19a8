from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response, status
from fastapi.responses import RedirectResponse

from rootline import ratelimit
from rootline.accounts import repository, service
from rootline.accounts.models import User
from rootline.accounts.schemas import (
    LoginRequest,
    Me,
    PasswordChange,
    TokenCreate,
    TokenCreated,
    TokenRead,
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
from rootline.settings import Settings

auth_router = APIRouter(prefix="/api/auth", tags=["auth"])
users_router = APIRouter(prefix="/api/users", tags=["users"])
tokens_router = APIRouter(prefix="/api/tokens", tags=["tokens"])

DAY_MS = 24 * 3600 * 1000


def _set_cookies(
    response: Response, request: Request, settings: Settings, new: service.NewSession
) -> None:
    max_age = int(settings.session_days * DAY_MS / 1000)
    secure = cookie_secure(request, settings)
    response.set_cookie(
        SESSION_COOKIE,
        new.secret,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    response.set_cookie(
        CSRF_COOKIE,
        new.row.csrf_token,
        max_age=max_age,
        path="/",
        httponly=False,
        samesite="lax",
        secure=secure,
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
    keys = [f"login:ip:{client_ip(request, settings)}", f"login:user:{data.username.lower()}"]
    limits = {"limit": settings.login_rate_limit, "window_s": settings.rate_limit_window_s}
    ratelimit.check(session, keys, **limits)
    user = service.authenticate(session, data.username, data.password)
    if user is None:
        ratelimit.hit(session, keys, window_s=settings.rate_limit_window_s)
        session.commit()  # the failure counts even though the request fails
        raise Unauthorized("invalid_credentials", "wrong user name or password")
    new = service.start_session(session, user, lifetime_ms=int(settings.session_days * DAY_MS))
    _set_cookies(response, request, settings, new)
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
def me(user: UserDep, session: SessionDep) -> Me:
    """The signed-in user and the CSRF token to send on writes."""
    return Me(user=service.brief(_user(session, user.user_id)), csrf_token=user.csrf_token or "")


@auth_router.post("/password", status_code=status.HTTP_204_NO_CONTENT, responses={429: {}})
def change_password(
    data: PasswordChange, user: UserDep, session: SessionDep, settings: SettingsDep
) -> Response:
    """Set a new password; the current one is needed unless the user has none yet.

    Every other session of the user ends.
    """
    row = _user(session, user.user_id)
    keys = [f"login:user:{row.username.lower()}"]
    ratelimit.check(
        session, keys, limit=settings.login_rate_limit, window_s=settings.rate_limit_window_s
    )
    if not service.check_current_password(row, data.current_password):
        ratelimit.hit(session, keys, window_s=settings.rate_limit_window_s)
        session.commit()
        raise BadRequest("wrong_password", "the current password is wrong")
    service.set_password(session, row, data.new_password)
    repository.delete_sessions_of(session, row.id, keep=user.session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@auth_router.get(
    "/one-time/{token}",
    status_code=status.HTTP_303_SEE_OTHER,
    response_class=RedirectResponse,
    responses={303: {"description": "Signed in; go to the web app."}, 404: {}, 429: {}},
)
def one_time_sign_in(
    token: Annotated[str, Path(max_length=128)],
    request: Request,
    session: WriterSessionDep,
    settings: SettingsDep,
) -> RedirectResponse:
    """Sign in through a one-time link (single use, valid 24 hours), then go to the app."""
    keys = [f"link:ip:{client_ip(request, settings)}"]
    limits = {"limit": settings.share_rate_limit, "window_s": settings.rate_limit_window_s}
    ratelimit.check(session, keys, **limits)
    user = service.redeem_link(session, token)
    if user is None:
        ratelimit.hit(session, keys, window_s=settings.rate_limit_window_s)
        session.commit()
        raise NotFound("link_not_found", "this sign-in link is unknown, used or expired")
    new = service.start_session(session, user, lifetime_ms=int(settings.session_days * DAY_MS))
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    _set_cookies(response, request, settings, new)
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
