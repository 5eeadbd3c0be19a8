"""The one place detectors are registered, in the checklist's order (DOMAIN.md)."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import cast

from rootline.detectors import (
    accept_queue_overflow,
    cpu_saturation,
    gc_pauses,
    heartbeat_storm,
    memory_pressure,
    receiver_not_reading,
    short_lived_connections,
    single_connection_bottleneck,
    slow_start_after_idle,
    small_send_buffer,
    tcp_retransmissions,
    threadpool_exhaustion,
    time_wait_storm,
)
from rootline.detectors.base import VERDICT_ORDER, Detector, Finding, IncidentData

_MODULES: tuple[ModuleType, ...] = (
    single_connection_bottleneck,
    small_send_buffer,
    receiver_not_reading,
    slow_start_after_idle,
    short_lived_connections,
    time_wait_storm,
    accept_queue_overflow,
    heartbeat_storm,
    threadpool_exhaustion,
    gc_pauses,
    tcp_retransmissions,
    cpu_saturation,
    memory_pressure,
)
DETECTORS: dict[str, Detector] = {m.ID: cast(Detector, m) for m in _MODULES}
CHECKLIST_ORDER: dict[str, int] = {detector_id: i for i, detector_id in enumerate(DETECTORS)}


def run_all(data: IncidentData) -> list[Finding]:
    """Every detector's finding; a detector that fails reports it instead of hiding the rest."""
    findings = []
    for detector_id, detector in DETECTORS.items():
        try:
            finding = detector.detect(data)
        except Exception as exc:  # one broken detector must not cost the checklist
            finding = Finding(
                id=detector_id,
                title=detector.TITLE,
                verdict="insufficient_data",
                summary=f"The detector failed: {type(exc).__name__}: {exc}",
            )
        findings.append(finding)
    return sort_findings(findings)


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Confirmed, likely, insufficient data, ruled out; checklist order within each."""
    return sorted(findings, key=lambda f: (VERDICT_ORDER[f.verdict], CHECKLIST_ORDER.get(f.id, 99)))
