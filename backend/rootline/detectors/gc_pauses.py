"""STUB: detector `gc_pauses`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "gc_pauses"
TITLE = "Long GC pauses"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
