"""Per-connection series stored by column (connection tables): exact round trips, the busiest
connections listed, any other found by address, every one given to the checklist, and no
series id reaching another incident's data."""

from __future__ import annotations

import uuid
from array import array
from pathlib import Path

import numpy as np
import pytest
import zstandard
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rootline.artifacts.models import Artifact
from rootline.checklist.data import DatabaseIncidentData
from rootline.parsers import ss
from rootline.parsers.base import ParseContext, SeriesData
from rootline.series import connections
from rootline.series import service as series_service

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
T0 = 1_763_700_000_000


@settings(max_examples=80, deadline=None)
@given(
    matrix=hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=40),
        elements=st.floats(allow_nan=True, allow_infinity=False),
    )
)
def test_a_matrix_comes_back_bit_for_bit(matrix: np.ndarray) -> None:
    packed = connections.encode_matrix(matrix)
    back = connections.decode_matrix(
        zstandard.ZstdCompressor().compress(packed), matrix.shape[0], matrix.shape[1]
    )
    assert back.view("<u8").tolist() == np.ascontiguousarray(matrix).view("<u8").tolist()


def conn(name: str, peer: str, times: list[int], values: list[float]) -> SeriesData:
    return SeriesData(
        name,
        {"local": "10.0.0.1:20880", "peer": peer},
        "bytes",
        array("q", times),
        array("d", values),
    )


def test_pack_keeps_each_connections_points_and_ranks_by_volume() -> None:
    series = [
        conn("tcp.conn.bytes_acked", "10.0.0.2:1", [T0, T0 + 5000], [10.0, 20.0]),
        conn("tcp.conn.bytes_acked", "10.0.0.3:1", [T0 + 5000, T0 + 10_000], [5e9, 6e9]),
        conn("tcp.conn.rtt_ms", "10.0.0.3:1", [T0 + 10_000], [0.25]),
        conn("tcp.conn.rtt_ms", "10.0.0.4:1", [T0], [float("nan")]),  # no point: no series
    ]
    table = connections.pack(series, offset_ms=7)
    assert table is not None
    assert table.times.tolist() == [T0 + 7, T0 + 5007, T0 + 10_007]
    assert table.endpoints[:2] == [
        ("10.0.0.1:20880", "10.0.0.2:1"),
        ("10.0.0.1:20880", "10.0.0.3:1"),
    ]
    assert table.volume.tolist()[:2] == [20.0, 6e9]
    assert table.series_count == 3  # the NaN-only one is none
    assert table.point_count == 5
    rtt = next(f for f in table.fields if f.name == "tcp.conn.rtt_ms")
    assert rtt.stats.points.tolist() == [0, 1, 0]
    assert (rtt.stats.first_ms[1], rtt.stats.min[1]) == (T0 + 10_007, 0.25)


def store(app: FastAPI, incident_id: str, series: list[SeriesData], host: str = "h1") -> str:
    with app.state.sessionmaker() as session:
        artifact = Artifact(
            incident_id=uuid.UUID(incident_id),
            sha256=uuid.uuid4().hex * 2,
            size_bytes=0,
            filename="ss.txt",
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
            series=series,
        )
        session.commit()
        return str(artifact.id)


def test_a_real_capture_reads_back_as_parsed(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    text = (FIXTURES / "ss" / "ss-tinm-loop.txt").read_text()
    parsed = ss.parse(text, ParseContext())
    per_conn = [s for s in parsed.series if connections.is_connection_series(s)]
    assert len(per_conn) > 50
    store(app, incident_id, list(parsed.series))
    base = f"/api/incidents/{incident_id}"
    listed = client.get(f"{base}/series", params={"limit": 5000}).json()
    virtual = [s for s in listed["items"] if s["id"] >= connections.CONN_ID_BASE]
    assert len(virtual) >= 50
    assert listed["connections_total"] == len(
        {(s.labels["local"], s.labels["peer"]) for s in per_conn}
    )
    # Every listed connection series reads back exactly as the parser gave it.
    expected = {(s.name, s.labels["local"], s.labels["peer"]): s for s in per_conn}
    ids = [s["id"] for s in virtual]
    timeline = client.get(
        f"{base}/timeline", params={"series": ",".join(map(str, ids[:150])), "max_points": 20000}
    ).json()
    assert len(timeline["series"]) == min(150, len(ids))
    for got in timeline["series"]:
        want = expected[(got["name"], got["labels"]["local"], got["labels"]["peer"])]
        order = np.argsort(np.frombuffer(want.times_ms, dtype=np.int64), kind="stable")
        assert got["t"] == np.frombuffer(want.times_ms, dtype=np.int64)[order].tolist()
        assert got["v"] == np.frombuffer(want.values, dtype=np.float64)[order].tolist()
        assert got["labels"]["host"] == "h1"
    # The checklist sees every connection, not only the listed ones.
    with app.state.sessionmaker() as session:
        data = DatabaseIncidentData(session, uuid.UUID(incident_id))
        views = data.series("tcp.conn.rtt_ms")
        want_rtt = [s for s in per_conn if s.name == "tcp.conn.rtt_ms"]
        assert len(views) == len(want_rtt)
        by_key = {(v.labels["local"], v.labels["peer"]): v for v in views}
        for s in want_rtt:
            v = by_key[(s.labels["local"], s.labels["peer"])]
            order = np.argsort(np.frombuffer(s.times_ms, dtype=np.int64), kind="stable")
            assert v.values.tolist() == np.frombuffer(s.values, dtype=np.float64)[order].tolist()
            assert v.host == "h1" and v.labels["host"] == "h1"


def many_connections(n: int, busy: str) -> list[SeriesData]:
    times = [T0, T0 + 5000]
    out = []
    for i in range(n):
        peer = f"10.1.{i // 250}.{i % 250}:{40000 + i}"
        acked = [1e12, 2e12] if peer == busy else [float(i), float(i + 1)]
        out.append(conn("tcp.conn.bytes_acked", peer, times, acked))
        out.append(conn("tcp.conn.cwnd", peer, times, [10.0, 12.0]))
    return out


def test_the_busiest_connections_are_listed_and_any_other_is_found_by_address(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    busy = "10.1.3.7:40757"
    store(app, incident_id, many_connections(1200, busy))
    base = f"/api/incidents/{incident_id}"
    page = client.get(f"{base}/series", params={"limit": 5000}).json()
    assert page["connections_total"] == 1200
    assert page["connections_listed"] == series_service.LISTED_CONNECTIONS
    peers = [s["labels"]["peer"] for s in page["items"] if s["name"] == "tcp.conn.bytes_acked"]
    assert peers[0] == busy  # busiest first
    assert len(peers) == series_service.LISTED_CONNECTIONS
    quiet = "10.1.0.3:40003"
    assert quiet not in peers
    found = client.get(f"{base}/series", params={"connection": "10.1.0.3:"}).json()
    assert {s["labels"]["peer"] for s in found["items"]} == {quiet}
    assert {s["name"] for s in found["items"]} == {"tcp.conn.bytes_acked", "tcp.conn.cwnd"}
    connections_page = client.get(f"{base}/connections", params={"q": "10.1.0.3:"}).json()
    assert [c["peer"] for c in connections_page["items"]] == [quiet]
    assert connections_page["total"] == 1200
    top = client.get(f"{base}/connections", params={"limit": 3}).json()["items"]
    assert top[0]["peer"] == busy and top[0]["volume"] == 2e12 and top[0]["host"] == "h1"
    assert len(top) == 3
    # Wildcards in the text are literal.
    assert client.get(f"{base}/series", params={"connection": "10.1.%"}).json()["total"] == 0
    # Paging walks the plain series, then the listed connections', without repeats.
    walked = []
    for offset in range(0, page["total"], 7):
        walked += client.get(f"{base}/series", params={"limit": 7, "offset": offset}).json()[
            "items"
        ]
    assert [s["id"] for s in walked] == [s["id"] for s in page["items"]]


def test_a_connection_series_id_reads_nothing_of_another_incident(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    store(app, incident_id, many_connections(3, "10.1.0.1:40001"))
    ids = [
        s["id"]
        for s in client.get(f"/api/incidents/{incident_id}/series").json()["items"]
        if s["id"] >= connections.CONN_ID_BASE
    ]
    assert ids
    other = client.post("/api/incidents", json={"title": "other", "timezone": "UTC"}).json()["id"]
    body = client.get(
        f"/api/incidents/{other}/timeline", params={"series": ",".join(map(str, ids))}
    ).json()
    assert body["series"] == []
    mine = client.get(
        f"/api/incidents/{incident_id}/timeline", params={"series": ",".join(map(str, ids))}
    ).json()
    assert len(mine["series"]) == len(ids)


def test_reparsing_replaces_the_connection_table(
    app: FastAPI, client: TestClient, incident_id: str
) -> None:
    artifact_id = store(app, incident_id, many_connections(4, "10.1.0.1:40001"))
    from rootline.series import repository

    with app.state.sessionmaker() as session:
        repository.delete_for_artifact(session, uuid.UUID(artifact_id))
        session.commit()
    page = client.get(f"/api/incidents/{incident_id}/series").json()
    assert page["connections_total"] == 0 and page["total"] == 0


@pytest.mark.parametrize("n", [1, 3000])
def test_blocks_split_by_snapshots_and_join_again(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connections, "BLOCK_CELLS", 1000)
    times = [T0 + k * 1000 for k in range(7)]
    series = [
        conn("tcp.conn.cwnd", f"10.2.0.{i % 200}:{i}", times, [float(i * 10 + k) for k in range(7)])
        for i in range(n)
    ]
    table = connections.pack(series)
    assert table is not None
    (field,) = table.fields
    assert len(field.blocks) == (7 if n == 3000 else 1)
    parts = [connections.decode_matrix(b.data, n, b.snapshot_count) for b in field.blocks]
    matrix = np.concatenate(parts, axis=1)
    assert matrix[n - 1].tolist() == [float((n - 1) * 10 + k) for k in range(7)]
