"""`rootline export`: the postmortem from the database the server uses, in each format."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ROOTLINE
from tests.postmortems.test_endpoints import _upload


def _export(database_url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "ROOTLINE_DATABASE_URL": database_url, "ROOTLINE_DATA_DIR": str(tmp_path)}
    return subprocess.run(
        [ROOTLINE, "export", *args], capture_output=True, env=env, cwd=tmp_path, timeout=180
    )


@pytest.fixture()
def edited(client: TestClient, incident_id: str) -> str:
    """An incident with the lab capture, its postmortem drafted and its summary written."""
    _upload(client, incident_id)
    assert client.post(f"/api/incidents/{incident_id}/postmortem").status_code == 201
    saved = client.put(
        f"/api/incidents/{incident_id}/postmortem/sections/summary",
        json={"text": "Uploads to the archive crawled at 950 KiB/s.", "version": 1},
    )
    assert saved.status_code == 200
    return incident_id


def test_export_markdown_and_html(database_url: str, tmp_path: Path, edited: str) -> None:
    done = _export(database_url, tmp_path, edited, "--format", "md")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "postmortem-test-incident.zip"
    assert b"wrote postmortem-test-incident.zip" in done.stderr
    with zipfile.ZipFile(written) as archive:
        text = archive.read("postmortem-test-incident/postmortem.md").decode()
        assert "postmortem-test-incident/charts/small_send_buffer.svg" in archive.namelist()
    assert "Uploads to the archive crawled at 950 KiB/s." in text

    done = _export(database_url, tmp_path, edited, "--format", "html", "-o", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"<!doctype html>")
    assert b"Uploads to the archive crawled" in done.stdout and b"<svg" in done.stdout


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Chromium is not installed")
def test_export_pdf(database_url: str, tmp_path: Path, edited: str) -> None:
    target = tmp_path / "out" / "pm.pdf"
    target.parent.mkdir()
    done = _export(database_url, tmp_path, edited, "--format", "pdf", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert target.read_bytes().startswith(b"%PDF")
    if shutil.which("pdftotext"):
        text = subprocess.run(
            ["pdftotext", str(target), "-"], capture_output=True, text=True, check=True
        ).stdout
        assert "Uploads to the archive crawled at 950 KiB/s." in text


def test_export_refuses_what_it_cannot_find(database_url: str, tmp_path: Path) -> None:
    missing = _export(database_url, tmp_path, "00000000-0000-0000-0000-000000000000")
    assert missing.returncode == 1
    assert b"no incident 00000000-0000-0000-0000-000000000000" in missing.stderr
    assert _export(database_url, tmp_path, "not-an-id").returncode == 2
    bad = _export(database_url, tmp_path, "00000000-0000-0000-0000-000000000000", "-f", "docx")
    assert bad.returncode == 2


def test_zip_is_readable_in_memory(client: TestClient, incident_id: str) -> None:
    # No upload, no draft: the export is still a complete document (a fresh draft).
    body = client.get(f"/api/incidents/{incident_id}/postmortem/export").content
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert archive.namelist() == ["postmortem-test-incident/postmortem.md"]
