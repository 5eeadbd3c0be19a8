"""The postmortem through the API: drafting, saving, conflicts, revisions, status, exports, sharing.

The incident is a lab capture whose cause is confirmed (a sender with a 64 KB SO_SNDBUF at
80 ms, lab/fixtures/small_send_buffer/buf64k_rtt80), so the draft has a root cause with its
mechanism, numbers and an evidence chart.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import REPO_DIR, add_user, sign_in

BUNDLE = (
    REPO_DIR
    / "lab"
    / "fixtures"
    / "small_send_buffer"
    / "buf64k_rtt80"
    / "rootline-sender-20261124T055556.tar.gz"
)


def _upload(client: TestClient, incident_id: str) -> None:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": BUNDLE.name, "wait": 60},
        content=BUNDLE.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text


@pytest.fixture()
def drafted(client: TestClient, incident_id: str) -> dict[str, Any]:
    """The lab capture uploaded, an annotation pinned, and the postmortem drafted."""
    _upload(client, incident_id)
    checklist = client.get(f"/api/incidents/{incident_id}/checklist").json()
    cause = next(f for f in checklist["findings"] if f["id"] == "small_send_buffer")
    assert cause["verdict"] == "confirmed"
    note = {"from_ms": cause["evidence"][1]["from_ms"], "text": "pager fired <b>here</b>"}
    assert client.post(f"/api/incidents/{incident_id}/annotations", json=note).status_code == 201
    response = client.post(f"/api/incidents/{incident_id}/postmortem")
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def _section(postmortem: dict[str, Any], key: str) -> dict[str, Any]:
    section: dict[str, Any] = next(s for s in postmortem["sections"] if s["key"] == key)
    return section


def test_none_until_drafted(client: TestClient, incident_id: str) -> None:
    response = client.get(f"/api/incidents/{incident_id}/postmortem")
    assert response.status_code == 404
    assert response.json()["code"] == "postmortem_not_found"


def test_the_draft_says_what_rootline_knows(
    client: TestClient, incident_id: str, drafted: dict[str, Any]
) -> None:
    assert drafted["status"] == "draft"
    assert [s["key"] for s in drafted["sections"]] == [
        "summary",
        "impact",
        "timeline",
        "root_causes",
        "contributing_factors",
        "ruled_out",
        "action_items",
        "lessons",
    ]
    assert all(s["version"] == 1 and s["updated_by"] == "Rootline" for s in drafted["sections"])
    summary = _section(drafted, "summary")["text"]
    assert "Root cause: **Send buffer smaller than the bandwidth-delay product**" in summary
    causes = _section(drafted, "root_causes")["text"]
    assert "### Send buffer smaller than the bandwidth-delay product" in causes
    assert "**Mechanism.** TCP keeps at most one send buffer" in causes
    assert "**past threshold:**" in causes
    assert "](chart:small_send_buffer)" in causes
    assert "**Remedies**" in causes
    timeline = _section(drafted, "timeline")["text"]
    assert timeline.startswith("| Time (UTC) | What happened |")
    for moment in ("Capture starts", "First anomaly", "starts on", "peaks: Send-Q", "Capture ends"):
        assert moment in timeline, moment
    # The annotation is in the timeline, as text (its markup escaped, not dropped).
    assert "Note (admin): pager fired <b>here</b>" in timeline
    ruled_out = _section(drafted, "ruled_out")["text"]
    assert "**One long connection carries the load**" in ruled_out
    assert "**Not judged for lack of data**" in ruled_out
    assert "No application series" in _section(drafted, "impact")["text"]
    # No action_items table on this branch: the confirmed cause's remedies are proposed.
    assert "- [ ] " in _section(drafted, "action_items")["text"]
    again = client.post(f"/api/incidents/{incident_id}/postmortem")
    assert again.status_code == 409
    assert again.json()["code"] == "postmortem_exists"


def test_the_evidence_chart_draws_the_findings_series(
    client: TestClient, incident_id: str, drafted: dict[str, Any]
) -> None:
    response = client.get(f"/api/incidents/{incident_id}/postmortem/charts/small_send_buffer.svg")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    svg = response.text
    assert svg.startswith("<svg") and svg.count("<path ") >= 2
    assert "Send-Q / Recv-Q" in svg and "10.77.0.1:5001 → 10.77.0.2:55448" in svg
    assert "#1f77b4" in svg  # the timeline's first colour
    missing = client.get(f"/api/incidents/{incident_id}/postmortem/charts/gc_pauses.svg")
    assert missing.status_code == 404


def test_saves_conflicts_and_revisions(
    client: TestClient, app: Any, database_url: str, incident_id: str, drafted: dict[str, Any]
) -> None:
    url = f"/api/incidents/{incident_id}/postmortem/sections/summary"
    first = client.put(url, json={"text": "Checkout was slow.", "version": 1})
    assert first.status_code == 200, first.text
    assert first.json()["version"] == 2 and first.json()["updated_by"] == "admin"
    # Autosave: the same author again a moment later is one revision, from the first text.
    second = client.put(url, json={"text": "Checkout was slow for 20 minutes.", "version": 2})
    assert second.json()["version"] == 3
    history = client.get(f"/api/incidents/{incident_id}/postmortem/revisions").json()
    assert len(history) == 1
    assert history[0]["section"] == "summary" and history[0]["author"] == "admin"
    assert history[0]["version"] == 3
    assert history[0]["previous_text"] == _section(drafted, "summary")["text"]

    # Another user edits from the same version: stored, and a revision of their own.
    add_user(database_url, "li.wei")
    with TestClient(app) as other:
        sign_in(other, "li.wei")
        theirs = other.put(url, json={"text": "Orders failed.", "version": 3})
        assert theirs.status_code == 200 and theirs.json()["updated_by"] == "li.wei"
    # The admin's next save was edited from version 3: a conflict that stores nothing.
    stale = client.put(url, json={"text": "My longer text", "version": 3})
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "postmortem_conflict"
    assert body["current"]["text"] == "Orders failed."
    assert body["current"]["updated_by"] == "li.wei" and body["current"]["version"] == 4
    assert (
        client.get(f"/api/incidents/{incident_id}/postmortem").json()["sections"][0]["text"]
        == "Orders failed."
    )
    history = client.get(
        f"/api/incidents/{incident_id}/postmortem/revisions", params={"section": "summary"}
    ).json()
    assert [(h["author"], h["previous_text"]) for h in history][:1] == [
        ("li.wei", "Checkout was slow for 20 minutes.")
    ]
    # The same text again changes nothing.
    same = client.put(url, json={"text": "Orders failed.", "version": 4})
    assert same.json()["version"] == 4
    assert (
        client.put(
            f"/api/incidents/{incident_id}/postmortem/sections/nonsense",
            json={"text": "x", "version": 1},
        ).status_code
        == 422
    )


def test_status_and_share_links(
    client: TestClient, anon_client: TestClient, incident_id: str, drafted: dict[str, Any]
) -> None:
    token = client.post(f"/api/incidents/{incident_id}/shares", json={}).json()["token"]
    shared = f"/api/shared/{token}/postmortem"
    # A draft is not shown at a share link, nor its charts.
    assert anon_client.get(shared).status_code == 404
    assert anon_client.get(shared).json()["code"] == "postmortem_not_published"
    assert anon_client.get(f"{shared}/charts/small_send_buffer.svg").status_code == 404

    url = f"/api/incidents/{incident_id}/postmortem"
    review = client.patch(url, json={"status": "in_review", "version": 1})
    assert review.status_code == 200 and review.json()["version"] == 2
    stale = client.patch(url, json={"status": "published", "version": 1})
    assert stale.status_code == 409
    assert (stale.json()["status"], stale.json()["version"]) == ("in_review", 2)
    assert anon_client.get(shared).status_code == 404
    published = client.patch(url, json={"status": "published", "version": 2}).json()
    assert published["status"] == "published" and published["published_at_ms"] is not None
    assert client.get(f"/api/incidents/{incident_id}").json()["status"] == "published"
    history = client.get(f"{url}/revisions").json()
    assert [(h["section"], h["previous_text"]) for h in history][:2] == [
        ("status", "in_review"),
        ("status", "draft"),
    ]

    seen = anon_client.get(shared)
    assert seen.status_code == 200
    assert seen.json()["status"] == "published"
    assert seen.json()["sections"] == published["sections"]
    assert anon_client.get(f"{shared}/charts/small_send_buffer.svg").status_code == 200
    # A share link reads; it neither writes nor exports.
    assert anon_client.get(f"/api/shared/{token}/postmortem/export").status_code == 404
    assert (
        anon_client.put(f"{url}/sections/summary", json={"text": "x", "version": 1}).status_code
        == 401
    )


def test_markdown_export_is_a_zip_with_relative_charts(
    client: TestClient, incident_id: str, drafted: dict[str, Any]
) -> None:
    response = client.get(
        f"/api/incidents/{incident_id}/postmortem/export", params={"format": "md"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/zip"
    assert 'filename="postmortem-test-incident.zip"' in response.headers["content-disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        names = sorted(archive.namelist())
        assert names == [
            "postmortem-test-incident/charts/small_send_buffer.svg",
            "postmortem-test-incident/postmortem.md",
        ]
        text = archive.read("postmortem-test-incident/postmortem.md").decode()
        svg = archive.read("postmortem-test-incident/charts/small_send_buffer.svg").decode()
    assert text.startswith("# Postmortem: test incident\n\n**Draft**")
    assert "](charts/small_send_buffer.svg)" in text and "chart:" not in text
    assert "## Root causes" in text and "## Lessons" in text
    assert svg.startswith("<svg")


def test_html_export_is_one_standalone_file(
    client: TestClient, incident_id: str, drafted: dict[str, Any]
) -> None:
    url = f"/api/incidents/{incident_id}/postmortem"
    hostile = '<script>alert(1)</script> [x](javascript:alert(2)) <img src=x onerror="alert(3)">'
    client.put(f"{url}/sections/lessons", json={"text": hostile, "version": 1})
    response = client.get(f"{url}/export", params={"format": "html"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    assert html.startswith("<!doctype html>")
    assert "<style>" in html and "<link" not in html and "<script" not in html
    assert '<figure class="chart"><svg' in html  # the chart inline
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript:' not in html and "<img" not in html
    assert '<span class="badge">Draft</span>' in html


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_pdf_export_prints_the_document(
    client: TestClient, incident_id: str, drafted: dict[str, Any], tmp_path: Path
) -> None:
    url = f"/api/incidents/{incident_id}/postmortem"
    client.put(
        f"{url}/sections/summary", json={"text": "Checkout stalled at 950 KiB/s.", "version": 1}
    )
    response = client.get(f"{url}/export", params={"format": "pdf"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    text = _pdf_text(response.content, tmp_path)
    assert "Checkout stalled at 950 KiB/s." in text
    assert "Send buffer smaller than the bandwidth-delay product" in text


def _pdf_text(pdf: bytes, folder: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed: make setup installs it")
    path = folder / "postmortem.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout


def test_pdf_export_without_chromium_says_so(
    client: TestClient, app: Any, incident_id: str, drafted: dict[str, Any]
) -> None:
    app.state.settings.chromium = "/nonexistent/chromium"
    response = client.get(
        f"/api/incidents/{incident_id}/postmortem/export", params={"format": "pdf"}
    )
    assert response.status_code == 503
    assert response.json()["code"] == "pdf_unavailable"


def test_export_before_any_draft_renders_a_fresh_one(client: TestClient, incident_id: str) -> None:
    response = client.get(
        f"/api/incidents/{incident_id}/postmortem/export", params={"format": "html"}
    )
    assert response.status_code == 200
    assert "Drafted by Rootline" in response.text
    assert client.get(f"/api/incidents/{incident_id}/postmortem").status_code == 404


def test_the_impact_names_the_applications_symptom(client: TestClient, incident_id: str) -> None:
    """With the service's own latency export uploaded, Impact and the key moments carry the
    checklist's symptom window (p99 12 ms -> 490 ms at 07:52:12 for 22 s), not a blank."""
    csv = REPO_DIR / "backend" / "tests" / "fixtures" / "app_metrics" / "checkout-latency.csv"
    uploaded = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": csv.name, "wait": 60},
        content=csv.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert uploaded.status_code == 201, uploaded.text
    drafted = client.post(f"/api/incidents/{incident_id}/postmortem")
    assert drafted.status_code == 201, drafted.text
    impact = _section(drafted.json(), "impact")["text"]
    assert "rose from 12 ms" in impact and "to 490 ms at 2026-11-21T07:52:12Z" in impact, impact
    assert "checkout_latency.p99_ms" in impact and "**490 ms**" in impact
    timeline = _section(drafted.json(), "timeline")["text"]
    assert "Users feel it:" in timeline and "07:52:12" in timeline, timeline


def test_action_items_are_listed_once_there_are_some(client: TestClient, incident_id: str) -> None:
    """No item yet: the draft proposes the remedies; one made: the section is the items' table."""
    _upload(client, incident_id)
    item = {"title": "Raise net.core.wmem_max", "owner": "li.wei", "due_date": "2026-12-01"}
    made = client.post(f"/api/incidents/{incident_id}/action-items", json=item)
    assert made.status_code == 201, made.text
    drafted = client.post(f"/api/incidents/{incident_id}/postmortem")
    assert drafted.status_code == 201, drafted.text
    text = _section(drafted.json(), "action_items")["text"]
    assert "| Raise net.core.wmem_max | li.wei | 2026-12-01 | open |" in text, text
    assert "- [ ] " not in text
