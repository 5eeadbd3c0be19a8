"""Before and after: two incidents' checklists side by side, and two ranges of one."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from rootline.checklist.compare import change
from tests.actions.conftest import new_incident


def test_change_reads_from_a_to_b() -> None:
    assert change("confirmed", "ruled_out") == "better"
    assert change("likely", "confirmed") == "worse"
    assert change("ruled_out", "ruled_out") == "same"
    assert change("confirmed", "insufficient_data") == "unclear"


def rows(comparison: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in comparison["rows"]}


def test_two_incidents(client: TestClient) -> None:
    before = new_incident(client, "16 KB send buffer", "base")
    after = new_incident(client, "after: autotuned", "autotuned")
    response = client.get("/api/compare", params={"a": before, "b": after})
    assert response.status_code == 200, response.text
    comparison = response.json()
    assert (comparison["a"]["title"], comparison["b"]["title"]) == (
        "16 KB send buffer",
        "after: autotuned",
    )
    assert comparison["a"]["windowed"] is False and comparison["a"]["from_ms"] is not None
    buffer = rows(comparison)["small_send_buffer"]
    assert (buffer["a"]["verdict"], buffer["b"]["verdict"], buffer["change"]) == (
        "confirmed",
        "ruled_out",
        "better",
    )
    assert comparison["rows"][0]["id"] == "small_send_buffer"  # what changed comes first
    numbers = buffer["a"]["key_numbers"]
    assert 0 < len(numbers) <= 4 and numbers[0]["met"] is True
    assert all(n["observed"] is not None for n in numbers + buffer["b"]["key_numbers"])
    assert {r["change"] for r in comparison["rows"][1:]} <= {"same", "unclear", "better"}

    # The other way round, it got worse.
    back = rows(client.get("/api/compare", params={"a": after, "b": before}).json())
    assert back["small_send_buffer"]["change"] == "worse"

    # The team's override is what the comparison reads.
    client.patch(
        f"/api/incidents/{after}/checklist/small_send_buffer",
        json={"verdict_override": "likely", "note": "not convinced"},
    )
    again = rows(client.get("/api/compare", params={"a": before, "b": after}).json())
    assert again["small_send_buffer"]["b"]["verdict"] == "likely"


def test_two_ranges_of_one_incident(client: TestClient) -> None:
    incident = new_incident(client, "16 KB send buffer", "base")
    window = client.get(f"/api/incidents/{incident}").json()
    start, end = window["window_start_ms"], window["window_end_ms"]
    middle = (start + end) // 2
    params = {
        "a": incident,
        "b": incident,
        "a_from": start,
        "a_to": middle,
        "b_from": middle + 1,
        "b_to": end,
    }
    comparison = client.get("/api/compare", params=params).json()
    assert comparison["a"]["windowed"] and comparison["b"]["windowed"]
    assert (comparison["a"]["from_ms"], comparison["b"]["to_ms"]) == (start, end)
    # The 16 KB buffer bound in both halves of the capture.
    assert rows(comparison)["small_send_buffer"]["a"]["verdict"] == "confirmed"
    assert rows(comparison)["small_send_buffer"]["b"]["verdict"] == "confirmed"
    # A range with no data cannot tell.
    empty = client.get("/api/compare", params={**params, "b_from": 1, "b_to": 2}).json()
    assert rows(empty)["small_send_buffer"]["b"]["verdict"] == "insufficient_data"
    assert rows(empty)["small_send_buffer"]["change"] == "unclear"


def test_refusals(client: TestClient, anon_client: TestClient, incident_id: str) -> None:
    def status(**params: Any) -> int:
        return client.get("/api/compare", params=params).status_code

    assert status(a=incident_id) == 422
    assert status(a=incident_id, b="00000000-0000-0000-0000-000000000000") == 404
    assert status(a=incident_id, b=incident_id, a_from=5) == 400
    assert status(a=incident_id, b=incident_id, b_from=5, b_to=4) == 400
    assert (
        anon_client.get("/api/compare", params={"a": incident_id, "b": incident_id}).status_code
        == 401
    )
