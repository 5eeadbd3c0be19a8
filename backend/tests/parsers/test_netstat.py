"""netstat socket listings, interface table and group memberships: numbers recounted from the text."""

from __future__ import annotations

from collections import Counter

import pytest

from rootline.parsers import netstat
from rootline.parsers.base import ParseContext, ParseResult
from rootline.parsers.tcp_states import TCP_STATES
from tests.conftest import CORPUS_DIR, FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "netstat"
NETSTAT_STATES = {
    "ESTABLISHED": "estab",
    "SYN_SENT": "syn-sent",
    "SYN_RECV": "syn-recv",
    "FIN_WAIT1": "fin-wait-1",
    "FIN_WAIT2": "fin-wait-2",
    "TIME_WAIT": "time-wait",
    "CLOSE": "close",
    "CLOSE_WAIT": "close-wait",
    "LAST_ACK": "last-ack",
    "LISTEN": "listen",
    "CLOSING": "closing",
}


def _by_name(result: ParseResult) -> dict[str, list[float]]:
    return {s.name: list(s.values) for s in result.series if not s.labels}


def _recount(text: str) -> tuple[Counter[str], int, int]:
    """States, Recv-Q and Send-Q sums of non-LISTEN tcp rows, counted with plain splits."""
    states: Counter[str] = Counter()
    recvq = sendq = 0
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] in ("tcp", "tcp6"):
            states[NETSTAT_STATES[fields[5]]] += 1
            if fields[5] != "LISTEN":
                recvq += int(fields[1])
                sendq += int(fields[2])
    return states, recvq, sendq


@pytest.mark.parametrize(
    "name", ["netstat-nat-head1500.txt", "netstat-neopa-excerpt.txt", "netstat-a-excerpt.txt"]
)
def test_state_counts_and_queues_match_a_recount(name: str) -> None:
    text = (FIXTURES / name).read_text()
    result = netstat.parse(text, ParseContext(default_time_ms=42))
    states, recvq, sendq = _recount(text)
    series = _by_name(result)
    assert states["time-wait"] > 100  # captured under load
    for state in TCP_STATES:
        assert series[f"tcp.state.{state}"] == [float(states[state])], state
    assert series["tcp.connections.recvq.bytes"] == [float(recvq)]
    assert series["tcp.connections.sendq.bytes"] == [float(sendq)]
    assert all(
        s.times_ms[0] == 42 and s.unit in ("sockets", "bytes", "connections", "port")
        for s in result.series
    )
    # every TIME-WAIT socket counted once by its local port: on a listed or shared port, or
    # among the other ports
    by_port = sum(
        s.values[0]
        for s in result.series
        if s.name in ("tcp.time_wait.local_port", "tcp.time_wait.other_ports")
    )
    assert by_port == states["time-wait"]
    assert result.status == "parsed"


def test_listen_queues_are_labelled_by_address_and_port() -> None:
    result = netstat.parse((FIXTURES / "netstat-lnt.txt").read_text(), ParseContext())
    queues = {
        (s.labels["local"], s.labels["port"]): s.values[0]
        for s in result.series
        if s.name == "tcp.listen.recvq"
    }
    assert queues[("127.0.0.1", "5432")] == 0.0
    assert len(queues) == _by_name(result)["tcp.state.listen"][0] == 14
    # "only servers": only the listen state is counted, and no byte totals.
    assert {s.name for s in result.series if s.name.startswith("tcp.state.")} == {
        "tcp.state.listen"
    }
    assert "tcp.connections.sendq.bytes" not in _by_name(result)


def test_series_capture_has_one_point_per_snapshot() -> None:
    text = (FIXTURES / "netstat-nat-series-port18080.txt").read_text()
    result = netstat.parse(text, ParseContext())
    blocks = text.split("=== ")[1:]
    expected = [float(sum(" TIME_WAIT" in line for line in b.splitlines())) for b in blocks]
    series = {s.name: s for s in result.series if not s.labels}
    assert len(blocks) == 10
    assert list(series["tcp.state.time-wait"].values) == expected
    assert len(set(series["tcp.state.time-wait"].times_ms)) == 10
    # The load's listener on 18081 never accepts: its accept queue sits full (backlog 2 -> 3).
    stuck = [
        s for s in result.series if s.name == "tcp.listen.recvq" and s.labels["port"] == "18081"
    ]
    assert stuck and max(stuck[0].values) == 3.0


def test_plain_netstat_without_servers_counts_no_listen() -> None:
    path = CORPUS_DIR / "netstat" / "netstat-default-centos77-jc.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    series = _by_name(netstat.parse(path.read_text(), ParseContext()))
    assert series["tcp.state.estab"] == [3.0]
    assert "tcp.state.listen" not in series


def test_neopa_corpus_counts_syn_recv() -> None:
    path = CORPUS_DIR / "netstat" / "netstat-neopa-rhel-excerpt-insights.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    series = _by_name(netstat.parse(path.read_text(), ParseContext()))
    assert series["tcp.state.syn-recv"] == [1.0]
    assert series["tcp.state.listen"] == [4.0]
    assert series["tcp.state.estab"] == [1.0]


def test_interface_table_single_snapshot_gives_totals_and_facts() -> None:
    path = CORPUS_DIR / "netstat" / "netstat-i-bonded-interfaces-insights.txt"
    if not path.exists():
        pytest.skip("corpus absent")
    result = netstat.parse(path.read_text(), ParseContext())
    totals = {(s.name, s.labels["interface"]): s.values[0] for s in result.series}
    assert totals[("net.if.rx_ok.total", "bond0")] == 845265.0
    assert totals[("net.if.tx_ok.total", "eth2")] == 3674.0
    assert not [s for s in result.series if s.unit == "per_s"]
    facts = {f.key: f.value for f in result.facts}
    assert facts["net.if.lo.mtu"] == "65536"
    assert facts["net.if.eth0.flags"] == "BMsRU"


def test_interface_table_series_gives_rates() -> None:
    text = (FIXTURES / "netstat-i-series.txt").read_text()  # net-tools 2.10: no Met column
    result = netstat.parse(text, ParseContext())
    rows = [line.split() for line in text.splitlines() if line.startswith("lo ")]
    series = {(s.name, s.labels["interface"]): s for s in result.series}
    totals = series[("net.if.rx_ok.total", "lo")]
    assert list(totals.values) == [float(r[2]) for r in rows]
    rate = series[("net.if.rx_ok", "lo")]
    assert rate.unit == "per_s" and len(rate) == len(rows) - 1
    assert rate.values[0] == pytest.approx(
        (float(rows[1][2]) - float(rows[0][2])) * 1000 / (totals.times_ms[1] - totals.times_ms[0])
    )
    assert (
        sum(1 for f in result.facts if f.key == "net.if.lo.mtu") == 1
    )  # stated once, not per snapshot


def test_group_memberships_are_facts() -> None:
    result = netstat.parse((FIXTURES / "netstat-agn.txt").read_text(), ParseContext())
    facts = {f.key: f.value for f in result.facts}
    assert facts["net.multicast_groups.lo"] == "224.0.0.1 ff02::1 ff01::1"
    assert facts["net.multicast_groups.eth0"].split()[0] == "224.0.0.1"
    assert result.status == "parsed"


def test_garbage_line_in_a_listing_is_diagnosed_and_the_rest_kept() -> None:
    text = "Active Internet connections (servers and established)\ntcp 0 0 a:1 b:2 ESTABLISHED\nwhat is this\n"
    result = netstat.parse(text, ParseContext())
    assert [d.line for d in result.diagnostics] == [3]
    assert result.status == "partial"
    assert _by_name(result)["tcp.state.estab"] == [1.0]
