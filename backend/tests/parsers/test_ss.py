"""The ss parser against our own loopback captures, the public corpus and bad input."""

from __future__ import annotations

import datetime as dt
import re
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rootline.parsers import ss
from rootline.parsers.base import ParseContext, ParseResult, SeriesData
from rootline.parsers.registry import detect_kind, sniff_scores
from rootline.parsers.tcp_states import TCP_STATES, normalise_tcp_state
from rootline.parsers.timestamps import parse_timestamp_line
from tests.conftest import CORPUS_DIR, FIXTURES_DIR, corpus_files

SS_FIXTURES = FIXTURES_DIR / "ss"
OWN_FILES = sorted(SS_FIXTURES.glob("*.txt"))
CORPUS_SS = corpus_files("ss")
CONTEXT = ParseContext(default_time_ms=1_000)
RENO = {"local": "127.0.0.1:56468", "peer": "127.0.0.1:5005"}


def parse_file(name: str) -> ParseResult:
    return ss.parse((SS_FIXTURES / name).read_text(), CONTEXT)


def series(result: ParseResult, name: str, **labels: str) -> SeriesData:
    found = [
        s
        for s in result.series
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert len(found) == 1, (name, labels, len(found))
    return found[0]


def only_value(result: ParseResult, name: str, **labels: str) -> float:
    data = series(result, name, **labels)
    assert len(data) == 1
    return data.values[0]


def state_column(path: Path) -> Counter[str]:
    """Independent count of TCP rows per state, reading the State column by position."""
    counts: Counter[str] = Counter()
    lines = path.read_text().splitlines()
    header = lines[0].split()
    for line in lines[1:]:
        if not line or line[0].isspace():
            continue
        cells = line.split()
        if header[0] == "Netid":
            if cells[0] == "tcp":
                counts[normalise_tcp_state(cells[1])] += 1
        else:
            counts[normalise_tcp_state(cells[0])] += 1
    return counts


# --- recognising the files --------------------------------------------------------------


@pytest.mark.parametrize("path", OWN_FILES + CORPUS_SS, ids=lambda p: p.name)
def test_every_ss_file_is_detected_and_parsed(path: Path) -> None:
    text = path.read_text()
    assert detect_kind(text[:65536]) == "ss"
    result = ss.parse(text, CONTEXT)
    assert result.status == "parsed", result.diagnostics[:3]
    assert result.series


OTHER_FILES = [
    p
    for folder in (
        *(d for d in CORPUS_DIR.iterdir() if d.is_dir() and d.name != "ss"),
        *(d for d in FIXTURES_DIR.iterdir() if d.is_dir() and d.name != "ss"),
    )
    for p in sorted(folder.rglob("*"))
    if p.is_file() and p.suffix != ".md"
] if CORPUS_DIR.is_dir() else []  # fmt: skip


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_does_not_claim_other_kinds(path: Path) -> None:
    head = path.read_bytes()[:65536].decode("utf-8", errors="replace")
    assert sniff_scores(head)["ss"] < 0.5


def test_sniff_without_header_needs_rows() -> None:
    rows = "ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555\n" * 3
    assert ss.sniff(rows) >= 0.8
    assert ss.sniff("Proto Recv-Q Send-Q Local Address Foreign Address State\n") == 0.0


# --- golden numbers from our own captures ---------------------------------------------------


def test_tan_counts_states_queues_and_listeners() -> None:
    result = parse_file("ss-tan.txt")
    expected = state_column(SS_FIXTURES / "ss-tan.txt")
    assert expected == {
        "time-wait": 25,
        "estab": 28,
        "listen": 7,
        "close-wait": 2,
        "fin-wait-2": 2,
        "syn-sent": 3,
    }
    for state, count in expected.items():
        assert only_value(result, f"tcp.state.{state}") == count
    # accept queue overflow: backlog 4, five connections waiting (ss shows backlog + 1)
    assert only_value(result, "tcp.listen.backlog", local="127.0.0.1:5004", port="5004") == 4
    assert only_value(result, "tcp.listen.recvq", local="127.0.0.1:5004") == 5
    assert only_value(result, "tcp.listen.backlog", local="127.0.0.1%lo:5006") == 16
    assert only_value(result, "tcp.listen.backlog", local="[::1]:5003", port="5003") == 64
    rows = [line.split() for line in (SS_FIXTURES / "ss-tan.txt").read_text().splitlines()[1:]]
    sendq = sum(int(r[2]) for r in rows if r[0] != "LISTEN")
    recvq = sum(int(r[1]) for r in rows if r[0] != "LISTEN")
    assert (sendq, recvq) == (4_039_030, 226_250)
    assert only_value(result, "tcp.connections.sendq.bytes") == sendq
    assert only_value(result, "tcp.connections.recvq.bytes") == recvq
    # per-connection queues only for connections with a non-zero queue
    busy = {(r[3], r[4]) for r in rows if r[0] != "LISTEN" and (r[1] != "0" or r[2] != "0")}
    kept = {
        (s.labels["local"], s.labels["peer"])
        for s in result.series
        if s.name.startswith("tcp.conn.")
    }
    assert kept == busy
    assert only_value(result, "tcp.conn.sendq.bytes", **RENO) == 47616
    assert not any(s.labels.get("host") for s in result.series)


def test_tinm_reads_every_info_field_with_units() -> None:
    result = parse_file("ss-tinm.txt")
    # the line: skmem:(r0,rb131072,t0,tb16384,f704,w48448,o0,bl0,d0) reno wscale:10,10 rto:6656
    # backoff:5 rtt:5.894/11.767 ... cwnd:1 ssthresh:2 bytes_sent:398848 bytes_retrans:285696
    # bytes_acked:65537 ... send 64629793bps ... busy:7468ms unacked:1 retrans:1/6 lost:1
    expected = {
        "tcp.conn.skmem_rb": (131072, "bytes"),
        "tcp.conn.skmem_tb": (16384, "bytes"),
        "tcp.conn.skmem_f": (704, "bytes"),
        "tcp.conn.skmem_w": (48448, "bytes"),
        "tcp.conn.skmem_d": (0, "bytes"),
        "tcp.conn.rto_ms": (6656, "ms"),
        "tcp.conn.backoff": (5, "count"),
        "tcp.conn.rtt_ms": (5.894, "ms"),
        "tcp.conn.rttvar_ms": (11.767, "ms"),
        "tcp.conn.mss": (47616, "bytes"),
        "tcp.conn.cwnd": (1, "segments"),
        "tcp.conn.ssthresh": (2, "segments"),
        "tcp.conn.bytes_retrans": (285696, "bytes"),
        "tcp.conn.bytes_acked": (65537, "bytes"),
        "tcp.conn.send_bps": (64629793, "bits/s"),
        "tcp.conn.pacing_rate_bps": (77549168, "bits/s"),
        "tcp.conn.delivery_rate_bps": (8093480, "bits/s"),
        "tcp.conn.lastsnd_ms": (460, "ms"),
        "tcp.conn.busy_ms": (7468, "ms"),
        "tcp.conn.unacked": (1, "segments"),
        "tcp.conn.retrans": (6, "segments"),
        "tcp.conn.retrans_out": (1, "segments"),
        "tcp.conn.lost": (1, "segments"),
        "tcp.conn.minrtt_ms": (0.011, "ms"),
        "tcp.conn.rcv_space": (65495, "bytes"),
        "tcp.conn.app_limited": (0, "bool"),
        "tcp.conn.sendq.bytes": (47616, "bytes"),
    }
    for name, (value, unit) in expected.items():
        data = series(result, name, **RENO)
        assert (data.values[0], data.unit) == pytest.approx((value, unit)), name
        assert list(data.times_ms) == [1_000]
    facts = {f.key: f.value for f in result.facts}
    assert facts["tcp.conn.cc[127.0.0.1:56468 127.0.0.1:5005]"] == "reno"
    # an idle bbr connection on an interface-scoped listener
    lo = {"local": "127.0.0.1%lo:5006", "peer": "127.0.0.1:53722"}
    assert facts["tcp.conn.cc[127.0.0.1%lo:5006 127.0.0.1:53722]"] == "bbr"
    assert only_value(result, "tcp.conn.app_limited", **lo) == 1
    assert only_value(result, "tcp.conn.bbr_mrtt_ms", **lo) == pytest.approx(0.013)
    assert only_value(result, "tcp.conn.bbr_bw_bps", **lo) == 0
    # IPv4-mapped IPv6 peer of the dual-stack listener
    assert any(s.labels.get("local") == "[::ffff:127.0.0.1]:5005" for s in result.series)


def test_oneline_output_gives_the_same_fields() -> None:
    two_line = parse_file("ss-tinm.txt")
    one_line = parse_file("ss-tinmO.txt")

    def names(result: ParseResult) -> set[str]:
        return {s.name for s in result.series if s.labels.get("local") == RENO["local"]}

    assert names(one_line) == names(two_line)
    assert len(names(one_line)) >= 40


def test_process_facts_from_users() -> None:
    result = parse_file("ss-tinmp.txt")
    facts = {f.key: f.value for f in result.facts}
    assert facts["tcp.conn.process[127.0.0.1%lo:5006 127.0.0.1:53722]"] == "python3 pid=17238"
    tupna = parse_file("ss-tupna.txt")
    assert {f.key: f.value for f in tupna.facts}[
        "tcp.listen.process[127.0.0.1:5004]"
    ] == "python3 pid=17238"


def test_timers() -> None:
    result = parse_file("ss-tano-timers.txt")
    keepalive = {"local": "127.0.0.1:36180", "peer": "127.0.0.1:5002"}
    assert only_value(result, "tcp.conn.timer_keepalive_ms", **keepalive) == 28_000
    assert only_value(result, "tcp.conn.timer_on_ms", **RENO) == pytest.approx(1.816)


def test_summary_new_and_old_iproute2() -> None:
    new = parse_file(
        "ss-s.txt"
    )  # TCP:   17130 (estab 32, closed 17075, orphaned 0, timewait 17074)
    assert only_value(new, "sockets.total") == 75
    assert only_value(new, "tcp.sockets.total") == 17130
    assert only_value(new, "tcp.state.estab") == 32
    assert only_value(new, "tcp.state.time-wait") == 17074
    assert only_value(new, "tcp.state.close") == 1  # closed counts time-wait sockets too
    assert only_value(new, "sockets.tcp") == 55
    old = ss.parse(
        (CORPUS_DIR / "ss" / "ss-s-summary-old-iproute2-orphaned-kernel-doc.txt").read_text(),
        CONTEXT,
    )
    assert only_value(old, "tcp.orphaned") == 10
    assert only_value(old, "tcp.state.syn-recv") == 0
    assert only_value(old, "sockets.total") == 131


def test_loop_capture_has_ten_snapshots_at_their_timestamps() -> None:
    path = SS_FIXTURES / "ss-tinm-loop.txt"
    lines = path.read_text().splitlines()
    stamps = [t for t in (parse_timestamp_line(line, dt.UTC) for line in lines) if t is not None]
    assert len(stamps) == 10
    assert stamps[0] == int(dt.datetime(2026, 11, 21, 7, 29, 2, tzinfo=dt.UTC).timestamp() * 1000)
    assert stamps[1] == 1_795_246_143_674  # 1795246143.674298167
    result = ss.parse(path.read_text(), CONTEXT)
    estab = series(result, "tcp.state.estab")
    assert list(estab.times_ms) == stamps
    assert list(estab.values) == [28.0] * 10
    cwnd = series(result, "tcp.conn.cwnd", **RENO)
    assert list(cwnd.times_ms) == stamps
    bytes_acked = series(result, "tcp.conn.bytes_acked", **RENO)
    assert list(bytes_acked.values) == sorted(bytes_acked.values)  # a counter, in time order


# --- the public corpus ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "ss-a-centos77-jc.txt",
        "ss-a-ubuntu1804-jc.txt",
        "ss-tupna-rhel-workstation-insights.txt",
        "ss-lt-listen-backlog-old-iproute2-k8s-node-plantegg.txt",
        "ss-noemitauOH-oneline-tcpinfo-skmem-desktop-pcp.txt",
    ],
)
def test_corpus_state_counts(name: str) -> None:
    path = CORPUS_DIR / "ss" / name
    result = ss.parse(path.read_text(), CONTEXT)
    expected = state_column(path)
    assert expected
    for state, count in expected.items():
        assert only_value(result, f"tcp.state.{state}") == count


def test_corpus_other_netids_are_counted() -> None:
    path = CORPUS_DIR / "ss" / "ss-a-centos77-jc.txt"
    netids = Counter(line.split()[0] for line in path.read_text().splitlines()[1:] if line.strip())
    result = ss.parse(path.read_text(), CONTEXT)
    assert only_value(result, "sockets.u_str") == netids["u_str"] == 122
    assert only_value(result, "sockets.nl") == netids["nl"]


def test_corpus_two_line_info_with_rates_in_units() -> None:
    result = ss.parse(
        (CORPUS_DIR / "ss" / "ss-o-i-state-established-twoline-tcpinfo-kernel-doc.txt").read_text(),
        CONTEXT,
    )
    conn = {"local": "192.168.122.250:40654", "peer": "192.168.122.251:9000"}
    assert only_value(result, "tcp.conn.send_bps", **conn) == pytest.approx(118.2e6)
    assert only_value(result, "tcp.conn.pacing_rate_bps", **conn) == pytest.approx(236.4e6)
    assert only_value(result, "tcp.conn.rtt_ms", **conn) == pytest.approx(0.98)
    # the state filter hid the State column: no state counts, but the connection is read
    assert not [s for s in result.series if s.name.startswith("tcp.state.")]
    mysql = ss.parse(
        (CORPUS_DIR / "ss" / "ss-itn-twoline-tcpinfo-mysql-clients-plantegg.txt").read_text(),
        CONTEXT,
    )
    client = {"local": "[::ffff:192.168.0.174]:48074", "peer": "[::ffff:192.168.0.173]:3306"}
    assert only_value(mysql, "tcp.conn.retrans", **client) == 183
    assert only_value(mysql, "tcp.conn.busy_ms", **client) == 2676463
    assert only_value(mysql, "tcp.conn.delivery_rate_bps", **client) == pytest.approx(163.2e6)
    assert only_value(mysql, "tcp.conn.app_limited", **client) == 1
    assert only_value(mysql, "tcp.state.estab") == 2


def test_service_names_and_old_layout() -> None:
    result = parse_file("ss-tl-resolved.txt")
    assert (
        only_value(result, "tcp.listen.backlog", local="127.0.0.1:postgresql", port="postgresql")
        == 244
    )


# --- synthetic corner cases ------------------------------------------------------------------

ROW = "ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555"


def test_units_change_between_snapshots_and_fields_come_and_go() -> None:
    text = "\n".join(
        [
            "1700000000",
            ROW,
            "\t cubic rto:204 send 900Kbps lastack:4 rwnd_limited:29ms(29.9%) retrans:0/1",
            "1700000005",
            ROW,
            "\t cubic rto:208 send 1.2Mbps lastsnd:8 rwnd_limited:30ms(31.5%) retrans:0/2",
            "1700000010",
            ROW,
            "\t cubic rto:212 send 2Gbps lastsnd:9 app_limited retrans:1/3",
        ]
    )
    result = ss.parse(text, CONTEXT)
    conn = {"local": "10.0.0.1:22", "peer": "10.0.0.2:5555"}
    send = series(result, "tcp.conn.send_bps", **conn)
    assert list(send.times_ms) == [1_700_000_000_000, 1_700_000_005_000, 1_700_000_010_000]
    assert list(send.values) == pytest.approx([900e3, 1.2e6, 2e9])
    assert list(series(result, "tcp.conn.rto_ms", **conn).values) == [204, 208, 212]
    assert list(series(result, "tcp.conn.lastack_ms", **conn).values) == [4]
    assert list(series(result, "tcp.conn.lastsnd_ms", **conn).values) == [8, 9]
    assert list(series(result, "tcp.conn.rwnd_limited_pct", **conn).values) == [29.9, 31.5]
    assert list(series(result, "tcp.conn.rwnd_limited_ms", **conn).values) == [29, 30]
    assert list(series(result, "tcp.conn.retrans", **conn).values) == [1, 2, 3]
    assert list(series(result, "tcp.conn.app_limited", **conn).values) == [0, 0, 1]
    assert list(series(result, "tcp.state.estab").values) == [1, 1, 1]


def test_congestion_control_change_is_a_new_fact() -> None:
    text = f"1700000000\n{ROW}\n\t cubic cwnd:10\n1700000005\n{ROW}\n\t bbr cwnd:20\n"
    facts = [(f.value, f.time_ms) for f in ss.parse(text, CONTEXT).facts]
    assert facts == [("cubic", 1_700_000_000_000), ("bbr", 1_700_000_005_000)]


def test_unknown_numeric_fields_are_kept() -> None:
    text = f"{ROW}\n\t cubic cwnd:10 shiny_new_field:42 snd_wnd:65536 tcp-ulp-tls weird:abc\n"
    result = ss.parse(text, CONTEXT)
    assert only_value(result, "tcp.conn.shiny_new_field", local="10.0.0.1:22") == 42
    assert series(result, "tcp.conn.snd_wnd", local="10.0.0.1:22").unit == "bytes"
    assert result.status == "parsed"


def test_headers_without_timestamps_make_snapshots_at_the_default_time() -> None:
    header = "State Recv-Q Send-Q Local Address:Port Peer Address:Port"
    text = f"{header}\n{ROW}\n{header}\n{ROW}\nESTAB 0 0 10.0.0.1:22 10.0.0.3:1\n"
    estab = series(ss.parse(text, CONTEXT), "tcp.state.estab")
    assert list(estab.values) == [1, 2]
    assert list(estab.times_ms) == [1_000, 1_000]


def test_zoned_and_zone_less_timestamps() -> None:
    text = f"=== 2026-11-21 08:00:00 ===\n{ROW}\n"
    context = ParseContext.for_zone("Asia/Shanghai")
    estab = series(ss.parse(text, context), "tcp.state.estab")
    assert list(estab.times_ms) == [
        int(dt.datetime(2026, 11, 21, 0, 0, tzinfo=dt.UTC).timestamp() * 1000)
    ]


def test_unknown_lines_are_diagnosed_and_the_rest_kept() -> None:
    text = f"{ROW}\nhello world\n{ROW}\n"
    result = ss.parse(text, CONTEXT)
    assert result.status == "partial"
    assert [d.line for d in result.diagnostics] == [2]
    assert only_value(result, "tcp.state.estab") == 2


def test_empty_and_wrong_kind_input() -> None:
    assert ss.parse("", CONTEXT).status == "failed"
    wrong = ss.parse("Proto Recv-Q Send-Q Local Address Foreign Address State\n", CONTEXT)
    assert wrong.status == "failed"
    assert wrong.diagnostics[0].line == 1


def test_tcp_state_names_are_shared() -> None:
    assert {normalise_tcp_state(w) for w in ss.SS_STATES if w not in ("UNKNOWN",)} == set(
        TCP_STATES
    )
    netstat_names = ["ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
                     "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING"]  # fmt: skip
    assert [normalise_tcp_state(n) for n in netstat_names] == list(TCP_STATES)


# --- never raises ------------------------------------------------------------------------------


@given(st.text(max_size=2000))
def test_never_raises_on_text(text: str) -> None:
    assert isinstance(ss.parse(text, CONTEXT), ParseResult)


SAMPLE = (SS_FIXTURES / "ss-tinm-loop.txt").read_text()[:30_000]
GARBAGE = st.sampled_from(
    ["", "\t", " skmem:(r0,rb", "ESTAB 0", "ESTAB x y a b", "\t cubic rtt:1/", "\t send 1.2Xbps",
     "TCP: 1 (estab", "=== 2026-13-45T99:99:99 ===", "\t bbr:(bw:", "\t retrans:a/b rto:1e400",
     "\t timer:(on,", "users:((", "\x00", "é", "LISTEN 1 2 3"]
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    cut=st.integers(min_value=0, max_value=len(SAMPLE)),
    inserts=st.lists(st.tuples(st.integers(min_value=0, max_value=400), GARBAGE), max_size=8),
)
def test_never_raises_on_mutated_capture(cut: int, inserts: list[tuple[int, str]]) -> None:
    lines = SAMPLE[:cut].split("\n")
    for position, garbage in inserts:
        lines.insert(min(position, len(lines)), garbage)
    result = ss.parse("\n".join(lines), CONTEXT)
    assert isinstance(result, ParseResult)
    for data in result.series:
        assert len(data.times_ms) == len(data.values)


# --- snapshots that list nothing ----------------------------------------------------------

HEADER = "State Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n"


def test_a_capture_that_never_lists_a_socket_is_read_not_failed() -> None:
    # `ss -lnt` every second on a host that listens on nothing (the lab's client host).
    text = "".join(
        f"=== 2026-11-21T07:50:{second:02d}.000000000Z ===\n{HEADER}" for second in (13, 14, 15)
    )
    result = ss.parse(text, CONTEXT)
    assert (result.status, result.diagnostics) == ("parsed", [])
    listed = series(result, "tcp.sockets.listed")
    assert list(listed.values) == [0, 0, 0]
    start = int(dt.datetime(2026, 11, 21, 7, 50, 13, tzinfo=dt.UTC).timestamp() * 1000)
    assert result.time_range() == (start, start + 2000)


def test_an_empty_snapshot_between_full_ones_counts_zero_sockets() -> None:
    row = "TIME-WAIT 0 0 10.0.0.1:40000 10.0.0.2:80\n"
    text = (
        f"=== 2026-11-21T07:50:13Z ===\n{HEADER}{row}{row}"
        f"=== 2026-11-21T07:50:14Z ===\n{HEADER}"
        f"=== 2026-11-21T07:50:15Z ===\n{HEADER}{row}"
    )
    result = ss.parse(text, CONTEXT)
    assert list(series(result, "tcp.state.time-wait").values) == [2, 0, 1]
    assert not [s for s in result.series if s.name == "tcp.sockets.listed"]


def test_a_header_with_no_time_and_no_rows_stays_unreadable() -> None:
    result = ss.parse(HEADER, CONTEXT)
    assert result.status == "failed"


def test_a_capture_with_thousands_of_field_names_cannot_blind_later_parses() -> None:
    # Each `fNNNN:1ms` is a distinct (name, pattern) pair: 5 000 of them used to fill the
    # process-wide meaning cache, after which every new pair read as meaningless in every
    # later parse of any incident until a restart.
    flood = " ".join(f"flood{i}:{i}ms" for i in range(5_000))
    ss.parse(f"{ROW}\n\t {flood}\n", CONTEXT)
    later = ss.parse(
        f"{ROW}\n\t skmem:(r0,rb131072,t0,tb16384,f704,w48448,o0,bl0,d0) rtt:5.894/11.767"
        " delivery_rate 8093480bps probe_after_flood:12ms\n",
        CONTEXT,
    )
    local = "10.0.0.1:22"
    assert only_value(later, "tcp.conn.probe_after_flood_ms", local=local) == 12
    assert only_value(later, "tcp.conn.rtt_ms", local=local) == pytest.approx(5.894)
    assert only_value(later, "tcp.conn.skmem_rb", local=local) == 131072
    assert only_value(later, "tcp.conn.delivery_rate_bps", local=local) == 8093480


def test_sockets_per_peer_endpoint_for_port_exhaustion() -> None:
    """Each socket towards one destination holds its own local port: the client's TIME-WAIT
    and ESTAB sockets to 10.0.0.1:5012 are counted per state, with their local port span; the
    server's sockets (one peer each) never group."""
    rows = [f"TIME-WAIT 0 0 10.0.0.2:{40000 + i} 10.0.0.1:5012" for i in range(20)]
    rows += [f"ESTAB 0 0 10.0.0.2:{40100 + i} 10.0.0.1:5012" for i in range(3)]
    rows += [f"TIME-WAIT 0 0 10.0.0.1:5012 10.0.0.{i}:33000" for i in range(30)]
    header = "State Recv-Q Send-Q Local Address:Port Peer Address:Port"
    text = (
        "=== 2026-11-24T05:49:19Z ===\n" + header + "\n" + "\n".join(rows) + "\n"
        "=== 2026-11-24T05:49:20Z ===\n" + header + "\n" + "\n".join(rows[:5]) + "\n"
    )
    result = ss.parse(text, ParseContext.for_zone("UTC"))
    peers = {
        (s.name, s.labels.get("state")): list(s.values)
        for s in result.series
        if s.name.startswith("tcp.peer.")
    }
    assert {s.labels["peer"] for s in result.series if s.name.startswith("tcp.peer.")} == {
        "10.0.0.1:5012"
    }
    assert peers[("tcp.peer.sockets", "time-wait")] == [20.0, 5.0]
    assert peers[("tcp.peer.sockets", "estab")] == [3.0, 0.0]
    assert peers[("tcp.peer.local_port_min", None)] == [40000.0, 40000.0]
    assert peers[("tcp.peer.local_port_max", None)] == [40102.0, 40004.0]


def _state_names(result: ParseResult) -> set[str]:
    return {
        s.name.removeprefix("tcp.state.") for s in result.series if s.name.startswith("tcp.state.")
    }


def test_an_all_states_listing_counts_absent_states_as_zero() -> None:
    """ss -tan lists LISTEN and connected sockets, TIME-WAIT included: no TIME-WAIT row is
    zero TIME-WAIT sockets (netstat's listing says the same), not an unknown count."""
    text = (
        "State  Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "LISTEN 0      128    0.0.0.0:22         0.0.0.0:*\n"
        "ESTAB  0      0      10.0.0.1:22        10.0.0.9:51000\n"
    )
    result = ss.parse(text, CONTEXT)
    assert _state_names(result) == set(TCP_STATES)
    assert only_value(result, "tcp.state.time-wait") == 0
    assert (
        only_value(result, "tcp.state.estab") == 1 and only_value(result, "tcp.state.listen") == 1
    )


def test_a_listening_only_listing_says_nothing_of_other_states() -> None:
    """ss -lnt / ss -tulpn: listening sockets only (LISTEN, and UNCONN for udp); ss -tn
    without -a: connected sockets without LISTEN nor TIME-WAIT. Neither counts absent states."""
    listening = ss.parse(
        "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "tcp   LISTEN 0      128    0.0.0.0:22         0.0.0.0:*\n"
        "udp   UNCONN 0      0      0.0.0.0:68         0.0.0.0:*\n",
        CONTEXT,
    )
    assert _state_names(listening) == {"listen"}
    connected = ss.parse(
        "State Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "ESTAB 0      0      10.0.0.1:22        10.0.0.9:51000\n",
        CONTEXT,
    )
    assert _state_names(connected) == {"estab"}


def test_a_listening_only_capture_gives_no_connection_queue_totals() -> None:
    """ss -lnt lists no connection: its snapshots say nothing of the connections' queues (it
    once wrote 0 under the name ss -tinm fills, and the timeline drew the two interleaved as a
    sawtooth). The listener's own Recv-Q is its accept queue, tcp.listen.recvq."""
    text = "".join(
        f"=== 2026-11-21T07:50:{10 + i}Z ===\n"
        "State  Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        f"LISTEN {i}      4096   0.0.0.0:5004       0.0.0.0:*\n"
        for i in range(3)
    )
    result = ss.parse(text, CONTEXT)
    names = {s.name for s in result.series}
    assert not {n for n in names if "sendq.bytes" in n or "recvq.bytes" in n}
    assert list(series(result, "tcp.listen.recvq").values) == [0.0, 1.0, 2.0]
    # A capture listing connections at some time counts its connection-less snapshots as 0.
    mixed = ss.parse(
        text + "=== 2026-11-21T07:50:13Z ===\n"
        "State Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "ESTAB 29     7      10.0.0.1:5004      10.0.0.2:42252\n",
        CONTEXT,
    )
    assert list(series(mixed, "tcp.connections.recvq.bytes").values) == [0.0, 0.0, 0.0, 29.0]
    assert list(series(mixed, "tcp.connections.sendq.bytes").values) == [0.0, 0.0, 0.0, 7.0]


def test_ss_a_with_only_listening_tcp_sockets_still_lists_all_states() -> None:
    """ss -a of a host whose TCP sockets all listen: its unix sockets in ESTAB show the
    listing is -a (ss -l never shows a connected socket), so TCP's absent states are zero."""
    path = CORPUS_DIR / "ss" / "ss-a-ubuntu1804-jc.txt"
    if not path.exists():
        pytest.skip("corpus not available")
    result = ss.parse(path.read_text(), CONTEXT)
    assert only_value(result, "tcp.state.listen") == 4
    assert only_value(result, "tcp.state.estab") == 0
    assert only_value(result, "tcp.state.time-wait") == 0
    # and one without any TCP row says nothing of TCP
    unix_only = ss.parse(
        "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "u_str LISTEN 0      128    /run/a.sock 1 * 0\n"
        "u_str ESTAB  0      0      * 2 * 3\n",
        CONTEXT,
    )
    assert not _state_names(unix_only)


def _canonical(result: ParseResult) -> tuple[object, ...]:
    series_by_key = {
        (s.name, tuple(sorted(s.labels.items()))): (s.unit, list(s.times_ms), list(s.values))
        for s in result.series
    }
    assert len(series_by_key) == len(result.series)  # one series per (name, labels)
    facts = sorted((f.key, f.value, f.time_ms) for f in result.facts)
    return series_by_key, facts, [(d.line, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("name", ["ss-tinm-loop.txt", "ss-tinmO.txt", "ss-tinmp.txt"])
@pytest.mark.parametrize(("pending", "batch"), [(1, 1), (10_000, 1), (10_000, 3_000)])
def test_info_lines_read_in_batches_give_the_same_series(
    name: str, pending: int, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Info lines are turned into numbers a batch at a time (bounded memory): a connection's
    lines split over many batches, down to one line per batch, read as in one batch."""
    text = (SS_FIXTURES / name).read_text()
    whole = _canonical(ss.parse(text, CONTEXT))
    monkeypatch.setattr(ss, "_PENDING_CHARS", pending)
    monkeypatch.setattr(ss, "_BATCH_CHARS", batch)
    assert _canonical(ss.parse(text, CONTEXT)) == whole


def test_lines_that_do_not_fit_their_shape_are_read_token_by_token() -> None:
    """Lines of one shape (the same text without digits and dots) are read in bulk; a line
    whose numbers do not fit (``1.2.3``), signs, exponents, digits in a name or a bare word
    (``bbr2`` / ``bbr3`` share a shape) are still read field by field."""
    text = (
        "State Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\n"
        "\t skmem:(r0,rb5,t0,tb1,f0,w0,o0,bl0,d0) bbr2 rto:201 rtt:1/2 foo2:3 cwnd:10\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.3:5000\n"
        "\t skmem:(r0,rb5,t0,tb1,f0,w0,o0,bl0,d0) bbr3 rto:202 rtt:3/4 foo3:4 cwnd:11\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.4:5000\n"
        "\t skmem:(r0,rb5,t0,tb1,f0,w0,o0,bl0,d0) cubic rto:203 rtt:5/6 cwnd:12\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.5:5000\n"
        "\t skmem:(r0,rb5,t0,tb1,f0,w0,o0,bl0,d0) cubic rto:1.2.3 rtt:7/8 cwnd:13\n"
    )
    result = ss.parse(text, CONTEXT)
    facts = {f.key: f.value for f in result.facts}
    assert facts["tcp.conn.cc[10.0.0.1:80 10.0.0.2:5000]"] == "bbr2"
    assert facts["tcp.conn.cc[10.0.0.1:80 10.0.0.3:5000]"] == "bbr3"
    assert only_value(result, "tcp.conn.foo2", peer="10.0.0.2:5000") == 3
    assert only_value(result, "tcp.conn.foo3", peer="10.0.0.3:5000") == 4
    assert only_value(result, "tcp.conn.rto_ms", peer="10.0.0.4:5000") == 203
    assert only_value(result, "tcp.conn.rttvar_ms", peer="10.0.0.4:5000") == 6
    # 1.2.3 is no number: that field is dropped, the line's other fields are kept.
    assert not [
        s for s in result.series if s.name == "tcp.conn.rto_ms" and "10.0.0.5" in s.labels["peer"]
    ]
    assert only_value(result, "tcp.conn.rtt_ms", peer="10.0.0.5:5000") == 7
    assert only_value(result, "tcp.conn.cwnd", peer="10.0.0.5:5000") == 13
    assert only_value(result, "tcp.conn.app_limited", peer="10.0.0.5:5000") == 0


_NUMBER_TOKENS = st.one_of(
    st.integers(0, 10**20).map(str),
    st.tuples(st.integers(0, 10**12), st.integers(0, 12)).map(lambda v: f"{v[0] / 997:.{v[1]}f}"),
    st.sampled_from([".5", "5.", "1.2.3", "..", "0.000001", "007.50", "9007199254740993.5", "x"]),
)


@given(st.lists(_NUMBER_TOKENS, min_size=1, max_size=12))
@settings(max_examples=400, deadline=None)
def test_decimals_read_as_integers_are_the_decimals_numpy_reads(tokens: list[str]) -> None:
    """Numbers with a dot are read as two integers and divided (faster than numpy's decimal
    reader): the result is the very float64 reading the decimal gives, or the decimal reader
    is used."""
    text = "a:" + " b:".join(tokens) + " rtt:0.5/1"
    spaced = text.translate(ss._NON_NUMERIC_TO_SPACE)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            expected = np.fromstring(spaced, dtype=np.float64, sep=" ")
    except (ValueError, DeprecationWarning):
        assert ss._numbers(text) is None
        return
    found = ss._numbers(text)
    assert found is not None
    assert found.dtype == np.float64
    assert found.tobytes() == expected.tobytes()


_BATCH_TOKENS = st.one_of(
    _NUMBER_TOKENS,
    st.sampled_from(["1" + "0" * 400, "0." + "0" * 30 + "1", "123456789012345678901234", "."]),
    st.sampled_from(["\u0663.5", "\u0663", "5\u00b2"]),  # non-ASCII digits: numpy decides
)


@given(st.lists(_BATCH_TOKENS, min_size=1, max_size=12))
@settings(max_examples=400, deadline=None)
def test_a_batch_read_by_pyarrow_gives_what_numpy_reads(tokens: list[str]) -> None:
    """A batch of info lines is read by pyarrow where it can: the same float64 numbers as
    :func:`ss._numbers` (numpy), or None where that gives None."""
    text = "a:" + " b:".join(tokens) + ss._MARKER
    expected = ss._numbers(text)
    found = ss._batch_numbers(text)
    if expected is None:
        assert found is None
        return
    assert found is not None
    assert found.dtype == np.float64
    assert found.tobytes() == expected.astype(np.float64).tobytes()


def test_a_line_short_of_a_number_and_one_over_do_not_shift_columns() -> None:
    """Lines of one shape are read together; one without a value (``rto:``) and one with a
    stray number (dropped when the shape's text hides it) make the right total between them,
    yet each keeps its own numbers."""
    text = (
        "State Recv-Q Send-Q Local Address:Port Peer Address:Port\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.2:5000\n"
        "\t cubic rto:201 rtt:1/2 cwnd:10\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.3:5000\n"
        "\t cubic rto: rtt:3/4 cwnd:11\n"
        "ESTAB 0 0 10.0.0.1:80 10.0.0.4:5000\n"
        "\t cubic rto:203 rtt:5/6 cwnd:12 7\n"
    )
    result = ss.parse(text, CONTEXT)
    for peer, rto, rtt, rttvar, cwnd in [
        ("10.0.0.2:5000", 201, 1, 2, 10),
        ("10.0.0.3:5000", None, 3, 4, 11),
        ("10.0.0.4:5000", 203, 5, 6, 12),
    ]:
        assert only_value(result, "tcp.conn.rtt_ms", peer=peer) == rtt
        assert only_value(result, "tcp.conn.rttvar_ms", peer=peer) == rttvar
        assert only_value(result, "tcp.conn.cwnd", peer=peer) == cwnd
        rtos = [
            s for s in result.series if s.name == "tcp.conn.rto_ms" and s.labels["peer"] == peer
        ]
        assert [s.values[0] for s in rtos] == ([] if rto is None else [rto])


def test_time_wait_sockets_are_counted_by_local_port() -> None:
    """Which side holds TIME-WAIT is its local port: a listening port's (every accepted
    connection shares it) or ephemeral ones (one socket each). A listed LISTEN port is
    counted apart however few sit on it; so is a port many share; the rest are summed."""
    rows = ["State Recv-Q Send-Q Local Address:Port Peer Address:Port",
            "LISTEN 0 128 0.0.0.0:8080 0.0.0.0:*",
            "ESTAB 0 0 10.0.0.1:8080 10.0.0.9:50000"]  # fmt: skip
    rows += [f"TIME-WAIT 0 0 10.0.0.1:8080 10.0.0.9:{51000 + i}" for i in range(3)]
    rows += [f"TIME-WAIT 0 0 10.0.0.1:9090 10.0.0.8:{52000 + i}" for i in range(16)]
    rows += [f"TIME-WAIT 0 0 10.0.0.1:{40000 + i} 10.0.0.7:5432" for i in range(20)]
    result = ss.parse("\n".join(rows) + "\n", ParseContext())
    found = {
        (s.name, s.labels.get("port")): s.values[0]
        for s in result.series
        if s.name.startswith("tcp.time_wait.")
    }
    assert found == {
        ("tcp.time_wait.local_port", "8080"): 3.0,
        ("tcp.time_wait.local_port", "9090"): 16.0,
        ("tcp.time_wait.other_ports", None): 20.0,
        ("tcp.time_wait.other_port_min", None): 40000.0,
        ("tcp.time_wait.other_port_max", None): 40019.0,
    }
    # a listing without TIME-WAIT sockets writes none of them
    quiet = ss.parse("\n".join(rows[:3]) + "\n", ParseContext())
    assert not [s for s in quiet.series if s.name.startswith("tcp.time_wait.")]


# ---- the compiled number reading (rootline/parsers/_ss_fast.pyx)


def test_the_compiled_number_reading_was_built() -> None:
    assert ss._ss_fast is not None, "rootline.parsers._ss_fast missing: pip install -e backend"


_TOKENS = st.one_of(
    st.from_regex(r"[0-9]{1,17}(\.[0-9]{1,17})?", fullmatch=True),
    st.sampled_from(["0", "0.0", "1.2.3", ".", ".5", "12.", "0.0078125", "9999999999999999"]),
)
_GLUE = st.sampled_from([" ", "\t ", ":", "/", ",", "(r", "bps ", " rtt:", "ms", "é", "-"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_GLUE, _TOKENS), min_size=0, max_size=12), _GLUE)
def test_compiled_number_reading_is_pyarrows_and_numpys(
    pieces: list[tuple[str, str]], tail: str
) -> None:
    """Where the compiled loop reads a batch (lines joined by the marker), its numbers are what
    the batch read without it gives, bit for bit; it leaves a batch with any other run of digits and dots (or non-ASCII
    text) to that path."""
    assert ss._ss_fast is not None
    # As read_batch joins its lines: each ends with the marker number.
    text = "".join(glue + token for glue, token in pieces) + tail + ss._MARKER
    compiled = ss._batch_numbers(text)
    module = ss._ss_fast
    try:
        ss._ss_fast = None  # type: ignore[assignment]
        without = ss._batch_numbers(text)
    finally:
        ss._ss_fast = module
    if compiled is None or without is None:
        assert compiled is None and without is None
        return
    assert (
        np.asarray(compiled, dtype=np.float64).tobytes()
        == np.asarray(without, dtype=np.float64).tobytes()
    )
    plain = text.isascii() and all(
        re.fullmatch(r"[0-9]+(\.[0-9]+)?", t) and sum(c.isdigit() for c in t) <= 15
        for t in re.findall(r"[0-9.]+", text)
    )
    read = ss._ss_fast.numbers(text.encode()) if text.isascii() else None
    assert (read is not None) == plain
