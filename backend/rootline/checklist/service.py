"""The incident's checklist: detector findings, recomputed when artifacts change, and reviews."""

from __future__ import annotations

from sqlalchemy.orm import Session

from rootline.checklist import repository
from rootline.checklist.data import DatabaseIncidentData
from rootline.checklist.models import FindingReview
from rootline.checklist.schemas import (
    Checklist,
    FindingRead,
    ReviewRead,
    ReviewUpdate,
    SymptomRead,
)
from rootline.detectors import engine, registry, symptom
from rootline.detectors.base import VERDICT_ORDER
from rootline.errors import NotFound
from rootline.incidents import repository as incidents_repository
from rootline.incidents.models import Incident
from rootline.parsers.base import cyclic_gc_paused
from rootline.timeutil import now_ms


def recompute(session: Session, *, incident: Incident) -> None:
    """Run every detector over the incident's data and store the findings (reviews untouched)."""
    # Two uploads finishing together would both replace the findings; let them take turns.
    incidents_repository.lock(session, incident.id)
    # The detectors make many short-lived objects (events, their attrs, per-connection
    # arrays) and no cycles: a full collection over a parse worker's heap in the middle cost
    # a quarter of a 100 MB bundle's recompute.
    with cyclic_gc_paused():
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
                "rules_version": f.rules_version,
                "computed_at_ms": computed_at,
            }
            for f in findings
        ],
    )
    session.flush()
    incidents_repository.bump_version(session, incident.id)


def has_stale(session: Session) -> bool:
    """Whether some incident's checklist was computed by another rules version."""
    return bool(repository.stale_incidents(session, engine.rules_version(), limit=1))


def recompute_stale(session: Session, *, limit: int = 1) -> int:
    """Recompute the checklists computed by another rules version (an edited threshold, a new
    release): at most ``limit`` incidents; how many. The parse workers call it when idle, so
    stored incidents follow the rules without anyone re-uploading."""
    done = 0
    for incident_id in repository.stale_incidents(session, engine.rules_version(), limit=limit):
        incident = incidents_repository.get(session, incident_id)
        if incident is not None:
            recompute(session, incident=incident)
            done += 1
    return done


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
    "references",
    "explained_by",
    "entity",
    "rules_version",
)


def get(session: Session, *, incident: Incident) -> Checklist:
    """The stored findings with the team's reviews. Never writes: a GET stays a read."""
    current = engine.rules_version()
    rows = repository.findings(session, incident.id)
    stored = [(row.payload, row.computed_at_ms) for row in rows]
    data = DatabaseIncidentData(session, incident.id)
    if not stored or any(row.rules_version != current for row in rows):
        # Findings are stored from the incident's creation on and recomputed by the workers
        # when the rules change; until then (or should a row set be missing) answer with a
        # fresh computation rather than turn this read into a write.
        computed_at = now_ms()
        fresh = registry.run_all(data)
        stored = [(finding.to_dict(), computed_at) for finding in fresh]
    # Read from the application's own series at each read: it needs no stored state, and a
    # new upload shows at once.
    found = symptom.find_symptom(data)
    reviews = repository.reviews(session, incident.id)
    items = []
    for payload, computed_at_ms in stored:
        review = reviews.get(payload["id"])
        override = review.verdict_override if review else None
        effective = override or payload["verdict"]
        overlap = symptom.overlap(found, effective, payload.get("evidence", []))
        items.append(
            FindingRead(
                **{key: payload[key] for key in _FINDING_FIELDS if key in payload},
                effective_verdict=effective,
                review=ReviewRead.model_validate(review, from_attributes=True) if review else None,
                computed_at_ms=computed_at_ms,
                overlaps_symptom=overlap.overlaps,
                symptom_overlap=overlap.sentence,
            )
        )
    items.sort(
        key=lambda f: (VERDICT_ORDER[f.effective_verdict], registry.CHECKLIST_ORDER.get(f.id, 99))
    )
    symptom_read = (
        SymptomRead(
            **found.to_dict(), overlapping=[f.id for f in items if f.overlaps_symptom is True]
        )
        if found
        else None
    )
    return Checklist(
        incident_id=str(incident.id), rules_version=current, findings=items, symptom=symptom_read
    )


def review(session: Session, *, incident: Incident, finding_id: str, data: ReviewUpdate) -> None:
    """Store the team's override and note for one checklist item."""
    if finding_id not in registry.CHECKLIST_ORDER:
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
    incidents_repository.bump_version(session, incident.id)
