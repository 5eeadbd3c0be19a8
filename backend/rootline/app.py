"""The FastAPI application: routers, error format, and the built frontend on the same origin."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy.exc
from anyio import to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from rootline import demo
from rootline.accounts.endpoints import auth_router, tokens_router, users_router
from rootline.actions.endpoints import all_router as action_items_all_router
from rootline.actions.endpoints import router as action_items_router
from rootline.annotations.endpoints import router as annotations_router
from rootline.artifacts import housekeeping
from rootline.artifacts.endpoints import router as artifacts_router
from rootline.artifacts.worker import ParseWorkers, sessions_for
from rootline.auth import annotate_routes
from rootline.bulkhead import Bulkhead
from rootline.checklist.endpoints import compare_router
from rootline.checklist.endpoints import router as checklist_router
from rootline.db import make_engine, make_limiter_engine, make_sessionmaker, writer_engine
from rootline.errors import ApiError, ServiceUnavailable
from rootline.events.endpoints import router as events_router
from rootline.facts.endpoints import router as facts_router
from rootline.incidents.endpoints import router as incidents_router
from rootline.postmortems.endpoints import router as postmortems_router
from rootline.security_headers import SecurityHeaders
from rootline.series.endpoints import router as series_router
from rootline.server import redact_path
from rootline.settings import Settings, get_settings
from rootline.shares.endpoints import router as shares_router
from rootline.shares.endpoints import shared_router
from rootline.shares.middleware import RedactSharedResponses
from rootline.storage import make_store
from rootline.validation import RequestGuard, document_invalid_requests, invalid_request

log = logging.getLogger("rootline")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    engine = make_engine(
        settings.resolved_database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
    )
    sessions = sessions_for(engine)
    limiter_engine = make_limiter_engine(settings.resolved_database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # A request takes its database connection in one thread (a dependency) and uses it in
        # another (the route). With fewer threads than requests in flight, requests waiting
        # for a connection can hold every thread while those holding the connections wait
        # for a thread: nothing moves until the pool times out (503s, minutes of latency in
        # the load bench). Idle threads cost little; a deadlock costs everything.
        to_thread.current_default_thread_limiter().total_tokens = settings.request_threads
        if settings.load_demo:
            demo.load_once(sessions.write, app.state.store)
        parse_workers.start()
        app.state.last_sweep = None
        sweeping = asyncio.create_task(_sweep_store_periodically(app, sessions.read))
        yield
        sweeping.cancel()
        parse_workers.stop()
        engine.dispose()
        limiter_engine.dispose()

    app = FastAPI(
        title="Rootline",
        version="0.1.0",
        summary="Network and JVM incident postmortems: one timeline, a checklist of root causes.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessionmaker = sessions.read
    app.state.writer_sessionmaker = sessions.write
    app.state.limiter_sessionmaker = make_sessionmaker(writer_engine(limiter_engine))
    app.state.store = make_store(settings)
    parse_workers = ParseWorkers(sessions, app.state.store, count=settings.parse_threads)
    app.state.parse_workers = parse_workers

    for router in (
        incidents_router,
        artifacts_router,
        series_router,
        events_router,
        facts_router,
        checklist_router,
        compare_router,
        annotations_router,
        postmortems_router,
        action_items_router,
        action_items_all_router,
        auth_router,
        users_router,
        tokens_router,
        shares_router,
        shared_router,
    ):
        app.include_router(router)

    @app.get(
        "/api/health",
        tags=["health"],
        responses={503: {"description": "The database or the artifact store is unreachable."}},
    )
    def health() -> dict[str, str]:
        """Liveness: the database answers and the artifact store is reachable."""
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        try:
            app.state.store.check()
        except OSError as exc:
            log.warning("artifact store unavailable: %s", exc)
            raise ServiceUnavailable(
                "store_unavailable", "the artifact store is unreachable; see the server log"
            ) from exc
        return {"status": "ok"}

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"code": exc.code, "message": exc.message, **exc.details},
            status_code=exc.status_code,
            headers=exc.headers or None,
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # Pydantic prefixes a validator's own message with "Value error, ": the field is named
        # in `loc` already, the reader wants the reason.
        errors = [
            (list(e.get("loc", ())), str(e.get("msg", "")).removeprefix("Value error, "))
            for e in exc.errors()
        ]
        return JSONResponse(invalid_request(errors), status_code=422)

    @app.exception_handler(sqlalchemy.exc.DataError)
    async def data_error(_request: Request, exc: sqlalchemy.exc.DataError) -> JSONResponse:
        # The last line of defence: a value the database refused (the fields should have).
        log.warning("database refused a value: %s", str(exc.orig).strip().splitlines()[:1])
        return JSONResponse(
            {"code": "invalid_value", "message": "a value of the request cannot be stored"},
            status_code=400,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "request_too_large"}.get(
            exc.status_code, "http_error"
        )
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(ClientDisconnect)
    async def client_disconnected(request: Request, _exc: ClientDisconnect) -> Response:
        # The client hung up mid-request (a cancelled upload): its business, not a server
        # error; one line, not two tracebacks. The answer goes nowhere.
        client = f"{request.client.host}:{request.client.port}" if request.client else "client"
        line = f"{request.method} {redact_path(request.url.path)}"
        log.info('%s - "%s": client disconnected before the request was complete', client, line)
        return Response(status_code=499)

    @app.exception_handler(sqlalchemy.exc.OperationalError)
    @app.exception_handler(sqlalchemy.exc.TimeoutError)
    async def database_unavailable(_request: Request, exc: Exception) -> JSONResponse:
        # Out of connections, a failover, a locked SQLite file: worth retrying, not a bug.
        log.warning("database unavailable: %s", exc)
        return JSONResponse(
            {"code": "database_unavailable", "message": "the database is busy; retry shortly"},
            status_code=503,
            headers={"Retry-After": "2"},
        )

    @app.exception_handler(Exception)
    async def unexpected_error(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return JSONResponse(
            {"code": "internal_error", "message": "unexpected server error; see the server log"},
            status_code=500,
        )

    # Innermost: it sees each shared route's own answer (and the heavy ones wait in the
    # bulkhead before it looks the share up).
    app.add_middleware(RedactSharedResponses, sessions=sessions.read)
    app.add_middleware(RequestGuard)
    app.add_middleware(Bulkhead, slots=settings.heavy_requests, wait_s=settings.heavy_wait_s)
    _mount_frontend(app, settings.resolved_frontend_dir)
    annotate_routes(app)
    _document_invalid_requests(app)
    app.add_middleware(SecurityHeaders)
    return app


def _document_invalid_requests(app: FastAPI) -> None:
    """The OpenAPI document's 422 answers in the shape the API sends (see `validation`)."""
    build = app.openapi
    done: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        if not done:
            done.append(document_invalid_requests(build()))
        return done[0]

    app.openapi = openapi  # type: ignore[method-assign]


async def _sweep_store_periodically(app: FastAPI, sessions: sessionmaker[Session]) -> None:
    """Dead staging files and orphan blobs out of the store, at start and then hourly;
    ``app.state.last_sweep`` says what the latest sweep removed."""
    while True:
        try:
            swept = await to_thread.run_sync(housekeeping.sweep, app.state.store, sessions)
            app.state.last_sweep = swept
        except Exception:  # the next sweep may do better; serving goes on regardless
            log.exception("sweeping the artifact store failed")
        await asyncio.sleep(housekeeping.SWEEP_EVERY_S)


def _mount_frontend(app: FastAPI, dist: Path) -> None:
    """Serve the built single-page app, falling back to index.html for client-side routes."""
    index = dist / "index.html"
    if not index.is_file():
        # No dashboard built yet: the API console is the page there is to open.
        @app.get("/", include_in_schema=False)
        def console() -> RedirectResponse:
            return RedirectResponse("/docs")

        return
    assets = dist / "assets"
    if assets.is_dir():
        app.mount("/assets", StaticFiles(directory=assets), name="assets")

    @app.get("/{path:path}", include_in_schema=False)
    def spa(path: str) -> FileResponse:
        if path.startswith("api/"):
            raise StarletteHTTPException(status_code=404, detail=f"no route /{path}")
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and dist in candidate.parents:
            return FileResponse(candidate)
        return FileResponse(index)
