"""One lab scenario end to end: reproduce it, capture with the collector, ingest the bundles
into a real server, and read the checklist back. Needs root and network namespaces."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_DIR, LiveServer

SCENARIO = "time_wait_storm"


def namespaces_available() -> str | None:
    """Why the lab cannot run here, or None when it can."""
    if os.geteuid() != 0:
        return "the lab needs root"
    if shutil.which("ip") is None or shutil.which("iptables") is None:
        return "the lab needs iproute2 and iptables"
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return None if probe.returncode == 0 else f"ip netns unavailable: {probe.stderr.strip()}"


def test_time_wait_storm_from_capture_to_checklist(server: LiveServer, tmp_path: Path) -> None:
    reason = namespaces_available()
    if reason:
        pytest.skip(reason)
    run = subprocess.run(
        [str(REPO_DIR / "lab" / "run.sh"), SCENARIO],
        env={**os.environ, "LAB_OUT": str(tmp_path), "RUN_S": "10", "REQUESTS": "12000"},
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    bundles = sorted((tmp_path / SCENARIO).glob("rootline-*.tar.gz"))
    assert {b.name.split("-")[1] for b in bundles} == {"server", "client"}

    incident = server.http.post("/api/incidents", json={"title": "lab smoke"}).json()["id"]
    ingest = server.ingest(incident, *bundles, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    artifacts = server.http.get(f"/api/incidents/{incident}/artifacts").json()
    assert {a["host"] for a in artifacts if a["parent_id"]} == {"server", "client"}
    by_name = {(a["host"], a["filename"].rsplit("/", 1)[-1]): a for a in artifacts}
    for capture in ("ss-tinm.txt", "ss-s.txt", "nstat.txt", "sysctl.txt"):
        assert by_name[("server", capture)]["status"] == "parsed", capture

    findings = server.http.get(f"/api/incidents/{incident}/checklist", timeout=60).json()[
        "findings"
    ]
    verdicts = {f["id"]: f for f in findings}
    storm = verdicts["time_wait_storm"]
    assert storm["verdict"] == "confirmed", storm["summary"]
    assert storm["evidence"][0]["from_ms"] is not None
    assert verdicts["gc_pauses"]["verdict"] == "insufficient_data"
    assert verdicts["gc_pauses"]["missing"]
