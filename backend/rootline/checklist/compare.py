"""Before and after: two checklists side by side (two incidents, or two ranges of one).

A side with a range gets its checklist computed over that range only
(`WindowedIncidentData`); a side without one reads the incident's stored checklist, the
team's overrides included.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from rootline.checklist import service as checklist_service
from rootline.checklist.data import DatabaseIncidentData, WindowedIncidentData
from rootline.checklist.schemas import (
    CompareRow,
    CompareSide,
    CompareVerdict,
    Comparison,
    FindingRead,
    KeyNumber,
)
from rootline.detectors import engine, registry
from rootline.incidents import service as incidents_service
from rootline.incidents.models import Incident

# How strongly a verdict names a cause; insufficient data is off the scale.
SEVERITY = {"ruled_out": 0, "likely": 1, "confirmed": 2}
KEY_NUMBERS = 4
CHANGE_ORDER = {"worse": 0, "better": 1, "unclear": 2, "same": 3}


def _key_numbers(finding: FindingRead) -> list[KeyNumber]:
    measured = [e for e in finding.evidence if e.observed is not None]
    measured.sort(key=lambda e: (e.met is None, not e.met))
    return [
        KeyNumber(
            summary=e.summary, observed=e.observed, threshold=e.threshold, unit=e.unit, met=e.met
        )
        for e in measured[:KEY_NUMBERS]
    ]


def change(before: str, after: str) -> str:
    """`same`, `better` (toward ruled out), `worse` (toward confirmed) or `unclear`."""
    if before == after:
        return "same"
    if before not in SEVERITY or after not in SEVERITY:
        return "unclear"
    return "worse" if SEVERITY[after] > SEVERITY[before] else "better"


def _side(
    session: Session, incident: Incident, from_ms: int | None, to_ms: int | None
) -> tuple[CompareSide, dict[str, FindingRead]]:
    if from_ms is not None and to_ms is not None:
        data = WindowedIncidentData(DatabaseIncidentData(session, incident.id), from_ms, to_ms)
        findings = [
            FindingRead(
                **{k: v for k, v in f.to_dict().items() if k in FindingRead.model_fields},
                effective_verdict=f.verdict,
                review=None,
                computed_at_ms=0,
            )
            for f in registry.run_all(data)
        ]
        windowed = True
    else:
        findings = checklist_service.get(session, incident=incident).findings
        read = incidents_service.to_read(session, incident=incident)
        from_ms, to_ms = read.window_start_ms, read.window_end_ms
        windowed = False
    side = CompareSide(
        incident_id=str(incident.id),
        title=incident.title,
        timezone=incident.timezone,
        from_ms=from_ms,
        to_ms=to_ms,
        windowed=windowed,
    )
    return side, {f.id: f for f in findings}


def compare(
    session: Session,
    *,
    a: Incident,
    b: Incident,
    a_range: tuple[int | None, int | None] = (None, None),
    b_range: tuple[int | None, int | None] = (None, None),
) -> Comparison:
    """Both checklists, row by checklist id, with what changed from A to B."""
    side_a, findings_a = _side(session, a, *a_range)
    side_b, findings_b = _side(session, b, *b_range)
    rows = []
    for checklist_id in sorted(
        findings_a.keys() | findings_b.keys(), key=lambda i: registry.CHECKLIST_ORDER.get(i, 99)
    ):
        fa, fb = findings_a.get(checklist_id), findings_b.get(checklist_id)
        if fa is None or fb is None:
            continue
        rows.append(
            CompareRow(
                id=checklist_id,
                title=fa.title,
                a=CompareVerdict(
                    verdict=fa.effective_verdict, summary=fa.summary, key_numbers=_key_numbers(fa)
                ),
                b=CompareVerdict(
                    verdict=fb.effective_verdict, summary=fb.summary, key_numbers=_key_numbers(fb)
                ),
                change=change(fa.effective_verdict, fb.effective_verdict),
            )
        )
    rows.sort(key=lambda r: CHANGE_ORDER[r.change])
    return Comparison(a=side_a, b=side_b, rules_version=engine.rules_version(), rows=rows)
