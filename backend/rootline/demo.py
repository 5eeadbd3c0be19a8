"""The demo incident loaded on the first start of an empty database, so a new user sees data.

Its artifacts are the committed lab captures of a reproduced TIME_WAIT storm (two hosts'
collector bundles, ``lab/fixtures/time_wait_storm/base``: the server closes every connection
first, so its TIME-WAIT sits on the listening port); they go through the same ingest path
as any upload (recorded here, parsed by the parse workers).
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

DEMO_DIR = Path(__file__).resolve().parents[2] / "lab" / "fixtures" / "time_wait_storm" / "base"
DEMO_FLAG = "demo_loaded"
DEMO_TITLE = "Demo: web service stalls at low CPU (reproduced in the lab)"
DEMO_SUMMARY = (
    "A server closing every connection after one request, as a keep-alive limit does, with "
    "16 client threads: collector bundles from both hosts. Explore the timeline and the checklist."
)


def demo_files() -> list[Path]:
    """Every demo artifact (collector bundles: each names its host)."""
    return sorted(DEMO_DIR.glob("*.tar.gz")) if DEMO_DIR.is_dir() else []


def load(session: Session, store: ArtifactStore) -> str:
    """Create the demo incident with its artifacts; returns its id."""
    incident = incidents_service.create(
        session, data=IncidentCreate(title=DEMO_TITLE, summary=DEMO_SUMMARY, timezone="UTC")
    )
    items = []
    for path in demo_files():
        with path.open("rb") as handle:
            blob = store.put_file(handle, limit=1024**3)
        items.append((blob, artifacts_service.UploadOptions(filename=path.name)))
    # Parsed by the parse workers, like any upload.
    artifacts_service.record_all(session, incident=incident, items=items)
    return str(incident.id)


def load_once(factory: sessionmaker[Session], store: ArtifactStore) -> None:
    """Load the demo the first time any process of this deployment starts, never again.

    ``factory`` makes writing transactions (``db.writer_engine``): on SQLite, a second process
    then waits for the first one's commit and finds the flag, instead of failing with
    "database is locked" when its read-then-write transaction finds its snapshot stale.
    """
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
