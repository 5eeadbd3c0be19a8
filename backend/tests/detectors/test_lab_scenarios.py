"""Each detector on the captures of incidents reproduced for real in the lab (lab/fixtures).

Every scenario must get ``confirmed`` from the detector it reproduces, no ``confirmed`` from a
detector it does not reproduce (a TIME_WAIT storm *is* short-lived connections, so that pair is
allowed), and the healthy baseline no ``confirmed`` or ``likely`` at all. Every ``ruled_out``
must say its numbers.
"""

from __future__ import annotations

import re

import pytest

from rootline.detectors.base import Finding
from rootline.offline import analyze
from rootline.parsers.base import ParseContext
from tests.detectors.conn_incident import LAB_FIXTURES
from tests.detectors.net_incident import T0

# scenario -> (detectors that must confirm, detectors that may also confirm)
EXPECTED: dict[str, tuple[set[str], set[str]]] = {
    "small_send_buffer": ({"small_send_buffer"}, set()),
    "single_connection_bottleneck": ({"single_connection_bottleneck"}, set()),
    "single_connection_bottleneck-contrast": (set(), set()),
    "receiver_not_reading": ({"receiver_not_reading"}, set()),
    "time_wait_storm": ({"time_wait_storm"}, {"short_lived_connections"}),
    "accept_queue_overflow": ({"accept_queue_overflow"}, set()),
    "slow_start_after_idle": ({"slow_start_after_idle"}, set()),
    "slow_start_after_idle-contrast": (set(), set()),
    "threadpool_exhaustion": ({"threadpool_exhaustion"}, set()),
    "gc_pauses": ({"gc_pauses"}, set()),
    "heartbeat_storm": ({"heartbeat_storm"}, set()),
    "tcp_retransmissions": ({"tcp_retransmissions"}, set()),
    "healthy": (set(), set()),
}
HEALTHY = "healthy"


def findings_of(scenario: str) -> dict[str, Finding]:
    folder = LAB_FIXTURES / scenario
    if not folder.is_dir():
        pytest.skip(f"lab fixture {scenario} not committed")
    findings, parsed = analyze([folder], ParseContext.for_zone("UTC", default_time_ms=T0))
    assert parsed, f"nothing parsed in {folder}"
    return {f.id: f for f in findings}


def test_every_committed_scenario_has_expectations() -> None:
    folders = LAB_FIXTURES.iterdir() if LAB_FIXTURES.is_dir() else iter(())
    # Hidden folders are the lab's own (the compiled delay program in lab/out/.bin).
    committed = {p.name for p in folders if p.is_dir() and not p.name.startswith(".")}
    assert committed <= set(EXPECTED), (
        f"scenarios without expectations: {committed - set(EXPECTED)}"
    )


@pytest.mark.parametrize("scenario", sorted(EXPECTED))
def test_scenario_verdicts(scenario: str) -> None:
    findings = findings_of(scenario)
    must, may = EXPECTED[scenario]
    confirmed = {i for i, f in findings.items() if f.verdict == "confirmed"}
    assert must <= confirmed, {i: findings[i].summary for i in must}
    unexpected = confirmed - must - may
    assert not unexpected, {i: findings[i].summary for i in unexpected}
    if scenario == HEALTHY:
        flagged = {
            i: f.summary for i, f in findings.items() if f.verdict in {"confirmed", "likely"}
        }
        assert not flagged
    for finding in findings.values():
        if finding.verdict == "ruled_out":
            assert re.search(r"\d", finding.summary), f"{finding.id} ruled out without numbers"
