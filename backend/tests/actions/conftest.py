"""Two incidents from the lab: a 16 KB send buffer (small_send_buffer confirmed) and the
same sender with autotuning left on (small_send_buffer ruled out): a before and an after."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.detectors.conn_incident import LAB_FIXTURES

SCENARIO = LAB_FIXTURES / "small_send_buffer"


def bundle(capture: str) -> Path:
    return next((SCENARIO / capture).glob("*.tar.gz"))


def new_incident(client: TestClient, title: str, capture: str | None = None) -> str:
    response = client.post("/api/incidents", json={"title": title, "timezone": "UTC"})
    assert response.status_code == 201, response.text
    incident_id = str(response.json()["id"])
    if capture is not None:
        path = bundle(capture)
        upload = client.post(
            f"/api/incidents/{incident_id}/artifacts",
            files={"file": (path.name, path.read_bytes(), "application/gzip")},
            params={"wait": 120},
        )
        assert upload.status_code == 201, upload.text
    return incident_id


@pytest.fixture()
def before_after(client: TestClient) -> tuple[str, str]:
    """(the reproduction, its contrast) as two incidents."""
    return (
        new_incident(client, "16 KB send buffer", "base"),
        new_incident(client, "after: autotuned", "autotuned"),
    )
