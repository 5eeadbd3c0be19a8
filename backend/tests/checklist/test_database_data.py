""":class:`DatabaseIncidentData` asks the database only for names the incident holds: the
detectors ask for a hundred series and settings, most of them absent from any one incident."""

from __future__ import annotations

import uuid
from array import array

from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from rootline.checklist.data import DatabaseIncidentData, _Names
from rootline.detectors.data import ParsedArtifact
from rootline.parsers.base import Fact, ParseResult, SeriesData
from rootline.series import repository as series_repository
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
            stored = series_repository.by_name(
                session, incident_id=incident_id, name=prefix, host=None
            )
            assert [s.name for s in data.series(prefix)] == [s.name for s in stored]
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
