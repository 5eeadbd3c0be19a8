"""Upload options and times no page could show: refused at the API, or dropped with a
diagnostic when a parsed file holds them; never an artifact stuck in ``parsing``."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from rootline.artifacts import worker
from rootline.artifacts.models import Artifact
from rootline.settings import Settings
from rootline.timeutil import MAX_INSTANT_MS
from tests.artifacts.test_endpoints import upload_raw
from tests.artifacts.test_worker import SS_LOOP, SS_TAN, Queue, queue  # noqa: F401
from tests.conftest import TEST_DATABASE

HUGE_OFFSETS = ["inf", "-inf", "nan", "1e308", "9e15", "-9e15"]


def stored_blobs(settings: Settings) -> list[Path]:
    root = settings.resolved_artifacts_dir
    return [p for p in root.rglob("*") if p.is_file() and ".tmp" not in p.parts]


@pytest.mark.parametrize("offset", HUGE_OFFSETS)
def test_a_clock_offset_that_is_not_finite_or_huge_is_refused_before_storing(
    client: TestClient, incident_id: str, settings: Settings, offset: str
) -> None:
    url = f"/api/incidents/{incident_id}/artifacts"
    raw = client.post(
        url,
        content=SS_TAN.read_bytes(),
        params={"clock_offset_s": offset},
        headers={"Content-Type": "application/octet-stream"},
    )
    multipart = client.post(
        url,
        files=[("files", ("ss.txt", SS_TAN.read_bytes(), "text/plain"))],
        data={"clock_offset_s": offset},
    )
    for response in (raw, multipart):
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "invalid_clock_offset"
    assert client.get(url).json() == []
    assert stored_blobs(settings) == []


@pytest.mark.parametrize("jvm_start", ["8.7e15", "-1", "inf", "1e400", "9999-12-31T00:00:00"])
def test_a_jvm_start_outside_1970_to_2200_is_refused(
    client: TestClient, incident_id: str, jvm_start: str
) -> None:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=SS_TAN.read_bytes(),
        params={"jvm_start": jvm_start},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "invalid_jvm_start"


@pytest.mark.parametrize(
    "window",
    [
        {"window_end_ms": 9_000_000_000_000_000},
        {"window_start_ms": -1},
        {"window_end_ms": MAX_INSTANT_MS + 1},
    ],
)
def test_a_window_outside_1970_to_2200_is_refused(
    client: TestClient, incident_id: str, window: dict[str, int]
) -> None:
    response = client.patch(f"/api/incidents/{incident_id}", json=window)
    assert response.status_code == 422, response.text
    field = next(iter(window))
    assert field in response.text
    incident = client.get(f"/api/incidents/{incident_id}").json()
    assert (incident["window_start_ms"], incident["window_end_ms"]) == (None, None)


def test_parsed_times_past_2200_are_dropped_with_a_diagnostic_and_the_rest_kept(
    client: TestClient, incident_id: str
) -> None:
    # The first snapshot in 2199, the next ones from a clock that jumped to the year 3000.
    late = (
        SS_LOOP.read_text().replace("=== 2026-", "=== 3000-").replace("=== 3000-", "=== 2199-", 1)
    )
    assert late.count("=== 3000-") == 3
    artifact = upload_raw(client, incident_id, late.encode(), filename="late.txt")["artifacts"][0]
    assert artifact["status"] == "partial", artifact
    assert any("outside 1970-01-01..2200-01-01" in d["message"] for d in artifact["diagnostics"])
    assert artifact["series_count"] > 0
    assert artifact["time_end_ms"] <= MAX_INSTANT_MS
    incident = client.get(f"/api/incidents/{incident_id}").json()
    assert incident["window_end_ms"] <= MAX_INSTANT_MS
    listed = client.get("/api/incidents").json()["items"]
    assert all((i["window_end_ms"] or 0) <= MAX_INSTANT_MS for i in listed)


OFFSETS_ON_DATABASE = [math.inf, -math.inf, 1e308] + (
    # SQLite stores NaN as NULL, which the NOT NULL column refuses: only PostgreSQL holds it.
    [math.nan] if TEST_DATABASE == "postgresql" else []
)


@pytest.mark.parametrize("offset", OFFSETS_ON_DATABASE)
@pytest.mark.parametrize("giving_up", [False, True], ids=["parse", "give-up"])
def test_a_stored_offset_that_is_not_sane_never_leaves_the_artifact_parsing(
    queue: Queue,  # noqa: F811
    offset: float,
    giving_up: bool,
) -> None:
    """Offsets stored before the API checked them: the parse, and the give-up path after a
    worker was cut off too often, both end the artifact instead of raising."""
    artifact_id = queue.add(SS_TAN.read_bytes())
    values: dict[str, object] = {"clock_offset_s": offset}
    if giving_up:
        values |= {"status": "parsing", "claimed_at_ms": 0, "parse_attempts": worker.MAX_ATTEMPTS}
    with queue.sessions.write.begin() as session:
        session.execute(update(Artifact).where(Artifact.id == artifact_id).values(**values))
    assert worker.drain(queue.sessions, queue.store) == 1
    done = queue.artifact(artifact_id)
    assert done.status == ("failed" if giving_up else "partial")
    assert done.claim_token is None
    assert any("clock offset" in d["message"] for d in done.diagnostics)
    assert worker.next_claim(queue.sessions) is None


def test_instants_stored_before_the_bounds_are_not_shown(
    client: TestClient, incident_id: str, database_url: str
) -> None:
    """An incident whose window (or an artifact's times) was stored past 2200 before the API
    bounded it lists without a window instead of breaking every page that lists it."""
    import uuid

    from rootline.incidents.models import Incident
    from tests.conftest import db_session

    upload_raw(client, incident_id, SS_TAN.read_bytes(), filename="ss.txt")
    with db_session(database_url) as session:
        session.execute(
            update(Artifact)
            .where(Artifact.incident_id == uuid.UUID(incident_id))
            .values(time_end_ms=9_000_000_000_000_000)
        )
        incident = session.get(Incident, uuid.UUID(incident_id))
        assert incident is not None
        incident.window_start_ms = -9_000_000_000_000_000
    shown = client.get(f"/api/incidents/{incident_id}").json()
    assert (shown["window_start_ms"], shown["window_end_ms"]) == (None, None)
    (listed,) = client.get("/api/incidents").json()["items"]
    assert (listed["window_start_ms"], listed["window_end_ms"]) == (None, None)


@pytest.mark.parametrize("route", ["timeline", "events"])
def test_a_range_bound_past_the_instants_shown_is_moved_to_the_nearest_end(
    client: TestClient, incident_id: str, route: str
) -> None:
    url = f"/api/incidents/{incident_id}/{route}"
    assert client.get(url, params={"from": "-5000", "to": "9e18"}).status_code == 200
    for bad in ("inf", "nan", "1e400"):
        response = client.get(url, params={"from": bad})
        assert (response.status_code, response.json()["code"]) == (400, "invalid_time"), bad
