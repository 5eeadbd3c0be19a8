"""/proc/net/snmp, netstat, snmp6 and sockstat: header/value pairs, rates, sockstat gauges."""

from __future__ import annotations

import re

import pytest

from rootline.parsers import proc_net
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "proc_net"


def _series(result: ParseResult) -> dict[str, SeriesData]:
    return {s.name: s for s in result.series}


def _pairs(text: str) -> dict[str, int]:
    """name -> value from header/value line pairs, zipped independently of the parser."""
    lines = [ln.split() for ln in text.splitlines() if ":" in ln]
    out: dict[str, int] = {}
    for header, values in zip(lines[::2], lines[1::2], strict=True):
        section = header[0].rstrip(":")
        out.update({section + f: int(v) for f, v in zip(header[1:], values[1:], strict=True)})
    return out


@pytest.mark.parametrize("name", ["proc-net-snmp.txt", "proc-net-netstat.txt"])
def test_every_field_is_a_fact_or_gauge(name: str) -> None:
    text = (FIXTURES / name).read_text()
    result = proc_net.parse(text, ParseContext(default_time_ms=3))
    expected = _pairs(text)
    facts = {f.key: f.value for f in result.facts}
    series = _series(result)
    for field, value in expected.items():
        if f"netstat.{field}" in facts:
            assert facts[f"netstat.{field}"] == str(value)
        else:  # gauges: TcpCurrEstab, TcpRtoMin ...
            assert series[f"netstat.{field}"].values[0] == value
    assert result.status == "parsed"


def test_snmp_gauges_keep_their_units() -> None:
    result = proc_net.parse((FIXTURES / "proc-net-snmp.txt").read_text(), ParseContext())
    series = _series(result)
    assert series["netstat.TcpRtoMin"].unit == "ms" and series["netstat.TcpRtoMin"].values[0] == 200
    assert series["netstat.TcpMaxConn"].values[0] == -1
    assert series["netstat.TcpCurrEstab"].unit == "connections"
    assert "netstat.TcpCurrEstab" not in {f.key for f in result.facts}


def test_sockstat_gives_time_wait_and_gauges() -> None:
    path = CORPUS_DIR / "netstat" / "proc-net-sockstat-busy-server-insights.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    series = _series(proc_net.parse(path.read_text(), ParseContext()))
    assert series["tcp.state.time-wait"].values[0] == 2030
    assert series["sockstat.tcp.inuse"].values[0] == 1365
    assert series["sockstat.tcp.mem"].unit == "pages"
    assert series["sockstat.frag.memory"].unit == "bytes"
    assert series["sockstat.sockets.used"].values[0] == 3037


def test_snmp6_name_value_lines() -> None:
    text = (FIXTURES / "proc-net-snmp6.txt").read_text()
    facts = {f.key: f.value for f in proc_net.parse(text, ParseContext()).facts}
    assert len(facts) == len(text.splitlines())
    first_name, first_value = text.splitlines()[0].split()
    assert facts[f"netstat.{first_name}"] == first_value


def test_series_capture_rates_and_time_wait() -> None:
    text = (FIXTURES / "proc-net-series.txt").read_text()
    result = proc_net.parse(text, ParseContext())
    series = _series(result)
    tw = [float(v) for v in re.findall(r"^TCP: inuse \d+ orphan \d+ tw (\d+)", text, re.M)]
    assert list(series["tcp.state.time-wait"].values) == tw and len(tw) == 10
    overflows = series["netstat.TcpExtListenOverflows"]
    assert overflows.unit == "per_s" and len(overflows) == 9
    assert min(overflows.values) > 0  # the never-accepting listener overflowed every second
    opens = series["netstat.TcpActiveOpens.total"]
    expected = (opens.values[1] - opens.values[0]) * 1000 / (opens.times_ms[1] - opens.times_ms[0])
    assert series["netstat.TcpActiveOpens"].values[0] == pytest.approx(expected)
    assert not result.facts


def test_concatenated_without_timestamps_splits_on_repeated_header() -> None:
    one = "Tcp: ActiveOpens CurrEstab\nTcp: 5 1\n"
    result = proc_net.parse(one + one.replace("5 1", "7 2"), ParseContext(default_time_ms=1))
    series = _series(result)
    assert list(series["netstat.TcpActiveOpens.total"].values) == [5.0, 7.0]
    assert list(series["netstat.TcpCurrEstab"].values) == [1.0, 2.0]
    assert not result.facts  # two snapshots, even if at one time


def test_mismatched_value_count_is_diagnosed_and_read() -> None:
    result = proc_net.parse("Tcp: ActiveOpens PassiveOpens\nTcp: 5\n", ParseContext())
    assert [d.line for d in result.diagnostics] == [2]
    assert {f.key: f.value for f in result.facts} == {"netstat.TcpActiveOpens": "5"}


def test_values_without_header_are_diagnosed() -> None:
    result = proc_net.parse("Tcp: 1 2 3\n", ParseContext())
    assert result.status == "failed"
    assert result.diagnostics[0].line == 1
