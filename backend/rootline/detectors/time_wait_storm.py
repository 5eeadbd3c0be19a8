"""STUB: detector `time_wait_storm`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "time_wait_storm"
TITLE = "TIME_WAIT storm"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
