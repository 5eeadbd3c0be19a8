"""Action items over the API: CRUD, made from a remedy, synced by external id, listed across
incidents, and verified fixed only by a capture that rules the cause out."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.actions.conftest import new_incident


def items_url(incident_id: str) -> str:
    return f"/api/incidents/{incident_id}/action-items"


def create(client: TestClient, incident_id: str, **body: Any) -> dict[str, Any]:
    response = client.post(items_url(incident_id), json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_create_read_update_delete(client: TestClient, incident_id: str) -> None:
    item = create(
        client,
        incident_id,
        title="Raise net.core.wmem_max on the senders",
        owner="li.wei",
        due_date="2026-12-15",
        ticket_url="https://tickets.example.com/OPS-4711",
    )
    assert item["status"] == "open" and item["created_by"] == "admin"
    assert item["incident_title"] == "test incident"
    assert (item["finding_id"], item["remedy"], item["command"], item["verified_incident_id"]) == (
        None,
        "",
        "",
        None,
    )
    assert client.get(items_url(incident_id)).json() == [item]

    url = f"{items_url(incident_id)}/{item['id']}"
    changed = client.patch(url, json={"status": "in_progress", "due_date": None})
    assert changed.status_code == 200, changed.text
    assert (changed.json()["status"], changed.json()["due_date"]) == ("in_progress", None)
    assert changed.json()["owner"] == "li.wei"  # left out: unchanged

    assert client.delete(url).status_code == 204
    assert client.get(items_url(incident_id)).json() == []
    assert client.delete(url).status_code == 404
    assert client.patch(url, json={"status": "done"}).status_code == 404


def test_refuses_bad_items(client: TestClient, incident_id: str) -> None:
    def refused(body: dict[str, Any]) -> tuple[int, str]:
        response = client.post(items_url(incident_id), json=body)
        return response.status_code, response.json()["code"]

    assert refused({"title": "x", "ticket_url": "javascript:alert(1)"}) == (422, "invalid_request")
    assert refused({"title": "x", "status": "closed"}) == (422, "invalid_request")
    assert refused({"title": "x", "due_date": "next week"}) == (422, "invalid_request")
    assert refused({"owner": "nobody"}) == (400, "title_required")
    assert refused({"title": "x", "finding_id": "no_such_check"}) == (400, "finding_not_found")
    assert refused({"title": "x", "remedy_index": 0}) == (400, "finding_required")
    # An empty incident's small_send_buffer has no remedy 99.
    assert refused({"finding_id": "small_send_buffer", "remedy_index": 99}) == (
        400,
        "remedy_not_found",
    )


def test_from_a_remedy_and_verified_fixed_by_the_contrast(
    client: TestClient, before_after: tuple[str, str]
) -> None:
    before, after = before_after
    finding = next(
        f
        for f in client.get(f"/api/incidents/{before}/checklist").json()["findings"]
        if f["id"] == "small_send_buffer"
    )
    assert finding["verdict"] == "confirmed"
    index = next(i for i, r in enumerate(finding["remedies"]) if "tcp_wmem=" in r)
    item = create(client, before, finding_id="small_send_buffer", remedy_index=index, owner="ops")
    assert item["title"] == "Let autotuning reach the BDP"
    assert item["remedy"] == finding["remedies"][index]
    assert item["command"].splitlines()[0] == "sysctl -w net.ipv4.tcp_wmem='4096 16384 4194304'"
    # A title and a command given win over the copies.
    own = create(
        client,
        before,
        finding_id="small_send_buffer",
        remedy_index=index,
        title="Tune the senders",
        command="ansible-playbook tune.yml",
    )
    assert (own["title"], own["command"]) == ("Tune the senders", "ansible-playbook tune.yml")

    url = f"{items_url(before)}/{item['id']}"

    def verify(incident: str | None) -> Any:
        return client.patch(url, json={"verified_incident_id": incident})

    refused = verify(before)
    assert (refused.status_code, refused.json()["code"]) == (400, "same_incident")
    # A capture that cannot tell (nothing uploaded) does not verify anything.
    empty = new_incident(client, "after, nothing captured")
    refused = verify(empty)
    assert (refused.status_code, refused.json()["code"]) == (400, "not_ruled_out")
    assert refused.json()["verdict"] == "insufficient_data"
    # Nor does the reproduction run again (it confirms the cause).
    again = new_incident(client, "after, same buffer", "base")
    assert verify(again).json()["code"] == "not_ruled_out"
    missing = verify("00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404

    verified = verify(after)
    assert verified.status_code == 200, verified.text
    body = verified.json()
    assert body["verified_incident_id"] == after
    assert body["verified_incident_title"] == "after: autotuned"
    assert body["verified_by"] == "admin" and body["verified_at_ms"] > 0
    # Deleting the after-capture leaves the item, unverified.
    assert client.delete(f"/api/incidents/{after}").status_code == 204
    (reread,) = [i for i in client.get(items_url(before)).json() if i["id"] == item["id"]]
    assert reread["verified_incident_id"] is None
    cleared = verify(None).json()
    assert (cleared["verified_incident_id"], cleared["verified_at_ms"]) == (None, None)

    manual = create(client, before, title="Write it down")
    refused = client.patch(
        f"{items_url(before)}/{manual['id']}", json={"verified_incident_id": again}
    )
    assert refused.json()["code"] == "no_finding"


def test_list_across_incidents_with_filters(client: TestClient) -> None:
    first = new_incident(client, "first")
    second = new_incident(client, "second")
    made = {
        "a": create(client, first, title="a", owner="ops", due_date="2026-12-10"),
        "b": create(client, second, title="b", owner="ops", due_date="2026-12-01"),
        "c": create(client, second, title="c", owner="ops"),
        "d": create(client, first, title="d", owner="dev", due_date="2026-11-30", status="done"),
        "e": create(client, first, title="e", owner="dev", status="wont_do"),
    }

    def titles(**params: Any) -> list[str]:
        response = client.get("/api/action-items", params=params)
        assert response.status_code == 200, response.text
        return [item["title"] for item in response.json()["items"]]

    # By owner, then due date (undated last).
    assert titles() == ["d", "e", "b", "a", "c"]
    assert titles(owner="ops") == ["b", "a", "c"]
    assert titles(status=["open", "in_progress"]) == ["b", "a", "c"]
    assert titles(status=["done", "wont_do"]) == ["d", "e"]
    assert titles(due_before="2026-12-05") == ["d", "b"]
    assert titles(owner="ops", due_before="2026-12-05") == ["b"]
    assert titles(incident=first) == ["d", "e", "a"]
    page = client.get("/api/action-items", params={"limit": 2, "offset": 1}).json()
    assert [i["title"] for i in page["items"]] == ["e", "b"] and page["total"] == 5
    assert client.get("/api/action-items", params={"status": "closed"}).status_code == 422
    assert client.get("/api/action-items", params={"due_before": "soon"}).status_code == 422
    assert client.get("/api/action-items", params={"due_before": "2026-13-40"}).status_code == 400
    (b,) = [i for i in client.get("/api/action-items").json()["items"] if i["title"] == "b"]
    assert b["incident_id"] == second and b["incident_title"] == "second"
    assert made["b"]["id"] == b["id"]


def test_upsert_by_external_id(client: TestClient) -> None:
    incident = new_incident(client, "synced")
    other = new_incident(client, "another")
    url = f"{items_url(incident)}/external/JIRA-12"
    created = client.put(url, json={"title": "Raise wmem_max", "owner": "ops"})
    assert created.status_code == 201, created.text
    assert created.json()["external_id"] == "JIRA-12"
    updated = client.put(url, json={"status": "done"})
    assert updated.status_code == 200, updated.text
    assert (updated.json()["id"], updated.json()["status"], updated.json()["owner"]) == (
        created.json()["id"],
        "done",
        "ops",
    )
    assert len(client.get(items_url(incident)).json()) == 1
    # The id is unique: not again in another incident, nor by POST or PATCH.
    taken = client.put(f"{items_url(other)}/external/JIRA-12", json={"title": "x"})
    assert (taken.status_code, taken.json()["code"]) == (409, "external_id_taken")
    posted = client.post(items_url(incident), json={"title": "x", "external_id": "JIRA-12"})
    assert posted.status_code == 409
    second = create(client, incident, title="second")
    patched = client.patch(f"{items_url(incident)}/{second['id']}", json={"external_id": "JIRA-12"})
    assert patched.status_code == 409
    # A new item without a title is refused like a POST.
    assert client.put(f"{items_url(incident)}/external/JIRA-13", json={}).status_code == 400


def test_shared_link_lists_the_items(
    client: TestClient, anon_client: TestClient, incident_id: str
) -> None:
    item = create(client, incident_id, title="Tell the vendor")
    token = client.post(f"/api/incidents/{incident_id}/shares", json={}).json()["token"]
    shared = anon_client.get(f"/api/shared/{token}/action-items")
    assert shared.status_code == 200
    assert [i["id"] for i in shared.json()] == [item["id"]]
    # Read-only: no write route under /api/shared.
    assert anon_client.post(f"/api/shared/{token}/action-items", json={}).status_code == 405
