"""Sweeping the local artifact store: staging files a crash left in ``.tmp``, and blobs no
artifact refers to (an upload refused after its bytes were stored, a delete that died
before removing them).

Run at start and then every :data:`SWEEP_EVERY_S` by each server process (sweeps are
idempotent, so several workers sweeping at once only repeat each other). Never a file an
upload is using or about to use:

- a staging file is removed only after :data:`STAGING_MAX_AGE_S` without a write (an upload
  writes its staging file as bytes arrive, and a body idle for ``body_timeout_s`` is cut);
- a blob is removed only when its file is older than :data:`ORPHAN_GRACE_S` (every upload of
  the bytes rewrites or touches it, so an upload under way has a fresh one) and no artifact
  refers to it, asked twice: before, and after moving it aside into ``.tmp``. A row that
  appeared in between gets its blob moved back.

The S3 store is not swept here: its staging files are anonymous temporary files (gone with
the process), and listing a bucket is the bucket's lifecycle rules' business.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from rootline.artifacts import repository
from rootline.storage import ArtifactStore, LocalArtifactStore

log = logging.getLogger("rootline.housekeeping")

STAGING_MAX_AGE_S = 3600.0
ORPHAN_GRACE_S = 24 * 3600.0
SWEEP_EVERY_S = 3600.0
# Digests asked about per query.
BATCH = 500
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Swept:
    staging_files: int
    orphan_blobs: int


def sweep(
    store: ArtifactStore,
    sessions: sessionmaker[Session],
    *,
    now: float | None = None,
    staging_max_age_s: float = STAGING_MAX_AGE_S,
    orphan_grace_s: float = ORPHAN_GRACE_S,
) -> Swept:
    """Remove dead staging files and unreferenced blobs from a local store (see the module)."""
    if not isinstance(store, LocalArtifactStore):
        return Swept(0, 0)
    now = time.time() if now is None else now
    staging = _sweep_staging(store.tmp, now - staging_max_age_s)
    orphans = 0
    for batch in _batches(_old_blobs(store, now - orphan_grace_s), BATCH):
        orphans += _remove_unreferenced(store, sessions, batch)
    if staging or orphans:
        log.info("swept the artifact store: %d staging files, %d orphan blobs", staging, orphans)
    return Swept(staging, orphans)


def _sweep_staging(folder: Path, written_before: float) -> int:
    removed = 0
    for entry in _entries(folder):
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < written_before:
                os.unlink(entry.path)
                removed += 1
        except FileNotFoundError:  # finished (renamed) or swept by another process meanwhile
            continue
    return removed


def _old_blobs(store: LocalArtifactStore, written_before: float) -> Iterator[str]:
    for folder in _entries(store.root):
        if len(folder.name) != 2 or not set(folder.name) <= _HEX or not folder.is_dir():
            continue
        for entry in _entries(Path(folder.path)):
            name = entry.name
            if len(name) == 64 and name.startswith(folder.name) and set(name) <= _HEX:
                try:
                    if entry.stat().st_mtime < written_before:
                        yield name
                except FileNotFoundError:
                    continue


def _remove_unreferenced(
    store: LocalArtifactStore, sessions: sessionmaker[Session], digests: list[str]
) -> int:
    with sessions() as session:
        candidates = set(digests) - repository.sha256s_in_use(session, digests)
    aside: dict[str, Path] = {}
    for digest in candidates:
        # Moved, not deleted: an upload that sends these bytes now rewrites the blob in
        # place, and a row inserted meanwhile gets this copy back.
        parked = store.tmp / f"sweep-{digest}-{uuid.uuid4().hex}"
        try:
            os.rename(store.path_for(digest), parked)
        except FileNotFoundError:
            continue
        os.utime(parked)  # fresh, so a concurrent staging sweep leaves it alone
        aside[digest] = parked
    if not aside:
        return 0
    with sessions() as session:
        claimed = repository.sha256s_in_use(session, list(aside))
    removed = 0
    for digest, parked in aside.items():
        target = store.path_for(digest)
        if digest in claimed and not target.exists():
            os.rename(parked, target)
            continue
        parked.unlink(missing_ok=True)
        removed += digest not in claimed
    return removed


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except FileNotFoundError:
        return []


def _batches(items: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
