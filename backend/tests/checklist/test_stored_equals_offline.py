"""The checklist judges an incident read back from the database exactly as it judges the same
captures parsed in memory (``rootline analyze``): per-connection series stored by column, plain
series, events and facts all come back as the detectors need them. Over every lab capture."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy.orm import Session

from rootline.artifacts.models import Artifact
from rootline.checklist.data import DatabaseIncidentData
from rootline.detectors import registry
from rootline.detectors.data import MemoryIncidentData
from rootline.events import service as events_service
from rootline.facts import service as facts_service
from rootline.incidents import service as incidents_service
from rootline.incidents.schemas import IncidentCreate
from rootline.offline import ParsedArtifact, expand_paths, parse_path
from rootline.parsers.base import ParseContext
from rootline.series import service as series_service

LAB = Path(__file__).resolve().parents[3] / "lab" / "fixtures"
SCENARIOS = sorted({p.parent for p in LAB.glob("*/*/*.tar.gz")})


def parse_scenario(folder: Path) -> list[ParsedArtifact]:
    parsed: list[ParsedArtifact] = []
    for path in expand_paths([folder]):
        parsed += parse_path(path, ParseContext(), None)
    return [p for p in parsed if p.result.kind != "bundle"]


def store(session: Session, parsed: list[ParsedArtifact]) -> uuid.UUID:
    incident = incidents_service.create(session, data=IncidentCreate(title="equivalence"))
    for item in parsed:
        result = item.result
        artifact = Artifact(
            incident_id=incident.id,
            sha256=uuid.uuid4().hex * 2,
            size_bytes=0,
            filename=item.name,
            host=item.host,
            kind=result.kind,
            status=result.status,
        )
        session.add(artifact)
        session.flush()
        origin = {"incident_id": incident.id, "artifact_id": artifact.id, "host": item.host}
        series_service.store(session, series=list(result.series), **origin)
        events_service.store(session, events=result.events, **origin)
        facts_service.store(session, facts=result.facts, **origin)
    session.commit()
    return incident.id


def verdicts(findings: list[registry.Finding]) -> list[tuple[str, str, str]]:
    return [(f.id, f.verdict, f.summary) for f in findings]


@pytest.mark.parametrize("folder", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_incident_gets_the_offline_verdicts(app: FastAPI, folder: Path) -> None:
    parsed = parse_scenario(folder)
    assert parsed
    offline = registry.run_all(MemoryIncidentData(parsed))
    with app.state.sessionmaker() as session:
        incident_id = store(session, parsed)
        stored = registry.run_all(DatabaseIncidentData(session, incident_id))
    assert verdicts(stored) == verdicts(offline)


def test_the_lab_is_all_there() -> None:
    assert len(SCENARIOS) >= 100
