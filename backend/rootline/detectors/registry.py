"""The one place checklist ids are registered, in the checklist's order (DOMAIN.md).

Adding an id is a rule file (``rules/<id>.toml``) plus a module ``<id>.py`` with its
``quantities(data, params)``, and one line here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from types import ModuleType

from rootline.detectors import (
    accept_queue_overflow,
    cpu_saturation,
    engine,
    ephemeral_port_exhaustion,
    gc_pauses,
    heartbeat_storm,
    memory_pressure,
    receiver_not_reading,
    short_lived_connections,
    single_connection_bottleneck,
    slow_start_after_idle,
    small_send_buffer,
    tcp_retransmissions,
    thread_lock_contention,
    threadpool_exhaustion,
    time_wait_storm,
)
from rootline.detectors.base import VERDICT_ORDER, Finding, IncidentData

_MODULES: tuple[ModuleType, ...] = (
    single_connection_bottleneck,
    small_send_buffer,
    receiver_not_reading,
    slow_start_after_idle,
    short_lived_connections,
    time_wait_storm,
    ephemeral_port_exhaustion,
    accept_queue_overflow,
    heartbeat_storm,
    threadpool_exhaustion,
    gc_pauses,
    thread_lock_contention,
    tcp_retransmissions,
    cpu_saturation,
    memory_pressure,
)
IDS: tuple[str, ...] = tuple(m.__name__.rsplit(".", 1)[-1] for m in _MODULES)
CHECKLIST_ORDER: dict[str, int] = {checklist_id: i for i, checklist_id in enumerate(IDS)}


@cache
def _checklists(version: str) -> dict[str, engine.Checklist]:
    del version  # the cache key: rule files re-read when they change
    return engine.load(_MODULES)


def checklists() -> dict[str, engine.Checklist]:
    """The loaded rules of the current rules version, by id."""
    return _checklists(engine.rules_version())


def title(checklist_id: str) -> str:
    return checklists()[checklist_id].rule.title


def __getattr__(name: str) -> object:
    if name == "CHECKLISTS":  # the current rules, read like a constant
        return checklists()
    raise AttributeError(name)


def run_all(data: IncidentData) -> list[Finding]:
    """Every checklist id's finding, after the differential diagnosis; a rule that fails
    reports it instead of hiding the rest."""
    findings = []
    version = engine.rules_version()  # read once: it stats every rule file and module
    ruled = _checklists(version)
    for checklist_id, item in ruled.items():
        try:
            finding = engine.judge(item, data, version=version)
        except Exception as exc:  # one broken checklist id must not cost the checklist
            finding = Finding(
                id=checklist_id,
                title=title(checklist_id),
                verdict="insufficient_data",
                summary=f"The detector failed: {type(exc).__name__}: {exc}",
                rules_version=version,
            )
        findings.append(finding)
    engine.diagnose(findings, {k: c.rule for k, c in ruled.items()})
    return sort_findings(findings)


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Confirmed, likely, insufficient data, ruled out; checklist order within each (a finding
    explained by another is ruled out as a second cause, so it ranks below its cause)."""
    return sorted(
        findings,
        key=lambda f: (VERDICT_ORDER[f.verdict], CHECKLIST_ORDER.get(f.id, 99)),
    )


def judge(checklist_id: str, data: IncidentData) -> Finding:
    """One checklist id's finding alone (no differential diagnosis): for tests and the CLI."""
    return engine.judge(checklists()[checklist_id], data)
