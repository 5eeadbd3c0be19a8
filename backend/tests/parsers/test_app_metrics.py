"""Application metrics (CSV / TSV / JSON lines of timed numbers): golden fixtures, units,
names, bad rows, and that no other parser's file is taken."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootline.parsers import app_metrics
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.registry import detect_kind, parse_bytes, sniff_scores
from tests.conftest import FIXTURES_DIR
from tests.parsers.jvm_parser_kit import foreign_files, head_of, mutated, text_of

FOLDER = FIXTURES_DIR / "app_metrics"
LATENCY_CSV = FOLDER / "checkout-latency.csv"
ORDERS_TSV = FOLDER / "orders-iso.tsv"
GATEWAY_JSONL = FOLDER / "gateway.jsonl"
OWN_FILES = [LATENCY_CSV, ORDERS_TSV, GATEWAY_JSONL]
AT_07_50_UTC = int(dt.datetime(2026, 11, 21, 7, 50, tzinfo=dt.UTC).timestamp() * 1000)


def parse(path: Path, zone: str = "UTC") -> ParseResult:
    return app_metrics.parse(text_of(path), ParseContext.for_zone(zone, filename=path.name))


def test_epoch_ms_csv_golden() -> None:
    # 121 rows every 2 s from 07:50:00; rows 66..77 (07:52:12-07:52:34) are the slow ones.
    result = parse(LATENCY_CSV)
    assert result.status == "parsed" and not result.diagnostics
    by_name = {s.name: s for s in result.series}
    assert {name: s.unit for name, s in by_name.items()} == {
        "app.checkout_latency.p99_ms": "ms",
        "app.checkout_latency.rps": "per_s",
        "app.checkout_latency.errors": "count",
    }
    p99 = by_name["app.checkout_latency.p99_ms"]
    assert len(p99) == 121
    assert p99.times_ms[0] == AT_07_50_UTC and p99.times_ms[-1] == AT_07_50_UTC + 240_000
    assert list(p99.values[:4]) == [11.0, 12.0, 13.0, 12.0]
    slow = [t for t, v in zip(p99.times_ms, p99.values, strict=True) if v > 100]
    assert (len(slow), slow[0] - AT_07_50_UTC, slow[-1] - AT_07_50_UTC) == (12, 132_000, 154_000)
    assert max(p99.values) == 490.0
    assert sum(by_name["app.checkout_latency.errors"].values) == 12 * 3
    assert set(by_name["app.checkout_latency.rps"].values) == {480.0, 210.0}


def test_tsv_with_zoneless_iso_times_in_the_incident_zone_and_a_text_column() -> None:
    # 08:52 in Berlin (CET, UTC+1) is 07:52 UTC; the endpoint and status columns are text.
    result = parse(ORDERS_TSV, "Europe/Berlin")
    assert result.status == "parsed" and not result.diagnostics
    assert [(s.name, s.unit, len(s)) for s in result.series] == [
        ("app.orders_iso.p95_latency_ms", "ms", 12),
        ("app.orders_iso.qps", "per_s", 12),
    ]
    p95 = result.series[0]
    assert p95.times_ms[0] == AT_07_50_UTC + 120_000
    assert p95.times_ms[-1] - p95.times_ms[0] == 110_000
    assert list(p95.values[7:9]) == [27.0, 250.0]


def test_json_lines_with_iso_z_times() -> None:
    result = parse(GATEWAY_JSONL, "Asia/Tokyo")  # a zone in the text wins
    assert result.status == "parsed" and not result.diagnostics
    by_name = {s.name: s for s in result.series}
    assert {name: s.unit for name, s in by_name.items()} == {
        "app.gateway.latency_p99": "ms",
        "app.gateway.requests_per_sec": "per_s",
        "app.gateway.error_count": "count",
    }
    latency = by_name["app.gateway.latency_p99"]
    assert list(latency.values) == [12.5, 12.5, 12.5, 310.0, 310.0, 310.0]
    assert latency.times_ms[0] == AT_07_50_UTC + 120_000
    assert sum(by_name["app.gateway.error_count"].values) == 21


@pytest.mark.parametrize(
    ("column", "unit"),
    [
        ("p99_ms", "ms"),
        ("p99LatencyMs", "ms"),
        ("latency", "ms"),
        ("p999", "ms"),
        ("response_time_us", "us"),
        ("duration_seconds", "s"),
        ("rps", "per_s"),
        ("QPS", "per_s"),
        ("errors_per_sec", "per_s"),
        ("error_rate", "ratio"),
        ("success_rate", "ratio"),
        ("errorPercent", "%"),
        ("responseCode", ""),
        ("response_bytes", "bytes"),
        ("resp_size", "bytes"),
        ("sentBytes", "bytes"),
        ("response_count", "count"),
        ("elapsed_ns", "ns"),
        ("elapsedNs", "ns"),
        ("connect_errors", "count"),
        ("Connect", "ms"),
        ("Latency", "ms"),
        ("elapsed", "ms"),
        ("errors", "count"),
        ("http_5xx", "count"),
        ("cpu_pct", "%"),
        ("bytes_out", "bytes"),
        ("in_flight", ""),
    ],
)
def test_unit_is_guessed_from_the_column_name(column: str, unit: str) -> None:
    assert app_metrics.guess_unit(column) == unit


def test_names_are_made_series_safe() -> None:
    assert app_metrics.token("p99 Latency (ms)") == "p99_latency_ms"
    assert app_metrics.token("Errors/s") == "errors_s"
    assert app_metrics.file_token("api-latency.csv.gz") == "api_latency"
    assert app_metrics.file_token(None) == "metrics"
    assert app_metrics.file_token("log.csv") == "log_file"  # app.log.* is the app log's
    text = "when,p99 (ms),P99 ms,%\n1795247520,1,2,3\n"
    result = app_metrics.parse(text, ParseContext())
    assert [s.name for s in result.series] == [
        "app.metrics.p99_ms",
        "app.metrics.p99_ms_2",
        "app.metrics.column3",
    ]


def test_the_time_column_is_found_by_content_not_by_name() -> None:
    # No header names a time; the epoch-seconds column is the second one.
    text = "id,at,latency\n7,1795247520,12\n8,1795247521,14\n"
    result = app_metrics.parse(text, ParseContext())
    assert [(s.name, list(s.times_ms)) for s in result.series] == [
        ("app.metrics.id", [1795247520000, 1795247521000]),
        ("app.metrics.latency", [1795247520000, 1795247521000]),
    ]
    assert detect_kind(text) == "app_metrics"


def test_bad_rows_and_cells_become_line_diagnostics() -> None:
    text = (
        "time,p99_ms,rps\n"
        "2026-11-21T07:52:00Z,12,480\n"
        "2026-11-21T07:52:01Z,13\n"  # a field short
        "yesterday,14,470\n"  # no time
        "2026-11-21T07:52:03Z,n/a,460\n"  # one value lost, the row kept
        "2026-11-21T07:52:04Z,,450\n"  # empty: missing, no diagnostic
        "2026-11-21T07:52:05Z,15,440\n"
        "2026-11-21T07:52:06Z,16,430\n"
    )
    result = app_metrics.parse(text, ParseContext())
    assert result.status == "partial"
    assert [(d.line, d.message) for d in result.diagnostics] == [
        (3, "expected 3 fields as in the header, found 2"),
        (4, "unreadable time 'yesterday'"),
        (5, "p99_ms is not a number: 'n/a'"),
    ]
    by_name = {s.name: list(s.values) for s in result.series}
    assert by_name == {
        "app.metrics.p99_ms": [12.0, 15.0, 16.0],
        "app.metrics.rps": [480.0, 460.0, 450.0, 440.0, 430.0],
    }


def test_empty_headerless_and_timeless_inputs() -> None:
    assert app_metrics.parse("", ParseContext()).diagnostics[0].message == "file is empty"
    timeless = app_metrics.parse("name,value\na,1\nb,2\n", ParseContext())
    assert timeless.status == "failed"
    assert "no column holds times" in timeless.diagnostics[0].message
    assert app_metrics.sniff("name,value\na,1\nb,2\n") == 0.0
    # A data row where a header should be: not a table this parser reads.
    assert app_metrics.sniff("1795247520,12\n1795247521,13\n") == 0.0


def test_a_thread_pool_export_is_left_to_its_parser() -> None:
    text = "timestamp_ms,pool,active,max,queue\n1795247520000,orders,8,8,50\n"
    assert app_metrics.sniff(text) == 0.0
    assert detect_kind(text) == "threadpool_metrics"


def test_the_upload_name_reaches_the_series_name() -> None:
    data = LATENCY_CSV.read_bytes()
    result = parse_bytes(data, ParseContext(filename="payments.csv"))
    assert result.kind == "app_metrics"
    assert {s.name for s in result.series} == {
        "app.payments.p99_ms",
        "app.payments.rps",
        "app.payments.errors",
    }


@pytest.mark.parametrize("path", OWN_FILES, ids=lambda p: p.name)
def test_registry_detects_fixture(path: Path) -> None:
    assert detect_kind(head_of(path)) == "app_metrics"


@pytest.mark.corpus
@pytest.mark.parametrize("path", foreign_files(set(OWN_FILES)), ids=lambda p: p.name)
def test_does_not_claim_other_kinds(path: Path) -> None:
    assert sniff_scores(head_of(path))["app_metrics"] < 0.5


@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    assert isinstance(app_metrics.parse(text, ParseContext()), ParseResult)
    assert 0.0 <= app_metrics.sniff(text) <= 1.0


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=50)
@given(st.data())
def test_never_raises_on_mutated_fixture(data: st.DataObject) -> None:
    for path in OWN_FILES:
        text = data.draw(mutated(text_of(path)))
        assert isinstance(app_metrics.parse(text, ParseContext()), ParseResult)


def test_decimal_commas_are_read_after_semicolons_and_tabs() -> None:
    rows = [
        "2026-11-26T16:16:00Z;/api;5,95;14,9;463;0",
        "2026-11-26T16:16:01Z;/api;5,36;12,3;470;1",
    ]
    semicolons = "timestamp;endpoint;p50_ms;p99_ms;rps;errors\n" + "\n".join(rows) + "\n"
    for text in (semicolons, semicolons.replace(";", "\t")):
        assert detect_kind(text) == "app_metrics"
        result = app_metrics.parse(text, ParseContext(filename="latency-de.csv"))
        assert not result.diagnostics
        assert {s.name: list(s.values) for s in result.series} == {
            "app.latency_de.p50_ms": [5.95, 5.36],
            "app.latency_de.p99_ms": [14.9, 12.3],
            "app.latency_de.rps": [463.0, 470.0],
            "app.latency_de.errors": [0.0, 1.0],
        }


def test_a_decimal_comma_column_in_a_comma_separated_file_is_named_in_a_diagnostic() -> None:
    text = 'time,p99_ms,rps\n1795247520000,"14,9",480\n1795247521000,"12,3",470\n'
    result = app_metrics.parse(text, ParseContext(filename="x.csv"))
    assert [s.name for s in result.series] == ["app.x.rps"]
    (diagnostic,) = result.diagnostics
    assert "'p99_ms'" in diagnostic.message and "decimal comma" in diagnostic.message


def _jmeter_results(rows: int = 40) -> str:
    """A JMeter results CSV (its default columns), latency rising in the last quarter."""
    header = (
        "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"
        "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
    )
    lines = [header]
    for n in range(rows):
        elapsed = 11 + n % 3 if n < rows * 3 // 4 else 400 + n
        code = 200 if n % 7 else 503  # codes jump about: they must not look like a rise
        lines.append(
            f"{1795247520000 + 1000 * n},{elapsed},GET /api,{code},OK,Thread Group 1-1,text,"
            f"true,,512,120,10,10,http://x/api,{elapsed - 1},0,1"
        )
    return "\n".join(lines) + "\n"


def test_a_jmeter_results_csv_gives_times_in_ms_and_no_code_series() -> None:
    result = app_metrics.parse(_jmeter_results(), ParseContext(filename="results.jtl.csv"))
    units = {s.name: s.unit for s in result.series}
    assert units == {
        "app.results_jtl.elapsed": "ms",
        "app.results_jtl.bytes": "bytes",
        "app.results_jtl.sent_bytes": "bytes",
        "app.results_jtl.grp_threads": "",
        "app.results_jtl.all_threads": "",
        "app.results_jtl.latency": "ms",
        "app.results_jtl.idle_time": "",
        "app.results_jtl.connect": "ms",
    }
    from rootline.detectors import symptom
    from rootline.detectors.data import MemoryIncidentData
    from rootline.offline import ParsedArtifact

    found = symptom.find_symptom(MemoryIncidentData([ParsedArtifact("r.csv", None, result)]))
    assert found is not None and found.series in {
        "app.results_jtl.elapsed",
        "app.results_jtl.latency",
    }


def test_an_error_rate_over_1_is_per_second() -> None:
    text = "time,error_rate,success_rate\n1795247520000,3,0.99\n1795247521000,5,0.98\n"
    result = app_metrics.parse(text, ParseContext(filename="x.csv"))
    assert {s.name: s.unit for s in result.series} == {
        "app.x.error_rate": "per_s",
        "app.x.success_rate": "ratio",
    }


def test_json_strings_that_look_like_numbers_are_not_numbers() -> None:
    text = (
        '{"ts": "2026-11-21T07:52:00Z", "p99_ms": 12.0, "version": "1", "build": "20"}\n'
        '{"ts": "2026-11-21T07:52:01Z", "p99_ms": 15.0, "version": "1", "build": "21"}\n'
    )
    result = app_metrics.parse(text, ParseContext(filename="m.json"))
    assert [s.name for s in result.series] == ["app.m.p99_ms"] and not result.diagnostics
