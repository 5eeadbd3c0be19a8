"""The parse queue: uploads answer at once; workers claim, parse, store and recompute."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from rootline.artifacts import service, worker
from rootline.artifacts.models import Artifact, BlobClaim
from rootline.checklist.models import ComputedFinding
from rootline.db import make_engine
from rootline.detectors import registry as detectors_registry
from rootline.incidents import repository as incidents_repository
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.incidents.schemas import IncidentCreate
from rootline.parsers.base import MAX_DIAGNOSTICS
from rootline.series.models import Series
from rootline.settings import Settings
from rootline.storage import ClaimHook, LocalArtifactStore, StoredBlob
from tests.conftest import (
    ADMIN,
    BACKEND_DIR,
    FIXTURES_DIR,
    ROOTLINE,
    add_user,
    sign_in,
)

SS_TAN = FIXTURES_DIR / "ss" / "ss-tan.txt"
SS_LOOP = FIXTURES_DIR / "ss" / "ss-tinm-loop.txt"


def stored_series(session: Session, artifact_id: uuid.UUID) -> int:
    """How many series of the artifact the database holds."""
    return len(session.scalars(select(Series.id).where(Series.artifact_id == artifact_id)).all())


@dataclass
class Queue:
    """A database with an incident, a store, and the worker's sessions on them."""

    sessions: worker.Sessions
    store: LocalArtifactStore
    incident_id: uuid.UUID

    def add(self, data: bytes, name: str = "capture.txt") -> uuid.UUID:
        blob = self.store.put_bytes(data)
        with self.sessions.write.begin() as session:
            incident = session.get(Incident, self.incident_id)
            assert incident is not None
            options = service.UploadOptions(filename=name)
            return service.record(
                session, incident=incident, blob=blob, options=options
            ).artifact.id

    def expire_lease(self, artifact_id: uuid.UUID) -> None:
        """Make the claim on the artifact look as old as a dead worker's."""
        with self.sessions.write.begin() as session:
            session.execute(
                update(Artifact)
                .where(Artifact.id == artifact_id)
                .values(claimed_at_ms=Artifact.claimed_at_ms - worker.LEASE_MS - 1)
            )

    def artifact(self, artifact_id: uuid.UUID) -> Artifact:
        with self.sessions.read() as session:
            found = session.get(Artifact, artifact_id)
            assert found is not None
            return found

    def checklist_computed_at(self) -> int | None:
        with self.sessions.read() as session:
            return session.scalar(
                select(ComputedFinding.computed_at_ms)
                .where(ComputedFinding.incident_id == self.incident_id)
                .limit(1)
            )


@pytest.fixture()
def queue(database_url: str, tmp_path: Path) -> Iterator[Queue]:
    engine = make_engine(database_url)
    sessions = worker.sessions_for(engine)
    with sessions.write.begin() as session:
        incident = incidents_service.create(session, data=IncidentCreate(title="queue"))
        incident_id = incident.id
    yield Queue(sessions, LocalArtifactStore(tmp_path / "blobs"), incident_id)
    engine.dispose()


def test_an_upload_is_answered_pending_and_parsed_by_a_worker_later(
    settings: Settings, database_url: str
) -> None:
    from rootline.app import create_app

    # No parse threads in this app: only the worker process below parses.
    app = create_app(settings.model_copy(update={"parse_threads": 0}))
    add_user(database_url, ADMIN, is_admin=True)
    with TestClient(app) as client:
        sign_in(client, ADMIN)
        incident = client.post("/api/incidents", json={"title": "queued"}).json()["id"]
        checklist = f"/api/incidents/{incident}/checklist"
        created_at = client.get(checklist).json()["findings"][0]["computed_at_ms"]
        response = client.post(
            f"/api/incidents/{incident}/artifacts",
            files=[("files", (SS_TAN.name, SS_TAN.read_bytes(), "text/plain"))],
            params={"wait": 1},
        )
        assert response.status_code == 202, response.text
        (artifact,) = response.json()["artifacts"]
        assert (artifact["status"], artifact["series_count"]) == ("pending", 0)

        parsed = subprocess.run(
            [ROOTLINE, "worker", "--once"],
            env={
                "PATH": "/usr/bin:/bin",
                "ROOTLINE_DATABASE_URL": settings.resolved_database_url,
                "ROOTLINE_DATA_DIR": str(settings.data_dir),
            },
            cwd=BACKEND_DIR,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert parsed.returncode == 0, parsed.stderr
        assert parsed.stdout.strip() == "parsed 1 artifacts"

        stored = client.get(f"/api/incidents/{incident}/artifacts/{artifact['id']}").json()
        assert stored["status"] == "parsed"
        assert stored["series_count"] > 0
        assert client.get(checklist).json()["findings"][0]["computed_at_ms"] > created_at
    app.state.engine.dispose()


def test_workers_never_take_the_same_artifact(queue: Queue) -> None:
    ids = {queue.add(f"not a capture {n}\n".encode(), f"f{n}.txt") for n in range(40)}
    taken: Counter[uuid.UUID] = Counter()
    lock = threading.Lock()

    def take_all() -> None:
        while (claim := worker.next_claim(queue.sessions)) is not None:
            with lock:
                taken[claim.artifact_id] += 1

    threads = [threading.Thread(target=take_all) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(taken) == ids
    assert max(taken.values()) == 1
    assert {queue.artifact(i).status for i in ids} == {"parsing"}


def test_a_claim_whose_lease_ran_out_is_taken_again_and_the_old_result_dropped(
    queue: Queue,
) -> None:
    artifact_id = queue.add(SS_TAN.read_bytes())
    first = worker.next_claim(queue.sessions)
    assert first is not None and first.attempts == 1
    assert worker.next_claim(queue.sessions) is None  # leased: nobody else takes it
    queue.expire_lease(artifact_id)
    second = worker.next_claim(queue.sessions)
    assert second is not None
    assert (second.artifact_id, second.attempts) == (artifact_id, 2)

    worker.process(queue.sessions, queue.store, first)  # the worker thought dead comes back
    assert queue.artifact(artifact_id).status == "parsing"
    assert queue.artifact(artifact_id).series_count == 0
    worker.process(queue.sessions, queue.store, second)
    done = queue.artifact(artifact_id)
    assert (done.status, done.claim_token) == ("parsed", None)
    assert done.series_count > 0


def test_an_artifact_cut_off_too_often_fails_instead_of_looping(queue: Queue) -> None:
    artifact_id = queue.add(SS_TAN.read_bytes())
    assert worker.drain(queue.sessions, queue.store) == 1
    assert queue.artifact(artifact_id).series_count > 0
    # A re-parse whose workers all died: its lease ran out for the last time.
    with queue.sessions.write.begin() as session:
        session.execute(
            update(Artifact)
            .where(Artifact.id == artifact_id)
            .values(status="parsing", claimed_at_ms=0, parse_attempts=worker.MAX_ATTEMPTS)
        )
    assert worker.drain(queue.sessions, queue.store) == 1
    failed = queue.artifact(artifact_id)
    assert failed.status == "failed"
    assert f"cut off {worker.MAX_ATTEMPTS} times" in failed.diagnostics[0]["message"]
    assert worker.next_claim(queue.sessions) is None
    # Failed means no data, as for any other failure: the earlier parse's is gone too.
    assert (failed.series_count, failed.time_start_ms) == (0, None)
    with queue.sessions.read() as session:
        assert stored_series(session, artifact_id) == 0


def test_a_released_claim_goes_back_to_the_queue(queue: Queue) -> None:
    artifact_id = queue.add(SS_TAN.read_bytes())
    claim = worker.next_claim(queue.sessions)
    assert claim is not None
    with queue.sessions.write.begin() as session:
        worker.release(session, claim)
    back = queue.artifact(artifact_id)
    assert (back.status, back.claim_token, back.parse_attempts) == ("pending", None, 0)
    assert worker.drain(queue.sessions, queue.store) == 1
    assert queue.artifact(artifact_id).status == "parsed"


def test_the_checklist_is_recomputed_when_the_last_queued_artifact_is_done(
    queue: Queue,
) -> None:
    created_at = queue.checklist_computed_at()
    assert created_at is not None
    queue.add(SS_TAN.read_bytes(), "one.txt")
    queue.add(SS_LOOP.read_bytes(), "two.txt")
    first = worker.next_claim(queue.sessions)
    assert first is not None
    worker.process(queue.sessions, queue.store, first)
    assert queue.checklist_computed_at() == created_at  # one still queued, checklist fresh
    assert worker.drain(queue.sessions, queue.store) == 1
    assert (queue.checklist_computed_at() or 0) > created_at


def test_a_bundle_gets_one_checklist_recompute_when_its_last_member_is_done(
    queue: Queue,
) -> None:
    # A checklist computed long ago (the incident created an hour before the upload): the
    # first member done must not recompute it while the others are still queued.
    with queue.sessions.write.begin() as session:
        session.execute(
            update(ComputedFinding)
            .where(ComputedFinding.incident_id == queue.incident_id)
            .values(computed_at_ms=ComputedFinding.computed_at_ms - 3_600_000)
        )
    long_ago = queue.checklist_computed_at()
    bundle_id = queue.add(_tar_gz(SS_TAN, SS_LOOP), "capture.tar.gz")
    for _ in range(2):  # the bundle, then its first member
        claim = worker.next_claim(queue.sessions)
        assert claim is not None
        worker.process(queue.sessions, queue.store, claim)
        assert queue.checklist_computed_at() == long_ago
    assert worker.drain(queue.sessions, queue.store) == 1
    assert (queue.checklist_computed_at() or 0) > (long_ago or 0)
    assert queue.artifact(bundle_id).status == "parsed"


def test_data_missing_from_the_checklist_too_long_is_added_while_the_queue_is_busy(
    queue: Queue,
) -> None:
    created_at = queue.checklist_computed_at()
    first = queue.add(SS_TAN.read_bytes(), "one.txt")
    queue.add(SS_LOOP.read_bytes(), "two.txt")
    queue.add(SS_LOOP.read_bytes() + b"\n", "three.txt")
    claim = worker.next_claim(queue.sessions)
    assert claim is not None and claim.artifact_id == first
    worker.process(queue.sessions, queue.store, claim)
    assert queue.checklist_computed_at() == created_at
    # As if one.txt was parsed longer ago than the checklist may lag behind.
    lag = worker.CHECKLIST_MAX_AGE_MS + 1
    with queue.sessions.write.begin() as session:
        session.execute(
            update(Artifact)
            .where(Artifact.id == first)
            .values(parsed_at_ms=Artifact.parsed_at_ms - lag)
        )
        session.execute(
            update(ComputedFinding)
            .where(ComputedFinding.incident_id == queue.incident_id)
            .values(computed_at_ms=ComputedFinding.computed_at_ms - lag)
        )
    long_ago = queue.checklist_computed_at() or 0
    claim = worker.next_claim(queue.sessions)
    assert claim is not None
    worker.process(queue.sessions, queue.store, claim)
    recomputed = queue.checklist_computed_at() or 0
    assert recomputed > long_ago + lag
    assert worker.drain(queue.sessions, queue.store) == 1
    assert (queue.checklist_computed_at() or 0) > recomputed


def _tar_gz(*paths: Path) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in paths:
            tar.add(path, arcname=f"rootline-web-7-20261121T072100/{path.name}")
    return buffer.getvalue()


def _members(queue: Queue, bundle_id: uuid.UUID) -> list[Artifact]:
    with queue.sessions.read() as session:
        return list(
            session.scalars(
                select(Artifact).where(Artifact.parent_id == bundle_id).order_by(Artifact.filename)
            )
        )


def test_a_bundles_members_are_claimable_while_it_is_still_unpacking(queue: Queue) -> None:
    bundle_id = queue.add(_tar_gz(SS_TAN, SS_LOOP), "capture.tar.gz")
    claimable: list[list[str]] = []

    class Watched(LocalArtifactStore):
        """The real store; before each member goes in, what another worker could take."""

        def put_file(
            self, source: Any, limit: int, claim: ClaimHook = lambda _: None
        ) -> StoredBlob:
            with queue.sessions.read() as session:
                pending = select(Artifact.filename).where(
                    Artifact.parent_id == bundle_id, Artifact.status == "pending"
                )
                claimable.append(list(session.scalars(pending)))
            return super().put_file(source, limit, claim)

    store = Watched(queue.store.root)
    claim = worker.next_claim(queue.sessions)
    assert claim is not None and claim.artifact_id == bundle_id
    worker.process(queue.sessions, store, claim)
    assert claimable == [[], ["rootline-web-7-20261121T072100/ss-tan.txt"]]
    assert worker.drain(queue.sessions, queue.store) == 2
    members = _members(queue, bundle_id)
    assert [m.status for m in members] == ["parsed", "parsed"]
    with queue.sessions.read() as session:
        # Each member's blob claim was taken back once it was recorded.
        pending = select(func.sum(BlobClaim.pending)).where(
            BlobClaim.sha256.in_([m.sha256 for m in members])
        )
        assert session.scalar(pending) == 0


def test_a_bundle_unpacked_again_after_its_lease_ran_out_records_each_member_once(
    queue: Queue,
) -> None:
    bundle_id = queue.add(_tar_gz(SS_TAN, SS_LOOP), "capture.tar.gz")
    first = worker.next_claim(queue.sessions)
    assert first is not None
    queue.expire_lease(bundle_id)
    second = worker.next_claim(queue.sessions)
    assert second is not None and second.artifact_id == bundle_id
    worker.process(queue.sessions, queue.store, second)
    worker.process(queue.sessions, queue.store, first)  # the worker thought dead comes back
    # and unpacked once more, as after a kill mid-way: the members recorded are the same.
    with queue.sessions.write.begin() as session:
        session.execute(
            update(Artifact)
            .where(Artifact.id == bundle_id)
            .values(status="parsing", claimed_at_ms=0, claim_token="gone")
        )
    assert worker.drain(queue.sessions, queue.store) == 3
    members = _members(queue, bundle_id)
    assert [m.filename.rsplit("/", 1)[1] for m in members] == ["ss-tan.txt", "ss-tinm-loop.txt"]
    assert [m.status for m in members] == ["parsed", "parsed"]
    assert queue.artifact(bundle_id).status == "parsed"


class _Killed(BaseException):
    """Stands for SIGKILL: nothing of the worker's code runs after it (no except clause)."""


def test_a_worker_killed_while_it_unpacks_a_bundle_loses_and_duplicates_nothing(
    queue: Queue,
) -> None:
    created_at = queue.checklist_computed_at()
    bundle_id = queue.add(_tar_gz(SS_TAN, SS_LOOP), "capture.tar.gz")

    class Dying(LocalArtifactStore):
        """The real store, whose process dies as the second member is about to go in."""

        def put_file(
            self, source: Any, limit: int, claim: ClaimHook = lambda _: None
        ) -> StoredBlob:
            if self.root.joinpath("stored-one").exists():
                raise _Killed
            self.root.joinpath("stored-one").touch()
            return super().put_file(source, limit, claim)

    claim = worker.next_claim(queue.sessions)
    assert claim is not None
    with pytest.raises(_Killed):
        worker.process(queue.sessions, Dying(queue.store.root), claim)
    (early,) = _members(queue, bundle_id)
    assert early.status == "pending"  # recorded before the kill: parsed meanwhile
    claimed = worker.next_claim(queue.sessions)
    assert claimed is not None and claimed.artifact_id == early.id
    worker.process(queue.sessions, queue.store, claimed)
    # The bundle is still in the killed worker's hands: no checklist for half of it.
    assert queue.checklist_computed_at() == created_at
    queue.expire_lease(bundle_id)  # its lease runs out
    assert worker.drain(queue.sessions, queue.store) == 2  # the bundle again, its 2nd member
    members = _members(queue, bundle_id)
    assert [m.filename.rsplit("/", 1)[1] for m in members] == ["ss-tan.txt", "ss-tinm-loop.txt"]
    assert [m.status for m in members] == ["parsed", "parsed"]
    assert members[0].id == early.id
    assert queue.artifact(bundle_id).status == "parsed"
    assert (queue.checklist_computed_at() or 0) >= max(m.parsed_at_ms or 0 for m in members)


def test_workers_of_one_incident_store_their_results_in_parallel(
    queue: Queue, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite runs one writer at a time")
    artifact_id = queue.add(SS_LOOP.read_bytes(), "loop.txt")
    claim = worker.next_claim(queue.sessions)
    assert claim is not None
    stored_rows = text(
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
        " WHERE c.relname = 'series' AND l.mode = 'RowExclusiveLock'"
        " AND l.pid <> pg_backend_pid()"
    )
    with queue.sessions.write.begin() as other:
        # Another worker's turn at the incident (its checklist recompute, say) ...
        incidents_repository.lock(other, queue.incident_id)
        parsing = threading.Thread(target=worker.process, args=(queue.sessions, queue.store, claim))
        parsing.start()
        # ... does not keep this one from storing its series meanwhile; it waits for its
        # turn only to finish (and see what is still queued).
        deadline = time.monotonic() + 60
        while not other.scalar(stored_rows):
            assert time.monotonic() < deadline, (
                "the worker did not store while the other held its turn"
            )
            time.sleep(0.05)
        assert queue.artifact(artifact_id).status == "parsing"
    parsing.join(60)
    assert queue.artifact(artifact_id).status == "parsed"


def test_a_missing_blob_fails_with_the_reason(queue: Queue) -> None:
    artifact_id = queue.add(SS_TAN.read_bytes())
    digest = queue.artifact(artifact_id).sha256
    queue.store.delete(digest)
    assert worker.drain(queue.sessions, queue.store) == 1
    failed = queue.artifact(artifact_id)
    assert failed.status == "failed"
    assert "missing from the store" in failed.diagnostics[0]["message"]


def test_a_bundle_queues_its_members_and_spans_their_times(queue: Queue) -> None:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in (SS_TAN, SS_LOOP):
            tar.add(path, arcname=f"rootline-web-7-20261121T072100/{path.name}")
    bundle_id = queue.add(buffer.getvalue(), "capture.tar.gz")
    claim = worker.next_claim(queue.sessions)
    assert claim is not None
    worker.process(queue.sessions, queue.store, claim)
    with queue.sessions.read() as session:
        members = service.with_members(session, queue.incident_id, [bundle_id])[1:]
    assert [m.status for m, _ in members] == ["pending", "pending"]
    assert worker.drain(queue.sessions, queue.store) == 2
    bundle = queue.artifact(bundle_id)
    parsed = [queue.artifact(m.id) for m, _ in members]
    assert {m.status for m in parsed} == {"parsed"}
    assert bundle.time_start_ms == min(m.time_start_ms or 0 for m in parsed)
    assert bundle.time_end_ms == max(m.time_end_ms or 0 for m in parsed)


def test_a_bundle_sums_up_its_refusals_past_the_diagnostics_limit(queue: Queue) -> None:
    import io
    import tarfile

    links = MAX_DIAGNOSTICS + 50
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(SS_TAN, arcname=f"host=web-7/{SS_TAN.name}")
        for n in range(links):
            link = tarfile.TarInfo(f"host=web-7/link-{n}")
            link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(link)
    bundle_id = queue.add(buffer.getvalue(), "links.tar.gz")
    assert worker.drain(queue.sessions, queue.store) == 2
    bundle = queue.artifact(bundle_id)
    assert (bundle.kind, bundle.status) == ("bundle", "partial")
    assert len(bundle.diagnostics) == MAX_DIAGNOSTICS
    assert bundle.diagnostics_dropped == links - MAX_DIAGNOSTICS


def test_reparse_keeps_the_old_data_until_the_new_parse_lands(
    client: TestClient, incident_id: str
) -> None:
    url = f"/api/incidents/{incident_id}/artifacts"
    body = client.post(url, content=SS_LOOP.read_bytes(), params={"wait": 60}).json()
    artifact = body["artifacts"][0]
    app = client.app
    app.state.parse_workers.stop()  # type: ignore[attr-defined]
    queued = client.post(f"{url}/{artifact['id']}/reparse")
    assert queued.status_code == 202
    assert queued.json()["artifacts"][0]["status"] == "pending"
    series = client.get(f"/api/incidents/{incident_id}/series").json()
    assert series["total"] == artifact["series_count"] > 0


def test_workers_hear_of_work_queued_by_another_process_at_once(
    queue: Queue, database_url: str
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's; on SQLite workers poll")
    # Polling once a minute: only the notification can make it parse within seconds.
    workers = worker.ParseWorkers(queue.sessions, queue.store, count=1, poll_s=60)
    workers.start()
    try:
        time.sleep(1.0)  # listening, and idle after its first look
        artifact_id = queue.add(SS_TAN.read_bytes())  # as another process would
        deadline = time.monotonic() + 20
        while queue.artifact(artifact_id).status != "parsed":
            assert time.monotonic() < deadline, "the worker was not woken"
            time.sleep(0.05)
    finally:
        workers.stop()
    # Stopped means stopped: no thread left listening on a connection of its own.
    assert workers._listener is not None and not workers._listener.is_alive()


def test_a_stopping_process_gives_its_unfinished_parse_back_to_the_queue(queue: Queue) -> None:
    artifact_id = queue.add(SS_LOOP.read_bytes() * 200, "big.txt")  # about 1 s to parse
    workers = worker.ParseWorkers(queue.sessions, queue.store, count=1, poll_s=0.05)
    workers.start()
    deadline = time.monotonic() + 30
    while queue.artifact(artifact_id).status != "parsing":
        assert time.monotonic() < deadline, "no worker took the artifact"
        time.sleep(0.01)
    workers.stop(timeout_s=0)
    back = queue.artifact(artifact_id)
    assert (back.status, back.claim_token, back.parse_attempts) == ("pending", None, 0)
    # The abandoned parse runs to its end (a thread cannot be interrupted); its result,
    # no longer backed by a claim, is dropped.
    for thread in workers._threads:
        thread.join(60)
        assert not thread.is_alive()
    after = queue.artifact(artifact_id)
    assert (after.status, after.series_count) == ("pending", 0)


def test_a_claim_committed_as_the_process_stops_is_given_back(
    queue: Queue, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claim is committed before the worker records it: a stop in between found nothing
    to give back, and the artifact waited for its lease to run out (flaky under load)."""
    artifact_id = queue.add(SS_LOOP.read_bytes(), "ss.txt")
    claimed = threading.Event()
    take = worker.next_claim

    def slow_to_record(sessions: Any) -> Any:
        claim = take(sessions)
        if claim is not None:
            claimed.set()
            time.sleep(0.5)  # the thread descheduled between the commit and the record
        return claim

    monkeypatch.setattr(worker, "next_claim", slow_to_record)
    workers = worker.ParseWorkers(queue.sessions, queue.store, count=1, poll_s=0.05)
    workers.start()
    assert claimed.wait(30), "no worker took the artifact"
    assert queue.artifact(artifact_id).status == "parsing"
    workers.stop(timeout_s=0)
    back = queue.artifact(artifact_id)
    assert (back.status, back.claim_token, back.parse_attempts) == ("pending", None, 0)
    for thread in workers._threads:
        thread.join(60)


def test_the_cyclic_collector_is_paused_while_a_result_is_stored(
    queue: Queue, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each full collection during the store would walk the whole parse result again."""
    import gc

    enabled_while_storing: list[bool] = []
    store_events = worker.events_service.store

    def store(*args: Any, **kwargs: Any) -> int:
        enabled_while_storing.append(gc.isenabled())
        return store_events(*args, **kwargs)

    monkeypatch.setattr(worker.events_service, "store", store)
    queue.add(
        (FIXTURES_DIR / "gc_unified" / "g1-time-uptime-level-tags.log").read_bytes(), "gc.log"
    )
    assert worker.drain(queue.sessions, queue.store) == 1
    assert enabled_while_storing == [False]
    assert gc.isenabled()


def test_a_started_worker_reads_the_rules_before_any_work(queue: Queue) -> None:
    """The first bundle's verdicts do not wait for the rule files to be read and parsed."""
    detectors_registry._checklists.cache_clear()
    workers = worker.ParseWorkers(queue.sessions, queue.store, count=1, poll_s=60)
    workers.start()
    try:
        deadline = time.monotonic() + 20
        while detectors_registry._checklists.cache_info().currsize == 0:
            assert time.monotonic() < deadline, "the rules were not read"
            time.sleep(0.01)
    finally:
        workers.stop()
