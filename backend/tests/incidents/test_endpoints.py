from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from rootline.app import create_app
from rootline.settings import Settings
from tests.conftest import FIXTURES_DIR, REPO_DIR


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


def test_health(client: TestClient, settings: Settings) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}
    # The artifact directory vanishing (an unmounted volume) makes the server unhealthy.
    shutil.rmtree(settings.resolved_artifacts_dir)
    gone = client.get("/api/health")
    assert (gone.status_code, gone.json()["code"]) == (503, "store_unavailable")


def test_without_a_built_dashboard_the_root_page_is_the_api_console(
    settings: Settings, tmp_path: Path
) -> None:
    app = create_app(settings.model_copy(update={"frontend_dir": tmp_path / "not-built"}))
    with TestClient(app) as client:
        response = client.get("/", follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (307, "/docs")
        assert "swagger" in client.get("/docs").text.lower()


def test_the_built_dashboard_is_served_with_client_side_routes(
    settings: Settings, tmp_path: Path
) -> None:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<div id=root></div>")
    (dist / "assets" / "app.js").write_text("console.log(1)")
    (tmp_path / "secret.txt").write_text("outside")
    app = create_app(settings.model_copy(update={"frontend_dir": dist}))
    with TestClient(app) as client:
        for page in ("/", "/incidents/123?from=1", "/share/abc"):
            assert client.get(page).text == "<div id=root></div>"
        assert client.get("/assets/app.js").text == "console.log(1)"
        assert client.get("/api/no-such-route").json()["code"] == "not_found"
        assert "outside" not in client.get("/..%2Fsecret.txt").text


def test_list_shows_confirmed_causes_by_effective_verdict(client: TestClient) -> None:
    incident_id = client.post("/api/incidents", json={"title": "tw storm"}).json()["id"]
    bundle = REPO_DIR / "lab" / "fixtures" / "time_wait_storm" / "base"
    files = [("files", (p.name, p.read_bytes())) for p in sorted(bundle.glob("*.tar.gz"))]
    url = f"/api/incidents/{incident_id}/artifacts"
    assert client.post(url, files=files, params={"wait": 120}).status_code == 201

    def causes() -> list[str]:
        page = client.get("/api/incidents", params={"q": "tw storm"}).json()
        one = client.get(f"/api/incidents/{incident_id}").json()
        assert page["items"][0]["top_causes"] == one["top_causes"]
        return [c["id"] for c in one["top_causes"]]

    # The churn behind the storm is explained by it: one cause, not two.
    assert causes() == ["time_wait_storm"]
    client.patch(
        f"/api/incidents/{incident_id}/checklist/short_lived_connections",
        json={"verdict_override": "confirmed", "note": "the keep-alive limit is a cause too"},
    )
    client.patch(
        f"/api/incidents/{incident_id}/checklist/time_wait_storm",
        json={"verdict_override": "likely"},
    )
    assert causes() == ["short_lived_connections"]


def test_null_fields_in_an_update_leave_the_incident_as_it_was(client: TestClient) -> None:
    # Found by the API fuzzer: a null summary reached a NOT NULL column (a 500).
    incident = client.post("/api/incidents", json={"title": "t", "summary": "kept"}).json()
    response = client.patch(
        f"/api/incidents/{incident['id']}", json={"summary": None, "title": None}
    )
    assert response.status_code == 200, response.text
    assert (response.json()["summary"], response.json()["title"]) == ("kept", "t")


def test_an_unanchored_gc_log_does_not_stretch_the_window_to_1970(client: TestClient) -> None:
    incident_id = client.post("/api/incidents", json={"title": "window"}).json()["id"]
    url = f"/api/incidents/{incident_id}/artifacts"
    uptime_only = (FIXTURES_DIR / "gc_unified" / "parallel-uptime.log").read_bytes()
    upload = client.post(
        url, files=[("files", ("gc.log", uptime_only))], params={"wait": 60}
    ).json()
    assert upload["artifacts"][0]["anchored"] is False
    capture = (FIXTURES_DIR / "ss" / "ss-s.txt").read_bytes()
    client.post(url, files=[("files", ("ss-s.txt", capture))], params={"wait": 60})
    incident = client.get(f"/api/incidents/{incident_id}").json()
    assert incident["artifact_count"] == 2
    assert incident["window_start_ms"] > 1_600_000_000_000  # the ss capture's time, not 1970
