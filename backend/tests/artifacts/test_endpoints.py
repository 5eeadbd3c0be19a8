"""Ingest over HTTP: multipart and raw bodies, dedup, raw download, re-parse and bad input."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import tarfile

import pytest
from fastapi.testclient import TestClient

from rootline.artifacts.endpoints import attachment
from tests.conftest import FIXTURES_DIR, LiveServer

SS_TAN = FIXTURES_DIR / "ss" / "ss-tan.txt"
SS_LOOP = FIXTURES_DIR / "ss" / "ss-tinm-loop.txt"
APP_LOG = FIXTURES_DIR / "app_log" / "checkout-errors-handwritten.log"


def upload_raw(client: TestClient, incident_id: str, data: bytes, **params: str) -> dict:
    """Upload and wait for the parse workers (201: everything parsed)."""
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=data,
        params={"wait": "60", **params},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_multipart_upload_of_many_files(client: TestClient, incident_id: str) -> None:
    files = [
        ("files", (SS_TAN.name, SS_TAN.read_bytes(), "text/plain")),
        ("files", (SS_LOOP.name, SS_LOOP.read_bytes(), "text/plain")),
    ]
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        files=files,
        data={"host": "provider-1", "clock_offset_s": "2.5"},
        params={"wait": 60},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["created"] == [True, True]
    for artifact in body["artifacts"]:
        assert artifact["kind"] == "ss"
        assert artifact["status"] == "parsed", artifact["diagnostics"]
        assert artifact["host"] == "provider-1"
        assert artifact["clock_offset_s"] == 2.5
        assert artifact["series_count"] > 0
    listed = client.get(f"/api/incidents/{incident_id}/artifacts").json()
    assert {a["filename"] for a in listed} == {SS_TAN.name, SS_LOOP.name}
    assert client.get(f"/api/incidents/{incident_id}").json()["artifact_count"] == 2


def test_raw_body_upload_dedup_and_download(client: TestClient, incident_id: str) -> None:
    data = SS_LOOP.read_bytes()
    first = upload_raw(client, incident_id, data, filename="loop.txt", host="consumer-3")
    again = upload_raw(client, incident_id, data, filename="loop-copy.txt")
    assert first["created"] == [True]
    assert again["created"] == [False]
    artifact = first["artifacts"][0]
    assert again["artifacts"][0]["id"] == artifact["id"]
    assert artifact["sha256"] == hashlib.sha256(data).hexdigest()
    assert artifact["size_bytes"] == len(data)

    raw = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/raw")
    assert raw.status_code == 200
    assert raw.content == data
    assert "loop.txt" in raw.headers["content-disposition"]

    one = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}").json()
    assert one["time_start_ms"] < one["time_end_ms"]


def test_same_bytes_in_two_incidents_are_two_artifacts(
    client: TestClient, incident_id: str
) -> None:
    other = client.post("/api/incidents", json={"title": "other"}).json()["id"]
    data = SS_TAN.read_bytes()
    a = upload_raw(client, incident_id, data)["artifacts"][0]
    b = upload_raw(client, other, data)["artifacts"][0]
    assert a["id"] != b["id"]
    assert a["sha256"] == b["sha256"]
    # Deleting one incident keeps the blob the other still uses.
    assert client.delete(f"/api/incidents/{incident_id}").status_code == 204
    assert client.get(f"/api/incidents/{other}/artifacts/{b['id']}/raw").content == data


def test_the_same_bytes_from_two_hosts_are_two_artifacts_over_one_blob(
    client: TestClient, incident_id: str, settings
) -> None:
    data = SS_TAN.read_bytes()
    a = upload_raw(client, incident_id, data, host="web-1")
    b = upload_raw(client, incident_id, data, host="web-2")
    again = upload_raw(client, incident_id, data, host="web-2")
    unnamed = upload_raw(client, incident_id, data)
    assert (a["created"], b["created"], again["created"]) == ([True], [True], [False])
    first, second = a["artifacts"][0], b["artifacts"][0]
    assert first["id"] != second["id"]
    assert again["artifacts"][0]["id"] == second["id"]
    # An upload naming no host repeats one of them rather than adding a host-less copy.
    assert unnamed["created"] == [False]
    assert {first["host"], second["host"]} == {"web-1", "web-2"}
    hosts = {
        s["labels"]["host"]
        for s in client.get(
            f"/api/incidents/{incident_id}/series", params={"name": "tcp.state.*"}
        ).json()["items"]
    }
    assert hosts == {"web-1", "web-2"}
    blobs = [p for p in settings.resolved_artifacts_dir.glob("*/*") if p.is_file()]
    assert [p.name for p in blobs] == [first["sha256"]]
    for artifact in (first, second):
        raw = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/raw")
        assert raw.content == data


def test_identical_members_from_two_host_folders_of_a_bundle_are_both_kept(
    client: TestClient, incident_id: str
) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for host in ("db-1", "db-2"):
            tar.add(SS_TAN, arcname=f"hosts/{host}/{SS_TAN.name}")
    body = upload_raw(client, incident_id, buffer.getvalue(), filename="capture.tar.gz")
    _bundle, *members = body["artifacts"]
    assert sorted(m["host"] for m in members) == ["db-1", "db-2"]
    assert len({m["sha256"] for m in members}) == 1


def test_deleting_the_last_user_of_a_blob_removes_it(
    client: TestClient, incident_id: str, settings
) -> None:
    artifact = upload_raw(client, incident_id, SS_TAN.read_bytes())["artifacts"][0]
    blob = settings.resolved_artifacts_dir / artifact["sha256"][:2] / artifact["sha256"]
    assert blob.is_file()
    assert client.delete(f"/api/incidents/{incident_id}").status_code == 204
    assert not blob.exists()


def test_reparse_gives_the_same_result(client: TestClient, incident_id: str) -> None:
    artifact = upload_raw(client, incident_id, SS_LOOP.read_bytes())["artifacts"][0]
    series_before = client.get(f"/api/incidents/{incident_id}/series").json()["total"]
    reparsed = client.post(
        f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/reparse", params={"wait": 60}
    )
    assert reparsed.status_code == 201
    assert reparsed.json()["created"] == [False]
    again = reparsed.json()["artifacts"][0]
    assert again["series_count"] == artifact["series_count"]
    assert again["parsed_at_ms"] > artifact["parsed_at_ms"]
    assert client.get(f"/api/incidents/{incident_id}/series").json()["total"] == series_before


GC_UPTIME_ONLY = FIXTURES_DIR / "gc_unified" / "parallel-uptime.log"


def test_reparse_with_a_jvm_start_anchors_an_uptime_only_gc_log(
    client: TestClient, incident_id: str
) -> None:
    base = f"/api/incidents/{incident_id}"
    artifact = upload_raw(client, incident_id, GC_UPTIME_ONLY.read_bytes(), filename="gc.log")
    before = artifact["artifacts"][0]
    assert before["anchored"] is False and before["jvm_start_ms"] is None
    start_ms = 1_795_000_000_000
    reparsed = client.post(
        f"{base}/artifacts/{before['id']}/reparse",
        params={"wait": 60},
        json={"jvm_start": "2026-11-18T11:06:40Z", "host": "app-7", "clock_offset_s": 1.5},
    )
    assert reparsed.status_code == 201, reparsed.text
    after = reparsed.json()["artifacts"][0]
    assert after["anchored"] is True and after["jvm_start_ms"] == start_ms
    assert after["host"] == "app-7" and after["clock_offset_s"] == 1.5
    assert start_ms < after["time_start_ms"] < start_ms + 60_000
    # Left out: kept; null: cleared.
    kept = client.post(f"{base}/artifacts/{before['id']}/reparse", params={"wait": 60}, json={})
    assert kept.json()["artifacts"][0]["jvm_start_ms"] == start_ms
    cleared = client.post(
        f"{base}/artifacts/{before['id']}/reparse", params={"wait": 60}, json={"jvm_start": None}
    )
    assert cleared.json()["artifacts"][0]["anchored"] is False


def test_reparse_options_are_checked_and_the_field_named(
    client: TestClient, incident_id: str
) -> None:
    artifact = upload_raw(client, incident_id, SS_LOOP.read_bytes())["artifacts"][0]
    url = f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/reparse"
    for body, field in (
        ({"jvm_start": "yesterday"}, "jvm_start"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"kind": "tea_leaves"}, "kind"),
        ({"clock_offset_s": 1e12}, "clock_offset_s"),
    ):
        refused = client.post(url, json=body)
        assert refused.status_code == 422, refused.text
        assert refused.json()["errors"][0]["loc"] == ["body", field]


def test_binary_upload_is_kept_and_failed_with_a_reason(
    client: TestClient, incident_id: str
) -> None:
    data = bytes(range(256)) * 64
    artifact = upload_raw(client, incident_id, data, filename="core.bin")["artifacts"][0]
    assert artifact["status"] == "failed"
    assert "binary" in artifact["diagnostics"][0]["message"]
    raw = client.get(f"/api/incidents/{incident_id}/artifacts/{artifact['id']}/raw")
    assert raw.content == data


def test_empty_file(client: TestClient, incident_id: str) -> None:
    artifact = upload_raw(client, incident_id, b"", filename="empty.txt")["artifacts"][0]
    assert artifact["status"] == "failed"
    assert artifact["size_bytes"] == 0
    assert "empty" in artifact["diagnostics"][0]["message"]


def test_unrecognised_text(client: TestClient, incident_id: str) -> None:
    artifact = upload_raw(client, incident_id, b"hello\nthis is a shopping list\n")["artifacts"][0]
    assert (artifact["kind"], artifact["status"]) == ("unknown", "failed")
    assert "recognise" in artifact["diagnostics"][0]["message"]


def test_wrong_encoding_is_read_with_a_diagnostic(client: TestClient, incident_id: str) -> None:
    text = SS_TAN.read_bytes()
    data = text.replace(b"LISTEN", b"LISTEN \xe9t\xe9", 1)  # Latin-1 bytes, invalid UTF-8
    artifact = upload_raw(client, incident_id, data)["artifacts"][0]
    assert artifact["kind"] == "ss"
    assert artifact["status"] == "partial"
    assert any("UTF-8" in d["message"] for d in artifact["diagnostics"])


def test_truncated_file_keeps_what_was_readable(client: TestClient, incident_id: str) -> None:
    data = SS_LOOP.read_bytes()
    cut = data[: len(data) // 2 - 17]  # mid-line
    artifact = upload_raw(client, incident_id, cut)["artifacts"][0]
    assert artifact["kind"] == "ss"
    assert artifact["status"] in {"parsed", "partial"}
    assert artifact["series_count"] > 0


def test_a_file_that_is_99_percent_valid(client: TestClient, incident_id: str) -> None:
    lines = SS_LOOP.read_text().splitlines(keepends=True)
    garbage_at = [len(lines) // 3, 2 * len(lines) // 3]
    for offset, index in enumerate(garbage_at):
        lines.insert(index + offset, "@@@ corrupted line #$%^ @@@\n")
    artifact = upload_raw(client, incident_id, "".join(lines).encode())["artifacts"][0]
    assert artifact["status"] == "partial"
    reported = sorted(d["line"] for d in artifact["diagnostics"])
    assert reported == [garbage_at[0] + 1, garbage_at[1] + 2]
    clean = upload_raw(client, incident_id, SS_LOOP.read_bytes())["artifacts"][0]
    assert artifact["series_count"] == clean["series_count"]


def test_upload_over_the_limit_is_refused_before_reading(
    client: TestClient, incident_id: str, settings
) -> None:
    too_big = b"x" * (settings.max_upload_bytes + 1)
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=too_big,
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 413
    assert response.json()["code"] == "file_too_large"
    multipart = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        files=[("files", ("big.txt", too_big, "text/plain"))],
    )
    assert multipart.status_code == 413
    assert "big.txt" in multipart.json()["message"]
    assert client.get(f"/api/incidents/{incident_id}/artifacts").json() == []
    leftovers = list((settings.resolved_artifacts_dir).rglob("*"))
    assert [p for p in leftovers if p.is_file()] == []


def test_invalid_options_are_refused_before_anything_is_stored(
    client: TestClient, incident_id: str, settings
) -> None:
    url = f"/api/incidents/{incident_id}/artifacts"
    raw = client.post(
        url,
        content=SS_TAN.read_bytes(),
        params={"timezone": "Mars/Olympus"},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert (raw.status_code, raw.json()["code"]) == (400, "invalid_timezone")
    multipart = client.post(
        url,
        files=[("files", (SS_TAN.name, SS_TAN.read_bytes(), "text/plain"))],
        data={"jvm_start": "yesterday-ish"},
    )
    assert (multipart.status_code, multipart.json()["code"]) == (400, "invalid_jvm_start")
    stored = [p for p in settings.resolved_artifacts_dir.rglob("*") if p.is_file()]
    assert stored == []


def test_path_in_a_filename_is_dropped(client: TestClient, incident_id: str) -> None:
    artifact = upload_raw(client, incident_id, SS_TAN.read_bytes(), filename="../../etc/passwd")[
        "artifacts"
    ][0]
    assert artifact["filename"] == "passwd"


def test_bundle_members_become_artifacts(client: TestClient, incident_id: str) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in (SS_TAN, SS_LOOP):
            tar.add(path, arcname=f"rootline-web-7-20261121T072100/{path.name}")
        evil = tarfile.TarInfo("../escape.txt")
        evil.size = 3
        tar.addfile(evil, io.BytesIO(b"bad"))
    body = upload_raw(client, incident_id, buffer.getvalue(), filename="capture.tar.gz")
    bundle, *members = body["artifacts"]
    assert bundle["kind"] == "bundle"
    assert bundle["status"] == "partial"
    assert any("escape.txt" in d["message"] for d in bundle["diagnostics"])
    assert len(members) == 2
    for member in members:
        assert member["parent_id"] == bundle["id"]
        assert member["host"] == "web-7"
        assert member["kind"] == "ss"


def test_unknown_incident_and_artifact(client: TestClient, incident_id: str) -> None:
    nobody = "00000000-0000-0000-0000-000000000000"
    assert client.post(f"/api/incidents/{nobody}/artifacts", content=b"x").status_code == 404
    missing = client.get(f"/api/incidents/{incident_id}/artifacts/{nobody}")
    assert (missing.status_code, missing.json()["code"]) == (404, "artifact_not_found")


def test_a_filename_with_cr_lf_downloads_from_a_real_server(server: LiveServer) -> None:
    # The test client accepts any header; uvicorn refuses to send a CR or LF in one, so
    # before RFC 6266 encoding the download of such a file died before its first byte.
    incident = server.http.post("/api/incidents", json={"title": "names"}).json()["id"]
    data = SS_TAN.read_bytes()
    uploaded = server.http.post(
        f"/api/incidents/{incident}/artifacts",
        params={"filename": 'evil\r\nSet-Cookie: x=1\t"é".txt', "wait": 60},
        content=data,
        headers={"Content-Type": "application/octet-stream"},
    )
    assert uploaded.status_code == 201, uploaded.text
    artifact = uploaded.json()["artifacts"][0]
    raw = server.http.get(f"/api/incidents/{incident}/artifacts/{artifact['id']}/raw")
    assert raw.status_code == 200
    assert raw.content == data
    assert "set-cookie" not in raw.headers
    assert raw.headers["content-disposition"] == (
        'attachment; filename="evilSet-Cookie: x=1___.txt"; '
        "filename*=UTF-8''evilSet-Cookie%3A%20x%3D1%22%C3%A9%22.txt"
    )


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("loop.txt", "attachment; filename=\"loop.txt\"; filename*=UTF-8''loop.txt"),
        ("a\x00b\x7fc\x85.txt", "attachment; filename=\"abc.txt\"; filename*=UTF-8''abc.txt"),
        ('q"b\\s;.txt', "attachment; filename=\"q_b_s;.txt\"; filename*=UTF-8''q%22b%5Cs%3B.txt"),
        ("日志.log", "attachment; filename=\"__.log\"; filename*=UTF-8''%E6%97%A5%E5%BF%97.log"),
        ("\r\n", "attachment; filename=\"download\"; filename*=UTF-8''download"),
    ],
)
def test_content_disposition_per_rfc_6266(filename: str, expected: str) -> None:
    assert attachment(filename) == expected


def test_a_file_without_timestamps_says_its_data_sits_at_the_upload_time(
    client: TestClient, incident_id: str
) -> None:
    """An ss listing with no timestamp line is placed at the upload time (with the clock
    offset): the artifact says so; a loop with its own timestamps does not."""
    base = f"/api/incidents/{incident_id}"
    plain = upload_raw(client, incident_id, SS_TAN.read_bytes(), filename="ss.txt")
    listing = plain["artifacts"][0]
    assert listing["time_start_ms"] == listing["uploaded_at_ms"]
    assert listing["placed_at_upload"] is True
    loop = upload_raw(client, incident_id, SS_LOOP.read_bytes(), filename="loop.txt")
    assert loop["artifacts"][0]["placed_at_upload"] is False
    shifted = client.post(
        f"{base}/artifacts/{listing['id']}/reparse",
        params={"wait": 60},
        json={"clock_offset_s": -3600},
    ).json()["artifacts"][0]
    assert shifted["time_start_ms"] == listing["uploaded_at_ms"] - 3_600_000
    assert shifted["placed_at_upload"] is True


def test_log_lines_without_a_date_say_which_date_they_were_put_on(
    client: TestClient, incident_id: str
) -> None:
    """An app log whose lines carry a time of day only is put on the upload's date: the
    artifact lists that assumption (the timeline would stretch across days unseen
    otherwise); the same log with its dates assumes nothing."""
    dated = APP_LOG.read_bytes()
    bare = dated.replace(b"2026-11-21 ", b"")
    assert bare.count(b"\n") == dated.count(b"\n") and bare != dated
    artifact = upload_raw(client, incident_id, bare, filename="clock-only.log")["artifacts"][0]
    assert artifact["kind"] == "app_log" and artifact["status"] == "parsed"
    upload_day = dt.datetime.fromtimestamp(artifact["uploaded_at_ms"] / 1000, dt.UTC).date()
    expected = [{"key": "app_log.date_assumed", "value": upload_day.isoformat()}]
    assert artifact["time_assumptions"] == expected
    assert artifact["placed_at_upload"] is False
    base = f"/api/incidents/{incident_id}/artifacts"
    assert client.get(f"{base}/{artifact['id']}").json()["time_assumptions"] == expected
    with_dates = upload_raw(client, incident_id, dated, filename="dated.log")["artifacts"][0]
    assert with_dates["time_assumptions"] == []
    listed = {a["filename"]: a["time_assumptions"] for a in client.get(base).json()}
    assert listed == {"clock-only.log": expected, "dated.log": []}
