"""Windows netstat -ano and netstat -s: golden numbers counted by hand from the fixtures
(see their READMEs), read under the names the Linux parsers give the same things."""

from __future__ import annotations

import pytest

from rootline.parsers import netstat_s, netstat_s_windows, netstat_windows
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from tests.conftest import FIXTURES_DIR

CONTEXT = ParseContext(default_time_ms=1_000)
T1, T2 = 1795162500123, 1795162510130  # 09:15:00.1234567+01:00 and 09:15:10.1301234+01:00
DB = "10.20.0.40:1521"


def parse(module: object, name: str) -> ParseResult:
    path = FIXTURES_DIR / module.KIND / name  # type: ignore[attr-defined]
    result: ParseResult = module.parse(path.read_bytes().decode(), CONTEXT)  # type: ignore[attr-defined]
    assert result.status == "parsed", result.diagnostics[:3]
    return result


def one(result: ParseResult, name: str, **labels: str) -> SeriesData:
    found = [s for s in result.series if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels)
    return found[0]


def facts(result: ParseResult) -> dict[str, str]:
    return {f.key: f.value for f in result.facts}


# --- netstat -ano ----------------------------------------------------------------------------


def test_states_per_snapshot() -> None:
    result = parse(netstat_windows, "netstat-ano-series.txt")
    assert list(one(result, "tcp.state.listen").times_ms) == [T1, T2]
    assert list(one(result, "tcp.state.listen").values) == [7, 7]
    assert list(one(result, "tcp.state.estab").values) == [6, 4]
    assert list(one(result, "tcp.state.time-wait").values) == [12, 18]
    assert list(one(result, "tcp.state.close-wait").values) == [1, 1]
    assert list(one(result, "tcp.state.syn-sent").values) == [1, 1]
    assert list(one(result, "tcp.state.fin-wait-2").values) == [0, 0]
    # No queues in Windows' listing: nothing pretends to know them.
    assert not [s for s in result.series if "recvq" in s.name or "sendq" in s.name]


def test_sockets_towards_one_peer_as_ss_counts_them() -> None:
    result = parse(netstat_windows, "netstat-ano-series.txt")
    assert list(one(result, "tcp.peer.sockets", peer=DB, state="time-wait").values) == [12, 18]
    assert list(one(result, "tcp.peer.sockets", peer=DB, state="estab").values) == [4, 2]
    assert list(one(result, "tcp.peer.local_port_min", peer=DB).values) == [50101, 50105]
    assert list(one(result, "tcp.peer.local_port_max", peer=DB).values) == [50116, 50124]


def test_a_listing_without_listening_rows_says_nothing_of_listen() -> None:
    text = "\nActive Connections\n\n  Proto  Local Address          Foreign Address        State\n"
    text += "  TCP    10.0.0.5:49712         52.1.2.3:443           ESTABLISHED\n"
    result = netstat_windows.parse(text, CONTEXT)
    assert not [s for s in result.series if s.name == "tcp.state.listen"]
    assert one(result, "tcp.state.time-wait").values[0] == 0


def test_owner_lines_of_b_are_no_ops_only_after_a_row() -> None:
    text = "\nActive Connections\n\n  Proto  Local Address          Foreign Address        State\n"
    text += "  TCP    0.0.0.0:135            0.0.0.0:0              LISTENING\n  RpcSs\n [svchost.exe]\n"
    text += "  UDP    0.0.0.0:123            *:*\n  Can not obtain ownership information\n"
    assert netstat_windows.parse(text, CONTEXT).status == "parsed"
    stray = netstat_windows.parse(text.replace("  Proto", "  RpcSs\n  Proto"), CONTEXT)
    assert [d.line for d in stray.diagnostics] == [4]


# --- netstat -s ------------------------------------------------------------------------------


def test_windows_counters_get_the_linux_names() -> None:
    single = facts(parse(netstat_s_windows, "netstat-e-s.txt"))
    # TCP: IPv4 + IPv6, as Linux's Tcp counters count both.
    assert single["netstat.TcpRetransSegs"] == str(73118 + 310)
    assert single["netstat.TcpActiveOpens"] == str(187342 + 1203)
    assert single["netstat.TcpEstabResets"] == str(22051 + 22)
    assert single["netstat.TcpOutSegs"] == str(51877420 + 228760)
    assert single["netstat.TcpIPv4RetransSegs"] == "73118"
    assert single["netstat.IpInReceives"] == "48213377"
    assert single["netstat.IpInDiscards"] == "1874"
    assert single["netstat.Ip6InReceives"] == "241833"
    assert single["netstat.UdpNoPorts"] == "8812"
    assert single["netstat.Udp6InDatagrams"] == "40211"
    assert single["netstat.IcmpInDestUnreachs"] == "2118"
    assert single["netstat.IcmpOutDestUnreachs"] == "3889"
    assert single["netstat.Icmp6InNeighborSolicits"] == "2940"
    assert single["netstat.IfInOctets"] == "40211873322"
    assert single["netstat.IfInUnknownProtos"] == "0"
    # Current Connections is a gauge, as TcpCurrEstab is on Linux.
    result = parse(netstat_s_windows, "netstat-e-s.txt")
    assert one(result, "netstat.TcpCurrEstab").values[0] == 118 + 3
    assert one(result, "netstat.TcpCurrEstab").unit == "connections"


def test_retransmits_per_second_over_two_snapshots() -> None:
    result = parse(netstat_s_windows, "netstat-s-series.txt")
    rate = one(result, "netstat.TcpRetransSegs")
    assert (rate.unit, list(rate.times_ms)) == ("per_s", [T2])
    assert rate.values[0] == pytest.approx((73834 - 73428) / 10.007)
    assert list(one(result, "netstat.TcpRetransSegs.total").values) == [73428, 73834]
    assert list(one(result, "netstat.TcpCurrEstab").values) == [121, 124]


def test_key_counters_share_names_with_linux_netstat_s() -> None:
    linux = parse(netstat_s, "netstat-s.txt")
    windows = parse(netstat_s_windows, "netstat-e-s.txt")
    for name in ("TcpActiveOpens", "TcpPassiveOpens", "TcpAttemptFails", "TcpEstabResets",
                 "TcpInSegs", "TcpOutSegs", "TcpRetransSegs", "IpInReceives", "UdpNoPorts"):  # fmt: skip
        assert f"netstat.{name}" in facts(linux)
        assert f"netstat.{name}" in facts(windows)


def test_unknown_rows_are_kept_and_bad_lines_diagnosed() -> None:
    text = "TCP Statistics for IPv4\n\n  Segments Lost In Space   = 7\n  garbage here\n"
    result = netstat_s_windows.parse(text, CONTEXT)
    assert facts(result)["netstat.Tcp.segments_lost_in_space"] == "7"
    assert [d.line for d in result.diagnostics] == [4]


def test_a_repeated_section_opens_the_next_snapshot() -> None:
    text = "TCP Statistics for IPv4\n\n  Segments Retransmitted  = 5\n" * 2
    result = netstat_s_windows.parse(text, CONTEXT)
    assert list(one(result, "netstat.TcpRetransSegs.total").values) == [5, 5]
