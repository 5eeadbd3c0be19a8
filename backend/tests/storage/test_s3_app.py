"""The whole app with its raw artifacts in S3 (moto's real server): upload, list, download, reparse."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from rootline.settings import Settings
from rootline.storage import S3ArtifactStore
from tests.conftest import FIXTURES_DIR
from tests.storage.conftest import ACCESS_KEY, REGION, SECRET_KEY, S3Server

SS_TAN = FIXTURES_DIR / "ss" / "ss-tan.txt"


@pytest.fixture()
def settings(database_url: str, tmp_path: Path, s3_server: S3Server) -> Settings:
    """Overrides the shared `settings`, so `app`, `client` and `incident_id` run on S3."""
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        load_demo=False,
        max_upload_bytes=5 * 1024 * 1024,
        storage="s3",
        s3_endpoint_url=s3_server.endpoint_url,
        s3_bucket=f"rootline-app-{uuid.uuid4().hex[:12]}",
        s3_region=REGION,
        s3_access_key_id=ACCESS_KEY,
        s3_secret_access_key=SECRET_KEY,
        s3_prefix="artifacts/",
        s3_create_bucket=True,
    )


def _series(client: TestClient, incident_id: str) -> list[tuple[object, ...]]:
    """The incident's series, without their ids (a reparse stores them anew)."""
    items = client.get(f"/api/incidents/{incident_id}/series", params={"limit": 1000}).json()
    return sorted(
        (s["name"], sorted(s["labels"].items()), s["point_count"], s["first_ms"], s["last_ms"])
        for s in items["items"]
    )


def test_upload_list_download_and_reparse_on_s3(
    client: TestClient, incident_id: str, settings: Settings, s3_server: S3Server
) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    assert isinstance(store, S3ArtifactStore)
    data = SS_TAN.read_bytes()
    digest = hashlib.sha256(data).hexdigest()

    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        files=[("files", (SS_TAN.name, data, "text/plain"))],
        data={"host": "web-1"},
        params={"wait": 60},
    )
    assert response.status_code == 201, response.text
    artifact = response.json()["artifacts"][0]
    assert artifact["sha256"] == digest
    assert artifact["status"] == "parsed", artifact
    assert s3_server.keys(settings.s3_bucket or "") == [f"artifacts/{digest[:2]}/{digest}"]
    assert not list((settings.data_dir / "artifacts").rglob("*"))  # nothing went to disk

    listed = client.get(f"/api/incidents/{incident_id}/artifacts").json()
    assert [a["id"] for a in listed] == [artifact["id"]]

    raw = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/raw")
    assert raw.status_code == 200
    assert raw.content == data
    assert raw.headers["x-content-sha256"] == digest

    series_before = _series(client, incident_id)
    reparsed = client.post(
        f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/reparse", params={"wait": 60}
    )
    assert reparsed.status_code == 201, reparsed.text
    again_parsed = reparsed.json()["artifacts"][0]
    assert again_parsed["status"] == "parsed"
    assert again_parsed["series_count"] == artifact["series_count"] > 0
    assert _series(client, incident_id) == series_before

    # A raw-body upload streams through put_stream; the same bytes are not stored twice.
    again = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=data,
        params={"filename": "again.txt", "wait": 60},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert again.status_code == 201, again.text
    assert len(s3_server.keys(settings.s3_bucket or "")) == 1


def test_health_reports_an_unreachable_bucket(client: TestClient, settings: Settings) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}
    store = client.app.state.store  # type: ignore[attr-defined]
    store.client.delete_bucket(Bucket=settings.s3_bucket)
    gone = client.get("/api/health")
    assert (gone.status_code, gone.json()["code"]) == (503, "store_unavailable")
