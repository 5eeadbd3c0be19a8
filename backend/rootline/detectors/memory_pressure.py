"""STUB: detector `memory_pressure`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "memory_pressure"
TITLE = "Memory pressure"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
