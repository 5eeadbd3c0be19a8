"""nstat: absolute vs delta output, rates from counters, from increments, or from the rate column."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from rootline.parsers import nstat
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from rootline.parsers.timestamps import parse_timestamp_line
from tests.conftest import CORPUS_DIR, FIXTURES_DIR
from tests.parsers.reading import peak_of_parse

FIXTURES = FIXTURES_DIR / "nstat"
_SEP = re.compile(r"^=== (\S+) ===$", re.M)


def _series(result: ParseResult) -> dict[str, SeriesData]:
    return {s.name: s for s in result.series}


def _values_of(text: str, name: str) -> list[float]:
    return [float(v) for v in re.findall(rf"^{name}\s+(\d+)\s", text, re.M)]


def test_single_az_snapshot_is_absolute_with_facts() -> None:
    text = (FIXTURES / "nstat-az.txt").read_text()
    result = nstat.parse(text, ParseContext(default_time_ms=9))
    facts = {f.key: f.value for f in result.facts}
    rows = len(text.splitlines()) - 1  # minus "#kernel"
    assert len(facts) == rows - 1  # MPTcpExtMPCurrEstab is a gauge
    assert facts["netstat.TcpActiveOpens"] == str(int(_values_of(text, "TcpActiveOpens")[0]))
    assert facts["netstat.TcpExtListenOverflows"] == "12"
    series = _series(result)
    assert series["netstat.TcpActiveOpens.total"].unit == "count"
    assert "netstat.TcpActiveOpens" not in series  # one snapshot: no rate


def test_az_series_rates_match_the_text() -> None:
    text = (FIXTURES / "nstat-az-series.txt").read_text()
    result = nstat.parse(text, ParseContext())
    assert not result.facts and result.status == "parsed"
    times = [int(ms) for ms in _times_ms(text)]
    opens = _values_of(text, "TcpActiveOpens")
    series = _series(result)
    rate = series["netstat.TcpActiveOpens"]
    assert rate.unit == "per_s"
    expected = [
        (b - a) * 1000 / (tb - ta)
        for a, b, ta, tb in zip(opens, opens[1:], times, times[1:], strict=False)
    ]
    assert list(rate.values) == pytest.approx(expected)
    assert min(expected) > 100  # the load opened hundreds of connections per second
    assert list(series["netstat.TcpExtListenOverflows.total"].values) == _values_of(
        text, "TcpExtListenOverflows"
    )


def test_delta_series_divides_increments_by_the_interval() -> None:
    text = (FIXTURES / "nstat-delta-series.txt").read_text()
    result = nstat.parse(text, ParseContext())
    series = _series(result)
    times = _times_ms(text)
    blocks = _SEP.split(text)[2::2]
    segs = [
        float(m.group(1)) if (m := re.search(r"^TcpInSegs\s+(\d+)", b, re.M)) else 0.0
        for b in blocks
    ]
    assert list(series["netstat.TcpInSegs.delta"].values) == segs
    rate = series["netstat.TcpInSegs"]
    expected = [segs[i] * 1000 / (times[i] - times[i - 1]) for i in range(1, len(segs))]
    assert list(rate.values) == pytest.approx(expected)
    assert not any(name.endswith(".total") for name in series)


@pytest.mark.parametrize("name", ["nstat-delta-1.txt", "nstat-delta-2.txt"])
def test_single_plain_nstat_is_delta(name: str) -> None:
    text = (FIXTURES / name).read_text()
    result = nstat.parse(text, ParseContext(default_time_ms=5))
    series = _series(result)
    assert series["netstat.TcpActiveOpens.delta"].values[0] == _values_of(text, "TcpActiveOpens")[0]
    assert not result.facts
    assert "netstat.TcpActiveOpens" not in series  # interval unknown and the rate column is 0.0


def test_rate_column_stands_in_for_the_first_delta_snapshot() -> None:
    text = "#kernel\nTcpActiveOpens  30  2.5\nTcpInSegs  100  10.0\n"
    series = _series(nstat.parse(text, ParseContext()))
    assert list(series["netstat.TcpActiveOpens"].values) == [2.5]


def test_repeated_kernel_header_opens_a_snapshot() -> None:
    text = "#kernel\nTcpInSegs  5  0.0\n#kernel\nTcpInSegs  3  0.0\nTcpOutSegs 1 0.0\n"
    series = _series(nstat.parse(text, ParseContext(default_time_ms=1)))
    assert list(series["netstat.TcpInSegs.delta"].values) == [5.0, 3.0]
    assert list(series["netstat.TcpOutSegs.delta"].values) == [0.0, 1.0]  # absent = did not move


def test_counter_reset_in_an_absolute_series_is_not_a_negative_rate() -> None:
    snaps = [100, 200, 300, 5, 105]
    text = "".join(
        f"=== 2026-11-21T07:00:0{i}Z ===\n#kernel\nTcpInSegs {v} 0.0\nTcpOutSegs {v} 0.0\n"
        for i, v in enumerate(snaps)
    )
    series = _series(nstat.parse(text, ParseContext()))
    assert list(series["netstat.TcpInSegs.total"].values) == [float(v) for v in snaps]
    assert list(series["netstat.TcpInSegs"].values) == [100.0, 100.0, 100.0]


def test_corpus_kernel_doc_blocks_are_deltas() -> None:
    path = CORPUS_DIR / "netstat" / "nstat-delta-kernel-header-tcp-client-kernel-doc.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    series = _series(nstat.parse(path.read_text(), ParseContext()))
    assert series["netstat.TcpExtTCPPureAcks.delta"].values[0] == 1.0
    assert series["netstat.IpExtOutOctets.delta"].values[0] == 58.0


def test_bad_line_is_diagnosed() -> None:
    result = nstat.parse("#kernel\nTcpInSegs 5 0.0\nTcpOutSegs five 0.0\n", ParseContext())
    assert [d.line for d in result.diagnostics] == [3]
    assert result.status == "partial"


def _times_ms(text: str) -> list[int]:
    return [
        t
        for line in text.splitlines()
        if line.startswith("===") and (t := parse_timestamp_line(line, dt.UTC))
    ]


def test_a_control_character_that_splitlines_breaks_at_keeps_line_numbers() -> None:
    """Found by the corpus damage test: "\\x1e" made str.splitlines see a line more than the
    file has, and a diagnostic pointed past its end."""
    from rootline.parsers import nstat
    from rootline.parsers.base import ParseContext

    text = "#kernel\nIpInReceives 2 0.0\nIpInDelivers 2\x1e\r0 0.0\nIpOutRequests 3 0.0\n"
    result = nstat.parse(text, ParseContext())
    assert all(0 <= d.line <= text.count("\n") for d in result.diagnostics), result.diagnostics


def _damaged_series() -> str:
    """The az series fixture with, in its third snapshot, a bad row, a blank line, a
    repeated counter and a stray non-data line; and CRLF endings from the fourth on."""
    text = (FIXTURES / "nstat-az-series.txt").read_text()
    starts = [m.start() for m in _SEP.finditer(text)]
    third = text.index("\n", text.index("#kernel", starts[2])) + 1
    fourth = starts[3]
    return (
        text[:third]
        + "TcpInSegs five 0.0\n\nIpInReceives 1 0.0\nhello there\n"
        + text[third:fourth]
        + text[fourth:].replace("\n", "\r\n")
    )


def test_snapshots_found_in_the_text_keep_points_and_line_numbers() -> None:
    """Snapshots are found by a scan of the text, not a list of its lines: diagnostics
    still point at the right lines, the damaged snapshot's clean rows are read, and CRLF
    lines read as LF ones."""
    text = _damaged_series()
    result = nstat.parse(text, ParseContext())
    lines = text.split("\n")
    expected = {
        lines.index("TcpInSegs five 0.0") + 1: "not an nstat counter line",
        lines.index("hello there") + 1: "not an nstat counter line",
        # the inserted IpInReceives came first: the snapshot's own line is the repeat
        lines.index("hello there") + 2: "counter IpInReceives listed twice in one snapshot",
    }
    assert {d.line: d.message.split(":")[0] for d in result.diagnostics} == expected
    assert result.status == "partial"
    unix = nstat.parse(text.replace("\r\n", "\n"), ParseContext())
    assert [(d.line, d.message) for d in unix.diagnostics] == [
        (d.line, d.message) for d in result.diagnostics
    ]
    series, unix_series = _series(result), _series(unix)
    assert series.keys() == unix_series.keys()
    for name, expected_series in unix_series.items():
        assert list(series[name].times_ms) == list(expected_series.times_ms), name
        assert list(series[name].values) == list(expected_series.values), name
    # The clean rows of the damaged snapshot were read too.
    assert len(series["netstat.TcpExtListenOverflows.total"]) == text.count("\n=== ") + 1


def test_blank_lines_and_a_final_line_without_newline_between_snapshots() -> None:
    text = (
        "\n\n=== 2026-11-21T07:00:00Z ===\n\n#kernel\nTcpInSegs 5 0.0\n\n"
        "   \n=== 2026-11-21T07:00:10Z ===\r\n#kernel\r\nTcpInSegs 25 0.0"
    )
    result = nstat.parse(text, ParseContext())
    assert result.diagnostics == []
    total = _series(result)["netstat.TcpInSegs.total"]
    assert list(total.values) == [5.0, 25.0]
    assert list(total.times_ms) == [1795244400000, 1795244410000]
    bad = nstat.parse(text + "\nTcpOutSegs x 0.0", ParseContext())
    assert [d.line for d in bad.diagnostics] == [text.count("\n") + 2]


def test_u64_counters_past_int64_are_read_not_clipped() -> None:
    """Values are converted in bulk by numpy, which saturates at 2**63 - 1 silently."""
    text = (
        "#kernel\nTcpInSegs 18446744073709551615 0.0\nTcpOutSegs 9223372036854775807 0.0\n"
        "IpInReceives 12 0.0\n"
    )
    result = nstat.parse(text, ParseContext())
    values = {s.name: s.values[0] for s in result.series}
    assert values["netstat.TcpInSegs.delta"] == 18446744073709551615.0
    assert values["netstat.TcpOutSegs.delta"] == 9223372036854775807.0
    assert values["netstat.IpInReceives.delta"] == 12.0


def test_a_big_capture_is_not_held_beside_its_series() -> None:
    """The text handed over by the registry goes once read into the table: the series are
    built beside the table only. 1.2x a 24 MB ``nstat -az`` loop where text, table and series
    together were 2.0x. Python's and numpy's allocations (tracemalloc), in a fresh process."""
    status, peak = peak_of_parse("bench.gen_nstat", 24 * 1024 * 1024)
    assert status == "parsed"
    assert peak < 1.6, f"peak {peak:.2f}x the file"
