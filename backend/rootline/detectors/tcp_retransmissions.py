"""STUB: detector `tcp_retransmissions`, not written yet."""

from __future__ import annotations

from rootline.detectors.base import Finding, IncidentData

ID = "tcp_retransmissions"
TITLE = "TCP retransmissions"


def detect(data: IncidentData) -> Finding:
    return Finding(
        id=ID,
        title=TITLE,
        verdict="insufficient_data",
        summary="This check is not implemented yet.",
    )
