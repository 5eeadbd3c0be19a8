"""The checklist API: every id once, stable order, reviews that survive recomputation."""

from __future__ import annotations

from fastapi.testclient import TestClient

from rootline.detectors.base import VERDICT_ORDER
from rootline.detectors.registry import IDS
from tests.conftest import FIXTURES_DIR
from tests.detectors.conn_incident import LAB_FIXTURES


def test_every_checklist_id_once_in_verdict_order(client: TestClient, incident_id: str) -> None:
    findings = client.get(f"/api/incidents/{incident_id}/checklist").json()["findings"]
    assert sorted(f["id"] for f in findings) == sorted(IDS)
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
    assert stored == len(IDS)
    findings = client.get(f"/api/incidents/{incident_id}/checklist").json()["findings"]
    assert {f["verdict"] for f in findings} == {"insufficient_data"}
    assert all(f["missing"] for f in findings)


def test_a_threshold_edit_changes_a_stored_incidents_verdict_without_reupload(
    app, client: TestClient, incident_id: str, tmp_path, monkeypatch
) -> None:
    """Issue 11: one value in one rule file, and an incident stored before the edit follows."""
    import shutil

    from sqlalchemy import select

    from rootline.checklist import service
    from rootline.checklist.models import ComputedFinding
    from rootline.detectors import engine
    from tests.detectors.conn_incident import LAB_FIXTURES

    rules = tmp_path / "rules"
    shutil.copytree(engine.rules_dir(), rules)
    monkeypatch.setenv("ROOTLINE_RULES_DIR", str(rules))
    bundle = next((LAB_FIXTURES / "small_send_buffer" / "base").glob("*.tar.gz"))
    url = f"/api/incidents/{incident_id}/checklist"
    upload = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        files={"file": (bundle.name, bundle.read_bytes(), "application/gzip")},
        params={"wait": 120},
    )
    assert upload.status_code == 201, upload.text
    before = client.get(url).json()
    finding = {f["id"]: f for f in before["findings"]}["small_send_buffer"]
    assert finding["verdict"] == "confirmed" and finding["rules_version"] == before["rules_version"]

    # One value in one file: the buffer must now bind in 99.9 % of the snapshots, not 50 %.
    rule = rules / "small_send_buffer.toml"
    text = rule.read_text()
    for name in ("buffer_bound_min_share", "pinned_min_share"):
        marker = f"[thresholds.{name}]\nvalue = 0.5\n"
        assert marker in text
        text = text.replace(marker, f"[thresholds.{name}]\nvalue = 0.999\n")
    rule.write_text(text)

    after = client.get(url).json()
    assert after["rules_version"] != before["rules_version"]
    edited = {f["id"]: f for f in after["findings"]}["small_send_buffer"]
    assert edited["verdict"] == "ruled_out", edited["summary"]
    assert edited["parameters"]["buffer_bound_min_share"] == 0.999
    assert edited["rules_version"] == after["rules_version"]

    # The workers store the recomputation (what an idle parse worker does every few seconds).
    with app.state.sessionmaker.begin() as session:
        assert service.recompute_stale(session, limit=10) == 1
    with app.state.sessionmaker() as session:
        versions = set(session.scalars(select(ComputedFinding.rules_version)))
    assert versions == {after["rules_version"]}


def test_symptom_window_from_the_app_series_and_the_causes_that_overlap_it(
    client: TestClient, incident_id: str
) -> None:
    url = f"/api/incidents/{incident_id}/checklist"
    assert client.get(url).json()["symptom"] is None  # no app series yet
    gc_storm = LAB_FIXTURES / "gc_pauses" / "base" / "rootline-app-20261121T075211.tar.gz"
    for path in (FIXTURES_DIR / "app_metrics" / "checkout-latency.csv", gc_storm):
        upload = client.post(
            f"/api/incidents/{incident_id}/artifacts",
            content=path.read_bytes(),
            params={"wait": 60, "filename": path.name},
            headers={"Content-Type": "application/octet-stream"},
        )
        assert upload.status_code == 201, upload.text
    body = client.get(url).json()
    symptom = body["symptom"]
    assert symptom["series"] == "app.checkout_latency.p99_ms"
    assert (symptom["start_ms"], symptom["end_ms"]) == (1_795_247_532_000, 1_795_247_554_000)
    assert (symptom["baseline"], symptom["threshold"], symptom["peak"]) == (12.0, 18.0, 490.0)
    assert symptom["overlapping"] == ["gc_pauses"]
    by_id = {f["id"]: f for f in body["findings"]}
    assert by_id["gc_pauses"]["overlaps_symptom"] is True
    assert "overlaps the symptom window" in by_id["gc_pauses"]["symptom_overlap"]
    assert by_id["tcp_retransmissions"]["overlaps_symptom"] is None
