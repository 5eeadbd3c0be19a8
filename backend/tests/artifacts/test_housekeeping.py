"""The store sweep: dead staging files and unreferenced old blobs go, nothing else does."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from fastapi.testclient import TestClient

from rootline.artifacts import housekeeping
from rootline.db import make_engine, make_sessionmaker
from rootline.settings import Settings
from rootline.storage import LocalArtifactStore
from tests.artifacts.test_endpoints import upload_raw
from tests.conftest import FIXTURES_DIR

HOUR = 3600.0
DAY = 24 * HOUR


def aged(path: Path, seconds: float) -> Path:
    moment = time.time() - seconds
    os.utime(path, (moment, moment))
    return path


def blob(store: LocalArtifactStore, data: bytes, age_s: float) -> str:
    digest = store.put_bytes(data).sha256
    aged(store.path_for(digest), age_s)
    return digest


def wait_for_the_sweep_at_start(client: TestClient) -> housekeeping.Swept:
    deadline = time.monotonic() + 10
    while client.app.state.last_sweep is None:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "no sweep at start"
        time.sleep(0.02)
    swept: housekeeping.Swept = client.app.state.last_sweep  # type: ignore[attr-defined]
    return swept


def test_the_sweep_removes_only_what_nothing_uses(
    client: TestClient, incident_id: str, settings: Settings
) -> None:
    wait_for_the_sweep_at_start(client)
    store = LocalArtifactStore(settings.resolved_artifacts_dir)
    data = (FIXTURES_DIR / "ss" / "ss-tan.txt").read_bytes()
    upload_raw(client, incident_id, data)
    used = aged(store.path_for(hashlib.sha256(data).hexdigest()), 3 * DAY)
    orphan = blob(store, b"refused after it was stored", 2 * DAY)
    recent_orphan = blob(store, b"an upload about to record its row", HOUR)
    crashed, writing = store.tmp / "tmpcrashed", store.tmp / "tmpwriting"
    for staging in (crashed, writing):
        staging.write_bytes(b"half an upload")
    aged(crashed, 2 * HOUR)  # no write for two hours: its upload is long gone
    aged(writing, 60)
    stranger = store.root / "README"
    stranger.write_text("not ours")

    engine = make_engine(settings.resolved_database_url)
    swept = housekeeping.sweep(store, make_sessionmaker(engine))
    engine.dispose()

    assert swept == housekeeping.Swept(staging_files=1, orphan_blobs=1)
    assert not crashed.exists() and writing.exists()
    assert not store.exists(orphan)
    assert store.exists(recent_orphan)
    assert used.is_file() and stranger.is_file()
    assert [p.name for p in store.tmp.iterdir()] == ["tmpwriting"]
    artifact = client.get(f"/api/incidents/{incident_id}/artifacts").json()[0]
    raw = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/raw")
    assert raw.content == data


def test_putting_bytes_the_store_holds_restarts_their_grace_period(tmp_path: Path) -> None:
    store = LocalArtifactStore(tmp_path)
    digest = blob(store, b"member of two bundles", 2 * DAY)
    store.put_bytes(b"member of two bundles")
    assert store.path_for(digest).stat().st_mtime > time.time() - 60


def test_the_server_sweeps_when_it_starts(settings: Settings) -> None:
    from rootline.app import create_app

    store = LocalArtifactStore(settings.resolved_artifacts_dir)
    crashed = store.tmp / "tmp-left-by-a-crash"
    crashed.write_bytes(b"x" * 1000)
    aged(crashed, 2 * HOUR)
    orphan = blob(store, b"an upload refused after storing", 2 * DAY)
    app = create_app(settings)
    with TestClient(app) as client:
        swept = wait_for_the_sweep_at_start(client)
    app.state.engine.dispose()
    assert swept == housekeeping.Swept(staging_files=1, orphan_blobs=1)
    assert not crashed.exists()
    assert not store.exists(orphan)
