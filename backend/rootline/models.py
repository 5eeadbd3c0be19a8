"""Every ORM model, imported in one place so the metadata is complete (Alembic, tests)."""

from rootline.accounts.models import ApiToken, LoginSession, OneTimeLink, User
from rootline.actions.models import ActionItem
from rootline.annotations.models import Annotation
from rootline.app_meta import AppMeta
from rootline.artifacts.models import Artifact, BlobClaim
from rootline.checklist.models import ComputedFinding, FindingReview
from rootline.db import Base
from rootline.events.models import EventChunk
from rootline.facts.models import Fact
from rootline.incidents.models import Incident
from rootline.postmortems.models import Postmortem, PostmortemRevision, PostmortemSection
from rootline.ratelimit import RateLimit
from rootline.series.models import (
    ConnBlock,
    ConnEndpoint,
    ConnField,
    ConnTable,
    PointChunk,
    Series,
)
from rootline.shares.models import Share

__all__ = [
    "ActionItem",
    "Annotation",
    "ApiToken",
    "AppMeta",
    "Artifact",
    "Base",
    "BlobClaim",
    "ComputedFinding",
    "ConnBlock",
    "ConnEndpoint",
    "ConnField",
    "ConnTable",
    "EventChunk",
    "Fact",
    "FindingReview",
    "Incident",
    "LoginSession",
    "OneTimeLink",
    "PointChunk",
    "Postmortem",
    "PostmortemRevision",
    "PostmortemSection",
    "RateLimit",
    "Series",
    "Share",
    "User",
]
