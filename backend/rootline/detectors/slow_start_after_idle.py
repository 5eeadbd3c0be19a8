"""STUB: detector `slow_start_after_idle`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "slow_start_after_idle"
TITLE = "Slow start after idle"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
