"""STUB: detector `threadpool_exhaustion`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "threadpool_exhaustion"
TITLE = "Thread pool exhaustion"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
