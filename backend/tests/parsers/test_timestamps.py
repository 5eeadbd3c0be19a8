"""Separator timestamp lines and snapshot splitting."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rootline.parsers.timestamps import (
    could_be_timestamp_line,
    iter_snapshots,
    parse_timestamp_line,
)
from tests.conftest import corpus_files

SHANGHAI = ZoneInfo("Asia/Shanghai")
# 2026-11-21T07:21:03Z, checked with `date -u -d @1795245663`.
T_UTC = 1_795_245_663_000
# The same wall clock read in Asia/Shanghai (UTC+8).
T_SHANGHAI = T_UTC - 8 * 3600 * 1000


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("1700000000", 1_700_000_000_000),
        ("1700000000.123", 1_700_000_000_123),
        ("1700000000.123456789", 1_700_000_000_123),
        ("1700000000123", 1_700_000_000_123),
        ("Tue Nov 21 07:21:03 UTC 2026", T_UTC),
        ("Tue Nov 21 07:21:03 GMT 2026", T_UTC),
        ("Tue Nov 21 07:21:03 CST 2026", T_SHANGHAI),
        ("Tue Nov 21 07:21:03 CET 2026", T_SHANGHAI),
        ("Sun Nov  1 07:21:03 UTC 2026", T_UTC - 20 * 86_400_000),
        ("Tue Nov 21 07:21:03 2026", T_SHANGHAI),
        ("Tue 21 Nov 2026 07:21:03 AM UTC", T_UTC),
        ("Tue 21 Nov 2026 07:21:03 PM UTC", T_UTC + 12 * 3600 * 1000),
        ("Tue 21 Nov 2026 12:21:03 AM UTC", T_UTC - 7 * 3600 * 1000),
        ("Tue, 21 Nov 2026 07:21:03 +0000", T_UTC),
        ("Tue 21 Nov 07:21:03 CST 2026", None),  # day before month needs the year next
        ("2026-11-21T07:21:03", T_SHANGHAI),
        ("2026-11-21 07:21:03", T_SHANGHAI),
        ("2026-11-21T07:21:03+08:00", T_SHANGHAI),
        ("2026-11-21T07:21:03+0800", T_SHANGHAI),
        ("2026-11-21T07:21:03-05:00", T_UTC + 5 * 3600 * 1000),
        ("2026-11-21T07:21:03Z", T_UTC),
        ("2026-11-21T07:21:03.250Z", T_UTC + 250),
        ("2026-11-21T07:21:03,123456789+00:00", T_UTC + 123),
        ("2026-11-21 07:21:03 UTC", T_UTC),
        ("2026-11-21 07:21:03 CST", T_SHANGHAI),
        ("2026/11/21 07:21:03", T_SHANGHAI),
        ("=== 2026-11-21T07:21:03Z ===", T_UTC),
        ("### 1700000000", 1_700_000_000_000),
        ("--- Tue Nov 21 07:21:03 UTC 2026 ---", T_UTC),
        ("timestamp: 2026-11-21T07:21:03Z", T_UTC),
        ("TIME: 1700000000", 1_700_000_000_000),
        ("TIME=1700000000", 1_700_000_000_000),
        ("snapshot 3 at 2026-11-21T07:21:03Z", T_UTC),
        ("[2026-11-21 07:21:03]", T_SHANGHAI),
        ("=== 1700000000 2026-11-21T07:21:03+00:00 ===", T_UTC),
        ("=== 2026-11-21 07:21:03 1795245663.5 ===", T_UTC + 500),
        ("==== Tue Nov 21 07:21:03 CST 2026 / 1795245663 ====", T_UTC),
    ],
)
def test_reads_separator_forms(line: str, expected: int | None) -> None:
    assert parse_timestamp_line(line, SHANGHAI) == expected


@pytest.mark.parametrize(
    "line",
    [
        "",
        "State      Recv-Q Send-Q Local Address:Port   Peer Address:Port",
        "ESTAB      0      0      10.0.0.1:22          10.0.0.2:5555",
        "tcp        0      0 10.0.0.1:22       10.0.0.2:5555     ESTABLISHED",
        "\t cubic wscale:7,7 rto:204 rtt:0.05/0.025 bytes_acked:1700000000 cwnd:10",
        "    1234567890 segments received",
        "1234567890 segments received",
        "TcpInSegs                       1700000000         0.0",
        "Tcp: 1 200 120000 -1 1700000000 5 6 7 8",
        "1700000000 1700000001 1700000002 1700000003",
        "12345",
        "999999999",  # nine digits: before 2001, not an epoch a capture loop writes
        "=== 2026-02-31T07:21:03Z ===",  # no such day
        "2026-11-21T25:21:03Z",
        "=== 1700000000 10.0.0.1:22 ===",
        "2026-11-21T07:21:03Z GET /index.html 200 1234 10.0.0.1",
        "Total: 187 (kernel 0)",
        "TCP:   6 (estab 2, closed 0, orphaned 0, synrecv 0, timewait 0/0), ports 0",
    ],
)
def test_rejects_data_lines(line: str) -> None:
    assert parse_timestamp_line(line, dt.UTC) is None


def test_precheck_is_a_superset_of_parsing() -> None:
    line = "=== 2026-11-21T07:21:03Z ==="
    assert could_be_timestamp_line(line)
    assert not could_be_timestamp_line("ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555")
    assert not could_be_timestamp_line("\t cubic rto:204")


CORPUS_DATA = corpus_files("ss") + corpus_files("netstat")


@pytest.mark.parametrize("path", CORPUS_DATA, ids=lambda p: p.name)
def test_no_corpus_data_line_is_a_timestamp(path) -> None:  # type: ignore[no-untyped-def]
    for line in path.read_text(errors="replace").splitlines():
        assert parse_timestamp_line(line, dt.UTC) is None, line


@given(st.text(max_size=200))
def test_never_raises(line: str) -> None:
    result = parse_timestamp_line(line, SHANGHAI)
    assert result is None or isinstance(result, int)
    if result is not None:
        assert could_be_timestamp_line(line)


NEAR_TIMESTAMP_PARTS = ["=", "#", " ", "-", "1700000000", "2026-11-21", "07:21:03", "Z", "+08:00",
    "UTC", "Tue", "Nov", "21", "2026", "AM", ".", ":", "10.0.0.1:22", "ESTAB", "0"]  # fmt: skip


@given(st.lists(st.sampled_from(NEAR_TIMESTAMP_PARTS), max_size=12))
def test_never_raises_on_near_timestamps(parts: list[str]) -> None:
    result = parse_timestamp_line(" ".join(parts), SHANGHAI)
    assert result is None or isinstance(result, int)


def test_iter_snapshots_splits_and_stamps() -> None:
    lines = [
        "State Recv-Q Send-Q",  # before any separator: default time
        "ESTAB 0 0 a b",
        "=== 2026-11-21T07:21:03Z ===",
        "ESTAB 0 0 a b",
        "\t cubic rto:204",
        "",
        "1795245668",
        "",
        "Tue Nov 21 07:21:13 UTC 2026",  # two separators for one instant: the later, too
        "ESTAB 0 0 a b",
        "=== 2026-11-21T07:21:18Z ===",  # trailing separator without body: no snapshot
        "",
    ]
    snaps = list(iter_snapshots(lines, dt.UTC, default_time_ms=42))
    assert [(s.time_ms, s.separator_line, s.start, s.stop) for s in snaps] == [
        (42, 0, 0, 2),
        (T_UTC, 3, 3, 6),
        (T_UTC + 10_000, 9, 9, 10),
    ]


def test_iter_snapshots_keeps_better_of_adjacent_stamps() -> None:
    lines = ["2026-11-21T07:21:03.500Z", "2026-11-21 07:21:03", "ESTAB 0 0 a b"]
    snaps = list(iter_snapshots(lines, SHANGHAI, default_time_ms=0))
    assert [(s.time_ms, s.separator_line, s.start, s.stop) for s in snaps] == [
        (T_UTC + 500, 1, 2, 3)
    ]


def test_iter_snapshots_without_separators_and_data_prefixes() -> None:
    lines = ["ESTAB 0 0 a b", " 1700000000", "ESTAB 0 0 c d"]
    snaps = list(iter_snapshots(lines, dt.UTC, default_time_ms=7, data_prefixes=(" ", "ESTAB")))
    assert [(s.time_ms, s.start, s.stop) for s in snaps] == [(7, 0, 3)]
    assert list(iter_snapshots([], dt.UTC, 0)) == []
    assert list(iter_snapshots(["", "  "], dt.UTC, 0)) == []
