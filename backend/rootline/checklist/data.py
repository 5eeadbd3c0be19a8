"""An :class:`IncidentData` reading one incident from the database, loading series on demand."""

from __future__ import annotations

import uuid
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from sqlalchemy.orm import Session

from rootline.artifacts import repository as artifacts_repository
from rootline.detectors.base import (
    ArtifactTime,
    EventView,
    FactView,
    IncidentData,
    SeriesView,
)
from rootline.detectors.quantities import within
from rootline.events import repository as events_repository
from rootline.facts import repository as facts_repository
from rootline.parsers.base import TIME_ASSUMPTION_FACTS, assumed_times
from rootline.series import codec
from rootline.series import repository as series_repository
from rootline.series import service as series_service


class DatabaseIncidentData:
    def __init__(self, session: Session, incident_id: uuid.UUID) -> None:
        self._session = session
        self._incident_id = incident_id
        self._series_cache: dict[tuple[str, str | None], list[SeriesView]] = {}
        self._facts_cache: dict[tuple[str, str | None], list[FactView]] = {}
        self._events_cache: dict[tuple[str, str | None], list[EventView]] = {}
        self._conn_tables: dict[int, series_service.ConnTableIndex] = {}

    @cached_property
    def _filenames(self) -> dict[uuid.UUID, str]:
        return artifacts_repository.filenames(self._session, self._incident_id)

    @cached_property
    def _kinds_and_hosts(self) -> tuple[set[str], set[str]]:
        return artifacts_repository.parsed_kinds_and_hosts(self._session, self._incident_id)

    @cached_property
    def _names(self) -> tuple[_Names, _Names]:
        """(name, host) of the incident's series rows, and of its connection fields."""
        rows, fields = series_repository.names_and_hosts(
            self._session, incident_id=self._incident_id
        )
        return _Names(rows), _Names(fields)

    @cached_property
    def _conn_fields(self) -> series_service.FieldsByName:
        """Every field of the incident's connection tables (a few hundred rows): one query,
        not one per field name asked."""
        return series_service.FieldsByName(
            series_repository.conn_fields(self._session, incident_id=self._incident_id)
        )

    def series(self, name: str, *, host: str | None = None) -> Sequence[SeriesView]:
        key = (name, host)
        if key not in self._series_cache:
            self._series_cache[key] = self._load_series(name, host)
        return self._series_cache[key]

    def _load_series(self, name: str, host: str | None) -> list[SeriesView]:
        # Detectors ask for a hundred names, most of them absent: those cost no query.
        rows, fields = self._names
        views = self._load_rows(name, host) if rows.might_hold(name, host) else []
        if fields.might_hold(name, host):
            views.extend(self._load_connections(name, host))
        # The order ``rootline analyze`` gives them (MemoryIncidentData): by content, so a tie
        # between two connections resolves the same way online and offline.
        return sorted(views, key=lambda v: (v.name, v.host or "", sorted(v.labels.items())))

    def _load_connections(self, name: str, host: str | None) -> list[SeriesView]:
        """Per-connection series, from the connection tables (every connection): as
        :meth:`_view` makes them, the labels each connection's own dict already."""
        filenames = self._filenames
        views = []
        field_now: Any = None
        filename = ""
        for field, labels, times, values in series_service.connection_series(
            self._session,
            incident_id=self._incident_id,
            names=[name],
            host=host,
            tables=self._conn_tables,
            every_field=self._conn_fields,
        ):
            if field.host:
                labels.setdefault("host", field.host)
            if field is not field_now:  # a field's thousands of connections: one lookup
                field_now, filename = field, filenames.get(field.artifact_id, "")
            views.append(
                SeriesView(field.name, labels, field.unit, field.host, filename, times, values)
            )
        return views

    def _view(
        self, row: Any, labels: dict[str, str], times: codec.Times, values: codec.Values
    ) -> SeriesView:
        """A view of a series row or a connection field (name, unit, host, artifact_id)."""
        labels = dict(labels)
        if row.host:
            labels.setdefault("host", row.host)
        filename = self._filenames.get(row.artifact_id, "")
        return SeriesView(row.name, labels, row.unit, row.host, filename, times, values)

    def _load_rows(self, name: str, host: str | None) -> list[SeriesView]:
        rows: dict[int, Any] = {}  # series id -> its row, in the order found
        parts: dict[int, list[tuple[int, bytes]]] = defaultdict(list)
        for row in series_repository.level0_by_name(
            self._session, incident_id=self._incident_id, name=name, host=host
        ):
            rows.setdefault(row.id, row)
            if row.data is not None:
                parts[row.id].append((row.point_count, row.data))
        views = []
        for series_id, row in rows.items():
            times, values = codec.decode_all(parts.pop(series_id, []))
            views.append(self._view(row, row.labels, times, values))
        return views

    def events(self, kind: str, *, host: str | None = None) -> Sequence[EventView]:
        cached = self._events_cache.get((kind, host))
        if cached is None:
            cached = self._events_cache[(kind, host)] = self._load_events(kind, host)
        return cached

    def _load_events(self, kind: str, host: str | None) -> list[EventView]:
        found = events_repository.all_of_kind(
            self._session, incident_id=self._incident_id, kind=kind, host=host
        )
        names = [self._filenames.get(a, "") for a in found.artifacts]
        return [
            EventView(kind, time_ms, duration_ms, attrs, host_, names[chunk])
            for time_ms, duration_ms, attrs, host_, chunk in zip(
                found.times_ms, found.durations, found.attrs, found.hosts, found.chunk, strict=True
            )
        ]

    def facts(self, key: str, *, host: str | None = None) -> Sequence[FactView]:
        # Detectors ask per connection for their host's settings (tcp_wmem for each of 7 000
        # connections): one query per key and host, not per question.
        cached = self._facts_cache.get((key, host))
        if cached is None:
            cached = self._facts_cache[(key, host)] = self._load_facts(key, host)
        return cached

    @cached_property
    def _fact_keys(self) -> _Names:
        return _Names(facts_repository.keys_and_hosts(self._session, incident_id=self._incident_id))

    def _load_facts(self, key: str, host: str | None) -> list[FactView]:
        if not self._fact_keys.might_hold(key, host):
            return []
        return [
            FactView(f.key, f.value, f.host, self._filenames.get(f.artifact_id, ""), f.time_ms)
            for f in facts_repository.matching(
                self._session, incident_id=self._incident_id, key=key, host=host
            )
        ]

    def artifact_kinds(self) -> set[str]:
        return set(self._kinds_and_hosts[0])

    def hosts(self) -> set[str]:
        return set(self._kinds_and_hosts[1])

    @cached_property
    def _artifact_times(self) -> list[ArtifactTime]:
        rows = artifacts_repository.time_placements(self._session, self._incident_id)
        stated: dict[uuid.UUID, list[tuple[str, str]]] = defaultdict(list)
        for fact in facts_repository.of_artifacts(
            self._session, artifact_ids=[r.id for r in rows], keys=list(TIME_ASSUMPTION_FACTS)
        ):
            stated[fact.artifact_id].append((fact.key, fact.value))
        return [
            ArtifactTime(
                r.filename,
                r.host,
                r.time_start_ms,
                r.time_end_ms,
                assumed_times(
                    kind=r.kind,
                    time_start_ms=r.time_start_ms,
                    default_time_ms=r.uploaded_at_ms,
                    anchored=r.anchored,
                    facts=stated.get(r.id, []),
                    clock_offset_ms=round((r.clock_offset_s or 0.0) * 1000),
                ),
            )
            for r in rows
        ]

    def artifact_times(self) -> Sequence[ArtifactTime]:
        return list(self._artifact_times)


class _Names:
    """Series names or fact keys with their hosts, asked by name or ``prefix*`` and host
    (None: any), a hundred times per checklist: sorted once, each question a binary search."""

    def __init__(self, pairs: set[tuple[str, str | None]]) -> None:
        self._pairs = pairs
        self._names = {name for name, _ in pairs}
        self._lower: dict[str | None, list[str]] = defaultdict(list)
        for name, host in pairs:
            self._lower[host].append(name.lower())
        self._lower_any = sorted(name.lower() for name in self._names)
        for names in self._lower.values():
            names.sort()

    def might_hold(self, name: str, host: str | None) -> bool:
        """Whether a query for ``name`` on ``host`` may find one of them. A prefix is compared
        without case, as SQLite's LIKE does: a superset of what either database finds."""
        if not name.endswith("*"):
            return (name, host) in self._pairs if host else name in self._names
        prefix = name[:-1].lower()
        names = self._lower.get(host, []) if host else self._lower_any
        at = bisect_left(names, prefix)
        return at < len(names) and names[at].startswith(prefix)


class WindowedIncidentData:
    """Another :class:`IncidentData` seen through a time window: series points and events in
    ``[from_ms, to_ms]`` only (facts, settings read once, are kept whole). What the checklist
    of one time range of an incident is computed from (before and after within one capture)."""

    def __init__(self, data: IncidentData, from_ms: int, to_ms: int) -> None:
        self._data = data
        self._from_ms = from_ms
        self._to_ms = to_ms

    def series(self, name: str, *, host: str | None = None) -> Sequence[SeriesView]:
        views = (within(v, self._from_ms, self._to_ms) for v in self._data.series(name, host=host))
        return [v for v in views if len(v)]

    def events(self, kind: str, *, host: str | None = None) -> Sequence[EventView]:
        return [
            e
            for e in self._data.events(kind, host=host)
            if self._from_ms <= e.time_ms <= self._to_ms
        ]

    def facts(self, key: str, *, host: str | None = None) -> Sequence[FactView]:
        return self._data.facts(key, host=host)

    def artifact_kinds(self) -> set[str]:
        return self._data.artifact_kinds()

    def hosts(self) -> set[str]:
        return self._data.hosts()

    def artifact_times(self) -> Sequence[ArtifactTime]:
        return self._data.artifact_times()
