"""An :class:`IncidentData` over parse results held in memory (``rootline analyze``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from rootline.detectors.base import ArtifactTime, EventView, FactView, SeriesView
from rootline.parsers.base import ParseResult, assumed_times


@dataclass(frozen=True, slots=True)
class ParsedArtifact:
    name: str
    host: str | None
    result: ParseResult
    # The time its data was given for want of its own (``ParseContext.default_time_ms``: the
    # moment ``rootline analyze`` ran); None when not known (nothing is then called placed).
    default_time_ms: int | None = None


def _matches(pattern: str, name: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def artifact_time(artifact: ParsedArtifact) -> ArtifactTime | None:
    """Where a parsed file sits in time and what of that was assumed (None: nothing read,
    or a bundle's own report)."""
    result = artifact.result
    if result.status == "failed" or result.kind == "bundle":
        return None
    span = result.time_range()
    start, end = span if span else (None, None)
    return ArtifactTime(
        artifact.name,
        artifact.host or result.host,
        start,
        end,
        assumed_times(
            kind=result.kind,
            time_start_ms=start,
            default_time_ms=artifact.default_time_ms,
            anchored=result.anchored,
            facts=[(f.key, f.value) for f in result.facts],
        ),
    )


class MemoryIncidentData:
    """Series, events and facts of parsed artifacts, indexed by name for the detectors."""

    def __init__(self, artifacts: Iterable[ParsedArtifact]) -> None:
        self._series: dict[str, list[SeriesView]] = defaultdict(list)
        self._events: dict[str, list[EventView]] = defaultdict(list)
        self._facts: dict[str, list[FactView]] = defaultdict(list)
        self._kinds: set[str] = set()
        self._hosts: set[str] = set()
        self._times: list[ArtifactTime] = []
        for artifact in artifacts:
            result = artifact.result
            host = artifact.host or result.host
            if host:
                self._hosts.add(host)
            placed = artifact_time(artifact)
            if placed is not None:
                self._times.append(placed)
            if result.status != "failed":
                self._kinds.add(result.kind)
            for s in result.series:
                if not len(s):
                    continue
                times = np.frombuffer(s.times_ms, dtype=np.int64)
                values = np.frombuffer(s.values, dtype=np.float64)
                order = np.argsort(times, kind="stable")
                labels = dict(s.labels)
                if host:
                    labels.setdefault("host", host)
                self._series[s.name].append(
                    SeriesView(
                        s.name, labels, s.unit, host, artifact.name, times[order], values[order]
                    )
                )
            for e in result.events:
                self._events[e.kind].append(
                    EventView(e.kind, e.time_ms, e.duration_ms, e.attrs, host, artifact.name)
                )
            for f in result.facts:
                self._facts[f.key].append(FactView(f.key, f.value, host, artifact.name, f.time_ms))
        for events in self._events.values():
            events.sort(key=lambda e: e.time_ms)

    def series(self, name: str, *, host: str | None = None) -> Sequence[SeriesView]:
        found = [
            s
            for key, items in self._series.items()
            if _matches(name, key)
            for s in items
            if host is None or s.host == host
        ]
        return sorted(found, key=lambda s: (s.name, s.host or "", sorted(s.labels.items())))

    def events(self, kind: str, *, host: str | None = None) -> Sequence[EventView]:
        return [e for e in self._events.get(kind, []) if host is None or e.host == host]

    def facts(self, key: str, *, host: str | None = None) -> Sequence[FactView]:
        return [
            f
            for k, items in self._facts.items()
            if _matches(key, k)
            for f in items
            if host is None or f.host == host
        ]

    def artifact_kinds(self) -> set[str]:
        return set(self._kinds)

    def hosts(self) -> set[str]:
        return set(self._hosts)

    def artifact_times(self) -> Sequence[ArtifactTime]:
        return list(self._times)
