from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Body, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from sqlalchemy.orm import Session
from starlette.datastructures import FormData, UploadFile

from rootline.artifacts import multipart, service
from rootline.artifacts.schemas import ArtifactRead, ReparseOptions, UploadResult
from rootline.auth import IngestIncident, WriteIncident, read_incident
from rootline.deps import SessionDep, SettingsDep, StoreDep
from rootline.errors import BadRequest, PayloadTooLarge
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.settings import Settings
from rootline.storage import ArtifactStore, StoredBlob, TooLarge
from rootline.timeutil import (
    INSTANT_RANGE,
    MAX_CLOCK_OFFSET_S,
    check_clock_offset,
    check_zone,
    parse_instant,
)
from rootline.validation import text_problem


def read_routes(
    incident_dep: Callable[..., Incident], raw_guard: Callable[..., object] | None = None
) -> APIRouter:
    """The read routes, for whichever dependency resolves the incident (private or shared);
    ``raw_guard`` may refuse the raw download."""
    router = APIRouter(tags=["artifacts"])

    @router.get("/artifacts")
    def list_artifacts(
        *, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> list[ArtifactRead]:
        """Every artifact of the incident, bundle members included, in upload order."""
        return service.read_models(session, service.list_for_incident(session, incident=incident))

    @router.get("/artifacts/{artifact_id}")
    def get_artifact(
        *, artifact_id: uuid.UUID, incident: Incident = Depends(incident_dep), session: SessionDep
    ) -> ArtifactRead:
        """One artifact: detected kind, parse status and line-numbered diagnostics."""
        artifact = service.get_or_404(session, incident=incident, artifact_id=artifact_id)
        return service.read_models(session, [artifact])[0]

    @router.get(
        "/artifacts/{artifact_id}/raw",
        response_class=StreamingResponse,
        dependencies=[Depends(raw_guard)] if raw_guard is not None else [],
        responses={
            200: {
                "content": {"application/octet-stream": {}},
                "description": "The bytes as uploaded.",
            }
        },
    )
    def download_raw(
        *,
        artifact_id: uuid.UUID,
        incident: Incident = Depends(incident_dep),
        session: SessionDep,
        store: StoreDep,
    ) -> StreamingResponse:
        """The original bytes, exactly as uploaded."""
        artifact = service.get_or_404(session, incident=incident, artifact_id=artifact_id)

        def chunks() -> Iterator[bytes]:
            with store.open(artifact.sha256) as handle:
                while block := handle.read(1024 * 1024):
                    yield block

        return StreamingResponse(
            chunks(),
            media_type="application/octet-stream",
            headers={
                "Content-Disposition": attachment(artifact.filename),
                "Content-Length": str(artifact.size_bytes),
                "X-Content-SHA256": artifact.sha256,
            },
        )

    return router


def attachment(filename: str) -> str:
    """A ``Content-Disposition`` for saving ``filename`` (RFC 6266): the name in UTF-8 as
    ``filename*``, and an ASCII ``filename`` for clients that read only that one.

    Control characters are dropped from both: a CR, LF or NUL in a header makes the server
    refuse to send the response, and no one wants one in a saved file's name.
    """
    name = "".join(c for c in filename if c.isprintable()).strip() or "download"
    fallback = "".join(c if " " <= c <= "~" and c not in '"\\' else "_" for c in name)
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe=_ATTR_CHARS)}"


# RFC 8187 attr-char, minus the letters and digits `quote` keeps anyway.
_ATTR_CHARS = "!#$&+-.^_`|~"


router = APIRouter(prefix="/api/incidents/{incident_id}", tags=["artifacts"])

MAX_FILES_PER_REQUEST = 1000

_UPLOAD_OPENAPI: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": (
            "Either `multipart/form-data` with one or more `files` parts (and optional `host`, "
            "`kind`, `timezone`, `clock_offset_s`, `jvm_start` fields applying to all of them), "
            "or the raw bytes of one file in the body (`curl --data-binary @capture.txt`), "
            "described by the query parameters."
        ),
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        "host": {"type": "string"},
                        "kind": {"type": "string"},
                        "timezone": {"type": "string"},
                        "clock_offset_s": {"type": "number"},
                        "jvm_start": {"type": "string"},
                    },
                    "required": ["files"],
                }
            },
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}


def _options(fields: dict[str, str | None], filename: str) -> service.UploadOptions:
    try:
        offset = check_clock_offset(float(fields.get("clock_offset_s") or 0.0))
    except ValueError as exc:
        raise BadRequest(
            "invalid_clock_offset",
            f"clock_offset_s must be a finite number of seconds within ±{MAX_CLOCK_OFFSET_S:.0f}",
        ) from exc
    jvm_start = fields.get("jvm_start")
    try:
        jvm_start_ms = parse_instant(jvm_start) if jvm_start else None
    except ValueError as exc:
        raise BadRequest(
            "invalid_jvm_start",
            f"jvm_start must be ISO-8601 or epoch seconds/ms within {INSTANT_RANGE}",
        ) from exc
    timezone = fields.get("timezone") or None
    if timezone is not None:
        try:
            check_zone(timezone)
        except ValueError as exc:
            raise BadRequest("invalid_timezone", str(exc)) from exc
    return service.UploadOptions(
        filename=_safe_name(filename),
        host=(fields.get("host") or None),
        kind=(fields.get("kind") or None),
        timezone=timezone,
        clock_offset_s=offset,
        jvm_start_ms=jvm_start_ms,
    )


# Form fields held to what their query parameters of the same name are held to.
_FORM_FIELD_CHARS = {"host": 255, "kind": 64, "timezone": 64, "jvm_start": 64, "clock_offset_s": 64}


def _check_form(form: FormData, fields: dict[str, str | None]) -> None:
    """422 naming the field for a form field too long or holding NUL, or a part's file
    name holding NUL (the query parameters are checked by FastAPI and `RequestGuard`)."""
    errors: list[dict[str, Any]] = []
    for name, value in fields.items():
        if value is None:
            continue
        longest = _FORM_FIELD_CHARS.get(name, 255)
        if len(value) > longest:
            message = f"at most {longest} characters"
            errors.append({"loc": ("body", name), "msg": message, "type": "string_too_long"})
        elif problem := text_problem(value):
            errors.append({"loc": ("body", name), "msg": problem, "type": "value_error"})
    for name, part in form.multi_items():
        if isinstance(part, UploadFile) and (problem := text_problem(part.filename or "")):
            errors.append(
                {"loc": ("body", name, "filename"), "msg": problem, "type": "value_error"}
            )
    if errors:
        raise RequestValidationError(errors)


def _safe_name(filename: str) -> str:
    """The name as given, minus any directory part: a name is a label, never a path."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name[:255] or "upload"


_Item = tuple[StoredBlob, service.UploadOptions]


def _declared_over(request: Request, limit: int) -> str | None:
    """The body's declared length when it is over ``limit`` (refused before it is read)."""
    declared = request.headers.get("content-length")
    return declared if declared and declared.isdigit() and int(declared) > limit else None


async def _store_multipart(
    request: Request,
    store: ArtifactStore,
    settings: Settings,
    query_fields: dict[str, str | None],
) -> list[_Item]:
    """Every `files` part in the store, with its options (form fields over query ones)."""
    if declared := _declared_over(request, settings.max_request_bytes):
        raise PayloadTooLarge(
            "request_too_large",
            f"request body of {declared} bytes is over the limit of {settings.max_request_bytes} bytes",
        )
    limit = settings.max_upload_bytes
    try:
        # Counted as it streams (a chunked body declares no length): refused at the limit.
        form = await multipart.read_form(
            request.headers,
            request.stream(),
            max_request_bytes=settings.max_request_bytes,
            max_file_bytes=limit,
            max_files=MAX_FILES_PER_REQUEST,
            max_fields=100,
        )
    except multipart.RequestTooLarge as exc:
        raise PayloadTooLarge("request_too_large", str(exc)) from exc
    except multipart.FileTooLarge as exc:
        raise PayloadTooLarge("file_too_large", str(exc)) from exc
    except multipart.MultiPartException as exc:
        raise BadRequest("invalid_multipart", exc.message) from exc
    try:
        fields = {**query_fields}
        for key in query_fields:
            value = form.get(key)
            if isinstance(value, str) and value:
                fields[key] = value
        _check_form(form, fields)
        uploads = [
            f for f in form.getlist("files") + form.getlist("file") if isinstance(f, UploadFile)
        ]
        if not uploads:
            raise BadRequest("no_files", "multipart upload holds no `files` part")
        # Checked before anything goes into the store: a refused request leaves no blob behind.
        options = [_options(fields, upload.filename or "upload") for upload in uploads]
        claim = service.blob_claimer(request.app.state.writer_sessionmaker)
        return [
            (await run_in_threadpool(store.put_file, upload.file, limit, claim), upload_options)
            for upload, upload_options in zip(uploads, options, strict=True)
        ]
    finally:
        await form.close()


async def _store_body(request: Request, store: ArtifactStore, limit: int) -> StoredBlob:
    """The raw request body in the store."""
    if declared := _declared_over(request, limit):
        raise PayloadTooLarge(
            "file_too_large",
            f"body of {declared} bytes is over the limit of {limit} bytes per file",
        )
    try:
        claim = service.blob_claimer(request.app.state.writer_sessionmaker)
        return await store.put_stream(request.stream(), limit, claim)
    except TooLarge as exc:
        raise PayloadTooLarge(
            "file_too_large", f"body is over the limit of {exc.limit} bytes"
        ) from exc


WaitQuery = Annotated[
    float,
    Query(
        ge=0,
        le=300,
        description=(
            "Seconds to wait for the parse workers before answering: 201 when everything is "
            "parsed by then, else 202 with what is still `pending` or `parsing`."
        ),
    ),
]
POLL_S = 0.2


async def _answer(
    request: Request,
    response: Response,
    session: Session,
    incident: Incident,
    roots: list[uuid.UUID],
    created: set[uuid.UUID],
    wait_s: float,
) -> UploadResult:
    """Commit, hand the work to the parse workers, and answer with the artifacts (bundle
    members included) as they are once parsed or once ``wait_s`` has passed.

    Between looks no database connection is held: a waiting client costs nothing but a socket.
    """
    await run_in_threadpool(session.commit)
    request.app.state.parse_workers.wake()
    deadline = time.monotonic() + wait_s

    def look() -> tuple[list[ArtifactRead], list[uuid.UUID], bool]:
        with request.app.state.sessionmaker() as fresh:
            tree = service.with_members(fresh, incident.id, roots)
            return (
                service.read_models(fresh, [artifact for artifact, _ in tree]),
                [root for _, root in tree],
                any(service.is_queued(artifact) for artifact, _ in tree),
            )

    while True:
        artifacts, tree_roots, queued = await run_in_threadpool(look)
        if not queued or time.monotonic() >= deadline:
            break
        await asyncio.sleep(POLL_S)
    response.status_code = 202 if queued else 201
    return UploadResult(artifacts=artifacts, created=[root in created for root in tree_roots])


_ANSWERS: dict[int | str, dict[str, Any]] = {
    201: {"description": "Stored and parsed (within `wait`).", "model": UploadResult},
    202: {"description": "Stored; parsing is still under way (`pending`/`parsing`)."},
}


@router.post("/artifacts", openapi_extra=_UPLOAD_OPENAPI, status_code=202, responses=_ANSWERS)
async def upload_artifacts(
    request: Request,
    response: Response,
    incident: IngestIncident,
    session: SessionDep,
    store: StoreDep,
    settings: SettingsDep,
    filename: Annotated[
        str | None, Query(max_length=255, description="Name of a raw-body upload.")
    ] = None,
    host: Annotated[str | None, Query(max_length=255)] = None,
    kind: Annotated[
        str | None, Query(max_length=64, description="Skip sniffing and read as this kind.")
    ] = None,
    timezone: Annotated[
        str | None, Query(max_length=64, description="IANA zone for zone-less times.")
    ] = None,
    clock_offset_s: Annotated[
        float | None, Query(description="Seconds added to every time of the file.")
    ] = None,
    jvm_start: Annotated[
        str | None, Query(description="JVM start time for uptime-only GC logs.")
    ] = None,
    wait: WaitQuery = 0,
) -> UploadResult:
    """Upload files (multipart) or one file (raw body); each is stored verbatim and answered
    at once as `pending`; parse workers then parse it (poll the artifact, or pass `wait`).

    Uploading bytes the incident already holds returns the existing artifact (`created` false).
    """
    query_fields: dict[str, str | None] = {
        "host": host,
        "kind": kind,
        "timezone": timezone,
        "clock_offset_s": None if clock_offset_s is None else str(clock_offset_s),
        "jvm_start": jvm_start,
    }
    # The body may take minutes to arrive: hold no database transaction (nor SQLite's write
    # lock) while it streams into the store; the ingest below opens a new one.
    await run_in_threadpool(session.commit)
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        items = await _store_multipart(request, store, settings, query_fields)
    else:
        options = _options(query_fields, filename or "upload")
        items = [(await _store_body(request, store, settings.max_upload_bytes), options)]
    recorded = await run_in_threadpool(
        service.record_uploads, session, incident=incident, items=items
    )
    roots = list(dict.fromkeys(i.artifact.id for i in recorded))
    created = {i.artifact.id for i in recorded if i.created}
    return await _answer(request, response, session, incident, roots, created, wait)


@router.post("/artifacts/{artifact_id}/reparse", status_code=202, responses=_ANSWERS)
async def reparse_artifact(
    request: Request,
    response: Response,
    artifact_id: uuid.UUID,
    incident: WriteIncident,
    session: SessionDep,
    options: Annotated[ReparseOptions | None, Body()] = None,
    wait: WaitQuery = 0,
) -> UploadResult:
    """Parse the stored bytes again (a bundle: its members), replacing what was extracted
    before once the new parse is stored; until then the old data stays visible.

    The optional body changes the upload's options first: e.g. `{"jvm_start":
    "2026-11-21T07:00:00Z"}` anchors a GC log that has only JVM uptimes.
    """

    def queue() -> None:
        artifact = service.get_or_404(session, incident=incident, artifact_id=artifact_id)
        if options is not None:
            service.set_parse_options(session, artifact=artifact, options=options)
        service.queue_reparse(session, artifact=artifact)
        incidents_repository.bump_version(session, incident.id)

    await run_in_threadpool(queue)
    return await _answer(request, response, session, incident, [artifact_id], set(), wait)


router.include_router(read_routes(read_incident))
