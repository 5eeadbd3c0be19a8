"""Every thread of a thread dump, read again from the stored file (the thread-dump view)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.conftest import FIXTURES_DIR

DUMPS = FIXTURES_DIR / "thread_dump" / "dump-changes-jdk17-jstack-2-dumps.txt"


def upload_dumps(client: TestClient, incident_id: str) -> list[dict]:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=DUMPS.read_bytes(),
        params={"wait": "60", "filename": DUMPS.name, "host": "app-1"},
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    events = client.get(
        f"/api/incidents/{incident_id}/events", params={"kind": "thread_dump"}
    ).json()["items"]
    assert len(events) == 2
    return events


def test_every_thread_of_each_dump_with_its_whole_stack(
    client: TestClient, incident_id: str
) -> None:
    first, second = upload_dumps(client, incident_id)
    dump = client.get(f"/api/incidents/{incident_id}/events/{first['id']}/threads").json()
    assert dump["dump_index"] == 0 and dump["host"] == "app-1"
    assert dump["time_ms"] == first["time_ms"]
    by_name = {t["name"]: t for t in dump["threads"]}
    payment = by_name["payment-1"]
    assert payment["state"] == "blocked" and payment["pool"] == "payment"
    assert payment["frames"][0].startswith("DumpChanges.pay(")
    assert payment["frame_count"] == len(payment["frames"]) > 2  # not cut at 8 like summaries
    assert payment["waiting_to_lock"]["class_name"] == "java.lang.Object"
    assert by_name["ledger-writer"]["locked"][0]["monitor"] == payment["waiting_to_lock"]["monitor"]
    assert by_name["Reference Handler"]["daemon"] is True
    assert by_name["VM Thread"]["vm"] is True
    assert {"order-pool-3", "reader-2"} <= set(by_name)

    later = client.get(f"/api/incidents/{incident_id}/events/{second['id']}/threads").json()
    names = {t["name"]: t for t in later["threads"]}
    assert "order-pool-3" not in names and "report-pool-1" in names
    assert names["payment-1"]["state"] == "timed_waiting"


def test_only_thread_dump_events_of_this_incident(client: TestClient, incident_id: str) -> None:
    first, _ = upload_dumps(client, incident_id)
    other = client.post("/api/incidents", json={"title": "other"}).json()["id"]
    assert client.get(f"/api/incidents/{other}/events/{first['id']}/threads").status_code == 404
    contention = client.get(
        f"/api/incidents/{incident_id}/events", params={"kind": "thread_contention"}
    ).json()["items"]
    missing = client.get(f"/api/incidents/{incident_id}/events/{contention[0]['id']}/threads")
    assert missing.status_code == 404 and missing.json()["code"] == "dump_not_found"


def test_the_shared_view_reads_dumps_too(client: TestClient, incident_id: str) -> None:
    first, _ = upload_dumps(client, incident_id)
    token = client.post(f"/api/incidents/{incident_id}/shares", json={"label": "dumps"}).json()[
        "token"
    ]
    shared = client.get(f"/api/shared/{token}/events/{first['id']}/threads")
    assert shared.status_code == 200, shared.text
    assert len(shared.json()["threads"]) > 10
