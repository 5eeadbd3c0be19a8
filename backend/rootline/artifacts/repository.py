"""Every query on artifacts."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact, BlobClaim


def get(session: Session, incident_id: uuid.UUID, artifact_id: uuid.UUID) -> Artifact | None:
    artifact = session.get(Artifact, artifact_id)
    return artifact if artifact is not None and artifact.incident_id == incident_id else None


def same_upload(
    session: Session, incident_id: uuid.UUID, sha256: str, host: str | None
) -> Artifact | None:
    """The artifact an upload of these bytes for ``host`` repeats: the one of the same host;
    for an upload naming no host, any with these bytes (one naming no host first)."""
    query = select(Artifact).where(Artifact.incident_id == incident_id, Artifact.sha256 == sha256)
    if host:
        query = query.where(Artifact.dedup_host == host)
    else:
        query = query.order_by(
            case((Artifact.dedup_host == "", 0), else_=1), Artifact.uploaded_at_ms
        )
    return session.scalars(query.limit(1)).first()


def list_for_incident(session: Session, incident_id: uuid.UUID) -> Sequence[Artifact]:
    return session.scalars(
        select(Artifact)
        .where(Artifact.incident_id == incident_id)
        .order_by(Artifact.uploaded_at_ms, Artifact.filename, Artifact.id)
    ).all()


def by_ids(
    session: Session, incident_id: uuid.UUID, ids: Sequence[uuid.UUID]
) -> Sequence[Artifact]:
    return session.scalars(
        select(Artifact).where(Artifact.incident_id == incident_id, Artifact.id.in_(ids))
    ).all()


def members(session: Session, parent_ids: Sequence[uuid.UUID]) -> Sequence[Artifact]:
    """The direct members of these bundles, in upload order."""
    return session.scalars(
        select(Artifact)
        .where(Artifact.parent_id.in_(parent_ids))
        .order_by(Artifact.uploaded_at_ms, Artifact.filename, Artifact.id)
    ).all()


def sha256_in_use(session: Session, sha256: str) -> bool:
    return (session.scalar(select(func.count()).where(Artifact.sha256 == sha256)) or 0) > 0


def sha256s_in_use(session: Session, digests: Sequence[str]) -> set[str]:
    """Those of ``digests`` some artifact refers to, or an upload has claimed (it is between
    writing the blob and recording its artifact)."""
    referred = set(session.scalars(select(Artifact.sha256).where(Artifact.sha256.in_(digests))))
    claimed = set(
        session.scalars(
            select(BlobClaim.sha256).where(BlobClaim.sha256.in_(digests), BlobClaim.pending > 0)
        )
    )
    return referred | claimed


def sha256s_for_incident(session: Session, incident_id: uuid.UUID) -> set[str]:
    return set(session.scalars(select(Artifact.sha256).where(Artifact.incident_id == incident_id)))


def parsed_kinds_and_hosts(session: Session, incident_id: uuid.UUID) -> tuple[set[str], set[str]]:
    """Kinds of the artifacts that yielded data, and every host named."""
    rows = session.execute(
        select(Artifact.kind, Artifact.host, Artifact.status).where(
            Artifact.incident_id == incident_id
        )
    ).all()
    kinds = {kind for kind, _, status in rows if status in {"parsed", "partial"}}
    hosts = {host for _, host, _ in rows if host}
    return kinds, hosts


def time_placements(session: Session, incident_id: uuid.UUID) -> Sequence[Any]:
    """Where each read artifact of the incident sits in time and how it was placed: id,
    filename, host, kind, time_start_ms, time_end_ms, uploaded_at_ms, clock_offset_s,
    anchored (bundles aside: their members are the artifacts)."""
    query = select(
        Artifact.id,
        Artifact.filename,
        Artifact.host,
        Artifact.kind,
        Artifact.time_start_ms,
        Artifact.time_end_ms,
        Artifact.uploaded_at_ms,
        Artifact.clock_offset_s,
        Artifact.anchored,
    ).where(
        Artifact.incident_id == incident_id,
        Artifact.status.in_(("parsed", "partial")),
        Artifact.kind != "bundle",
    )
    return session.execute(query.order_by(Artifact.uploaded_at_ms, Artifact.id)).all()


def filenames(session: Session, incident_id: uuid.UUID) -> dict[uuid.UUID, str]:
    return dict(
        session.execute(
            select(Artifact.id, Artifact.filename).where(Artifact.incident_id == incident_id)
        ).all()
    )


def _insert_claim(session: Session, sha256: str, pending: int, claimed_at_ms: int) -> Any:
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(BlobClaim).values(sha256=sha256, pending=pending, claimed_at_ms=claimed_at_ms)


def claim_blob(session: Session, sha256: str, now_ms: int) -> None:
    """Count one more upload about to write this blob (waits while a delete holds it)."""
    statement = _insert_claim(session, sha256, 1, now_ms)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[BlobClaim.sha256],
            set_={"pending": BlobClaim.pending + 1, "claimed_at_ms": now_ms},
        )
    )


def release_blob_claim(session: Session, sha256: str) -> None:
    """One upload of this blob has recorded its artifact."""
    session.execute(
        update(BlobClaim)
        .where(BlobClaim.sha256 == sha256, BlobClaim.pending > 0)
        .values(pending=BlobClaim.pending - 1)
    )


def lock_blob_claim(session: Session, sha256: str) -> tuple[int, int]:
    """The blob's claim row, made if missing and locked until the transaction ends:
    ``(pending, claimed_at_ms)``. A claim by an upload waits until then."""
    statement = _insert_claim(session, sha256, 0, 0)
    row = session.execute(
        statement.on_conflict_do_update(
            index_elements=[BlobClaim.sha256], set_={"pending": BlobClaim.pending}
        ).returning(BlobClaim.pending, BlobClaim.claimed_at_ms)
    ).one()
    return int(row[0]), int(row[1])


def drop_blob_claim(session: Session, sha256: str) -> None:
    session.execute(delete(BlobClaim).where(BlobClaim.sha256 == sha256))
