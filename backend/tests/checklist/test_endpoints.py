"""The checklist API: every id once, stable order, reviews that survive recomputation."""

from __future__ import annotations

from fastapi.testclient import TestClient

from rootline.detectors.base import VERDICT_ORDER
from rootline.detectors.registry import DETECTORS
from tests.conftest import FIXTURES_DIR


def test_every_checklist_id_once_in_verdict_order(client: TestClient, incident_id: str) -> None:
    findings = client.get(f"/api/incidents/{incident_id}/checklist").json()["findings"]
    assert sorted(f["id"] for f in findings) == sorted(DETECTORS)
    ranks = [VERDICT_ORDER[f["effective_verdict"]] for f in findings]
    assert ranks == sorted(ranks)


def test_review_is_kept_apart_and_survives_recompute(client: TestClient, incident_id: str) -> None:
    url = f"/api/incidents/{incident_id}/checklist"
    before = {f["id"]: f for f in client.get(url).json()["findings"]}
    reviewed = client.patch(
        f"{url}/gc_pauses",
        json={
            "verdict_override": "ruled_out",
            "note": "jstack and GC log clean <b>really</b>",
            "author": "li.wei",
        },
    )
    assert reviewed.status_code == 200, reviewed.text
    body = reviewed.json()
    assert body["verdict"] == before["gc_pauses"]["verdict"]
    assert body["effective_verdict"] == "ruled_out"
    assert body["review"]["note"] == "jstack and GC log clean <b>really</b>"
    # The author is the signed-in user, whatever the body says.
    assert body["review"]["author"] == "admin"
    assert body["review"]["updated_at_ms"] > 0

    # New artifacts trigger a recomputation; the review stays.
    capture = (FIXTURES_DIR / "ss" / "ss-s.txt").read_bytes()
    upload = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        content=capture,
        params={"wait": 60},
        headers={"Content-Type": "text/plain"},
    )
    assert upload.status_code == 201
    after = {f["id"]: f for f in client.get(url).json()["findings"]}
    assert after["gc_pauses"]["review"]["note"] == "jstack and GC log clean <b>really</b>"
    assert after["gc_pauses"]["effective_verdict"] == "ruled_out"
    assert after["gc_pauses"]["computed_at_ms"] >= before["gc_pauses"]["computed_at_ms"]

    cleared = client.patch(
        f"{url}/gc_pauses", json={"verdict_override": None, "note": "", "author": "li.wei"}
    ).json()
    assert cleared["effective_verdict"] == cleared["verdict"]


def test_unknown_finding_and_bad_verdict(client: TestClient, incident_id: str) -> None:
    url = f"/api/incidents/{incident_id}/checklist"
    missing = client.patch(f"{url}/no_such_check", json={"note": "x"})
    assert (missing.status_code, missing.json()["code"]) == (404, "finding_not_found")
    assert client.patch(f"{url}/gc_pauses", json={"verdict_override": "maybe"}).status_code == 422


def test_a_new_incident_has_its_checklist_stored(app, client: TestClient) -> None:
    """Findings exist from creation on, so reading the checklist never has to write."""
    from sqlalchemy import func, select

    from rootline.checklist.models import ComputedFinding

    incident_id = client.post("/api/incidents", json={"title": "empty"}).json()["id"]
    with app.state.sessionmaker() as session:
        stored = session.scalar(select(func.count()).select_from(ComputedFinding))
    assert stored == len(DETECTORS)
    findings = client.get(f"/api/incidents/{incident_id}/checklist").json()["findings"]
    assert {f["verdict"] for f in findings} == {"insufficient_data"}
    assert all(f["missing"] for f in findings)
