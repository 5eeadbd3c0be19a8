""":class:`DatabaseIncidentData` asks the database only for names the incident holds: the
detectors ask for a hundred series and settings, most of them absent from any one incident."""

from __future__ import annotations

import uuid
from array import array
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from rootline.checklist.data import DatabaseIncidentData, _Names
from rootline.detectors.data import ParsedArtifact
from rootline.detectors.quantities import exact_values_at
from rootline.parsers import registry
from rootline.parsers.base import Fact, ParseContext, ParseResult, SeriesData
from rootline.series import repository as series_repository
from rootline.series import service as series_service
from tests.checklist.test_stored_equals_offline import store


def _incident(app: FastAPI) -> uuid.UUID:
    series = [
        SeriesData(name, {}, "", array("q", [1000, 2000]), array("d", [1.0, 2.0]))
        for name in ("tcp.ListenOverflows", "tcp.retrans_segs")
    ]
    facts = [Fact("net.core.somaxconn", "4096", None)]
    parsed = ParsedArtifact("a.txt", "db1", ParseResult("nstat", series=series, facts=facts))
    with app.state.sessionmaker() as session:
        return store(session, [parsed])


def test_absent_names_cost_no_query_and_present_ones_are_found(app: FastAPI) -> None:
    incident_id = _incident(app)
    statements: list[str] = []
    with app.state.sessionmaker() as session:
        data = DatabaseIncidentData(session, incident_id)
        assert data.series("tcp.retrans_segs")  # loads the incident's names too
        event.listen(
            session.get_bind(), "before_cursor_execute", lambda *a: statements.append(a[2])
        )
        assert data.series("tcp.no_such_counter") == []
        assert data.series("jvm.*") == []
        assert data.series("tcp.retrans_segs", host="other") == []
        assert statements == []
        # A prefix differing in case finds what the database's LIKE finds (SQLite ignores
        # case, PostgreSQL does not).
        for prefix in ("tcp.listen*", "TCP.RETRANS*", "tcp.List*"):
            stored = series_repository.level0_by_name(
                session, incident_id=incident_id, name=prefix, host=None
            )
            by_id = {s.id: s.name for s in stored}
            assert [s.name for s in data.series(prefix)] == list(by_id.values())
        assert [s.name for s in data.series("tcp.List*")] == ["tcp.ListenOverflows"]
        assert [f.value for f in data.facts("net.core.somaxconn", host="db1")] == ["4096"]
        before = len(statements)
        assert data.facts("net.ipv4.tcp_wmem") == []
        assert data.facts("net.core.*", host="other") == []
        assert len(statements) == before


NAME_PARTS = st.sampled_from(["tcp", "TCP", "Tcp", ".", "x", "ext", "_", "ü", "a"])
NAMES = st.lists(NAME_PARTS, min_size=1, max_size=4).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    st.sets(st.tuples(NAMES, st.sampled_from([None, "", "h1", "h2"])), max_size=8),
    NAMES,
    st.booleans(),
    st.sampled_from([None, "", "h1", "h3"]),
)
def test_names_answer_as_a_scan_of_every_name_would(
    pairs: set[tuple[str, str | None]], name: str, prefix: bool, host: str | None
) -> None:
    asked = name + "*" if prefix else name
    found = [n for n, h in pairs if not host or h == host]
    scan = any(n.lower().startswith(name.lower()) for n in found) if prefix else name in found
    assert _Names(pairs).might_hold(asked, host) == scan


def test_a_connection_in_every_snapshot_shares_the_snapshot_times_read_only(
    app: FastAPI,
) -> None:
    """Per-connection series of a stored ss loop: a connection printed in every snapshot gets
    its table's one times array and a view of its values, neither writable (a detector cannot
    change what the next one reads), and exact reads at those times skip the comparison."""
    raw = (Path(__file__).parents[1] / "fixtures" / "ss" / "ss-tinm-loop.txt").read_bytes()
    result = registry.parse_decoded(registry.decode_bytes(raw), ParseContext())
    parsed = ParsedArtifact("ss.txt", "db1", result)
    with app.state.sessionmaker() as session:
        incident_id = store(session, [parsed])
        data = DatabaseIncidentData(session, incident_id)
        cwnd = data.series("tcp.conn.cwnd")
        rtt = {tuple(sorted(s.labels.items())): s for s in data.series("tcp.conn.rtt_ms")}
    full = [s for s in cwnd if len(s) == max(len(c) for c in cwnd)]
    assert len(full) >= 2
    assert all(s.times_ms is full[0].times_ms for s in full)
    checked = 0
    for series in full:
        assert not series.times_ms.flags.writeable and not series.values.flags.writeable
        with pytest.raises(ValueError):
            series.values[0] = 1.0
        other = rtt.get(tuple(sorted(series.labels.items())))
        if other is not None and len(other) == len(series):
            read = exact_values_at(other, series.times_ms, np.nan)
            assert read.flags.writeable and read.tolist() == other.values.tolist()
            checked += 1
    assert checked >= 2


def test_connection_fields_read_once_answer_as_the_per_name_query(app: FastAPI) -> None:
    """The checklist reads the incident's connection fields once (FieldsByName) instead of a
    query per field name: for every name, prefix and host, the same fields and the same
    connection series as the query by name gives."""
    fixtures = Path(__file__).parents[1] / "fixtures" / "ss"
    parsed = [
        ParsedArtifact(
            name,
            host,
            registry.parse_decoded(
                registry.decode_bytes((fixtures / name).read_bytes()), ParseContext()
            ),
        )
        for name, host in (("ss-tinm-loop.txt", "db1"), ("ss-tinm.txt", "app1"))
    ]
    with app.state.sessionmaker() as session:
        incident_id = store(session, parsed)
        every = series_repository.conn_fields(session, incident_id=incident_id)
        cached = series_service.FieldsByName(every)
        names = sorted({f.name for f in every})
        assert len(names) > 10 and {f.host for f in every} == {"db1", "app1"}
        asked = [*names, "tcp.conn.*", "tcp.conn.c*", "tcp.conn.no_such", "x*", "TCP.CONN.*"]
        for name in asked:
            for host in (None, "db1", "app1", "other"):
                by_query = series_repository.conn_fields(
                    session, incident_id=incident_id, names=[name], host=host
                )
                if name != "TCP.CONN.*":  # SQLite's LIKE ignores case; the cache does not
                    assert [f.id for f in cached.named([name], host)] == [f.id for f in by_query]
                else:
                    assert cached.named([name], host) == []

        def read(every_field: series_service.FieldsByName | None, name: str) -> list[Any]:
            return [
                (f.id, labels, times.tolist(), values.tolist())
                for f, labels, times, values in series_service.connection_series(
                    session,
                    incident_id=incident_id,
                    names=[name],
                    host=None,
                    every_field=every_field,
                )
            ]

        for name in ("tcp.conn.cwnd", "tcp.conn.rtt*", "tcp.conn.no_such"):
            assert read(cached, name) == read(None, name)
        assert read(cached, "tcp.conn.cwnd")
