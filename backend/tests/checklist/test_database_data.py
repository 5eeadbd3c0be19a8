""":class:`DatabaseIncidentData` asks the database only for names the incident holds: the
detectors ask for a hundred series and settings, most of them absent from any one incident."""

from __future__ import annotations

import uuid
from array import array

from fastapi import FastAPI
from sqlalchemy import event

from rootline.artifacts.models import Artifact
from rootline.checklist.data import DatabaseIncidentData
from rootline.facts import service as facts_service
from rootline.incidents import service as incidents_service
from rootline.incidents.schemas import IncidentCreate
from rootline.parsers.base import Fact, SeriesData
from rootline.series import repository as series_repository
from rootline.series import service as series_service


def _incident(app: FastAPI) -> uuid.UUID:
    with app.state.sessionmaker() as session:
        incident = incidents_service.create(session, data=IncidentCreate(title="names"))
        artifact = Artifact(
            incident_id=incident.id,
            sha256=uuid.uuid4().hex * 2,
            size_bytes=0,
            filename="a.txt",
            host="db1",
            kind="nstat",
            status="parsed",
        )
        session.add(artifact)
        session.flush()
        origin = {"incident_id": incident.id, "artifact_id": artifact.id, "host": "db1"}
        series = [
            SeriesData(name, {}, "", array("q", [1000, 2000]), array("d", [1.0, 2.0]))
            for name in ("tcp.ListenOverflows", "tcp.retrans_segs")
        ]
        series_service.store(session, series=series, **origin)
        facts_service.store(session, facts=[Fact("net.core.somaxconn", "4096", None)], **origin)
        session.commit()
        incident_id: uuid.UUID = incident.id
        return incident_id


def test_absent_names_cost_no_query_and_present_ones_are_found(app: FastAPI) -> None:
    incident_id = _incident(app)
    statements: list[str] = []
    with app.state.sessionmaker() as session:
        data = DatabaseIncidentData(session, incident_id)
        assert data.series("tcp.retrans_segs")  # loads the incident's names too
        event.listen(
            session.get_bind(), "before_cursor_execute", lambda *a: statements.append(a[2])
        )
        assert data.series("tcp.no_such_counter") == []
        assert data.series("jvm.*") == []
        assert data.series("tcp.retrans_segs", host="other") == []
        assert statements == []
        # A prefix differing in case finds what the database's LIKE finds (SQLite ignores
        # case, PostgreSQL does not).
        for prefix in ("tcp.listen*", "TCP.RETRANS*", "tcp.List*"):
            stored = series_repository.by_name(
                session, incident_id=incident_id, name=prefix, host=None
            )
            assert [s.name for s in data.series(prefix)] == [s.name for s in stored]
        assert [s.name for s in data.series("tcp.List*")] == ["tcp.ListenOverflows"]
        assert [f.value for f in data.facts("net.core.somaxconn", host="db1")] == ["4096"]
        before = len(statements)
        assert data.facts("net.ipv4.tcp_wmem") == []
        assert data.facts("net.core.*", host="other") == []
        assert len(statements) == before
