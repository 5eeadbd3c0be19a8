"""/proc/net/tcp and tcp6: golden numbers read by hand from the hex of a capture on this
machine (see fixtures/proc_net_tcp/README.md), and the same sockets as ``ss`` saw them."""

from __future__ import annotations

import pytest

from rootline.parsers import proc_net_tcp, ss
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from rootline.parsers.tcp_states import TCP_STATES
from tests.conftest import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "proc_net_tcp"
CONTEXT = ParseContext(default_time_ms=1_000)
T1, T2, T3 = 1795707271064, 1795707273101, 1795707275131  # the three === lines, epoch ms


def parse_file(name: str) -> ParseResult:
    return proc_net_tcp.parse((FIXTURES / name).read_text(), CONTEXT)


def one(result: ParseResult, name: str, **labels: str) -> SeriesData:
    found = [s for s in result.series if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, [s.labels for s in result.series if s.name == name])
    return found[0]


@pytest.fixture(scope="module")
def series() -> ParseResult:
    result = parse_file("proc-net-tcp-series.txt")
    assert result.status == "parsed", result.diagnostics
    return result


def test_snapshots_are_the_timestamp_lines(series: ParseResult) -> None:
    assert list(one(series, "tcp.state.listen").times_ms) == [T1, T2, T3]


def test_states_are_counted_and_zero_filled(series: ParseResult) -> None:
    # Rows per state code in each snapshot: 0A x4 (3 IPv4 + 1 IPv6), 01 x10 (7 + 3 v6), 06 x5.
    assert list(one(series, "tcp.state.listen").values) == [4, 4, 4]
    assert list(one(series, "tcp.state.estab").values) == [10, 10, 10]
    assert list(one(series, "tcp.state.time-wait").values) == [5, 5, 5]
    for state in set(TCP_STATES) - {"listen", "estab", "time-wait"}:
        assert list(one(series, f"tcp.state.{state}").values) == [0, 0, 0]


def test_queues_per_connection_and_summed(series: ParseResult) -> None:
    client = {"local": "127.0.0.1:43984", "peer": "127.0.0.1:47301"}  # 0100007F:ABD0 -> :B8C5
    server = {"local": "127.0.0.1:47301", "peer": "127.0.0.1:43984"}
    v6_client = {"local": "[::1]:54028", "peer": "[::1]:47302"}  # ...01000000:D30C -> :B8C6
    v6_server = {"local": "[::1]:47302", "peer": "[::1]:54028"}
    assert list(one(series, "tcp.conn.sendq.bytes", **client).values) == [0x3E0C1B] * 3
    assert 0x3E0C1B == 4_066_331
    assert list(one(series, "tcp.conn.recvq.bytes", **server).values) == [0x1F3E5] * 3
    assert list(one(series, "tcp.conn.sendq.bytes", **v6_client).values) == [920_612] * 3
    assert list(one(series, "tcp.conn.recvq.bytes", **v6_server).values) == [127_964] * 3
    # Idle connections (queues 0 throughout) get no queue series, as in ss.
    assert not [s for s in series.series if s.name == "tcp.conn.recvq.bytes" and s.labels == client]
    assert list(one(series, "tcp.connections.sendq.bytes").values) == [4_066_331 + 920_612] * 3
    assert list(one(series, "tcp.connections.recvq.bytes").values) == [127_973 + 127_964] * 3


def test_listen_queue(series: ParseResult) -> None:
    labels = {"local": "127.0.0.1:47303", "port": "47303"}
    assert list(one(series, "tcp.listen.recvq", **labels).values) == [3, 3, 3]
    assert (
        list(one(series, "tcp.listen.recvq", local="[::1]:47302", port="47302").values) == [0] * 3
    )
    assert not [s for s in series.series if s.name == "tcp.listen.backlog"]


def test_timers_and_tcp_fields(series: ParseResult) -> None:
    client = {"local": "127.0.0.1:43984", "peer": "127.0.0.1:47301"}
    # tm->when 1D, 14A, 7F ticks of 10 ms; probes 1, 0, 0 (the "timeout" column).
    assert list(one(series, "tcp.conn.timer_persist_ms", **client).values) == [290, 3300, 1270]
    assert list(one(series, "tcp.conn.timer_retrans", **client).values) == [1, 0, 0]
    keepalive = {"local": "127.0.0.1:42696", "peer": "127.0.0.1:47303"}
    assert list(one(series, "tcp.conn.timer_keepalive_ms", **keepalive).values) == [
        0x16FA * 10, 0x162E * 10, 0x1564 * 10,
    ]  # fmt: skip
    assert list(one(series, "tcp.conn.cwnd", **client).values) == [15, 15, 15]
    assert list(one(series, "tcp.conn.rto_ms", **client).values) == [200, 200, 200]
    server = {"local": "127.0.0.1:47301", "peer": "127.0.0.1:43984"}
    assert list(one(series, "tcp.conn.ato_ms", **server).values) == [80, 80, 80]
    # ssthresh -1 (initial slow start) gives no point; ss prints none either.
    assert not [s for s in series.series if s.name == "tcp.conn.ssthresh"]
    # TIME-WAIT rows are counted, not followed per connection.
    assert not [s for s in series.series if s.name.startswith("tcp.conn.timer_timewait")]


def test_ss_at_the_same_moments_gives_the_same_numbers(series: ParseResult) -> None:
    text = (FIXTURES_DIR / "ss" / "ss-tanoi-proc-net-tcp-moments.txt").read_text()
    by_ss = ss.parse(text, CONTEXT)
    names = {
        "tcp.conn.recvq.bytes", "tcp.conn.sendq.bytes", "tcp.conn.cwnd", "tcp.conn.timer_retrans",
        "tcp.listen.recvq", "tcp.connections.recvq.bytes", "tcp.connections.sendq.bytes",
        *(f"tcp.state.{state}" for state in TCP_STATES),
    }  # fmt: skip

    def table(result: ParseResult) -> dict[tuple[str, tuple[tuple[str, str], ...]], list[float]]:
        return {
            (s.name, tuple(sorted(s.labels.items()))): list(s.values)
            for s in result.series
            if s.name in names
        }

    mine, theirs = table(series), table(by_ss)
    assert mine == theirs
    assert len(mine) > 20


def test_single_tables_and_their_families() -> None:
    v4 = parse_file("proc-net-tcp.txt")
    v6 = parse_file("proc-net-tcp6.txt")
    assert (v4.status, v6.status) == ("parsed", "parsed")
    assert one(v6, "tcp.state.listen").values[0] == 1
    assert one(v6, "tcp.state.estab").values[0] == 2
    assert one(v4, "tcp.state.listen").values[0] == 3


def test_a_repeated_header_opens_a_new_snapshot() -> None:
    text = (FIXTURES / "proc-net-tcp.txt").read_text()
    result = proc_net_tcp.parse(text + text, CONTEXT)
    assert len(one(result, "tcp.state.listen")) == 2


def test_mapped_and_wildcard_addresses_are_written_as_ss_writes_them() -> None:
    reader = proc_net_tcp._Reader()
    assert reader.endpoint("0000000000000000FFFF00000100007F:0050") == "[::ffff:127.0.0.1]:80"
    assert reader.endpoint("00000000000000000000000000000000:0000") == "[::]:*"
    assert reader.endpoint("00000000:0016") == "0.0.0.0:22"


def test_bad_lines_are_diagnosed_with_their_line_number() -> None:
    text = (FIXTURES / "proc-net-tcp.txt").read_text().splitlines()
    text.insert(2, "   7: 0100007F:ZZZZ garbage")
    result = proc_net_tcp.parse("\n".join(text), CONTEXT)
    assert result.status == "partial"
    assert [d.line for d in result.diagnostics] == [3]
    assert "not a /proc/net/tcp line" in result.diagnostics[0].message


def test_empty_and_wrong_kind_inputs_fail_with_a_reason() -> None:
    for text in ("", "Inter-|   Receive |  Transmit\n"):
        result = proc_net_tcp.parse(text, CONTEXT)
        assert result.status == "failed"
        assert result.diagnostics


def test_sockets_towards_one_peer_are_counted_as_ss_counts_them() -> None:
    # 20 TIME-WAIT rows from 127.0.0.1:40000..40019 to 10.0.0.10:443 (0A00000A:01BB).
    rows = "".join(
        f"   {i}: 0100007F:{40000 + i:04X} 0A00000A:01BB 06 00000000:00000000 03:00001000 "
        "00000000     0        0 0 3 0000000000000000\n"
        for i in range(20)
    )
    result = proc_net_tcp.parse(rows, CONTEXT)
    assert one(result, "tcp.peer.sockets", peer="10.0.0.10:443", state="time-wait").values[0] == 20
    assert one(result, "tcp.peer.local_port_min", peer="10.0.0.10:443").values[0] == 40000
    assert one(result, "tcp.peer.local_port_max", peer="10.0.0.10:443").values[0] == 40019


# ``cat /proc/net/udp /proc/net/udp6`` on the development VM (2026-11-26) while a Python script
# held four UDP sockets (bound to 127.0.0.1, 0.0.0.0 and ::1, one connected to the first with
# 100 bytes unread); kept here verbatim, trailing blanks and all (a fixture file would be
# claimed by this parser's fixture tests).
PROC_NET_UDP = (
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            \n"
    " 1142: 00000000:9F6C 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 337071 2 00000000c8d72da3 0        \n"
    "13274: 0100007F:8ED0 0100007F:D7EE 01 00000000:00000000 00:00000000 00000000     0        0 337073 2 0000000067286f20 0        \n"
    "15608: 0100007F:D7EE 00000000:0000 07 00000000:00000340 00:00000000 00000000     0        0 337070 2 00000000419e6962 0        \n"
    "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
    " 6994: 00000000000000000000000001000000:B648 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 337072 2 00000000727cbb5c 0\n"
)


def test_proc_net_udp_is_not_tcp() -> None:
    """``cat /proc/net/udp /proc/net/udp6`` from this machine: UDP's header ends ``ref
    pointer drops`` and its rows so: not claimed, with or without the header."""
    udp = PROC_NET_UDP
    from rootline.parsers.registry import detect_kind

    assert proc_net_tcp.sniff(udp) == 0.0 and detect_kind(udp) != "proc_net_tcp"
    rows = "\n".join(line for line in udp.splitlines() if ":" in line.split()[0]) + "\n"
    assert proc_net_tcp.sniff(rows) == 0.0
    # In a TCP capture (``cat /proc/net/tcp /proc/net/udp``) the UDP table is skipped.
    tcp = (FIXTURES / "proc-net-tcp.txt").read_text()
    alone = proc_net_tcp.parse(tcp, CONTEXT)
    both = proc_net_tcp.parse(tcp + udp, CONTEXT)
    assert [(s.name, s.labels, list(s.values)) for s in both.series] == [
        (s.name, s.labels, list(s.values)) for s in alone.series
    ]
    assert [d.message for d in both.diagnostics] == [
        "a /proc/net/udp table: UDP sockets are not read (skipped)"
    ] * 2
