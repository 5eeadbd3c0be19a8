"""FastAPI dependencies shared by the routers: the request's session and the artifact store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from rootline.db import session_scope
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident
from rootline.settings import Settings
from rootline.storage import ArtifactStore


def get_session(request: Request) -> Iterator[Session]:
    """One transaction per request, committed when the route returns without error."""
    reads_only = request.method in {"GET", "HEAD", "OPTIONS"}
    factory = (
        request.app.state.sessionmaker if reads_only else request.app.state.writer_sessionmaker
    )
    yield from session_scope(factory)


def get_store(request: Request) -> ArtifactStore:
    store: ArtifactStore = request.app.state.store
    return store


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


SessionDep = Annotated[Session, Depends(get_session)]
StoreDep = Annotated[ArtifactStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_incident(incident_id: uuid.UUID, session: SessionDep) -> Incident:
    return incidents_service.get_or_404(session, incident_id=incident_id)


IncidentDep = Annotated[Incident, Depends(get_incident)]
