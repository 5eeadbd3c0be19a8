"""The contract every checklist id follows, and the incident data it reads.

A checklist id is a rule file (``rules/<id>.toml``: thresholds, verdict ladder, texts) and a
module ``<id>.py`` exposing ``quantities(data: IncidentData, params: Params) ->
list[Measurement]``: one measurement per entity it judges (a connection, a listener, a pool,
a host ...), each a dict of named quantities with where in the timeline they were seen. It is
pure: it reads series, events and facts through :class:`IncidentData` (backed by parse
results in memory for ``rootline analyze``, or by the database in the server). The engine
(:mod:`rootline.detectors.engine`) turns measurements into a :class:`Finding`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

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


class EventView(NamedTuple):
    """One event. A named tuple, not a frozen dataclass: a GC log's tens of thousands of them
    are made at every checklist, at a third of the cost."""

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


@dataclass(frozen=True, slots=True)
class ArtifactTime:
    """Where one artifact sits in time, and what of that was assumed rather than read.

    ``assumed`` holds (what, detail) pairs from :func:`rootline.parsers.base.assumed_times`:
    ``placed_at_upload`` (no timestamp: its data sits at the upload time), a key of
    ``TIME_ASSUMPTION_FACTS`` with its value (``app_log.date_assumed``, the date put on lines
    with a time of day only), ``unanchored`` (JVM uptimes only). Empty: its times are its own.
    """

    artifact: str
    host: str | None
    start_ms: int | None
    end_ms: int | None
    assumed: tuple[tuple[str, str], ...] = ()

    @property
    def span(self) -> tuple[int, int] | None:
        """(start, end) in ms, an instant's end its start; None when it holds no time."""
        if self.start_ms is None:
            return None
        return self.start_ms, self.end_ms if self.end_ms is not None else self.start_ms


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

    def artifact_times(self) -> Sequence[ArtifactTime]:
        """Every readable artifact's time span, and what of its times was assumed."""
        ...


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
    met: bool | None = None  # None: nothing to compare with
    threshold_name: str | None = None
    symptom: str | None = None
    corroborates: bool = False  # a proxy: supports, never decides alone
    operator: str | None = None  # how observed meets threshold (rule.Operator: ">=", ">" ...)
    # What of its artifact's time was assumed (``placed_at_upload``, ``app_log.date_assumed``,
    # ``unanchored``; see ArtifactTime): where it sits on the timeline is a guess.
    time_assumed: str | None = None
    against: list[str] = field(default_factory=list)  # Anchor.against


@dataclass(slots=True)
class Anchor:
    """Where a quantity was seen: the series (with labels), range, host and artifact."""

    series: str | None = None
    labels: dict[str, str] = field(default_factory=dict)
    from_ms: int | None = None
    to_ms: int | None = None
    host: str | None = None
    artifact: str | None = None
    event_kind: str | None = None
    # Other files the quantity was placed against (the slow period's, for a GC pause "inside
    # the slow period"): where it falls against them is as sure as their times are.
    against: tuple[str, ...] = ()


Quantity = float | int | str | bool | None


@dataclass(slots=True)
class Measurement:
    """One judged entity: its quantities by name, and where each was seen.

    ``key`` identifies the entity across checklist ids (``conn_key`` / ``host_key`` in
    :mod:`rootline.detectors.quantities`) so that one cause's mechanism can explain another's
    symptom on the same entity. ``anchors`` maps a quantity name to its place in the timeline;
    ``anchor`` is the default for the rest.
    """

    entity: str
    key: str
    values: dict[str, Quantity]
    anchor: Anchor = field(default_factory=Anchor)
    anchors: dict[str, Anchor] = field(default_factory=dict)

    def anchor_of(self, quantity: str) -> Anchor:
        return self.anchors.get(quantity, self.anchor)


Params = dict[str, float | int | str]


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
    references: list[dict[str, str | None]] = field(default_factory=list)
    explained_by: list[str] = field(default_factory=list)
    entity: str = ""
    rules_version: str = ""
    # Symptoms (``kind@entity``) this cause's mechanism accounts for, over every entity it
    # confirmed (not only the one shown): the differential diagnosis reads them.
    explains: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class QuantitiesModule(Protocol):
    """A checklist id's numbers: ``rules/<id>.toml`` names what they mean."""

    def quantities(self, data: IncidentData, params: Params) -> list[Measurement]: ...
