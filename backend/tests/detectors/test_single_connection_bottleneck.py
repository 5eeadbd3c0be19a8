"""single_connection_bottleneck: requests waiting in the socket of one connection while the
host behind it has room; concurrency measured where requests wait, never in the pool; and the
kernel's word that the reader kept reading (slowly) through the jam, which tells the
connection layout's limit from a stalled reader (receiver_not_reading)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from rootline.detectors import registry
from rootline.detectors.base import Finding, IncidentData
from tests.detectors.conn_incident import connection, lab_incident
from tests.detectors.net_incident import (
    Capture,
    assert_well_formed,
    fixture_hosts,
    incident,
    odd_incidents,
)

ID = "single_connection_bottleneck"
PROVIDER, CONSUMER = "10.0.0.1:20880", "10.0.0.2:50000"
RULE = registry.CHECKLISTS[ID].rule
RB = 131072.0


def check(data: IncidentData) -> Finding:
    finding = registry.judge(ID, data)
    assert_well_formed(finding, ID, RULE.thresholds)
    return finding


READ_RATE = 5e6  # bytes/s the provider's one I/O thread reads (and decodes) through the jam


def provider(connections=1, fill=None, n=10, received=None):  # type: ignore[no-untyped-def]
    """The provider's side: requests piling in Recv-Q (skmem r against rb) on each connection,
    read by a slow reader: ``bytes_received`` grows every second (``received`` overrides)."""
    fill = fill if fill is not None else [0.6] * n
    n = len(fill)
    received = received if received is not None else [1e6 + READ_RATE * i for i in range(n)]
    capture = Capture(kind="ss", host="provider")
    capture.series(
        "tcp.listen.backlog", [1024] * n, unit="connections",
        labels={"local": "0.0.0.0:20880", "port": "20880"},
    )  # fmt: skip
    for c in range(connections):
        connection(
            capture, PROVIDER, f"10.0.0.2:{50000 + c}",
            recvq__bytes=[f * RB * 0.75 for f in fill], skmem_r=[f * RB for f in fill],
            skmem_rb=[RB] * n, rtt_ms=[20.0] * n, bytes_received=received,
        )  # fmt: skip
    return capture


def consumer(w_fill=0.9, n=10, tb=4 * 1024 * 1024.0, acked=None):  # type: ignore[no-untyped-def]
    """The consumer's side of the same connection: requests waiting in its send buffer, the
    provider's window holding it back 90 % of its busy time, ``bytes_acked`` growing at the
    reader's pace (``acked`` overrides)."""
    acked = acked if acked is not None else [1e6 + READ_RATE * i for i in range(n)]
    capture = Capture(kind="ss", host="consumer")
    connection(
        capture, CONSUMER, PROVIDER,
        sendq__bytes=[w_fill * tb * 0.7] * n, skmem_w=[w_fill * tb] * n, skmem_tb=[tb] * n,
        rtt_ms=[20.0] * n, busy_ms=[1000.0 * (i + 1) for i in range(n)],
        rwnd_limited_ms=[900.0 * (i + 1) for i in range(n)], bytes_acked=acked,
    )  # fmt: skip
    return capture


def zero_windows(host, increments):  # type: ignore[no-untyped-def]
    return Capture(kind="nstat", host=host).counter("TcpExtTCPWantZeroWindowAdv", increments)


def pool(active, maximum=200):  # type: ignore[no-untyped-def]
    capture = Capture(kind="threadpool_metrics", host="provider")
    labels = {"pool": "DubboServerHandler"}
    capture.series("threadpool.active", active, unit="threads", labels=labels)
    return capture.series("threadpool.max", [maximum] * len(active), unit="threads", labels=labels)


def cpu(busy, host="provider"):  # type: ignore[no-untyped-def]
    capture = Capture(kind="nmon", host=host)
    capture.series("cpu.user_pct", [b * 0.7 for b in busy], unit="%")
    return capture.series("cpu.sys_pct", [b * 0.3 for b in busy], unit="%")


def test_confirmed_report_a_shape() -> None:
    finding = check(incident(provider(), pool([100, 300, 300, 250], 500), cpu([40, 66, 50, 45])))
    assert finding.verdict == "confirmed", finding.summary
    assert "1 connection carried the load" in finding.summary
    assert "10.0.0.2 -> 10.0.0.1:20880" in finding.entity
    queue = next(e for e in finding.evidence if e.symptom and e.symptom.startswith("recvq_full"))
    assert queue.series == "tcp.conn.recvq.bytes" and queue.observed == 1.0 and queue.met
    assert queue.labels == {"local": PROVIDER, "peer": CONSUMER} and queue.host == "provider"


def test_an_idle_pool_behind_a_full_socket_is_the_signature() -> None:
    # Issue 11 item 1: ~2 ms of work per request, the pool nearly idle (2-3 of 200 active).
    # The old detector ruled this out for "too few active threads per connection"; the pool
    # downstream of the bottleneck is not where the requests that share a connection wait.
    finding = check(incident(provider(), pool([2, 3, 1, 2, 3, 2, 1, 2, 3, 2])))
    assert finding.verdict == "confirmed", finding.summary
    headroom = next(e for e in finding.evidence if e.series == "threadpool.active")
    assert headroom.met and headroom.symptom is None and headroom.observed == 1.0
    assert "requests waited for the connection's reader, not for the pool" in finding.summary


def test_confirmed_from_both_ends_consumer_send_q_and_provider_pool() -> None:
    # The consumer's requests wait in its send buffer; the provider's pool has room. The
    # provider's slow reader leaves data unread (its queue swinging between 60 % and 20 % of
    # rb, short of a receive-side jam): a reader with nothing unread in any snapshot would
    # have read everything the consumer sent, and nothing would wait for it.
    fill = [0.6, 0.2] * 5
    data = incident(provider(fill=fill), consumer(), pool([5] * 10), cpu([20] * 10))
    finding = check(data)
    assert finding.verdict == "confirmed", finding.summary
    assert "held >= 50 % of the 4.0 MiB send buffer" in finding.summary
    assert "pool DubboServerHandler on provider" in finding.summary


def test_a_queue_filling_the_offered_window_is_a_jam_even_with_a_large_buffer() -> None:
    # rb autotuned to 6 MiB, the window capped by rcv_ssthresh at 256 KiB: 200 KiB unread is
    # 78 % of what the reader offers although only 5 % of the buffer.
    capture = Capture(kind="ss", host="provider")
    n = 10
    connection(
        capture, PROVIDER, CONSUMER, recvq__bytes=[200_000.0] * n, skmem_r=[300_000.0] * n,
        skmem_rb=[6_291_456.0] * n, rcv_ssthresh=[262_144.0] * n, rtt_ms=[1.0] * n,
        bytes_received=[1e6 + READ_RATE * i for i in range(n)],
    )  # fmt: skip
    finding = check(incident(capture, pool([3] * n)))
    assert finding.verdict == "confirmed", finding.summary


def test_issue_11_item_1_both_ends_run_all() -> None:
    # ~200 requests in flight from the consumer, its Send-Q in the MiB range and rwnd_limited,
    # the provider's Recv-Q near its window in every snapshot, the pool nearly idle.
    n = 10
    consumer_side = Capture(kind="ss", host="consumer")
    connection(
        consumer_side, CONSUMER, PROVIDER, sendq__bytes=[2.5e6] * n, skmem_w=[3.6e6] * n,
        skmem_tb=[4194304.0] * n, busy_ms=[1000.0 * (i + 1) for i in range(n)],
        rwnd_limited_ms=[600.0 * (i + 1) for i in range(n)], rtt_ms=[20.0] * n,
    )  # fmt: skip
    findings = {
        f.id: f
        for f in registry.run_all(
            incident(provider(), consumer_side, pool([2, 3, 1, 2, 3, 2, 1, 2, 3, 2]), cpu([15] * n))
        )
    }
    assert findings[ID].verdict == "confirmed", findings[ID].summary
    assert not findings[ID].explained_by
    # One kernel sign of a reader falling behind (rwnd_limited), the buffer never full: it
    # used to leave receiver_not_reading likely beside this cause; the sender's rwnd_limited
    # is what the one slow reader does to it, so it is explained by this cause now.
    assert findings["receiver_not_reading"].verdict == "ruled_out"
    assert findings["receiver_not_reading"].explained_by == [ID]


def _slow_or_stalled(read_while_full: bool, cpu_busy: float = 20.0):  # type: ignore[no-untyped-def]
    """Report A's jam on one connection: the provider's Recv-Q at 95 % of rb in every
    snapshot, the consumer rwnd_limited with its Send-Q full, zero windows on the provider, the
    pool idle; the provider's reader either keeps reading at a capped pace (bytes_received and
    the consumer's bytes_acked grow every second) or stands still (both flat)."""
    n = 10
    moved = [1e6 + (READ_RATE * i if read_while_full else 0.0) for i in range(n)]
    return incident(
        provider(fill=[0.95] * n, received=moved),
        consumer(acked=moved),
        zero_windows("provider", [0, 40, 35, 50, 42, 38, 41, 39, 44, 40]),
        pool([1, 2, 1, 0, 1, 2, 1, 1, 0, 1]),
        cpu([cpu_busy] * n),
    )


def test_a_slow_reader_that_keeps_reading_is_the_connections_limit() -> None:
    # The kernel: with the buffer full, bytes arrive only as fast as the application reads.
    # bytes_received growing in every jammed interval is one I/O thread reading, too slowly.
    findings = {f.id: f for f in registry.run_all(_slow_or_stalled(read_while_full=True))}
    mine = findings[ID]
    assert mine.verdict == "confirmed", mine.summary
    assert_well_formed(mine, ID, RULE.thresholds)
    kept = next(e for e in mine.evidence if e.threshold_name == "reader_kept_reading_min_share")
    assert kept.met and kept.observed == 1.0 and kept.symptom is None and not kept.corroborates
    assert kept.series == "tcp.conn.bytes_received" and kept.host == "provider"
    assert "grew in 9 of 9 jammed intervals" in kept.summary and "4.8 MiB/s" in kept.summary
    # it takes over the symptoms receiver_not_reading sees on the same connection
    key = "conn:10.0.0.1:20880|10.0.0.2:50000"
    for symptom in ("recvq_full", "sendq_full", "rwnd_limited", "zero_window"):
        assert f"{symptom}@{key}" in mine.explains, mine.explains
    reader = findings["receiver_not_reading"]
    assert reader.verdict == "ruled_out" and reader.explained_by == [ID], reader.summary
    assert reader.summary.startswith(f'Explained by "{registry.title(ID)}"')
    stalled = next(e for e in reader.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.met is False and stalled.observed == 0.0
    # the proxies corroborate, they do not decide
    proxies = {e.threshold_name for e in mine.evidence if e.corroborates}
    assert proxies == {
        "pool_headroom_min_share", "cpu_low_max_pct", "rwnd_limited_min_pct",
        "zero_window_min_events",
    }  # fmt: skip


def test_a_stalled_reader_is_receiver_not_reading_not_the_connection() -> None:
    # Same queues, same rwnd_limited and zero windows, but bytes_received flat while the
    # buffer is full: the reader stopped (GC, a blocked thread). That contradicts a slow
    # reader on a busy connection: this item is ruled out, receiver_not_reading stands.
    findings = {f.id: f for f in registry.run_all(_slow_or_stalled(read_while_full=False))}
    mine = findings[ID]
    assert mine.verdict == "ruled_out", mine.summary
    assert "the reader kept reading in 0 % of the jam's intervals" in mine.summary
    assert not mine.explains
    reader = findings["receiver_not_reading"]
    assert reader.verdict == "confirmed" and not reader.explained_by, reader.summary
    stalled = next(e for e in reader.evidence if e.threshold_name == "reader_stalled_min_share")
    assert stalled.met and stalled.observed == 1.0 and stalled.symptom is None


def test_a_slow_reader_on_a_host_out_of_cpu_stays_likely() -> None:
    # A host at 100 % CPU is another explanation of a slow reader: the connection layout is
    # not shown to be the limit, so receiver_not_reading is not explained by a likely.
    findings = {f.id: f for f in registry.run_all(_slow_or_stalled(True, cpu_busy=99.0))}
    assert findings[ID].verdict == "likely", findings[ID].summary
    assert "CPU user+sys median 99 %" in findings[ID].summary
    assert findings["receiver_not_reading"].verdict == "confirmed"


def test_a_stall_inside_a_slow_readers_jam_keeps_receiver_not_reading_standing() -> None:
    # 25 s of a slow reader (queue at 60 % of rb, reading), then 5 s stopped with the buffer
    # full: the connection's limit is confirmed, and the stall is a second, own cause.
    n = 30
    fill = [0.6] * 25 + [0.95] * 5
    received = [1e6 + READ_RATE * min(i, 25) for i in range(n)]
    data = incident(provider(fill=fill, received=received), pool([1] * n), cpu([20] * n))
    findings = {f.id: f for f in registry.run_all(data)}
    assert findings[ID].verdict == "confirmed", findings[ID].summary
    reader = findings["receiver_not_reading"]
    assert reader.verdict == "confirmed" and not reader.explained_by, reader.summary


def test_the_senders_bytes_acked_when_only_the_consumer_was_captured() -> None:
    # Only the consumer's ss: the intervals the provider's window held it back, bytes_acked.
    slow = check(incident(consumer()))
    kept = next(e for e in slow.evidence if e.threshold_name == "reader_kept_reading_min_share")
    assert kept.met and kept.series == "tcp.conn.bytes_acked" and kept.host == "consumer"
    assert slow.verdict == "likely"  # nothing captured of the host behind the queue
    stalled = check(incident(consumer(acked=[1e6] * 10)))
    assert stalled.verdict == "ruled_out", stalled.summary
    reader = registry.judge("receiver_not_reading", incident(consumer(acked=[1e6] * 10)))
    assert reader.verdict == "confirmed", reader.summary  # rwnd_limited and the stall


def test_a_sender_held_by_its_own_buffer_says_nothing_about_the_reader() -> None:
    # Send-Q full, but the kernel says the buffer (sndbuf_limited), not the peer's window,
    # held it: bytes_acked growing is the path's pace, not a reader's.
    capture = Capture(kind="ss", host="consumer")
    n = 10
    connection(
        capture, CONSUMER, PROVIDER, sendq__bytes=[2.6e6] * n, skmem_w=[3.8e6] * n,
        skmem_tb=[4194304.0] * n, busy_ms=[1000.0 * (i + 1) for i in range(n)],
        sndbuf_limited_ms=[700.0 * (i + 1) for i in range(n)],
        bytes_acked=[1e6 + READ_RATE * i for i in range(n)], rtt_ms=[20.0] * n,
    )  # fmt: skip
    finding = check(incident(capture))
    assert all(e.threshold_name != "reader_kept_reading_min_share" for e in finding.evidence)


def test_likely_without_pool_or_cpu_data() -> None:
    finding = check(incident(provider()))
    assert finding.verdict == "likely"
    assert "confirmed needs the reader seen reading through the jam" in finding.summary
    assert "and the host behind the queue with room" in finding.summary
    assert not finding.missing  # hints are for insufficient data only


def test_likely_when_the_pool_is_saturated_or_cpu_high() -> None:
    assert check(incident(provider(), pool([200] * 10))).verdict == "likely"
    assert check(incident(provider(), pool([5] * 4), cpu([95, 97, 99, 96]))).verdict == "likely"


def test_cpu_of_another_time_is_not_the_cpu_behind_the_queue() -> None:
    """Changed (a new user's walk): the host's CPU was the median of all its nmon samples,
    quoted even when they were of another year. Only samples within the connection's capture
    count: a host that was busy then, and idle a year later, is busy here."""
    year = 365 * 24 * 3600.0

    def cpu_at(busy, start_s):  # type: ignore[no-untyped-def]
        capture = Capture(kind="nmon", host="provider")
        capture.series("cpu.user_pct", [b * 0.7 for b in busy], unit="%", start_s=start_s)
        return capture.series("cpu.sys_pct", [b * 0.3 for b in busy], unit="%", start_s=start_s)

    busy_then = cpu_at([95, 97, 99, 96], 0.0)
    idle_later = cpu_at([2] * 40, year)
    finding = check(incident(provider(), pool([5] * 4), busy_then, idle_later))
    assert finding.verdict == "likely", finding.summary
    shown = next(e for e in finding.evidence if e.series == "cpu.user_pct")
    assert shown.observed is not None and float(shown.observed) > 90
    only_later = check(incident(provider(), pool([5] * 4), idle_later))
    assert not any(e.series == "cpu.user_pct" for e in only_later.evidence)


def test_ruled_out_when_the_same_load_is_spread_over_8_connections() -> None:
    finding = check(incident(provider(connections=8), pool([5] * 4), cpu([40] * 4)))
    assert finding.verdict == "ruled_out"
    assert "8 connections (few: at most 2)" in finding.summary


def test_ruled_out_when_queues_are_mostly_empty() -> None:
    fill = [0.0, 0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    finding = check(incident(provider(fill=fill), pool([5] * 4)))
    assert finding.verdict == "ruled_out"
    assert "requests waiting in 10 % of the snapshots (threshold 80 %)" in finding.summary


def test_a_bulk_transfer_at_the_paths_pace_is_not_requests_waiting() -> None:
    # 4 MiB responses over a reused connection: the buffer is full, but the kernel says the
    # sender was held back by neither the peer's window nor the buffer (cwnd-limited).
    capture = Capture(kind="ss", host="server")
    n = 10
    connection(
        capture, PROVIDER, CONSUMER, sendq__bytes=[2.6e6] * n, skmem_w=[4.1e6] * n,
        skmem_tb=[4194304.0] * n, busy_ms=[1000.0 * (i + 1) for i in range(n)],
        rwnd_limited_ms=[40.0] * n, rtt_ms=[20.0] * n,
    )  # fmt: skip
    assert check(incident(capture, pool([3] * n))).verdict == "ruled_out"


def test_send_q_in_flight_is_not_requests_waiting() -> None:
    # Send-Q non-zero in every snapshot on a 20 ms path is data in flight: w far below tb.
    finding = check(incident(consumer(w_fill=0.05), pool([5] * 4)))
    assert finding.verdict == "ruled_out"


def test_boundaries_two_connections_and_the_jam_share() -> None:
    def verdict(connections: int, jammed: int) -> str:
        fill = [0.6] * jammed + [0.0] * (10 - jammed)
        return check(incident(provider(connections, fill), pool([5] * 3), cpu([30] * 3))).verdict

    assert verdict(2, 8) == "confirmed"  # 8 of 10 = the 80 % threshold
    assert verdict(2, 7) == "ruled_out"
    assert verdict(3, 10) == "ruled_out"
    # half the receive buffer is the fill threshold
    assert check(incident(provider(fill=[0.5] * 10), pool([5] * 3))).verdict == "confirmed"
    assert check(incident(provider(fill=[0.49] * 10), pool([5] * 3))).verdict == "ruled_out"


def test_a_small_send_buffer_explains_the_full_send_queue() -> None:
    # Issue 11 item 3: the Send-Q that a 16 KB SO_SNDBUF pins is small_send_buffer's symptom;
    # it must not make this id likely beside it.
    sender = Capture(kind="ss", host="sender")
    local, peer = "10.0.0.1:5001", "10.0.0.2:40000"
    n = 8
    connection(
        sender, local, peer,
        skmem_tb=[32768.0] * n, skmem_w=[34200.0] * n, sendq__bytes=[21720.0] * n,
        unacked=[15.0] * n, mss=[1448.0] * n, cwnd=[30.0] * n, snd_wnd=[82944.0] * n,
        rtt_ms=[20.5] * n, delivery_rate_bps=[8.5e6] * n,
        busy_ms=[1000.0 * (i + 1) for i in range(n)],
        sndbuf_limited_ms=[700.0 * (i + 1) for i in range(n)],  # the kernel: 70 % of busy
    )  # fmt: skip
    findings = {f.id: f for f in registry.run_all(incident(sender))}
    assert findings["small_send_buffer"].verdict == "confirmed"
    mine = findings[ID]
    assert mine.verdict == "ruled_out" and mine.explained_by == ["small_send_buffer"]
    assert mine.summary.startswith(
        'Explained by "Send buffer smaller than the bandwidth-delay product"'
    )
    # The receiver's Recv-Q pinned near rb is this id's own evidence: it keeps it standing.
    receiver = Capture(kind="ss", host="receiver")
    connection(
        receiver, peer, local,
        recvq__bytes=[60000.0] * n, skmem_r=[80000.0] * n, skmem_rb=[RB] * n, rtt_ms=[20.5] * n,
    )  # fmt: skip
    findings = {f.id: f for f in registry.run_all(incident(sender, receiver))}
    assert findings[ID].verdict == "likely" and not findings[ID].explained_by


def test_another_hosts_pool_is_not_this_hosts() -> None:
    other = Capture(kind="threadpool_metrics", host="elsewhere")
    other.series("threadpool.active", [5] * 4, labels={"pool": "p"})
    other.series("threadpool.max", [200] * 4, labels={"pool": "p"})
    assert check(incident(provider(), other)).verdict == "likely"


def test_insufficient_data_without_ss() -> None:
    finding = check(incident(pool([300] * 3), cpu([40] * 3)))
    assert finding.verdict == "insufficient_data"
    assert any("ss -tinm" in m.command for m in finding.missing)


def test_lab_single_connection_confirmed_and_eight_connections_ruled_out() -> None:
    finding = check(lab_incident("single_connection_bottleneck/sleep_decode"))
    assert finding.verdict == "confirmed", finding.summary
    contrast = check(lab_incident("single_connection_bottleneck/sleep_decode_conns8"))
    assert contrast.verdict == "ruled_out", contrast.summary


def test_lab_healthy_ruled_out() -> None:
    assert check(lab_incident("healthy/base")).verdict == "ruled_out"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_incidents())
def test_never_raises_on_odd_input(data) -> None:  # type: ignore[no-untyped-def]
    check(data)


def test_odd_connection_series() -> None:
    capture = Capture(kind="ss")
    connection(capture, "no-port", "*:*", sendq__bytes=[1.0, 1.0, 1.0, 1.0])
    connection(capture, "[::1]:80", "[::1]:x", recvq__bytes=[0.0], skmem_rb=[0.0])
    connection(capture, "a:1", "b:2", skmem_w=[5.0, 5.0, 5.0], skmem_tb=[0.0, 0.0, 0.0])
    check(incident(capture, pool([0.0]), cpu([])))


def test_a_writer_held_by_a_small_receive_buffer_read_at_once_is_not_a_slow_reader() -> None:
    """Independent reproduction (indep14, tests/fixtures/ss/README.md): a bulk writer to a
    Java reader with SO_RCVBUF 64 KB that reads whatever arrives, RTT 30 ms, both ends
    captured. The writer's Send-Q sits past half its buffer in 17 of 18 snapshots and it is
    rwnd_limited 43 % of its busy time, but the reader's Recv-Q is 0 in every snapshot: it had
    read everything sent, so no request waited for it; the window was the buffer's size."""
    data = fixture_hosts(
        {
            host: [f"ss/ss-tinm-rcvbuf64k-reader-keeps-up-{host}.txt"]
            for host in ("receiver", "sender")
        }
    )
    finding = check(data)
    assert finding.verdict == "ruled_out", finding.summary
    lag = next(e for e in finding.evidence if e.threshold_name == "recv_fill_min_ratio")
    assert lag.observed == 0.0 and not lag.met and "on receiver" in lag.summary
