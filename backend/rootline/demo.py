"""The demo incident loaded on the first start of an empty database, so a new user sees data.

Its artifacts are real captures from this project's lab (``demo_data/<host>/<file>``); they
go through the same ingest path as any upload.
"""

from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from rootline import app_meta
from rootline.artifacts import service as artifacts_service
from rootline.incidents import service as incidents_service
from rootline.incidents.schemas import IncidentCreate
from rootline.storage import ArtifactStore

log = logging.getLogger("rootline.demo")

DEMO_DIR = Path(__file__).resolve().parent / "demo_data"
DEMO_FLAG = "demo_loaded"
DEMO_TITLE = "Demo: RPC latency while CPU sits at 30 %"
DEMO_SUMMARY = (
    "Captures from two hosts of a reproduced incident: socket snapshots, kernel counters, "
    "sysctl settings and runtime metrics. Explore the timeline and the checklist."
)


def demo_files() -> list[tuple[str, Path]]:
    """(host, path) of every demo artifact."""
    if not DEMO_DIR.is_dir():
        return []
    return sorted((path.parent.name, path) for path in DEMO_DIR.glob("*/*") if path.is_file())


def load(session: Session, store: ArtifactStore) -> str:
    """Create the demo incident with its artifacts; returns its id."""
    incident = incidents_service.create(
        session, data=IncidentCreate(title=DEMO_TITLE, summary=DEMO_SUMMARY, timezone="UTC")
    )
    for host, path in demo_files():
        with path.open("rb") as handle:
            blob = store.put_file(handle, limit=1024**3)
        artifacts_service.ingest(
            session,
            store,
            incident=incident,
            blob=blob,
            options=artifacts_service.UploadOptions(filename=path.name, host=host),
        )
    return str(incident.id)


def load_once(factory: sessionmaker[Session], store: ArtifactStore) -> None:
    """Load the demo the first time any process of this deployment starts, never again."""
    with factory() as session:
        if app_meta.get_value(session, DEMO_FLAG) is not None:
            return
        try:
            # Claiming the flag first makes a second worker starting at the same moment fail here.
            session.add(app_meta.AppMeta(key=DEMO_FLAG, value="loading"))
            session.flush()
        except IntegrityError:
            session.rollback()
            return
        incident_id = load(session, store)
        app_meta.set_value(session, DEMO_FLAG, incident_id)
        session.commit()
        log.info("loaded the demo incident %s", incident_id)
