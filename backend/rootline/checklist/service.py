"""The incident's checklist: detector findings, recomputed when artifacts change, and reviews."""

from __future__ import annotations

from sqlalchemy.orm import Session

from rootline.checklist import repository
from rootline.checklist.data import DatabaseIncidentData
from rootline.checklist.models import FindingReview
from rootline.checklist.schemas import Checklist, FindingRead, ReviewRead, ReviewUpdate
from rootline.detectors import registry
from rootline.detectors.base import VERDICT_ORDER
from rootline.errors import NotFound
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.timeutil import now_ms


def recompute(session: Session, *, incident: Incident) -> None:
    """Run every detector over the incident's data and store the findings (reviews untouched)."""
    # Two uploads finishing together would both replace the findings; let them take turns.
    incidents_repository.lock(session, incident.id)
    findings = registry.run_all(DatabaseIncidentData(session, incident.id))
    computed_at = now_ms()
    repository.replace_findings(
        session,
        incident.id,
        [
            {
                "incident_id": incident.id,
                "finding_id": f.id,
                "verdict": f.verdict,
                "payload": f.to_dict(),
                "computed_at_ms": computed_at,
            }
            for f in findings
        ],
    )
    session.flush()


_FINDING_FIELDS = (
    "id",
    "title",
    "verdict",
    "summary",
    "evidence",
    "explanation",
    "remedies",
    "missing",
    "parameters",
)


def get(session: Session, *, incident: Incident) -> Checklist:
    """The stored findings with the team's reviews. Never writes: a GET stays a read."""
    stored = [
        (row.payload, row.computed_at_ms) for row in repository.findings(session, incident.id)
    ]
    if not stored:
        # Findings are stored from the incident's creation on; should a row set be missing,
        # answer with a fresh computation rather than turn this read into a write.
        computed_at = now_ms()
        fresh = registry.run_all(DatabaseIncidentData(session, incident.id))
        stored = [(finding.to_dict(), computed_at) for finding in fresh]
    reviews = repository.reviews(session, incident.id)
    items = []
    for payload, computed_at_ms in stored:
        review = reviews.get(payload["id"])
        override = review.verdict_override if review else None
        items.append(
            FindingRead(
                **{key: payload[key] for key in _FINDING_FIELDS},
                effective_verdict=override or payload["verdict"],
                review=ReviewRead.model_validate(review, from_attributes=True) if review else None,
                computed_at_ms=computed_at_ms,
            )
        )
    items.sort(
        key=lambda f: (VERDICT_ORDER[f.effective_verdict], registry.CHECKLIST_ORDER.get(f.id, 99))
    )
    return Checklist(incident_id=str(incident.id), findings=items)


def review(session: Session, *, incident: Incident, finding_id: str, data: ReviewUpdate) -> None:
    """Store the team's override and note for one checklist item."""
    if finding_id not in registry.TITLES:
        raise NotFound("finding_not_found", f"no checklist item {finding_id!r}")
    row = repository.review(session, incident.id, finding_id)
    if row is None:
        row = FindingReview(incident_id=incident.id, finding_id=finding_id)
        session.add(row)
    row.verdict_override = data.verdict_override
    row.note = data.note
    row.author = data.author
    row.updated_at_ms = now_ms()
    session.flush()
