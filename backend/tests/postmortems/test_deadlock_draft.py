"""The draft of a postmortem on one real thread dump with a JVM-reported deadlock (the shared
corpus; skipped when absent): the cycle said once, the JVM named by what the dump says of it,
only the remedies that apply proposed, and one instant called one."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import CORPUS_DIR

DUMP = CORPUS_DIR / "threads" / "jdk25-jstack-java-level-deadlock-jthreaddump.txt"
CYCLE = '"DeadlockThread-A" waits for <0x000000052c830070> (a java.lang.Object) held by'
JVM = "the JVM (OpenJDK 25+36-LTS) in the dump jdk25-jstack-java-level-deadlock-jthreaddump.txt"


def _drafted(client: TestClient, incident_id: str, path: Path) -> dict[str, str]:
    response = client.post(
        f"/api/incidents/{incident_id}/artifacts",
        params={"filename": path.name, "wait": 60},
        content=path.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert response.status_code == 201, response.text
    drafted = client.post(f"/api/incidents/{incident_id}/postmortem")
    assert drafted.status_code == 201, drafted.text
    return {s["key"]: s["text"] for s in drafted.json()["sections"]}


@pytest.mark.skipif(not DUMP.exists(), reason="the shared corpus is not there")
def test_a_deadlock_draft_states_the_cycle_once(client: TestClient, incident_id: str) -> None:
    sections = _drafted(client, incident_id, DUMP)
    document = "\n\n".join(sections.values())
    assert document.count(CYCLE) == 1, document
    assert CYCLE in sections["root_causes"]  # in the mechanism, lock by lock
    # The JVM by its version and its file, not "the JVM of <file>".
    assert "the JVM of" not in document
    assert f"**Thread lock contention and deadlocks** ({JVM})" in sections["summary"]
    # One instant, not "from 11:28:04 to 11:28:04".
    assert "**test incident**: at one instant, 2025-12-21 11:28:04 (UTC)" in sections["summary"]
    assert f"**Where:** {JVM}, at one instant, 2025-12-21 11:28:04" in sections["root_causes"]
    assert "to 2025-12-21 11:28:04" not in document
    # The deadlock's remedy is the one action: no pool queued on a lock, no hot lock to replace.
    actions = [line for line in sections["action_items"].splitlines() if line.startswith("- [ ]")]
    assert len(actions) == 1 and actions[0].startswith(
        '- [ ] Break the deadlock of "DeadlockThread-A" and "DeadlockThread-B"'
    ), sections["action_items"]
    assert "hot global lock" not in document
    # One row for the first anomaly and the cause it starts, at the dump's instant.
    timeline = sections["timeline"]
    assert timeline.count("2025-12-21 11:28:04 |") == 2, timeline
    assert "| 2025-12-21 11:28:04 | Capture: one instant" in timeline
