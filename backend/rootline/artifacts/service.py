"""Ingest: record an uploaded file, parse it, store what it says; re-parse on demand.

The raw bytes are in the artifact store before any of this runs, so no upload is lost to a
parser or database failure. The parsed data of one artifact is written inside a savepoint:
it lands whole or not at all, and a failure leaves the artifact stored with status
``failed`` and the reason in its diagnostics.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from rootline import bundles
from rootline.artifacts import repository
from rootline.artifacts.models import Artifact
from rootline.checklist import service as checklist_service
from rootline.db import on_commit
from rootline.errors import NotFound
from rootline.events import repository as events_repository
from rootline.events import service as events_service
from rootline.facts import repository as facts_repository
from rootline.facts import service as facts_service
from rootline.incidents.models import Incident
from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult
from rootline.series import repository as series_repository
from rootline.series import service as series_service
from rootline.storage import ArtifactStore, StoredBlob
from rootline.timeutil import now_ms

BUNDLE_KIND = "bundle"
# Bundles inside bundles are unpacked this deep, no deeper.
MAX_BUNDLE_DEPTH = 2


@dataclass(frozen=True, slots=True)
class UploadOptions:
    """What the uploader may say about a file; everything else is read from its content."""

    filename: str
    host: str | None = None
    kind: str | None = None
    timezone: str | None = None
    clock_offset_s: float = 0.0
    jvm_start_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Ingested:
    artifact: Artifact
    created: bool


def ingest(
    session: Session,
    store: ArtifactStore,
    *,
    incident: Incident,
    blob: StoredBlob,
    options: UploadOptions,
    parent: Artifact | None = None,
    depth: int = 0,
) -> list[Ingested]:
    """Record a stored blob as an artifact of ``incident`` and parse it; bundles give their members too.

    The same bytes uploaded to the same incident again return the existing artifact.
    """
    existing = repository.by_sha256(session, incident.id, blob.sha256)
    if existing is not None:
        return [Ingested(existing, created=False)]
    artifact = Artifact(
        incident_id=incident.id,
        parent_id=parent.id if parent else None,
        sha256=blob.sha256,
        size_bytes=blob.size_bytes,
        filename=options.filename[:512],
        host=options.host,
        requested_kind=options.kind,
        kind=options.kind or registry.UNKNOWN_KIND,
        status="pending",
        diagnostics=[],
        timezone=options.timezone,
        clock_offset_s=options.clock_offset_s,
        jvm_start_ms=options.jvm_start_ms,
        uploaded_at_ms=now_ms(),
    )
    session.add(artifact)
    session.flush()
    return [
        Ingested(artifact, created=True),
        *_parse_into(session, store, incident, artifact, depth),
    ]


def ingest_all(
    session: Session,
    store: ArtifactStore,
    *,
    incident: Incident,
    items: Sequence[tuple[StoredBlob, UploadOptions]],
) -> list[Ingested]:
    """Ingest several stored blobs, then recompute the checklist once if anything is new."""
    ingested = [
        item
        for blob, options in items
        for item in ingest(session, store, incident=incident, blob=blob, options=options)
    ]
    if any(item.created for item in ingested):
        checklist_service.recompute(session, incident=incident)
    return ingested


def reparse(
    session: Session, store: ArtifactStore, *, incident: Incident, artifact: Artifact
) -> Artifact:
    """Parse the stored bytes again (a newer parser, a corrected host, zone or offset) and
    recompute the checklist."""
    _reparse_tree(session, store, incident, artifact)
    checklist_service.recompute(session, incident=incident)
    return artifact


def _reparse_tree(
    session: Session, store: ArtifactStore, incident: Incident, artifact: Artifact
) -> None:
    if artifact.kind == BUNDLE_KIND:
        for member in repository.members(session, artifact.id):
            _reparse_tree(session, store, incident, member)
        return
    _clear_parsed(session, artifact)
    _parse_into(session, store, incident, artifact, depth=0)


def get_or_404(session: Session, *, incident: Incident, artifact_id: uuid.UUID) -> Artifact:
    """The artifact of this incident, or a 404 error."""
    artifact = repository.get(session, incident.id, artifact_id)
    if artifact is None:
        raise NotFound("artifact_not_found", f"no artifact {artifact_id} in incident {incident.id}")
    return artifact


def list_for_incident(session: Session, *, incident: Incident) -> Sequence[Artifact]:
    """Artifacts of an incident in upload order."""
    return repository.list_for_incident(session, incident.id)


def forget_blobs_after_delete(session: Session, store: ArtifactStore, *, sha256s: set[str]) -> None:
    """Once the deletion has committed, remove blobs that no artifact refers to any more."""

    def remove_unreferenced() -> None:
        with Session(bind=session.get_bind()) as check:
            for digest in sha256s:
                if not repository.sha256_in_use(check, digest):
                    store.delete(digest)

    on_commit(session, remove_unreferenced)


def _clear_parsed(session: Session, artifact: Artifact) -> None:
    series_repository.delete_for_artifact(session, artifact.id)
    events_repository.delete_for_artifact(session, artifact.id)
    facts_repository.delete_for_artifact(session, artifact.id)


def _parse_into(
    session: Session, store: ArtifactStore, incident: Incident, artifact: Artifact, depth: int
) -> list[Ingested]:
    started = time.perf_counter()
    data = store.read(artifact.sha256)
    if bundles.bundle_format(data) is not None:
        return _unpack_into(session, store, incident, artifact, data, depth)
    context = ParseContext.for_zone(
        artifact.timezone or incident.timezone,
        default_time_ms=artifact.uploaded_at_ms,
        host=artifact.host,
        jvm_start_ms=artifact.jvm_start_ms,
    )
    result = registry.parse_bytes(data, context, kind=artifact.requested_kind)
    del data
    _persist(session, incident, artifact, result)
    artifact.parse_seconds = time.perf_counter() - started
    return []


def _persist(session: Session, incident: Incident, artifact: Artifact, result: ParseResult) -> None:
    host = artifact.host or result.host
    offset_ms = round(artifact.clock_offset_s * 1000)
    counts = (0, 0, 0, 0)
    try:
        with session.begin_nested():
            series, points = series_service.store(
                session,
                incident_id=incident.id,
                artifact_id=artifact.id,
                host=host,
                series=result.series,
                offset_ms=offset_ms,
            )
            events = events_service.store(
                session,
                incident_id=incident.id,
                artifact_id=artifact.id,
                host=host,
                events=result.events,
                offset_ms=offset_ms,
            )
            facts = facts_service.store(
                session,
                incident_id=incident.id,
                artifact_id=artifact.id,
                host=host,
                facts=result.facts,
                offset_ms=offset_ms,
            )
            counts = (series, points, events, facts)
    except SQLAlchemyError as exc:
        failed = ParseResult(kind=result.kind)
        failed.diagnose(
            0,
            f"could not store the parsed data: {type(exc).__name__}: {exc.args[0] if exc.args else ''}"[
                :500
            ],
        )
        result = failed
    time_range = result.time_range()
    artifact.kind = result.kind
    artifact.host = host
    artifact.status = result.status
    artifact.diagnostics = [{"line": d.line, "message": d.message} for d in result.diagnostics]
    artifact.diagnostics_dropped = result.diagnostics_dropped
    artifact.anchored = result.anchored
    artifact.time_start_ms = time_range[0] + offset_ms if time_range else None
    artifact.time_end_ms = time_range[1] + offset_ms if time_range else None
    artifact.series_count, artifact.point_count, artifact.event_count, artifact.fact_count = counts
    artifact.parsed_at_ms = now_ms()
    session.flush()


def _unpack_into(
    session: Session,
    store: ArtifactStore,
    incident: Incident,
    artifact: Artifact,
    data: bytes,
    depth: int,
) -> list[Ingested]:
    artifact.kind = BUNDLE_KIND
    if depth >= MAX_BUNDLE_DEPTH:
        artifact.status = "failed"
        artifact.diagnostics = [
            {
                "line": 0,
                "message": f"bundle nested deeper than {MAX_BUNDLE_DEPTH} levels: not unpacked",
            }
        ]
        artifact.parsed_at_ms = now_ms()
        return []
    bundle = bundles.unpack(data)
    del data
    diagnostics = [{"line": 0, "message": message} for message in bundle.diagnostics]
    diagnostics += [
        {"line": 0, "message": f"{r.path}: refused: {r.reason}"} for r in bundle.refused
    ]
    ingested: list[Ingested] = []
    for member in bundle.members:
        blob = store.put_bytes(member.data)
        options = UploadOptions(
            filename=member.path,
            host=artifact.host or member.host,
            timezone=artifact.timezone,
            clock_offset_s=artifact.clock_offset_s,
            jvm_start_ms=artifact.jvm_start_ms,
        )
        ingested += ingest(
            session,
            store,
            incident=incident,
            blob=blob,
            options=options,
            parent=artifact,
            depth=depth + 1,
        )
    members = [i.artifact for i in ingested if i.artifact.parent_id == artifact.id]
    starts = [m.time_start_ms for m in members if m.time_start_ms is not None]
    ends = [m.time_end_ms for m in members if m.time_end_ms is not None]
    artifact.time_start_ms = min(starts) if starts else None
    artifact.time_end_ms = max(ends) if ends else None
    artifact.diagnostics = diagnostics
    artifact.status = "failed" if not bundle.members else ("partial" if diagnostics else "parsed")
    artifact.parsed_at_ms = now_ms()
    session.flush()
    return ingested
