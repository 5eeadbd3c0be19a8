"""STUB: detector `heartbeat_storm`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "heartbeat_storm"
TITLE = "Heartbeat storm"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
