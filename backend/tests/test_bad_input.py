"""Bad input is a 4xx that names the field, never a 500 (SQLite and PostgreSQL alike).

Integers past int64 and numbers past float (``1e400``) in query and body fields, NUL bytes
in any text (PostgreSQL refuses them in text columns: a DataError, which was a 500),
a multipart ``host`` longer than its column, and uploads racing each other or a delete.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from fastapi.testclient import TestClient

from rootline.artifacts.service import UploadOptions
from rootline.storage import StoredBlob
from tests.conftest import FIXTURES_DIR, db_session

if TYPE_CHECKING:
    from rootline.incidents.models import Incident

HUGE = str(2**64)


def named(response: Any, field: str) -> bool:
    """Whether a 4xx answer names ``field`` (in its message or an error's location)."""
    body = response.json()
    text = json.dumps(body)
    return 400 <= response.status_code < 500 and field in text


QUERY_CASES = [
    ("/api/incidents", {"offset": HUGE}, "offset"),
    ("/api/incidents", {"limit": HUGE}, "limit"),
    ("/api/incidents", {"q": "a\x00b"}, "q"),
    ("{incident}/series", {"offset": HUGE}, "offset"),
    ("{incident}/series", {"name": "tcp\x00"}, "name"),
    ("{incident}/series", {"host": "web\x00"}, "host"),
    ("{incident}/events", {"offset": HUGE}, "offset"),
    ("{incident}/events", {"kind": "gc\x00"}, "kind"),
    ("{incident}/facts", {"offset": HUGE}, "offset"),
    ("{incident}/facts", {"prefix": "net\x00"}, "prefix"),
    ("{incident}/timeline", {"series": "tcp\x00x"}, "series"),
    ("{incident}/timeline", {"series": "x", "max_points": "1e400"}, "max_points"),
    ("{incident}/timeline", {"series": "x", "max_points": HUGE}, "max_points"),
    ("{incident}/timeline", {"series": "x", "from": "Inf"}, "from"),
    ("{incident}/timeline", {"series": "x", "to": "1e400"}, "to"),
    ("{incident}/events", {"from": "-Inf"}, "from"),
]


@pytest.mark.parametrize(("path", "params", "field"), QUERY_CASES)
def test_bad_query_values_are_refused_by_name(
    client: TestClient, incident_id: str, path: str, params: dict[str, str], field: str
) -> None:
    url = path.replace("{incident}", f"/api/incidents/{incident_id}")
    response = client.get(url, params=params)
    assert named(response, field), (response.status_code, response.text)


BODY_CASES = [
    ("post", "/api/incidents", {"title": "a\x00b"}, "title"),
    ("post", "/api/incidents", {"title": "t", "summary": "\x00"}, "summary"),
    ("patch", "{incident}", {"summary": "x\x00"}, "summary"),
    ("post", "{incident}/annotations", {"from_ms": 1, "text": "\x00"}, "text"),
    ("post", "/api/tokens", {"name": "ci\x00"}, "name"),
    ("post", "{incident}/shares", {"label": "l\x00"}, "label"),
]


@pytest.mark.parametrize(("method", "path", "body", "field"), BODY_CASES)
def test_bad_body_values_are_refused_by_name(
    client: TestClient,
    incident_id: str,
    method: str,
    path: str,
    body: dict[str, Any],
    field: str,
) -> None:
    url = path.replace("{incident}", f"/api/incidents/{incident_id}")
    response = client.request(method, url, json=body)
    assert named(response, field), (response.status_code, response.text)


@pytest.mark.parametrize(
    ("path", "raw", "field"),
    [
        ("{incident}/annotations", '{"from_ms": 1e400, "text": "x"}', "from_ms"),
        ("{incident}/annotations", '{"from_ms": ' + HUGE + ', "text": "x"}', "from_ms"),
        ("/api/incidents", '{"title": "t\\u0000"}', "title"),
        ("/api/incidents", '{"title": "t", "summary": NaN}', "summary"),
    ],
)
def test_raw_json_past_the_types_is_refused(
    client: TestClient, incident_id: str, path: str, raw: str, field: str
) -> None:
    url = path.replace("{incident}", f"/api/incidents/{incident_id}")
    response = client.post(url, content=raw, headers={"Content-Type": "application/json"})
    assert named(response, field), (response.status_code, response.text)


def test_anonymous_login_with_a_nul_byte(anon_client: TestClient) -> None:
    response = anon_client.post("/api/auth/login", json={"username": "ad\x00min", "password": "x"})
    assert named(response, "username"), (response.status_code, response.text)


def test_a_nul_byte_in_a_path(client: TestClient) -> None:
    response = client.get("/api/shared/abc%00def")
    assert 400 <= response.status_code < 500, response.text


def _upload(client: TestClient, incident_id: str, **fields: str) -> Any:
    content = (FIXTURES_DIR / "ss" / "ss-s.txt").read_bytes()
    return client.post(
        f"/api/incidents/{incident_id}/artifacts",
        data=fields,
        files={"files": ("ss-s.txt", content, "text/plain")},
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"host": "h" * 300}, "host"),
        ({"host": "web\x00"}, "host"),
        ({"kind": "k" * 100}, "kind"),
        ({"timezone": "UTC\x00"}, "timezone"),
    ],
)
def test_bad_multipart_fields_are_refused_by_name(
    client: TestClient, incident_id: str, fields: dict[str, str], field: str
) -> None:
    response = _upload(client, incident_id, **fields)
    assert named(response, field), (response.status_code, response.text)


def test_a_nul_byte_in_an_uploaded_file_name(client: TestClient, incident_id: str) -> None:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": "ss\x00.txt"},
        content=b"x",
        headers={"Content-Type": "application/octet-stream"},
    )
    assert named(response, "filename"), (response.status_code, response.text)


# --- Uploads racing each other, or a delete ----------------------------------------------------


def _incident(database_url: str) -> Incident:
    from rootline.incidents.models import Incident

    with db_session(database_url) as session:
        incident = Incident(title="race", timezone="UTC", status="draft", created_at_ms=1)
        session.add(incident)
        session.flush()
        session.expunge(incident)
        return incident


BLOB = StoredBlob(sha256="ab" * 32, size_bytes=3)
OPTIONS = UploadOptions(filename="same.txt")


def test_concurrent_identical_uploads_record_one_artifact(database_url: str) -> None:
    """Both found no artifact with these bytes and both inserted one: the second met the
    unique constraint (a 500 on PostgreSQL). It now answers with the first's artifact."""
    from rootline.artifacts import service
    from rootline.artifacts.worker import sessions_for
    from rootline.db import make_engine

    incident = _incident(database_url)
    engine = make_engine(database_url)
    sessions = sessions_for(engine)
    try:
        with sessions.write.begin() as first:
            mine = service.record(first, incident=incident, blob=BLOB, options=OPTIONS)
            with ThreadPoolExecutor(max_workers=1) as pool:

                def second_upload() -> service.Ingested:
                    with sessions.write.begin() as second:
                        return service.record(second, incident=incident, blob=BLOB, options=OPTIONS)

                theirs = pool.submit(second_upload)
                time.sleep(1)  # the second upload is inserting, waiting on the first
                first.commit()
                ingested = theirs.result(timeout=60)
    finally:
        engine.dispose()
    assert mine.created and not ingested.created
    assert ingested.artifact.id == mine.artifact.id


def test_an_upload_to_an_incident_deleted_meanwhile_is_404(database_url: str) -> None:
    from rootline.artifacts import service
    from rootline.errors import NotFound
    from rootline.incidents.models import Incident

    incident = _incident(database_url)  # loaded when the upload started
    with db_session(database_url) as session:
        gone = session.get(Incident, incident.id)
        assert gone is not None
        session.delete(gone)
    with db_session(database_url) as session, pytest.raises(NotFound) as refused:
        service.record(session, incident=incident, blob=BLOB, options=OPTIONS)
    assert refused.value.code == "incident_not_found"
