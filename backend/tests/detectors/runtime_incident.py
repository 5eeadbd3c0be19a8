"""Builders of in-memory incidents for the runtime detectors' tests (thread pools, GC, CPU,
memory): real fixtures through the real parsers, or synthetic series, events and facts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from rootline.detectors.base import Finding
from rootline.detectors.data import MemoryIncidentData, ParsedArtifact
from rootline.parsers.base import EventData, Fact, ParseContext, ParseResult, SeriesSet
from rootline.parsers.registry import parse_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# The shared corpus of real captures sits beside the repository (read in place, never copied).
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"
T0 = 1_795_000_000_000  # an arbitrary epoch-ms origin for synthetic captures
VERDICTS = {"confirmed", "likely", "ruled_out", "insufficient_data"}


def parsed(path: Path, host: str | None = None) -> ParsedArtifact:
    """One file through sniffing and its real parser."""
    result = parse_bytes(path.read_bytes(), ParseContext.for_zone("UTC", default_time_ms=T0))
    return ParsedArtifact(path.name, host, result)


def fixture_incident(*relative: str, host: str | None = None) -> MemoryIncidentData:
    """Parse files under tests/fixtures with the real parsers."""
    return MemoryIncidentData([parsed(FIXTURES / rel, host) for rel in relative])


def corpus_incident(*relative: str) -> MemoryIncidentData:
    """Parse files of the shared corpus; skips the test when the corpus is not there."""
    paths = [CORPUS / rel for rel in relative]
    missing = [p for p in paths if not p.exists()]
    if missing:
        pytest.skip(f"corpus file not available: {missing[0]}")
    return MemoryIncidentData([parsed(p) for p in paths])


class Capture:
    """A synthetic artifact of one kind on one host: series, events and facts."""

    def __init__(self, kind: str = "synthetic", host: str | None = "h1", name: str = "") -> None:
        self.kind = kind
        self.host = host
        self.name = name or f"{kind}.txt"
        self.points = SeriesSet()
        self.events: list[EventData] = []
        self.facts: list[Fact] = []

    def series(
        self,
        name: str,
        values: Iterable[float],
        *,
        step_s: float = 1.0,
        start_s: float = 0.0,
        unit: str = "",
        labels: dict[str, str] | None = None,
    ) -> Capture:
        for i, value in enumerate(values):
            self.points.add(
                name, labels or {}, unit, T0 + round((start_s + i * step_s) * 1000), float(value)
            )
        return self

    def event(
        self, kind: str, at_s: float, duration_ms: float | None = None, **attrs: Any
    ) -> Capture:
        self.events.append(EventData(kind, T0 + round(at_s * 1000), duration_ms, dict(attrs)))
        return self

    def fact(self, key: str, value: str) -> Capture:
        self.facts.append(Fact(key, value))
        return self

    def artifact(self) -> ParsedArtifact:
        result = ParseResult(
            kind=self.kind, series=list(self.points), events=self.events, facts=self.facts
        )
        return ParsedArtifact(self.name, self.host, result)


def incident(*captures: Capture) -> MemoryIncidentData:
    return MemoryIncidentData([c.artifact() for c in captures])


def pool_capture(
    active: Sequence[float],
    *,
    max_threads: float = 8,
    queue: Sequence[float] | None = None,
    capacity: float | None = 50,
    rejected: Sequence[float] | None = None,
    completed_per_s: Sequence[float] | None = None,
    step_s: float = 1.0,
    pool: str = "biz",
    host: str | None = "h1",
) -> Capture:
    """Thread-pool metrics as the threadpool_metrics parser emits them."""
    labels = {"pool": pool}
    capture = Capture("threadpool_metrics", host)
    capture.series("threadpool.active", active, step_s=step_s, unit="threads", labels=labels)
    capture.series(
        "threadpool.max", [max_threads] * len(active), step_s=step_s, unit="threads", labels=labels
    )
    if queue is not None:
        capture.series("threadpool.queue", queue, step_s=step_s, unit="tasks", labels=labels)
        if capacity is not None:
            capture.series(
                "threadpool.queue_capacity",
                [capacity] * len(queue),
                step_s=step_s,
                unit="tasks",
                labels=labels,
            )
    if rejected is not None:
        capture.series("threadpool.rejected", rejected, step_s=step_s, unit="tasks", labels=labels)
    if completed_per_s is not None:
        capture.series(
            "threadpool.completed_per_s",
            completed_per_s,
            step_s=step_s,
            start_s=step_s,
            unit="per_s",
            labels=labels,
        )
    return capture


def assert_well_formed(finding: Finding, detector_id: str, parameters: Iterable[str]) -> None:
    """What every finding carries whatever its verdict."""
    assert finding.id == detector_id
    assert finding.verdict in VERDICTS
    assert finding.summary and finding.title
    for name in parameters:
        assert name.lower() in finding.parameters
    if finding.verdict == "insufficient_data":
        assert finding.missing and all(m.command for m in finding.missing)
    else:
        assert finding.evidence
        assert all(e.summary for e in finding.evidence)
    if finding.verdict in ("confirmed", "likely"):
        assert finding.remedies and finding.explanation
