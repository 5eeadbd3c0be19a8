"""STUB: detector `receiver_not_reading`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "receiver_not_reading"
TITLE = "Receiver not reading fast enough"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
