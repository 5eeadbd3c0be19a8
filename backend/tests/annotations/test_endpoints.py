from __future__ import annotations

from fastapi.testclient import TestClient


def test_create_list_delete(client: TestClient, incident_id: str) -> None:
    url = f"/api/incidents/{incident_id}/annotations"
    hostile = '<script>alert(1)</script> <a href="javascript:alert(2)">x</a>'
    created = client.post(
        url, json={"from_ms": 2000, "to_ms": 5000, "text": hostile, "author": "ops"}
    )
    assert created.status_code == 201
    instant = client.post(url, json={"from_ms": 1000, "text": "deploy started"}).json()
    listed = client.get(url).json()
    assert [a["text"] for a in listed] == ["deploy started", hostile]  # by time, stored verbatim
    assert listed[1]["to_ms"] == 5000
    assert client.delete(f"{url}/{instant['id']}").status_code == 204
    assert [a["id"] for a in client.get(url).json()] == [created.json()["id"]]
    assert client.delete(f"{url}/{instant['id']}").status_code == 404


def test_range_must_be_ordered(client: TestClient, incident_id: str) -> None:
    bad = client.post(
        f"/api/incidents/{incident_id}/annotations", json={"from_ms": 5, "to_ms": 1, "text": "x"}
    )
    assert bad.status_code == 422


def test_annotations_of_another_incident_are_not_reachable(
    client: TestClient, incident_id: str
) -> None:
    other = client.post("/api/incidents", json={"title": "other"}).json()["id"]
    note = client.post(
        f"/api/incidents/{other}/annotations", json={"from_ms": 1, "text": "x"}
    ).json()
    assert (
        client.delete(f"/api/incidents/{incident_id}/annotations/{note['id']}").status_code == 404
    )
