"""Synthetic per-connection ss captures (``tcp.conn.*`` with local/peer labels) for the tests of
the connection detectors: small_send_buffer, receiver_not_reading, slow_start_after_idle,
single_connection_bottleneck."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from rootline.detectors.base import IncidentData
from rootline.detectors.data import MemoryIncidentData
from rootline.parsers.base import ParseContext
from rootline.parsers.ss import unit_of
from tests.detectors.net_incident import T0, Capture

# `make lab` points this at fresh captures (lab/out); by default the committed ones.
LAB_FIXTURES = Path(
    os.environ.get("ROOTLINE_LAB_DIR", Path(__file__).resolve().parents[3] / "lab" / "fixtures")
)


def connection(
    capture: Capture,
    local: str,
    peer: str,
    *,
    step_s: float = 1.0,
    **fields: Sequence[float] | float,
) -> Capture:
    """Add ``tcp.conn.<field>`` series for one connection; a scalar repeats over the longest."""
    length = max((len(v) for v in fields.values() if not isinstance(v, int | float)), default=1)
    labels = {"local": local, "peer": peer}
    for field_name, values in fields.items():
        name = "tcp.conn." + field_name.replace("__", ".")
        points = [values] * length if isinstance(values, int | float) else list(values)
        capture.series(name, points, step_s=step_s, unit=unit_of(name), labels=labels)
    return capture


def lab_incident(scenario: str) -> IncidentData:
    """The committed lab capture of ``scenario`` parsed like ``rootline analyze`` (skips if absent)."""
    folder = LAB_FIXTURES / scenario
    if not folder.is_dir():
        pytest.skip(f"lab fixture {scenario} not committed yet")
    from rootline.offline import expand_paths, parse_path

    context = ParseContext.for_zone("UTC", default_time_ms=T0)
    parsed = [item for path in expand_paths([folder]) for item in parse_path(path, context, None)]
    return MemoryIncidentData([p for p in parsed if p.result.status != "failed"])
