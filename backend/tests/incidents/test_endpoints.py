from __future__ import annotations

from fastapi.testclient import TestClient


def test_create_read_update_delete(client: TestClient) -> None:
    created = client.post(
        "/api/incidents",
        json={"title": "RPC stalls", "summary": "p99 up 10x", "timezone": "Asia/Shanghai"},
    )
    assert created.status_code == 201
    body = created.json()
    assert body["status"] == "draft"
    assert body["timezone"] == "Asia/Shanghai"
    assert body["artifact_count"] == 0
    incident_id = body["id"]

    fetched = client.get(f"/api/incidents/{incident_id}").json()
    assert fetched["title"] == "RPC stalls"

    patched = client.patch(
        f"/api/incidents/{incident_id}",
        json={"status": "published", "window_start_ms": 1000, "window_end_ms": 2000},
    ).json()
    assert (patched["status"], patched["window_start_ms"], patched["window_end_ms"]) == (
        "published",
        1000,
        2000,
    )
    assert patched["title"] == "RPC stalls"

    assert client.delete(f"/api/incidents/{incident_id}").status_code == 204
    missing = client.get(f"/api/incidents/{incident_id}")
    assert missing.status_code == 404
    assert missing.json()["code"] == "incident_not_found"


def test_list_search_and_paging(client: TestClient) -> None:
    for title in ("TIME_WAIT storm", "GC pauses on order service", "accept queue overflow"):
        assert client.post("/api/incidents", json={"title": title}).status_code == 201
    everything = client.get("/api/incidents").json()
    assert everything["total"] == 3
    assert everything["items"][0]["title"] == "accept queue overflow"  # newest first
    found = client.get("/api/incidents", params={"q": "gc"}).json()
    assert [i["title"] for i in found["items"]] == ["GC pauses on order service"]
    page = client.get("/api/incidents", params={"limit": 2, "offset": 2}).json()
    assert (len(page["items"]), page["total"]) == (1, 3)
    assert client.get("/api/incidents", params={"limit": 100000}).status_code == 422


def test_invalid_input_is_a_clear_json_error(client: TestClient) -> None:
    bad_zone = client.post("/api/incidents", json={"title": "x", "timezone": "Mars/Olympus"})
    assert bad_zone.status_code == 422
    assert bad_zone.json()["code"] == "invalid_request"
    assert "Mars/Olympus" in bad_zone.text
    assert client.post("/api/incidents", json={"title": ""}).status_code == 422
    assert client.get("/api/incidents/not-a-uuid").status_code == 422
    assert (
        client.patch("/api/incidents/00000000-0000-0000-0000-000000000000", json={}).status_code
        == 404
    )


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}


def test_without_a_built_dashboard_the_root_page_is_the_api_console(client: TestClient) -> None:
    response = client.get("/", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (307, "/docs")
    assert "swagger" in client.get("/docs").text.lower()
