"""The server's checklist (:class:`DatabaseIncidentData`) knows which files' times were
assumed, as ``rootline analyze`` does: an ``ss`` listing without a timestamp, uploaded beside
a GC log of 2022, rules nothing out for 2022; given its time (a clock offset), it does.
App-log lines with a time of day only say the date they were put on."""

from __future__ import annotations

import datetime as dt
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES_DIR
from tests.detectors.test_assumed_time import DATED_GC_LOG, DATED_SS_LOOP, UNDATED_SS


def upload(client: TestClient, incident_id: str, data: bytes, filename: str) -> dict[str, Any]:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=data,
        params={"wait": 60, "filename": filename},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    artifact: dict[str, Any] = response.json()["artifacts"][0]
    return artifact


def checklist(client: TestClient, incident_id: str) -> dict[str, dict[str, Any]]:
    body = client.get(f"/api/incidents/{incident_id}/checklist").json()
    return {f["id"]: f for f in body["findings"]}


def test_an_undated_listing_beside_a_gc_log_of_2022_rules_nothing_out_until_placed(
    client: TestClient, incident_id: str
) -> None:
    listing = upload(client, incident_id, UNDATED_SS.encode(), "ss.txt")
    assert listing["placed_at_upload"] is True
    upload(client, incident_id, DATED_GC_LOG.encode(), "gc.log")
    storm = checklist(client, incident_id)["time_wait_storm"]
    assert storm["verdict"] == "insufficient_data", storm["summary"]
    assert storm["summary"].startswith("Not ruled out: ")
    assert "ss.txt holds no timestamp, so its time was taken as the upload time" in storm["summary"]
    assert storm["missing"][0]["artifact"] == "ss.txt with its own time"
    assert {e["time_assumed"] for e in storm["evidence"] if e["artifact"] == "ss.txt"} == {
        "placed_at_upload"
    }
    # Given its capture time (a clock offset: the uploader's word), it is judged as dated.
    placed_at = dt.datetime(2022, 3, 14, 9, 0, 20, tzinfo=dt.UTC).timestamp() * 1000
    offset_s = (placed_at - listing["uploaded_at_ms"]) / 1000
    reparse = client.post(
        f"/api/incidents/{incident_id}/artifacts/{listing['id']}/reparse",
        params={"wait": 60},
        json={"clock_offset_s": offset_s},
    )
    assert reparse.status_code in (200, 201), reparse.text
    placed = checklist(client, incident_id)["time_wait_storm"]
    assert placed["verdict"] == "ruled_out", placed["summary"]
    assert placed["summary"].startswith("No TIME_WAIT storm")
    assert "assumed" not in placed["summary"] and "upload time" not in placed["summary"]
    assert all(e["time_assumed"] is None for e in placed["evidence"])


def test_an_undated_listing_alone_keeps_its_verdict_and_says_so(
    client: TestClient, incident_id: str
) -> None:
    upload(client, incident_id, UNDATED_SS.encode(), "ss.txt")
    storm = checklist(client, incident_id)["time_wait_storm"]
    assert storm["verdict"] == "ruled_out", storm["summary"]
    assert "Its time is assumed (ss.txt holds no timestamp" in storm["summary"]


def test_a_dated_loop_beside_the_gc_log_is_judged_as_before(
    client: TestClient, incident_id: str
) -> None:
    upload(client, incident_id, DATED_SS_LOOP.encode(), "ss-loop.txt")
    upload(client, incident_id, DATED_GC_LOG.encode(), "gc.log")
    findings = checklist(client, incident_id)
    storm = findings["time_wait_storm"]
    assert storm["verdict"] == "ruled_out"
    assert "assumed" not in storm["summary"] and "upload time" not in storm["summary"]
    assert all(e["time_assumed"] is None for f in findings.values() for e in f["evidence"])


def test_app_log_lines_without_a_date_say_the_day_they_were_put_on(
    client: TestClient, incident_id: str
) -> None:
    bare = (FIXTURES_DIR / "app_log" / "pool-saturation-jdk17-rejections.log").read_bytes()
    log = upload(client, incident_id, bare.replace(b"2026-11-21 ", b""), "app.log")
    day = log["time_assumptions"][0]["value"]
    upload(client, incident_id, DATED_GC_LOG.encode(), "gc.log")
    pool = checklist(client, incident_id)["threadpool_exhaustion"]
    assert pool["verdict"] == "confirmed", pool["summary"]
    assert (
        f"Its time is not known (app.log gives times of day without a date, put on {day},"
    ) in pool["summary"]
    assert {e["time_assumed"] for e in pool["evidence"] if e["artifact"] == "app.log"} == {
        "app_log.date_assumed"
    }
