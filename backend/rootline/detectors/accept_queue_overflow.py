"""STUB: detector `accept_queue_overflow`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "accept_queue_overflow"
TITLE = "Accept queue overflow"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
