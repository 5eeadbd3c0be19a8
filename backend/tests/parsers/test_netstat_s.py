"""netstat -s: prose mapped to nstat names, golden numbers checked against the text."""

from __future__ import annotations

import re

import pytest

from rootline.parsers import netstat_s
from rootline.parsers.base import ParseContext, ParseResult
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "netstat_s"


def _facts(result: ParseResult) -> dict[str, str]:
    return {f.key: f.value for f in result.facts}


def _series(result: ParseResult) -> dict[str, list[float]]:
    return {s.name: list(s.values) for s in result.series}


@pytest.fixture(scope="module")
def rhel7() -> ParseResult:
    path = CORPUS_DIR / "netstat" / "netstat-s-rhel7-insights.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    return netstat_s.parse(path.read_text(), ParseContext(default_time_ms=5_000))


def test_old_net_tools_wording_maps_to_nstat_names(rhel7: ParseResult) -> None:
    facts = _facts(rhel7)
    assert facts["netstat.TcpActiveOpens"] == "1648"  # "active connections openings"
    assert facts["netstat.TcpOutSegs"] == "2890303"  # "segments send out"
    assert facts["netstat.TcpRetransSegs"] == "428"  # "segments retransmited"
    assert facts["netstat.TcpInErrs"] == "0"  # "bad segments received."
    assert facts["netstat.IpFragOKs"] == "4"  # "fragments received ok"
    assert facts["netstat.TcpExtTW"] == "1239"
    assert facts["netstat.TcpExtDelayedACKLost"] == "9"  # "Quick ack mode was activated 9 times"
    assert facts["netstat.TcpExtTCPTimeouts"] == "54"
    assert facts["netstat.TcpExtTCPAbortOnTimeout"] == "53"
    assert facts["netstat.TcpExtTCPAbortOnData"] == "72"
    assert facts["netstat.TcpExtTCPLossProbes"] == "12"  # "Name: value" lines
    assert facts["netstat.IpExtInOctets"] == "865450302"
    assert facts["netstat.IcmpInDestUnreachs"] == "107"  # input histogram
    assert facts["netstat.IcmpOutDestUnreachs"] == "254"  # output histogram
    assert facts["netstat.IcmpOutEchos"] == "3"  # "echo request: 3"
    assert facts["netstat.IcmpMsgOutType3"] == "254"


def test_every_counter_line_is_kept_and_the_gauge_is_a_series(rhel7: ParseResult) -> None:
    text = (CORPUS_DIR / "netstat" / "netstat-s-rhel7-insights.txt").read_text()
    counter_lines = [ln for ln in text.splitlines() if ln.startswith(" ") and re.search(r"\d", ln)]
    assert len(counter_lines) == 78
    # 77 counters as facts + .total series; TcpCurrEstab is a gauge: a series only.
    assert len(rhel7.facts) == 77
    series = _series(rhel7)
    assert series["netstat.TcpCurrEstab"] == [139.0]
    assert "netstat.TcpCurrEstab" not in _facts(rhel7)
    assert series["netstat.TcpActiveOpens.total"] == [1648.0]
    assert rhel7.status == "parsed"
    assert not [f.key for f in rhel7.facts if f.key.count(".") > 1]  # the table knew every line


def test_unknown_prose_is_kept_under_a_slug_without_diagnostic() -> None:
    text = "TcpExt:\n    7 sockets eaten by a grue\n    3 fast retransmits\n"
    result = netstat_s.parse(text, ParseContext())
    assert _facts(result) == {
        "netstat.TcpExt.sockets_eaten_by_a_grue": "7",
        "netstat.TcpExtTCPFastRetrans": "3",
    }
    assert result.status == "parsed"


def test_this_machines_output_maps_fully() -> None:
    result = netstat_s.parse((FIXTURES / "netstat-s.txt").read_text(), ParseContext())
    facts = _facts(result)
    for name in (
        "TcpActiveOpens",
        "TcpPassiveOpens",
        "TcpRetransSegs",
        "TcpExtListenOverflows",
        "TcpExtListenDrops",
        "TcpExtTCPSynRetrans",
        "TcpExtTCPLostRetransmit",
        "TcpExtTCPToZeroWindowAdv",
        "TcpExtTW",
        "IpExtInOctets",
    ):
        assert f"netstat.{name}" in facts, name
    assert facts["netstat.TcpExtListenOverflows"] == "12"
    assert _series(result)["netstat.IpForwarding"] == [2.0]  # "Forwarding: 2"
    assert not [k for k in facts if k.count(".") > 1]


def test_series_capture_gives_rates_from_the_text() -> None:
    text = (FIXTURES / "netstat-s-series.txt").read_text()
    result = netstat_s.parse(text, ParseContext())
    assert result.status == "parsed"
    assert not result.facts  # ten snapshots: rates, not facts
    stamps = re.findall(r"^=== (\S+) ===$", text, re.M)
    opens = [int(v) for v in re.findall(r"^ {4}(\d+) active connection openings$", text, re.M)]
    assert len(stamps) == len(opens) == 10
    series = {s.name: s for s in result.series}
    assert list(series["netstat.TcpActiveOpens.total"].values) == opens
    rates = series["netstat.TcpActiveOpens"]
    assert series["netstat.TcpActiveOpens"].unit == "per_s"
    assert len(rates) == 9
    times = list(series["netstat.TcpActiveOpens.total"].times_ms)
    expected = (opens[1] - opens[0]) * 1000 / (times[1] - times[0])
    assert rates.values[0] == pytest.approx(expected)
    assert series["netstat.TcpCurrEstab"].unit == "connections"


def test_repeated_section_without_timestamp_opens_a_snapshot() -> None:
    one = "Tcp:\n    5 active connection openings\n"
    result = netstat_s.parse(one + one.replace("5", "9"), ParseContext(default_time_ms=7))
    totals = {s.name: list(s.values) for s in result.series}
    assert totals["netstat.TcpActiveOpens.total"] == [5.0, 9.0]
    assert not result.facts


@pytest.mark.parametrize(
    ("text", "line"),
    [("Tcp:\n    5 active connection openings\nbogus line\n", 3), ("    5 resets sent\n", 1)],
)
def test_unreadable_lines_are_diagnosed(text: str, line: int) -> None:
    result = netstat_s.parse(text, ParseContext())
    assert result.diagnostics[0].line == line


def test_empty_input_fails_with_a_reason() -> None:
    result = netstat_s.parse("", ParseContext())
    assert result.status == "failed"
    assert result.diagnostics[0].message == "no netstat -s counters found"
