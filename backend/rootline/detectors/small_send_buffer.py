"""STUB: detector `small_send_buffer`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "small_send_buffer"
TITLE = "Send buffer smaller than the bandwidth-delay product"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
