"""Response headers that tell browsers what the app never does: run foreign scripts, sit in
someone else's frame, have its bytes sniffed into another type, or leak its URLs.

Every response gets them (an ASGI middleware, so streamed downloads are untouched):

- ``Content-Security-Policy``: the web app loads only its own scripts, styles, images and
  API (:data:`APP_POLICY`). Styles also allow ``'unsafe-inline'``: React and Recharts set
  ``style`` attributes, and a policy that breaks the charts protects nothing. The API
  console (``/docs``, ``/redoc``) is FastAPI's page that loads Swagger UI / ReDoc from
  jsDelivr with an inline script: :data:`CONSOLE_POLICY` allows exactly that, there only.
- ``X-Frame-Options: DENY`` (and ``frame-ancestors 'none'``): no clickjacking.
- ``X-Content-Type-Options: nosniff``: a raw artifact served as octet-stream stays data.
- ``Referrer-Policy: no-referrer``: a share page's URL holds its token; a link followed
  from it must not hand the token to another site.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
_CDN = "https://cdn.jsdelivr.net"
CONSOLE_POLICY = "; ".join(
    (
        "default-src 'self'",
        f"script-src 'self' 'unsafe-inline' {_CDN}",
        f"style-src 'self' 'unsafe-inline' {_CDN} https://fonts.googleapis.com",
        f"img-src 'self' data: {_CDN} https://fastapi.tiangolo.com",
        "font-src 'self' data: https://fonts.gstatic.com",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
    )
)
CONSOLE_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

_COMMON = (
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """Adds the headers above to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = CONSOLE_POLICY if scope["path"] in CONSOLE_PATHS else APP_POLICY
        extra = (*_COMMON, (b"content-security-policy", policy.encode()))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
