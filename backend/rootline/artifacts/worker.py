"""Parsing off the request path: parse workers take pending artifacts from the database.

An upload only stores the bytes and records the artifact as ``pending`` (see
``service.record``), so a request never waits behind a parser and never holds a database
connection while one runs. Parse workers (threads that every app process starts, or
``rootline worker`` processes) take the oldest pending artifact and:

1. claim it in one statement (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so that workers in
   any number of processes never take the same one; SQLite runs one writer at a time);
2. read and parse the bytes with no transaction open: this is the slow part (a bundle's
   members are recorded as pending artifacts one by one as they are unpacked, so that other
   workers parse the first while the rest is still unpacking);
3. store what the parser gave in one transaction, replacing an earlier parse (workers of one
   incident store in parallel), then, taking turns per incident, recompute the incident's
   checklist when its last queued artifact is done: one recompute for a whole bundle, not
   one per member (while uploads keep arriving, also when data parsed more than
   ``CHECKLIST_MAX_AGE_MS`` ago is not in the checklist yet).

A claim is a lease: while a worker parses, it renews ``claimed_at_ms`` every
``HEARTBEAT_S``; an artifact whose lease is older than ``LEASE_MS`` (its worker was
killed) is claimed again. The result is stored only if the claim is still the worker's
own. An artifact whose parse was cut off ``MAX_ATTEMPTS`` times (a file that kills the
worker, e.g. by running it out of memory) is marked failed instead of taken again.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import BinaryIO, TypedDict

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from rootline import bundles
from rootline.artifacts import service
from rootline.artifacts.models import Artifact
from rootline.checklist import service as checklist_service
from rootline.checklist.models import ComputedFinding
from rootline.db import make_sessionmaker, writer_engine
from rootline.detectors import registry as detectors_registry
from rootline.events import repository as events_repository
from rootline.events import service as events_service
from rootline.facts import repository as facts_repository
from rootline.facts import service as facts_service
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.parsers import registry
from rootline.parsers.base import ParseContext, ParseResult, cyclic_gc_paused
from rootline.series import repository as series_repository
from rootline.series import service as series_service
from rootline.storage import ArtifactStore, ClaimHook, StoredBlob
from rootline.timeutil import (
    INSTANT_RANGE,
    MAX_INSTANT_MS,
    MIN_INSTANT_MS,
    check_clock_offset,
    now_ms,
)

log = logging.getLogger("rootline.worker")

LEASE_MS = 120_000
HEARTBEAT_S = 20.0
MAX_ATTEMPTS = 3
CHECKLIST_MAX_AGE_MS = 30_000
# How often an idle worker looks for checklists computed by another rules version.
STALE_CHECK_S = 5.0
# Parse threads run at a lower CPU priority than the threads answering requests.
PARSE_NICENESS = 10


@dataclass(frozen=True, slots=True)
class Claim:
    artifact_id: uuid.UUID
    token: str
    attempts: int


@dataclass(frozen=True, slots=True)
class Sessions:
    """Where a worker opens its transactions: ``read`` for reads, ``write`` for writes
    (on SQLite the latter takes the write lock at BEGIN, see ``db.writer_engine``)."""

    read: sessionmaker[Session]
    write: sessionmaker[Session]


def sessions_for(engine: Engine) -> Sessions:
    return Sessions(read=make_sessionmaker(engine), write=make_sessionmaker(writer_engine(engine)))


# --- Claiming --------------------------------------------------------------------------------


def _claimable(now: int) -> ColumnElement[bool]:
    stale = now - LEASE_MS
    return or_(
        Artifact.status == "pending",
        and_(Artifact.status == "parsing", Artifact.claimed_at_ms < stale),
    )


def has_work(session: Session) -> bool:
    """Whether anything waits for a worker (a plain read: idle workers poll with it)."""
    return session.scalar(select(Artifact.id).where(_claimable(now_ms())).limit(1)) is not None


def claim_next(session: Session) -> Claim | None:
    """Claim the oldest claimable artifact for this worker; None when there is none."""
    now = now_ms()
    oldest = (
        select(Artifact.id)
        .where(_claimable(now))
        .order_by(Artifact.uploaded_at_ms, Artifact.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    token = uuid.uuid4().hex
    row = session.execute(
        update(Artifact)
        .where(Artifact.id == oldest)
        .values(
            status="parsing",
            claim_token=token,
            claimed_at_ms=now,
            parse_attempts=Artifact.parse_attempts + 1,
        )
        .returning(Artifact.id, Artifact.parse_attempts)
        .execution_options(synchronize_session=False)
    ).first()
    if row is None:
        return None
    return Claim(artifact_id=row[0], token=token, attempts=row[1])


def release(session: Session, claim: Claim) -> None:
    """Give an unfinished claim back to the queue (a worker that is stopping)."""
    session.execute(
        update(Artifact)
        .where(Artifact.id == claim.artifact_id, Artifact.claim_token == claim.token)
        .values(
            status="pending",
            claim_token=None,
            claimed_at_ms=None,
            parse_attempts=Artifact.parse_attempts - 1,
        )
        .execution_options(synchronize_session=False)
    )


def _renew(session: Session, claim: Claim) -> None:
    session.execute(
        update(Artifact)
        .where(Artifact.id == claim.artifact_id, Artifact.claim_token == claim.token)
        .values(claimed_at_ms=now_ms())
        .execution_options(synchronize_session=False)
    )


@contextmanager
def _heartbeat(sessions: Sessions, claim: Claim) -> Iterator[None]:
    """Renew the claim's lease while the block runs."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_S):
            try:
                with sessions.write.begin() as session:
                    _renew(session, claim)
            except SQLAlchemyError:
                log.warning("could not renew the claim on %s", claim.artifact_id, exc_info=True)

    thread = threading.Thread(target=beat, name=f"lease-{claim.artifact_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


# --- Parsing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Job:
    """What parsing needs to know of the artifact, read before any parsing starts."""

    artifact_id: uuid.UUID
    incident_id: uuid.UUID
    sha256: str
    filename: str
    context: ParseContext
    requested_kind: str | None
    depth: int

    def failure(self, message: str) -> ParseResult:
        """No data, and why: for a file that could not be read at all."""
        return _failure(self.requested_kind or registry.UNKNOWN_KIND, message)


def _failure(kind: str, message: str) -> ParseResult:
    failed = ParseResult(kind=kind)
    failed.diagnose(0, message[:500])
    return failed


def _job(session: Session, claim: Claim) -> _Job | None:
    artifact = session.get(Artifact, claim.artifact_id)
    if artifact is None or artifact.claim_token != claim.token:
        return None
    incident = session.get(Incident, artifact.incident_id)
    if incident is None:
        return None
    depth, parent_id = 0, artifact.parent_id
    while parent_id is not None:
        depth += 1
        parent_id = session.scalar(select(Artifact.parent_id).where(Artifact.id == parent_id))
    options = {
        "default_time_ms": artifact.uploaded_at_ms,
        "host": artifact.host,
        "jvm_start_ms": artifact.jvm_start_ms,
        # A bundle member's filename is its path inside the bundle: the last segment names it.
        "filename": artifact.filename.rsplit("/", 1)[-1] or None,
    }
    try:
        context = ParseContext.for_zone(artifact.timezone or incident.timezone, **options)
    except (ValueError, KeyError, OSError):  # a zone gone from tzdata: read times as UTC
        log.warning("artifact %s: unknown zone, times read as UTC", artifact.id)
        context = ParseContext.for_zone(None, **options)
    return _Job(
        artifact.id,
        incident.id,
        artifact.sha256,
        artifact.filename,
        context,
        artifact.requested_kind,
        depth,
    )


def _parse(decoded: registry.Decoded, job: _Job) -> ParseResult:
    try:
        return registry.parse_decoded(decoded, job.context, kind=job.requested_kind)
    except Exception as exc:  # a parser bug must fail one artifact, not the worker
        log.exception("parser failed on artifact %s", job.artifact_id)
        return job.failure(f"the parser failed: {type(exc).__name__}: {exc}")


def _parse_file(handle: BinaryIO, head: bytes, store: ArtifactStore, job: _Job) -> ParseResult:
    try:
        return registry.parse_file(
            handle,
            job.context,
            job.requested_kind,
            head=head,
            reopen=lambda: store.open(job.sha256),
        )
    except Exception as exc:  # a parser bug must fail one artifact, not the worker
        log.exception("parser failed on artifact %s", job.artifact_id)
        return job.failure(f"the parser failed: {type(exc).__name__}: {exc}")


@dataclass(frozen=True, slots=True)
class _Unpacked:
    """A bundle's members, already in the store."""

    bundle: bundles.Bundle
    blobs: list[StoredBlob]


def _read_and_parse(
    store: ArtifactStore,
    job: _Job,
    claim: ClaimHook,
    on_member: bundles.MemberHook | None = None,
) -> ParseResult | _Unpacked:
    try:
        handle = store.open(job.sha256)
    except FileNotFoundError:
        # Gone from the store (deleted by hand, a wrong bucket): retrying cannot help.
        return job.failure(f"the raw bytes ({job.sha256}) are missing from the store")
    with handle:
        head = handle.read(bundles.SNIFF_BYTES)
        if not bundles.might_be_bundle(head):
            # Plain text, by far the usual upload: decoded a block at a time as it is parsed,
            # so the parse never holds the file's bytes beside its text, and a kind that
            # reads the text piece by piece never holds it whole (see registry.parse_file).
            return _parse_file(handle, head, store, job)
        data = head + handle.read()
        del head
    limits = bundles.BundleLimits()

    def to_store(member: BinaryIO) -> StoredBlob:
        return store.put_file(member, limits.max_member_bytes, claim)

    # An archive's or a compressed file's members stream into the store as they are
    # unpacked (never whole in memory), and ``on_member`` records each at once; each is
    # then an artifact of its own, opened the same way one level deeper.
    bundle = bundles.open_nested(
        data, job.filename, job.depth, limits, sink=to_store, on_member=on_member
    )
    if bundle is None:
        decoded = registry.decode_bytes(data, job.requested_kind)
        del data  # the parse holds the text only (see decode_bytes)
        return _parse(decoded, job)
    return _Unpacked(bundle, [m.blob for m in bundle.members if m.blob is not None])


def process(sessions: Sessions, store: ArtifactStore, claim: Claim) -> None:
    """Parse the claimed artifact and store the result (if the claim is still ours)."""
    started = time.perf_counter()
    with sessions.read() as session:
        job = _job(session, claim)
    if job is None:
        return
    if claim.attempts > MAX_ATTEMPTS:
        outcome: ParseResult | _Unpacked = job.failure(
            f"parsing was cut off {MAX_ATTEMPTS} times (the worker stopped, ran out of memory "
            "or was killed), so it is not tried again; re-parse to retry"
        )
    else:
        early = _EarlyMembers(sessions, job, claim)
        with _heartbeat(sessions, claim):
            outcome = _read_and_parse(
                store, job, service.blob_claimer(sessions.write), on_member=early
            )
    with sessions.write.begin() as session:
        artifact = _own(session, job, claim)
        if artifact is None:
            return
        if isinstance(outcome, _Unpacked):
            _store_bundle(session, artifact, outcome, recorded=early.recorded)
        else:
            _clear_parsed(session, artifact)
            # Storing a big result allocates rows in batches, and each full collection
            # that triggers would walk the whole result (~1M objects for a 200 MB GC log,
            # a sixth of the CPU its store took): paused as during the parse.
            with cyclic_gc_paused():
                _persist(session, artifact, outcome)
        _finish(session, artifact, started)


def _own(session: Session, job: _Job, claim: Claim) -> Artifact | None:
    """The artifact, locked, if the claim on it is still this worker's.

    Rows are locked in one order by every writer of parse results: the incident's in share
    mode (a deletion of the incident waits), the artifact, its parent bundle's, then the
    incident's for the turn (see ``_finish``): storing the data happens before the turn, so
    workers of one incident store in parallel."""
    incidents_repository.keep(session, job.incident_id)
    artifact = session.get(Artifact, job.artifact_id, with_for_update=True, populate_existing=True)
    if artifact is None or artifact.claim_token != claim.token:
        log.info("artifact %s was deleted or claimed again: result dropped", job.artifact_id)
        return None
    return artifact


def _finish(session: Session, artifact: Artifact, started: float) -> None:
    artifact.claim_token = None
    artifact.claimed_at_ms = None
    if artifact.parent_id is not None:
        _widen_parent(session, artifact)
    # Writers of one incident take turns from here to their commit, so that "is anything
    # still queued?" is answered after the other workers' results are in, and exactly one
    # of them finds nothing queued (see _refresh_checklist).
    incidents_repository.lock(session, artifact.incident_id)
    if artifact.parsed_at_ms is not None:
        # Stamped in its turn: a checklist computed before this is not the one holding it.
        artifact.parsed_at_ms = now_ms()
    artifact.parse_seconds = time.perf_counter() - started
    session.flush()
    # Open pages of the incident poll this to show the parse (see incidents.endpoints).
    incidents_repository.bump_version(session, artifact.incident_id)
    _refresh_checklist(session, artifact.incident_id)


def _widen_parent(session: Session, member: Artifact) -> None:
    """A bundle's time range spans its members': widen it by this member's (an uptime-only
    GC log's times are offsets from 1970, not instants: they widen nothing)."""
    if member.time_start_ms is None or member.time_end_ms is None or not member.anchored:
        return
    # Locked before the incident (see _own); FOR NO KEY UPDATE lets members be recorded.
    parent = session.get(
        Artifact, member.parent_id, with_for_update={"key_share": True}, populate_existing=True
    )
    if parent is None:
        return
    parent.time_start_ms = min(filter(None, (parent.time_start_ms, member.time_start_ms)))
    parent.time_end_ms = max(filter(None, (parent.time_end_ms, member.time_end_ms)))


def _refresh_checklist(session: Session, incident_id: uuid.UUID) -> None:
    """Recompute the checklist once nothing of the incident is queued any more (one
    recompute for a bundle and all its members), or, while uploads keep arriving, once data
    parsed more than ``CHECKLIST_MAX_AGE_MS`` ago is still missing from it."""
    queued = session.scalar(
        select(Artifact.id)
        .where(Artifact.incident_id == incident_id, Artifact.status.in_(service.QUEUED_STATUSES))
        .limit(1)
    )
    if queued is not None:
        computed = session.scalar(
            select(func.max(ComputedFinding.computed_at_ms)).where(
                ComputedFinding.incident_id == incident_id
            )
        )
        parsed_since = [Artifact.incident_id == incident_id, Artifact.parsed_at_ms.is_not(None)]
        if computed is not None:
            parsed_since.append(Artifact.parsed_at_ms > computed)
        missing_since = session.scalar(select(func.min(Artifact.parsed_at_ms)).where(*parsed_since))
        if missing_since is None or now_ms() - missing_since < CHECKLIST_MAX_AGE_MS:
            return
    incident = session.get(Incident, incident_id)
    if incident is not None:
        checklist_service.recompute(session, incident=incident)


def _clear_parsed(session: Session, artifact: Artifact) -> None:
    series_repository.delete_for_artifact(session, artifact.id)
    events_repository.delete_for_artifact(session, artifact.id)
    facts_repository.delete_for_artifact(session, artifact.id)


class _Origin(TypedDict):
    """Where every series, event and fact of one artifact comes from."""

    incident_id: uuid.UUID
    artifact_id: uuid.UUID
    host: str | None
    offset_ms: int


def _persist(session: Session, artifact: Artifact, result: ParseResult) -> None:
    """Store the parse result; if the database refuses it, the artifact fails with the reason
    and none of its data is stored (a savepoint: all or nothing)."""
    host = artifact.host or result.host
    offset_ms = _offset_ms(artifact, result)
    _drop_unshowable_times(result, offset_ms)
    origin = _Origin(
        incident_id=artifact.incident_id, artifact_id=artifact.id, host=host, offset_ms=offset_ms
    )
    counts = (0, 0, 0, 0)
    try:
        with session.begin_nested():
            series, points = series_service.store(session, series=result.series, **origin)
            events = events_service.store(session, events=result.events, **origin)
            facts = facts_service.store(session, facts=result.facts, **origin)
            counts = (series, points, events, facts)
    except (SQLAlchemyError, ValueError) as exc:  # ValueError: beyond what a table holds
        reason = f"{type(exc).__name__}: {exc.args[0] if exc.args else ''}"
        result = _failure(result.kind, f"could not store the parsed data: {reason}")
    time_range = result.time_range()
    artifact.kind = result.kind
    artifact.host = host
    artifact.status = result.status
    _note_diagnostics(artifact, result)
    artifact.anchored = result.anchored
    artifact.time_start_ms = time_range[0] + offset_ms if time_range else None
    artifact.time_end_ms = time_range[1] + offset_ms if time_range else None
    artifact.series_count, artifact.point_count, artifact.event_count, artifact.fact_count = counts
    artifact.parsed_at_ms = now_ms()
    artifact.parser_version = registry.parser_version()


def _offset_ms(artifact: Artifact, result: ParseResult) -> int:
    """The artifact's clock offset in ms; 0, with a diagnostic, when the stored one is not a
    sane number (stored before the API checked it): the give-up path must not raise on it."""
    seconds = artifact.clock_offset_s
    try:
        return round(check_clock_offset(seconds) * 1000)
    except (ValueError, TypeError):
        result.diagnose(0, f"clock offset {seconds!r} s is out of range: ignored")
        return 0


def _drop_unshowable_times(result: ParseResult, offset_ms: int) -> None:
    """Drop what falls outside the instants the API shows once shifted, with a diagnostic."""
    points, events = result.keep_within(MIN_INSTANT_MS - offset_ms, MAX_INSTANT_MS - offset_ms)
    if points or events:
        result.diagnose(
            0,
            f"{points} points and {events} events fall outside {INSTANT_RANGE} "
            "(with the clock offset): dropped",
        )


def _note_diagnostics(artifact: Artifact, result: ParseResult) -> None:
    artifact.diagnostics = [{"line": d.line, "message": d.message} for d in result.diagnostics]
    artifact.diagnostics_dropped = result.diagnostics_dropped


class _EarlyMembers:
    """Records each member of a bundle as a pending artifact as soon as it is in the store,
    in a transaction of its own, so that other workers parse it while the rest of the bundle
    is still unpacking. A member it could not record (the database refused, the claim on the
    bundle was lost) is recorded with the bundle (see ``_store_bundle``); one recorded twice
    (the bundle unpacked again after its worker was killed) is the same artifact
    (``service.record`` returns the existing one)."""

    def __init__(self, sessions: Sessions, job: _Job, claim: Claim) -> None:
        self.sessions = sessions
        self.job = job
        self.claim = claim
        self.recorded: set[int] = set()  # id() of the members recorded

    def __call__(self, bundle: bundles.Bundle, member: bundles.BundleMember) -> None:
        if member.blob is None:
            return
        try:
            with self.sessions.write.begin() as session:
                artifact = session.get(Artifact, self.job.artifact_id)
                if artifact is None or artifact.claim_token != self.claim.token:
                    return
                _record_member(session, artifact, bundle, member, member.blob)
                service.release_claims(session, blobs=[member.blob])
            self.recorded.add(id(member))
        except Exception:  # recorded with the bundle instead: never stop the unpacking
            log.warning(
                "bundle %s: %s recorded with the bundle",
                self.job.artifact_id,
                member.path,
                exc_info=True,
            )


def _record_member(
    session: Session,
    artifact: Artifact,
    bundle: bundles.Bundle,
    member: bundles.BundleMember,
    blob: StoredBlob,
) -> None:
    incident = session.get(Incident, artifact.incident_id)
    if incident is None:
        return
    options = service.UploadOptions(
        filename=member.path,
        host=artifact.host or member.host,
        timezone=artifact.timezone,
        clock_offset_s=artifact.clock_offset_s,
        jvm_start_ms=artifact.jvm_start_ms,
        kind=bundle.member_kind(artifact.requested_kind),
    )
    service.record(session, incident=incident, blob=blob, options=options, parent=artifact)


def _store_bundle(
    session: Session, artifact: Artifact, unpacked: _Unpacked, recorded: set[int]
) -> None:
    """Record a bundle's members as pending artifacts of their own (workers parse them in
    parallel), those not recorded while it was unpacking (``recorded``: their ids)."""
    bundle = unpacked.bundle
    # A bundle's own result holds no data, only what went wrong unpacking it (summed up past
    # MAX_DIAGNOSTICS, as an archive may refuse any number of links).
    summary = ParseResult(kind=service.BUNDLE_KIND)
    for message in bundle.messages():
        summary.diagnose(0, message)
    late = [
        (member, blob)
        for member, blob in zip(bundle.members, unpacked.blobs, strict=True)
        if id(member) not in recorded
    ]
    for member, blob in late:
        _record_member(session, artifact, bundle, member, blob)
    service.release_claims(session, blobs=[blob for _, blob in late])
    artifact.kind = service.BUNDLE_KIND
    _note_diagnostics(artifact, summary)
    artifact.status = (
        "failed" if not bundle.members else ("partial" if summary.diagnostics else "parsed")
    )
    artifact.parsed_at_ms = now_ms()


# --- Running ---------------------------------------------------------------------------------


def next_claim(sessions: Sessions) -> Claim | None:
    """Claim the next artifact; None when nothing waits (checked first with a plain read, so
    that idle workers do not queue for SQLite's write lock)."""
    with sessions.read() as session:
        if not has_work(session):
            return None
    with sessions.write.begin() as session:
        return claim_next(session)


def drain(sessions: Sessions, store: ArtifactStore) -> int:
    """Process artifacts until none waits (for the CLI and benchmarks); how many."""
    done = 0
    while (claim := next_claim(sessions)) is not None:
        process(sessions, store, claim)
        done += 1
    return done


class ParseWorkers:
    """Parse worker threads of one process. ``wake()`` hints that work arrived (uploads in
    this process call it; on PostgreSQL, a listener thread calls it when any process queues
    work, see ``service.notify_workers``); without the hint a worker looks every ``poll_s``
    seconds."""

    def __init__(
        self, sessions: Sessions, store: ArtifactStore, count: int, poll_s: float = 0.5
    ) -> None:
        self.sessions = sessions
        self.store = store
        self.count = count
        self.poll_s = poll_s
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []
        self._listener: threading.Thread | None = None
        self._claims: dict[int, Claim] = {}
        # Held from taking a claim to recording it: stop() then sees every committed claim.
        self._claiming = threading.Lock()
        self._next_stale_check = 0.0

    def start(self) -> None:
        self._stop.clear()
        self._threads = [t for t in self._threads if t.is_alive()]
        for number in range(len(self._threads), self.count):
            thread = threading.Thread(target=self._run, name=f"parse-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)
        engine = self.sessions.read.kw.get("bind")
        listening = self._listener is not None and self._listener.is_alive()
        if (
            self.count > 0
            and not listening
            and isinstance(engine, Engine)
            and engine.dialect.name == "postgresql"
        ):
            self._listener = threading.Thread(
                target=self._listen, args=(engine,), name="parse-listener", daemon=True
            )
            self._listener.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop taking work. A parse still running after ``timeout_s`` is abandoned (its
        thread dies with the process) and its artifact given back to the queue at once,
        rather than when its lease runs out."""
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout_s
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._listener is not None:
            # It sees the stop within its notifies' 1 s timeout, then closes its connection.
            self._listener.join(max(0.0, deadline - time.monotonic()))
        # A worker holds the lock for one claim's query: waited for, but not past the
        # timeout and a grace (a hung database must not hang the shutdown).
        locked = self._claiming.acquire(timeout=max(0.0, deadline - time.monotonic()) + 5.0)
        try:
            claims = list(self._claims.values())
        finally:
            if locked:
                self._claiming.release()
        for claim in claims:
            try:
                with self.sessions.write.begin() as session:
                    release(session, claim)
            except SQLAlchemyError:
                log.warning("could not give back %s", claim.artifact_id, exc_info=True)

    def _run(self) -> None:
        _lower_priority()
        load_rules()
        me = threading.get_ident()
        while not self._stop.is_set():
            worked = False
            try:
                with self._claiming:
                    # A claim committed but not yet recorded would escape stop()'s give-back.
                    claim = None if self._stop.is_set() else next_claim(self.sessions)
                    if claim is not None:
                        self._claims[me] = claim
                if claim is not None:
                    process(self.sessions, self.store, claim)
                    worked = True
            except SQLAlchemyError:
                log.warning("parse worker: database unavailable", exc_info=True)
            except Exception:
                log.exception("parse worker: unexpected error")
            finally:
                self._claims.pop(me, None)
            if not worked and time.monotonic() >= self._next_stale_check:
                worked = self._recompute_stale()
            if not worked:
                self._wake.wait(self.poll_s)
                self._wake.clear()

    def _listen(self, engine: Engine) -> None:
        """Wake the workers on each notification of queued work, on a connection of its own
        (outside the pool: it stays in LISTEN); reconnects after a failure."""
        import psycopg

        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while not self._stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as connection:
                    connection.execute(f"LISTEN {service.QUEUE_CHANNEL}")
                    self._wake.set()  # whatever was queued while not listening
                    while not self._stop.is_set():
                        for _ in connection.notifies(timeout=1.0, stop_after=1):
                            self._wake.set()
            except Exception:
                log.warning("parse workers: not listening for queued work", exc_info=True)
                self._stop.wait(STALE_CHECK_S)

    def _recompute_stale(self) -> bool:
        """When idle: one incident whose checklist another rules version computed, again."""
        self._next_stale_check = time.monotonic() + STALE_CHECK_S
        try:
            # Looked for with a plain read, so that idle workers do not queue for SQLite's
            # write lock every few seconds.
            with self.sessions.read() as session:
                if not checklist_service.has_stale(session):
                    return False
            with self.sessions.write.begin() as session:
                return checklist_service.recompute_stale(session, limit=1) > 0
        except SQLAlchemyError:
            log.warning("parse worker: could not recompute a stale checklist", exc_info=True)
        except Exception:
            log.exception("parse worker: recomputing a stale checklist failed")
        return False


def load_rules() -> None:
    """Read the checklist's rule files now, not in the first recompute: the first bundle's
    verdicts then wait for the detectors only (the rules are kept until a file changes)."""
    try:
        detectors_registry.checklists()
    except Exception:  # a broken rule file: each recompute reports it on its finding
        log.warning("parse worker: could not load the checklist rules", exc_info=True)


def _lower_priority() -> None:
    # On Linux a thread has a niceness of its own; elsewhere this would renice the process.
    if sys.platform.startswith("linux"):
        with suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), PARSE_NICENESS)
