"""Thread-pool CSV / JSON-lines parser: captured fixtures, aliases, bad rows, sniffing."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import threadpool_metrics
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, sniff_scores
from tests.conftest import FIXTURES_DIR
from tests.parsers.jvm_parser_kit import foreign_files, head_of, mutated

CSV_FIXTURE = FIXTURES_DIR / "threadpool_metrics" / "pool-saturation-jdk17.csv"
JSONL_FIXTURE = FIXTURES_DIR / "threadpool_metrics" / "pool-saturation-jdk17.jsonl"
DRAINED_FIXTURE = FIXTURES_DIR / "threadpool_metrics" / "pool-drained-after-jam-jdk17.jsonl"
OWN_FILES = [CSV_FIXTURE, JSONL_FIXTURE, DRAINED_FIXTURE]


def _series(result: ParseResult) -> dict[str, tuple[list[int], list[float]]]:
    return {s.name: (list(s.times_ms), list(s.values)) for s in result.series}


def _csv_rows() -> list[dict[str, str]]:
    with CSV_FIXTURE.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_fixture_golden() -> None:
    rows = _csv_rows()
    result = threadpool_metrics.parse(CSV_FIXTURE.read_text(), ParseContext())
    assert result.status == "parsed"
    series = _series(result)
    assert {s.labels["pool"] for s in result.series} == {"order-service"}
    times, active = series["threadpool.active"]
    assert len(active) == len(rows) == 151
    assert times == [int(r["timestamp_ms"]) for r in rows]
    assert max(active) == max(float(r["active"]) for r in rows) == 8.0
    assert series["threadpool.queue"][1] == [float(r["queue"]) for r in rows]
    assert series["threadpool.rejected"][1][-1] == float(rows[-1]["rejected"]) == 1355.0
    assert set(series["threadpool.max"][1]) == {8.0}
    assert set(series["threadpool.core"][1]) == {4.0}
    assert set(series["threadpool.queue_capacity"][1]) == {50.0}
    # Rejected-per-second: one point per interval, summing back to the total over the run.
    rate_t, rate_v = series["threadpool.rejected_per_s"]
    assert len(rate_t) == len(rows) - 1
    total = sum(v * (t - p) / 1000 for v, t, p in zip(rate_v, rate_t, times, strict=False))
    assert total == pytest.approx(1355.0)
    units = {s.name: s.unit for s in result.series}
    assert units["threadpool.active"] == "threads"
    assert units["threadpool.queue"] == "tasks"
    assert units["threadpool.completed_per_s"] == "per_s"


def test_jsonl_fixture_matches_csv_and_derives_capacity() -> None:
    rows = [json.loads(line) for line in JSONL_FIXTURE.read_text().splitlines()]
    result = threadpool_metrics.parse(JSONL_FIXTURE.read_text(), ParseContext())
    assert result.status == "parsed"
    series = _series(result)
    first_time = dt.datetime.fromisoformat(rows[0]["@timestamp"].replace("Z", "+00:00"))
    assert series["threadpool.active"][0][0] == int(first_time.timestamp() * 1000)
    assert series["threadpool.active"][1] == [float(r["activeCount"]) for r in rows]
    capacity = [float(r["queueSize"] + r["queue_remaining"]) for r in rows]
    assert series["threadpool.queue_capacity"][1] == capacity
    assert series["threadpool.completed"][1][-1] == float(rows[-1]["completedTaskCount"])


def test_semicolon_iso_zoneless_times_in_incident_zone_and_no_pool_column() -> None:
    text = (
        "Time;ActiveCount;MaxPoolSize;QueueSize;Rejected\n"
        "2024-03-01 08:00:00.250;10;10;5;0\n"
        "2024-03-01 08:00:01.250;10;10;9;4\n"
    )
    result = threadpool_metrics.parse(text, ParseContext.for_zone("Asia/Shanghai"))
    assert result.status == "parsed"
    series = _series(result)
    # 08:00 in Shanghai (UTC+8) is 00:00 UTC.
    expected = int(dt.datetime(2024, 3, 1, 0, 0, 0, 250000, tzinfo=dt.UTC).timestamp() * 1000)
    assert series["threadpool.active"][0] == [expected, expected + 1000]
    assert series["threadpool.rejected_per_s"][1] == [4.0]
    assert {s.labels["pool"] for s in result.series} == {"default"}


def test_tab_separated_epoch_seconds() -> None:
    text = "ts\tpool_name\tactive_threads\tmax_threads\n1700000000\tbiz\t3\t8\n1700000001.5\tbiz\t4\t8\n"
    series = _series(threadpool_metrics.parse(text, ParseContext()))
    assert series["threadpool.active"] == ([1700000000000, 1700000001500], [3.0, 4.0])


def test_bad_rows_become_line_diagnostics() -> None:
    text = "timestamp,pool,active,max\n1700000000000,p,1,8\nnot-a-time,p,1,8\n1700000001000,p,x,8\n1700000002000,p,1\n"
    result = threadpool_metrics.parse(text, ParseContext())
    assert result.status == "partial"
    assert [d.line for d in result.diagnostics] == [3, 4, 5]
    assert "timestamp" in result.diagnostics[0].message
    assert _series(result)["threadpool.active"][1] == [1.0]


def test_one_huge_integer_costs_its_field_or_row_not_the_file() -> None:
    huge = "9" * 5000  # int() refuses it; as epoch ms it overflowed the int64 time column
    text = (
        "timestamp_ms,pool,active,max\n"
        "1795246055554,p,1,8\n"
        f"1795246055555,p,{huge},8\n"  # line 3: active lost, max kept
        f"{huge},p,3,8\n"  # line 4: no time, no row
        f"{'9' * 30},p,4,8\n"  # line 5: 1e30 ns is still past any date
        "1795246055556,p,5,8\n"
    )
    result = threadpool_metrics.parse(text, ParseContext())
    assert result.status == "partial"
    assert [(d.line, d.message[:22]) for d in result.diagnostics] == [
        (3, "active is out of range"),
        (4, "unreadable timestamp '"),
        (5, "unreadable timestamp '"),
    ]
    series = _series(result)
    assert series["threadpool.active"] == ([1795246055554, 1795246055556], [1.0, 5.0])
    assert series["threadpool.max"][0] == [1795246055554, 1795246055555, 1795246055556]


def test_one_huge_integer_in_json_lines_costs_its_field_or_row_not_the_file() -> None:
    huge = "9" * 400  # json reads it as an int that no float holds
    lines = [
        '{"timestamp": 1795246055554, "pool": "p", "active": 1, "max": 8}',
        f'{{"timestamp": 1795246055555, "pool": "p", "active": {huge}, "max": 8}}',
        f'{{"timestamp": {huge}, "pool": "p", "active": 3, "max": 8}}',
        '{"timestamp": 1795246055556, "pool": "p", "active": 5, "max": 8}',
    ]
    result = threadpool_metrics.parse("\n".join(lines) + "\n", ParseContext())
    assert result.status == "partial"
    assert [(d.line, d.message[:22]) for d in result.diagnostics] == [
        (2, "active is out of range"),
        (3, "unreadable timestamp '"),
    ]
    series = _series(result)
    assert series["threadpool.active"] == ([1795246055554, 1795246055556], [1.0, 5.0])
    assert len(series["threadpool.max"][0]) == 3


def test_empty_and_headerless_inputs() -> None:
    assert threadpool_metrics.parse("", ParseContext()).diagnostics[0].message == "file is empty"
    result = threadpool_metrics.parse("a,b,c\n1,2,3\n", ParseContext())
    assert result.status == "failed"
    assert "timestamp column" in result.diagnostics[0].message


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_registry_detects_fixture(path: Path) -> None:
    assert detect_kind(head_of(path)) == "threadpool_metrics"


@pytest.mark.corpus
@pytest.mark.parametrize("path", foreign_files(set(OWN_FILES)), ids=lambda p: p.name)
def test_does_not_claim_other_kinds(path: Path) -> None:
    assert sniff_scores(head_of(path))["threadpool_metrics"] < 0.5


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(threadpool_metrics.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= threadpool_metrics.sniff(text) <= 1.0


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(st.data())
def test_never_raises_on_mutated_fixture(data: st.DataObject) -> None:
    for path in OWN_FILES:
        text = data.draw(mutated(path.read_text()))
        assert isinstance(threadpool_metrics.parse(text, ParseContext()), ParseResult)
