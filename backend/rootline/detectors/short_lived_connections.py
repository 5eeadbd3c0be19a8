"""STUB: detector `short_lived_connections`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "short_lived_connections"
TITLE = "Short-lived connections"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
