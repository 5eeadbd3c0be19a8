"""Ingest: record an uploaded file for the parse workers; queue a re-parse on demand.

The raw bytes are in the artifact store before any of this runs, so no upload is lost to a
parser or database failure. Parsing happens later, off the request path (``worker``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from rootline.artifacts import repository
from rootline.artifacts.models import Artifact
from rootline.artifacts.schemas import ArtifactRead, ReparseOptions, TimeAssumptionRead
from rootline.db import on_commit
from rootline.errors import Conflict, NotFound
from rootline.facts import repository as facts_repository
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.parsers import registry
from rootline.parsers.base import TIME_ASSUMPTION_FACTS
from rootline.storage import ArtifactStore, StoredBlob
from rootline.timeutil import now_ms

# Archives and compressed files (a bundle of one member) alike: see ``bundles``.
BUNDLE_KIND = "bundle"
# The PostgreSQL channel on which the parse workers of every process hear of queued work.
QUEUE_CHANNEL = "rootline_parse_queue"


def notify_workers(session: Session) -> None:
    """Wake the parse workers of every process when this transaction commits (PostgreSQL
    NOTIFY: one per transaction, however many artifacts it queued); on SQLite they poll."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_notify(QUEUE_CHANNEL, "")))


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


def record(
    session: Session,
    *,
    incident: Incident,
    blob: StoredBlob,
    options: UploadOptions,
    parent: Artifact | None = None,
) -> Ingested:
    """Record a stored blob as a ``pending`` artifact of ``incident``, for a parse worker
    to pick up (see ``artifacts.worker``).

    The same bytes uploaded to the same incident again return the existing artifact, unless
    they come from another host: then they are another artifact over the same blob.
    """
    existing = repository.same_upload(session, incident.id, blob.sha256, options.host)
    if existing is not None:
        return Ingested(existing, created=False)
    artifact = Artifact(
        incident_id=incident.id,
        parent_id=parent.id if parent else None,
        sha256=blob.sha256,
        size_bytes=blob.size_bytes,
        filename=options.filename[:512],
        host=options.host,
        dedup_host=options.host or "",
        requested_kind=options.kind,
        kind=options.kind or registry.UNKNOWN_KIND,
        status="pending",
        diagnostics=[],
        timezone=options.timezone,
        clock_offset_s=options.clock_offset_s,
        jvm_start_ms=options.jvm_start_ms,
        uploaded_at_ms=now_ms(),
    )
    try:
        with session.begin_nested():
            session.add(artifact)
        notify_workers(session)
    except IntegrityError:
        # Lost a race: the same bytes recorded by a concurrent upload (theirs is ours), or
        # the incident deleted while this upload streamed in.
        existing = repository.same_upload(session, incident.id, blob.sha256, options.host)
        if existing is not None:
            return Ingested(existing, created=False)
        if incidents_repository.get(session, incident.id) is None:
            raise NotFound(
                "incident_not_found", f"incident {incident.id} was deleted during the upload"
            ) from None
        raise
    return Ingested(artifact, created=True)


def record_all(
    session: Session,
    *,
    incident: Incident,
    items: Sequence[tuple[StoredBlob, UploadOptions]],
) -> list[Ingested]:
    """Record several stored blobs (see ``record``)."""
    return [
        record(session, incident=incident, blob=blob, options=options) for blob, options in items
    ]


def record_uploads(
    session: Session,
    *,
    incident: Incident,
    items: Sequence[tuple[StoredBlob, UploadOptions]],
) -> list[Ingested]:
    """Record uploaded blobs (see ``record``) and take back the claims their uploads made."""
    recorded = record_all(session, incident=incident, items=items)
    release_claims(session, blobs=[blob for blob, _ in items])
    incidents_repository.bump_version(session, incident.id)
    return recorded


def queue_reparse(session: Session, *, artifact: Artifact) -> list[Artifact]:
    """Put the artifact (a bundle: its members) back in the parse queue, for a newer parser
    or a corrected host, zone or offset. What it gave before stays visible until the new
    parse replaces it in one transaction. Returns the artifacts queued."""
    if artifact.kind == BUNDLE_KIND:
        return [
            queued
            for member in repository.members(session, [artifact.id])
            for queued in queue_reparse(session, artifact=member)
        ]
    artifact.status = "pending"
    artifact.claim_token = None
    artifact.claimed_at_ms = None
    artifact.parse_attempts = 0
    session.flush()
    notify_workers(session)
    return [artifact]


def set_parse_options(session: Session, *, artifact: Artifact, options: ReparseOptions) -> None:
    """Store the options a re-parse was given (those sent; ``null`` clears one) on the
    artifact and, for a bundle, on its members at any depth."""
    given = options.model_fields_set
    if "host" in given and (options.host or None) != artifact.host:
        other = repository.same_upload(session, artifact.incident_id, artifact.sha256, options.host)
        if options.host and other is not None and other.id != artifact.id:
            raise Conflict(
                "duplicate_artifact",
                f"the incident already holds these bytes for host {options.host!r} ({other.filename})",
            )
        artifact.host = options.host or None
        artifact.dedup_host = options.host or ""
    if "kind" in given and artifact.kind != BUNDLE_KIND:
        artifact.requested_kind = options.kind
    if "timezone" in given:
        artifact.timezone = options.timezone
    if "clock_offset_s" in given:
        artifact.clock_offset_s = options.clock_offset_s or 0.0
    if "jvm_start" in given:
        artifact.jvm_start_ms = options.jvm_start_ms()
    if artifact.kind == BUNDLE_KIND:
        for member in repository.members(session, [artifact.id]):
            set_parse_options(session, artifact=member, options=options)
    session.flush()


QUEUED_STATUSES = frozenset({"pending", "parsing"})


def with_members(
    session: Session, incident_id: uuid.UUID, roots: Sequence[uuid.UUID]
) -> list[tuple[Artifact, uuid.UUID]]:
    """The artifacts ``roots`` (in that order), each followed by its bundle members at any
    depth, paired with the root they belong to; as they are now."""
    found = {a.id: a for a in repository.by_ids(session, incident_id, roots)}
    # One query per level of nesting for all the roots, and only bundles have members: an
    # upload of many files, polled while it parses, must not cost a query per file.
    members: dict[uuid.UUID | None, list[Artifact]] = {}
    bundles = [a.id for a in found.values() if a.kind == BUNDLE_KIND]
    while bundles:
        level = repository.members(session, bundles)
        for member in level:
            members.setdefault(member.parent_id, []).append(member)
        bundles = [m.id for m in level if m.kind == BUNDLE_KIND]
    tree: list[tuple[Artifact, uuid.UUID]] = []
    for root in roots:
        if root not in found:
            continue
        generation = [found[root]]
        while generation:
            tree += [(artifact, root) for artifact in generation]
            generation = [m for parent in generation for m in members.get(parent.id, [])]
    return tree


def is_queued(artifact: Artifact) -> bool:
    """Still waiting for, or in the hands of, a parse worker."""
    return artifact.status in QUEUED_STATUSES


def get_or_404(session: Session, *, incident: Incident, artifact_id: uuid.UUID) -> Artifact:
    """The artifact of this incident, or a 404 error."""
    artifact = repository.get(session, incident.id, artifact_id)
    if artifact is None:
        raise NotFound("artifact_not_found", f"no artifact {artifact_id} in incident {incident.id}")
    return artifact


def read_models(session: Session, artifacts: Sequence[Artifact]) -> list[ArtifactRead]:
    """The artifacts as the API shows them, each with the time assumptions its parser recorded
    (one query for all of them)."""
    assumed: dict[uuid.UUID, list[TimeAssumptionRead]] = {}
    for fact in facts_repository.of_artifacts(
        session, artifact_ids=[a.id for a in artifacts], keys=list(TIME_ASSUMPTION_FACTS)
    ):
        assumed.setdefault(fact.artifact_id, []).append(
            TimeAssumptionRead(key=fact.key, value=fact.value)
        )
    return [
        ArtifactRead.model_validate(a).model_copy(
            update={"time_assumptions": assumed.get(a.id, [])}
        )
        for a in artifacts
    ]


def list_for_incident(session: Session, *, incident: Incident) -> Sequence[Artifact]:
    """Artifacts of an incident in upload order."""
    return repository.list_for_incident(session, incident.id)


# How long a claim keeps a blob from deletion when its upload never comes back to record
# its artifact (killed mid-way): longer than any upload takes to send a blob to the store.
BLOB_CLAIM_LEASE_MS = 3_600_000


def blob_claimer(write: sessionmaker[Session]) -> Callable[[StoredBlob], None]:
    """The store's ``claim`` hook for uploads: each blob is claimed in a committed
    transaction of its own before it takes its name (see ``models.BlobClaim``)."""

    def claim(blob: StoredBlob) -> None:
        with write.begin() as session:
            repository.claim_blob(session, blob.sha256, now_ms())

    return claim


def release_claims(session: Session, *, blobs: Sequence[StoredBlob]) -> None:
    """The claims of these blobs (one each), once their artifacts are recorded here."""
    for blob in blobs:
        repository.release_blob_claim(session, blob.sha256)


def forget_blobs_after_delete(session: Session, store: ArtifactStore, *, sha256s: set[str]) -> None:
    """Once the deletion has committed, remove the blobs that no artifact refers to any
    more and no upload has freshly claimed; each is checked and removed under its locked
    claim row, so an upload of the same bytes waits rather than lose its blob."""
    write = sessionmaker(bind=session.get_bind(), expire_on_commit=False)

    def remove_unreferenced() -> None:
        for digest in sorted(sha256s):
            with write.begin() as check:
                pending, claimed_at_ms = repository.lock_blob_claim(check, digest)
                if repository.sha256_in_use(check, digest):
                    continue
                if pending > 0 and now_ms() - claimed_at_ms < BLOB_CLAIM_LEASE_MS:
                    continue
                store.delete(digest)
                repository.drop_blob_claim(check, digest)

    on_commit(session, remove_unreferenced)
