"""Every ORM model, imported in one place so the metadata is complete (Alembic, tests)."""

from rootline.annotations.models import Annotation
from rootline.app_meta import AppMeta
from rootline.artifacts.models import Artifact
from rootline.checklist.models import ComputedFinding, FindingReview
from rootline.db import Base
from rootline.events.models import Event
from rootline.facts.models import Fact
from rootline.incidents.models import Incident
from rootline.series.models import PointChunk, Series

__all__ = [
    "Annotation",
    "AppMeta",
    "Artifact",
    "Base",
    "ComputedFinding",
    "Event",
    "Fact",
    "FindingReview",
    "Incident",
    "PointChunk",
    "Series",
]
