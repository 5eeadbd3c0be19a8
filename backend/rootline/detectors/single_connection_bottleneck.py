"""STUB: detector `single_connection_bottleneck`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "single_connection_bottleneck"
TITLE = "One long connection carries the load"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
