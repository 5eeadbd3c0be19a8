"""The series list and the timeline read back what was stored, downsampled with spikes kept."""

from __future__ import annotations

import uuid
from array import array
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rootline.artifacts.models import Artifact
from rootline.events import service as events_service
from rootline.parsers.base import EventData, SeriesData
from rootline.series import service as series_service

T0 = 1_763_700_000_000  # 2025-11-21T04:40:00Z


def store_synthetic(app: FastAPI, incident_id: str, *, points: int, host: str = "h1") -> None:
    times = array("q", (T0 + i * 1000 for i in range(points)))
    ramp = array("d", (float(i % 100) for i in range(points)))
    ramp[points // 2] = 9999.0  # one spike
    flat = array("d", [1.0]) * points
    with app.state.sessionmaker() as session:
        artifact = Artifact(
            incident_id=uuid.UUID(incident_id),
            sha256="0" * 64,
            size_bytes=0,
            filename="synthetic",
            host=host,
            # Stored as parsed: a pending one is the app's parse worker's to take, which
            # finds no file behind it and clears its series while the test reads them.
            status="parsed",
        )
        session.add(artifact)
        session.flush()
        series_service.store(
            session,
            incident_id=artifact.incident_id,
            artifact_id=artifact.id,
            host=host,
            series=[
                SeriesData("tcp.connections.sendq.bytes", {}, "bytes", times, ramp),
                SeriesData(
                    "tcp.conn.cwnd",
                    {"local": "10.0.0.1:20880", "peer": "10.0.0.2:5000"},
                    "segments",
                    times,
                    flat,
                ),
            ],
        )
        events_service.store(
            session,
            incident_id=artifact.incident_id,
            artifact_id=artifact.id,
            host=host,
            events=[
                EventData("gc_pause", T0 + 5000, 120.0, {"type": "young"}),
                EventData("gc_pause", T0 + 9000, 480.5, {"type": "full"}),
                EventData("threadpool_rejected", T0 + 9500, None, {"pool": "DubboServerHandler"}),
            ],
        )
        session.commit()


def test_series_list(app: FastAPI, client: TestClient, incident_id: str) -> None:
    store_synthetic(app, incident_id, points=5000)
    page = client.get(f"/api/incidents/{incident_id}/series").json()
    assert page["total"] == 2
    sendq = next(s for s in page["items"] if s["name"] == "tcp.connections.sendq.bytes")
    assert sendq["point_count"] == 5000
    assert (sendq["min"], sendq["max"]) == (0.0, 9999.0)
    assert (sendq["first_ms"], sendq["last_ms"]) == (T0, T0 + 4999 * 1000)
    assert sendq["labels"] == {"host": "h1"}
    assert sendq["unit"] == "bytes"
    prefixed = client.get(
        f"/api/incidents/{incident_id}/series", params={"name": "tcp.conn.*"}
    ).json()
    assert [s["name"] for s in prefixed["items"]] == ["tcp.conn.cwnd"]


def test_timeline_downsamples_and_keeps_the_spike(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    store_synthetic(app, incident_id, points=200_000)
    response = client.get(
        f"/api/incidents/{incident_id}/timeline",
        params={"series": "tcp.connections.sendq.bytes,tcp.conn.cwnd", "max_points": 500},
    )
    assert response.status_code == 200
    body = response.json()
    assert len(body["series"]) == 2
    for series in body["series"]:
        assert 2 <= len(series["t"]) <= 500
        assert series["t"] == sorted(series["t"])
        assert series["points_in_range"] == 200_000
    sendq = next(s for s in body["series"] if s["name"] == "tcp.connections.sendq.bytes")
    assert max(sendq["v"]) == 9999.0
    assert sendq["level"] == 1


def test_timeline_gives_its_connection_back_before_downsampling(
    app: FastAPI, client: TestClient, incident_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decoding and downsampling (CPU, most of a read's time on a busy machine) hold no
    database connection: ten readers holding theirs left two of a process's twelve to every
    other request (a share read waited 1-3 s behind a share-token flood's lookups)."""
    store_synthetic(app, incident_id, points=200_000)
    app.state.parse_workers.stop()  # nothing else takes a connection meanwhile
    pool = app.state.engine.pool
    held: list[int] = []
    downsample = series_service.codec.downsample

    def watched(*args: Any, **kwargs: Any) -> Any:
        held.append(pool.checkedout())
        return downsample(*args, **kwargs)

    monkeypatch.setattr(series_service.codec, "downsample", watched)
    response = client.get(
        f"/api/incidents/{incident_id}/timeline",
        params={"series": "tcp.connections.sendq.bytes,tcp.conn.cwnd", "max_points": 500},
    )
    assert response.status_code == 200
    assert len(response.json()["series"]) == 2
    assert held == [0, 0]


def test_timeline_range_is_respected(app: FastAPI, client: TestClient, incident_id: str) -> None:
    store_synthetic(app, incident_id, points=10_000)
    start, end = T0 + 1_000_000, T0 + 2_000_000
    body = client.get(
        f"/api/incidents/{incident_id}/timeline",
        params={
            "series": "tcp.connections.sendq.bytes",
            "from": start,
            "to": end,
            "max_points": 5000,
        },
    ).json()
    (series,) = body["series"]
    assert series["t"][0] == start
    assert series["t"][-1] == end
    assert len(series["t"]) == 1001  # small enough to be returned whole
    iso = client.get(
        f"/api/incidents/{incident_id}/timeline",
        params={
            "series": str(series["id"]),
            "from": "2025-11-21T04:56:40Z",
            "to": "2025-11-21T05:13:20Z",
        },
    ).json()
    assert iso["series"][0]["t"][0] == start


def test_timeline_host_filter_and_bad_time(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    store_synthetic(app, incident_id, points=100, host="a")
    assert (
        client.get(
            f"/api/incidents/{incident_id}/timeline",
            params={"series": "tcp.connections.sendq.bytes", "host": "b"},
        ).json()["series"]
        == []
    )
    bad = client.get(
        f"/api/incidents/{incident_id}/timeline", params={"series": "x", "from": "yesterday"}
    )
    assert (bad.status_code, bad.json()["code"]) == (400, "invalid_time")


def test_events(app: FastAPI, client: TestClient, incident_id: str) -> None:
    store_synthetic(app, incident_id, points=10)
    everything = client.get(f"/api/incidents/{incident_id}/events").json()
    assert everything["total"] == 3
    assert [e["kind"] for e in everything["items"]] == [
        "gc_pause",
        "gc_pause",
        "threadpool_rejected",
    ]
    gc = next(k for k in everything["kinds"] if k["kind"] == "gc_pause")
    assert (gc["count"], gc["total_duration_ms"], gc["max_duration_ms"]) == (2, 600.5, 480.5)
    pauses = client.get(
        f"/api/incidents/{incident_id}/events", params={"kind": "gc_pause", "from": T0 + 6000}
    ).json()
    assert [e["attrs"]["type"] for e in pauses["items"]] == ["full"]
