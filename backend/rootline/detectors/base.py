"""The contract every detector follows, and the incident data they read.

A detector module exposes ``ID``, ``TITLE`` and ``detect(data: IncidentData) -> Finding``.
It is pure: it reads series, events and facts through :class:`IncidentData` (backed by
parse results in memory for ``rootline analyze``, or by the database in the server) and
returns a verdict with the numbers behind it. Thresholds are module-level constants named
for what they mean; every evidence item repeats the threshold it was compared with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

Verdict = Literal["confirmed", "likely", "ruled_out", "insufficient_data"]
VERDICT_ORDER: dict[str, int] = {
    "confirmed": 0,
    "likely": 1,
    "insufficient_data": 2,
    "ruled_out": 3,
}


@dataclass(frozen=True, slots=True)
class SeriesView:
    """One stored series with its points, as numpy arrays sorted by time."""

    name: str
    labels: dict[str, str]
    unit: str
    host: str | None
    artifact: str
    times_ms: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.times_ms)


@dataclass(frozen=True, slots=True)
class EventView:
    kind: str
    time_ms: int
    duration_ms: float | None
    attrs: dict[str, Any]
    host: str | None
    artifact: str


@dataclass(frozen=True, slots=True)
class FactView:
    key: str
    value: str
    host: str | None
    artifact: str
    time_ms: int | None


class IncidentData(Protocol):
    """What detectors may read about an incident: every host, every artifact."""

    def series(self, name: str, *, host: str | None = None) -> Sequence[SeriesView]:
        """Series named ``name`` (``prefix*`` matches a prefix)."""
        ...

    def events(self, kind: str, *, host: str | None = None) -> Sequence[EventView]: ...

    def facts(self, key: str, *, host: str | None = None) -> Sequence[FactView]:
        """Facts keyed ``key`` (``prefix*`` matches a prefix)."""
        ...

    def artifact_kinds(self) -> set[str]:
        """Kinds of the artifacts the incident holds (``ss``, ``nstat``, ``gc_unified`` ...)."""
        ...

    def hosts(self) -> set[str]: ...


@dataclass(slots=True)
class Evidence:
    summary: str
    observed: float | str | None = None
    threshold: float | str | None = None
    unit: str = ""
    from_ms: int | None = None
    to_ms: int | None = None
    series: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    event_kind: str | None = None
    artifact: str | None = None
    host: str | None = None


@dataclass(slots=True)
class Missing:
    artifact: str
    command: str


@dataclass(slots=True)
class Finding:
    id: str
    title: str
    verdict: Verdict
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    explanation: str = ""
    remedies: list[str] = field(default_factory=list)
    missing: list[Missing] = field(default_factory=list)
    parameters: dict[str, float | int | str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Detector(Protocol):
    ID: str
    TITLE: str

    def detect(self, data: IncidentData) -> Finding: ...


def parameters_of(
    module_globals: dict[str, Any], names: Sequence[str]
) -> dict[str, float | int | str]:
    """The named thresholds of a detector module, for the finding's ``parameters``."""
    return {name.lower(): module_globals[name] for name in names}
