"""Load generators for the lab scenarios: small servers and clients, stdlib only.

Each subcommand is bounded in time (``--seconds``) and prints one JSON line of results on
stdout when it ends, so a scenario can quote the numbers it produced. Run with ``--help``.

Wire format of the RPC commands: request = 4-byte big-endian length + 4-byte id + payload;
the first 4 bytes of the payload are the response size wanted. Response = length + id +
payload.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import os
import queue
import random
import selectors
import socket
import struct
import sys
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

HEADER = struct.Struct("!II")  # length of the rest, request id
# Congestion control set on every lab socket (lab/lib/common.sh exports CC as LAB_CC).
CC = os.environ.get("LAB_CC", "cubic")


def report(**numbers: object) -> None:
    print(json.dumps(numbers), flush=True)


def tune(sock: socket.socket, *, sndbuf: int = 0, rcvbuf: int = 0, cc: str = CC) -> None:
    """Socket options shared by the commands: buffers (0 = leave autotuning on), congestion control."""
    if sndbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if cc:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())


def listener(port: int, backlog: int = 128, **options: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CC.encode())
    if options.get("rcvbuf"):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, options["rcvbuf"])
    sock.bind(("0.0.0.0", port))
    sock.listen(backlog)
    return sock


def connect(host: str, port: int, *, timeout: float = 10.0, **options: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tune(sock, sndbuf=options.get("sndbuf", 0), rcvbuf=options.get("rcvbuf", 0))
    sock.settimeout(timeout)
    sock.connect((host, port))
    sock.settimeout(None)
    return sock


def recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise ConnectionError("peer closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# --- bulk: one connection, the server pushes data --------------------------------------


def bulk_server(args: argparse.Namespace) -> None:
    """Accept one connection and push data for --seconds with a fixed SO_SNDBUF."""
    server = listener(args.port)
    conn, _ = server.accept()
    tune(conn, sndbuf=args.sndbuf)
    effective = conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)  # the kernel doubles it
    block = memoryview(b"x" * args.write_size)
    sent = 0
    started = time.monotonic()
    # --rate-mbps > 0: the application produces only that many MB/s (a paced stream).
    per_block_s = args.write_size / (args.rate_mbps * 1e6) if args.rate_mbps > 0 else 0.0
    next_at = started
    while time.monotonic() - started < args.seconds:
        if per_block_s:
            next_at += per_block_s
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        sent += conn.send(block)
    elapsed = time.monotonic() - started
    effective_end = conn.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
    conn.close()
    report(
        role="bulk-server",
        sndbuf_requested=args.sndbuf,
        sndbuf_effective=effective,
        sndbuf_at_end=effective_end,
        write_size=args.write_size,
        rate_mbps_offered=args.rate_mbps,
        cc=CC,
        bytes=sent,
        seconds=round(elapsed, 2),
        throughput_kbps=round(sent / elapsed / 1024, 1),
    )


def bulk_client(args: argparse.Namespace) -> None:
    """Read everything the server sends (optionally pausing: the receiver that stops reading)."""
    sock = connect(args.host, args.port, rcvbuf=args.rcvbuf)
    received = 0
    started = time.monotonic()
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        received += len(chunk)
    elapsed = time.monotonic() - started
    report(role="bulk-client", bytes=received, seconds=round(elapsed, 2), throughput_kbps=round(received / elapsed / 1024, 1))


def push_client(args: argparse.Namespace) -> None:
    """Connect and send as fast as possible for --seconds (the sender facing a stalled reader)."""
    sock = connect(args.host, args.port, sndbuf=args.sndbuf)
    sock.settimeout(1.0)
    block = b"y" * 65536
    sent = 0
    blocked_s = 0.0
    started = time.monotonic()
    # --rate-mbps > 0: offer at most that many MB/s (a sender the receiver can keep up with).
    per_block_s = len(block) / (args.rate_mbps * 1e6) if args.rate_mbps > 0 else 0.0
    next_at = started
    while time.monotonic() - started < args.seconds:
        if per_block_s:
            next_at += per_block_s
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        before = time.monotonic()
        try:
            sent += sock.send(block)
        except TimeoutError:
            blocked_s += time.monotonic() - before
    elapsed = time.monotonic() - started
    report(role="push-client", bytes=sent, seconds=round(elapsed, 2), blocked_s=round(blocked_s, 1),
           rate_mbps_offered=args.rate_mbps, throughput_kbps=round(sent / elapsed / 1024, 1))
    sock.close()


def stalling_server(args: argparse.Namespace) -> None:
    """Read for --read-seconds, stop reading for --stall-seconds, then read again to the end."""
    server = listener(args.port, rcvbuf=args.rcvbuf)
    conn, _ = server.accept()
    started = time.monotonic()
    received = 0
    conn.settimeout(0.5)
    phases = [("reading", args.read_seconds), ("stalled", args.stall_seconds), ("reading", args.seconds)]
    for phase, length in phases:
        phase_end = time.monotonic() + length
        print(json.dumps({"phase": phase, "at_s": round(time.monotonic() - started, 1)}), file=sys.stderr, flush=True)
        while time.monotonic() < phase_end:
            if phase == "stalled":
                time.sleep(0.2)
                continue
            try:
                chunk = conn.recv(1 << 20)
            except TimeoutError:
                continue
            if not chunk:
                report(role="stalling-server", bytes=received)
                return
            received += len(chunk)
    report(role="stalling-server", bytes=received)


# --- rpc: many requests multiplexed on few connections --------------------------------


class CpuDecoder:
    """CPU spent by an I/O thread on each frame it decodes: a real CRC of the payload, then
    PBKDF2 rounds (a stand-in for deserialisation) until the thread's own CPU clock has
    advanced --decode-ms, so the cost is CPU time whatever else the machine runs. PBKDF2 runs
    outside the GIL, so each connection's I/O thread can use its own core, as in Java."""

    ROUNDS = 200  # ~50 us of SHA-256 work per step

    def __init__(self, decode_ms: float) -> None:
        self.cpu_s = decode_ms / 1000

    def decode(self, body: bytes) -> int:
        started = time.thread_time()
        checksum = zlib.crc32(body)
        salt = checksum.to_bytes(4, "big")
        while time.thread_time() - started < self.cpu_s:
            hashlib.pbkdf2_hmac("sha256", body[:64], salt, self.ROUNDS)
        return checksum


def rpc_server(args: argparse.Namespace) -> None:
    """A Dubbo-like provider: one I/O thread per connection reads and decodes every request
    (--decode cpu: --decode-ms of real CPU per frame, then --decode-wait-ms blocked;
    --decode sleep: a sleep of --decode-ms, CPU stays low)
    and hands it to a business pool (--threads) that sleeps 0..--work-ms (uniform: a downstream
    call); replies go back through the connection's lock. Writes a pool CSV every 200 ms."""
    server = listener(args.port, backlog=1024)
    pool = ThreadPoolExecutor(max_workers=args.threads, thread_name_prefix="biz")
    decoder = CpuDecoder(args.decode_ms if args.decode == "cpu" else 0)
    stats = {"active": 0, "submitted": 0, "completed": 0, "connections": 0}
    stats_lock = threading.Lock()
    stop_at = time.monotonic() + args.seconds
    io_cpu_s: list[float] = []

    def work(conn: socket.socket, write_lock: threading.Lock, request_id: int, response_size: int) -> None:
        with stats_lock:
            stats["active"] += 1
        time.sleep(random.uniform(0, args.work_ms) / 1000)
        payload = b"r" * response_size
        try:
            with write_lock:
                conn.sendall(HEADER.pack(4 + len(payload), request_id) + payload)
        except OSError:
            pass
        with stats_lock:
            stats["active"] -= 1
            stats["completed"] += 1

    def io_thread(conn: socket.socket) -> None:
        write_lock = threading.Lock()
        try:
            while time.monotonic() < stop_at:
                length, request_id = HEADER.unpack(recv_exact(conn, HEADER.size))
                body = recv_exact(conn, length - 4)
                if args.decode == "cpu":
                    decoder.decode(body)  # the one I/O thread of this connection
                    if args.decode_wait_ms:  # and its other blocking work (flushes, locks)
                        time.sleep(args.decode_wait_ms / 1000)
                else:
                    time.sleep(args.decode_ms / 1000)
                (response_size,) = struct.unpack("!I", body[:4])
                with stats_lock:
                    stats["submitted"] += 1
                pool.submit(work, conn, write_lock, request_id, response_size)
        except (ConnectionError, OSError):
            pass
        finally:
            io_cpu_s.append(time.thread_time())

    def metrics() -> None:
        if not args.pool_csv:
            return
        with open(args.pool_csv, "w") as out:
            out.write("timestamp_ms,pool,active,core,max,pool_size,queue,queue_capacity,completed,rejected\n")
            while time.monotonic() < stop_at:
                with stats_lock:
                    queued = stats["submitted"] - stats["completed"] - stats["active"]
                    row = (int(time.time() * 1000), "provider-biz", stats["active"], args.threads, args.threads,
                           len(pool._threads), max(queued, 0), 0, stats["completed"], 0)  # noqa: SLF001
                out.write(",".join(str(v) for v in row) + "\n")
                out.flush()
                time.sleep(0.2)

    threading.Thread(target=metrics, daemon=True).start()
    server.settimeout(0.5)
    while time.monotonic() < stop_at:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        tune(conn, sndbuf=args.sndbuf)
        stats["connections"] += 1
        threading.Thread(target=io_thread, args=(conn,), name=f"io-{stats['connections']}", daemon=True).start()
    report(role="rpc-server", decode=args.decode, decode_ms=args.decode_ms, decode_wait_ms=args.decode_wait_ms,
           work_ms=args.work_ms,
           **stats)
    os._exit(0)


def rpc_client(args: argparse.Namespace) -> None:
    """A consumer: at most --concurrency requests in flight over --connections connections for
    --seconds, offered as fast as answers come back (--rate 0) or at --rate requests/s in
    total; reports mean / p99 response time, throughput and the requests in flight."""
    connections = [connect(args.host, args.port) for _ in range(args.connections)]
    latencies: list[float] = []
    lock = threading.Lock()
    in_flight = [0]
    stop_at = time.monotonic() + args.seconds
    request = struct.pack("!I", args.response_size) + b"q" * max(args.request_size - 4, 0)
    interval = args.connections / args.rate if args.rate > 0 else 0.0

    def run_connection(conn: socket.socket, limit: int) -> None:
        sent_at: dict[int, float] = {}
        next_id = 0
        free = threading.Semaphore(limit)

        def reader() -> None:
            try:
                while True:
                    length, request_id = HEADER.unpack(recv_exact(conn, HEADER.size))
                    recv_exact(conn, length - 4)
                    with lock:
                        latencies.append(time.monotonic() - sent_at.pop(request_id))
                        in_flight[0] -= 1
                    free.release()
            except (ConnectionError, OSError):
                pass

        # Callers never block on the socket: like Netty's outbound buffer, requests wait in
        # user space for the connection's writer when the kernel's send buffer is full.
        outbound: queue.SimpleQueue[bytes] = queue.SimpleQueue()

        def writer() -> None:
            try:
                while True:
                    conn.sendall(outbound.get())
            except OSError:
                pass

        threading.Thread(target=reader, daemon=True).start()
        threading.Thread(target=writer, daemon=True).start()
        next_at = time.monotonic()
        while time.monotonic() < stop_at:
            if interval:
                next_at += interval
                pause = next_at - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
            if not free.acquire(timeout=0.2):
                continue
            next_id += 1
            with lock:
                in_flight[0] += 1
            sent_at[next_id] = time.monotonic()
            outbound.put(HEADER.pack(4 + len(request), next_id) + request)

    samples: list[int] = []

    def sample() -> None:
        while time.monotonic() < stop_at:
            time.sleep(0.25)
            samples.append(in_flight[0])

    per_connection = max(args.concurrency // args.connections, 1)
    threads = [threading.Thread(target=run_connection, args=(c, per_connection)) for c in connections]
    threading.Thread(target=sample, daemon=True).start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(0.5)
    ordered = sorted(latencies)
    report(
        role="rpc-client",
        connections=args.connections,
        concurrency=args.concurrency,
        rate_offered=args.rate,
        request_size=args.request_size,
        responses=len(ordered),
        tps=round(len(ordered) / args.seconds, 1),
        mean_ms=round(1000 * sum(ordered) / max(len(ordered), 1), 1),
        p50_ms=round(1000 * ordered[len(ordered) // 2] if ordered else 0, 1),
        p99_ms=round(1000 * ordered[int(len(ordered) * 0.99)] if ordered else 0, 1),
        in_flight_mean=round(sum(samples) / max(len(samples), 1), 1),
        in_flight_max=max(samples, default=0),
    )
    os._exit(0)


# --- churn: one connection per request (TIME_WAIT) -------------------------------------


def churn_server(args: argparse.Namespace) -> None:
    """HTTP-ish server that closes each connection after --max-requests requests (the server
    side of a keep-alive limit): the closing side keeps the TIME_WAIT."""
    server = listener(args.port, backlog=4096)
    server.settimeout(0.5)
    stop_at = time.monotonic() + args.seconds
    served = 0

    def handle(conn: socket.socket) -> None:
        nonlocal served
        try:
            for _ in range(args.max_requests):
                if not conn.recv(4096):
                    break
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                served += 1
        except OSError:
            pass
        conn.close()

    while time.monotonic() < stop_at:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        threading.Thread(target=handle, args=(conn,), daemon=True).start()
    report(role="churn-server", served=served)
    os._exit(0)


def churn_client(args: argparse.Namespace) -> None:
    """--threads threads each sending requests, a new connection every --per-connection
    requests, until --requests in total or --seconds."""
    stop_at = time.monotonic() + args.seconds
    counts = {"requests": 0, "connections": 0, "errors": 0}
    lock = threading.Lock()

    def worker() -> None:
        while time.monotonic() < stop_at:
            with lock:
                if counts["requests"] >= args.requests:
                    return
                counts["connections"] += 1
            try:
                sock = connect(args.host, args.port)
                for _ in range(args.per_connection):
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: lab\r\n\r\n")
                    if not sock.recv(4096):
                        break
                    with lock:
                        counts["requests"] += 1
                # Wait for the server's close so the server is the active closer.
                sock.settimeout(1.0)
                try:
                    sock.recv(1)
                except TimeoutError:
                    pass
                sock.close()
            except OSError:
                with lock:
                    counts["errors"] += 1
                time.sleep(0.01)

    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    report(role="churn-client", **counts, seconds=round(elapsed, 1), rps=round(counts["requests"] / elapsed, 1))


# --- accept queue overflow -------------------------------------------------------------


def slow_accept_server(args: argparse.Namespace) -> None:
    """listen(--backlog), then accept one connection every --accept-ms (and keep it)."""
    server = listener(args.port, backlog=args.backlog)
    server.settimeout(0.2)
    held = []
    stop_at = time.monotonic() + args.seconds
    while time.monotonic() < stop_at:
        time.sleep(args.accept_ms / 1000)
        try:
            conn, _ = server.accept()
            held.append(conn)
        except TimeoutError:
            pass
    report(role="slow-accept-server", backlog=args.backlog, accepted=len(held))


def connect_burst(args: argparse.Namespace) -> None:
    """Open --count connections as fast as possible (non-blocking), hold them --seconds."""
    selector = selectors.DefaultSelector()
    socks = []
    for _ in range(args.count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.connect_ex((args.host, args.port))
        socks.append(sock)
        selector.register(sock, selectors.EVENT_WRITE)
    connected = failed = 0
    stop_at = time.monotonic() + args.seconds
    while time.monotonic() < stop_at and connected + failed < len(socks):
        for key, _ in selector.select(timeout=0.5):
            selector.unregister(key.fileobj)
            if key.fileobj.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:  # type: ignore[union-attr]
                connected += 1
                # Like an RPC consumer, speak at once: if the server dropped our final ACK,
                # this data keeps knocking on the full accept queue (and may meet a RST).
                try:
                    key.fileobj.send(b"hello\n")  # type: ignore[union-attr]
                except OSError:
                    pass
            else:
                failed += 1
    time.sleep(max(stop_at - time.monotonic(), 0))
    reset = 0
    for sock in socks:
        try:
            sock.send(b"bye\n")
        except OSError:
            reset += 1
    report(role="connect-burst", count=args.count, connected_client_side=connected, failed=failed,
           broken_at_end=reset)


# --- bursts with idle gaps (slow start after idle) -------------------------------------


def burst_server(args: argparse.Namespace) -> None:
    """On one connection, answer every 1-byte request with --burst-bytes."""
    server = listener(args.port)
    conn, _ = server.accept()
    tune(conn)
    block = b"b" * args.burst_bytes
    while conn.recv(1):
        conn.sendall(block)


def burst_client(args: argparse.Namespace) -> None:
    """Request a burst every --gap-ms over one reused connection; time each burst."""
    sock = connect(args.host, args.port)
    times = []
    stop_at = time.monotonic() + args.seconds
    while time.monotonic() < stop_at:
        started = time.monotonic()
        sock.sendall(b"g")
        recv_exact(sock, args.burst_bytes)
        times.append(time.monotonic() - started)
        time.sleep(args.gap_ms / 1000)
    ordered = sorted(times)
    report(
        role="burst-client",
        bursts=len(times),
        burst_bytes=args.burst_bytes,
        gap_ms=args.gap_ms,
        mean_ms=round(1000 * sum(times) / len(times), 1),
        median_ms=round(1000 * ordered[len(ordered) // 2], 1),
    )


# --- heartbeats over many idle connections ---------------------------------------------


def heartbeat_server(args: argparse.Namespace) -> None:
    """One event-loop thread (like one Netty worker) serving every connection; each heartbeat
    costs --cost-ms of CPU (decode + bookkeeping) before the 17-byte reply."""
    server = listener(args.port, backlog=4096)
    server.setblocking(False)
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ)
    stop_at = time.monotonic() + args.seconds
    beats = 0
    while time.monotonic() < stop_at:
        for key, _ in selector.select(timeout=0.5):
            sock = key.fileobj
            if sock is server:
                try:
                    while True:
                        conn, _ = server.accept()
                        conn.setblocking(False)
                        selector.register(conn, selectors.EVENT_READ)
                except BlockingIOError:
                    pass
                continue
            try:
                data = sock.recv(4096)  # type: ignore[union-attr]
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                sock.close()  # type: ignore[union-attr]
                continue
            spin_until = time.perf_counter() + args.cost_ms / 1000
            while time.perf_counter() < spin_until:
                pass
            beats += 1
            try:
                sock.send(b"H" * 17)  # type: ignore[union-attr]
            except OSError:
                pass
    report(role="heartbeat-server", heartbeats=beats)


def heartbeat_client(args: argparse.Namespace) -> None:
    """Open --connections connections, then every --period-s send a 17-byte heartbeat on each:
    all at once (--jitter 0: the storm), or each at its own random phase in the period
    (--jitter 1: the same heartbeats spread evenly, the fix)."""
    conns = []
    for _ in range(args.connections):
        conns.append(connect(args.host, args.port))
    for conn in conns:
        conn.setblocking(False)
    beat = b"h" * 17
    sent = 0
    stop_at = time.monotonic() + args.seconds
    first = time.monotonic() + args.first_s
    phases = [random.uniform(0, args.period_s) if args.jitter else 0.0 for _ in conns]
    due = [(first + phase, index) for index, phase in enumerate(phases)]
    heapq.heapify(due)
    while time.monotonic() < stop_at:
        time.sleep(0.05)
        for conn in conns:  # drain replies
            try:
                conn.recv(4096)
            except (BlockingIOError, OSError):
                pass
        now = time.monotonic()
        while due and due[0][0] <= now:
            at, index = heapq.heappop(due)
            try:
                conns[index].send(beat)
                sent += 1
            except (BlockingIOError, OSError):
                pass
            heapq.heappush(due, (at + args.period_s, index))
    report(role="heartbeat-client", connections=len(conns), heartbeats=sent,
           rounds=round(sent / max(len(conns), 1), 1), period_s=args.period_s, jitter=bool(args.jitter))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler, *options: tuple[str, type, object]) -> None:
        p = sub.add_parser(name, help=handler.__doc__.splitlines()[0])
        p.set_defaults(handler=handler)
        p.add_argument("--host", default="10.77.0.1")
        p.add_argument("--port", type=int, default=5001)
        p.add_argument("--seconds", type=float, default=20)
        for flag, kind, default in options:
            p.add_argument(flag, type=kind, default=default)

    command("bulk-server", bulk_server, ("--sndbuf", int, 0), ("--write-size", int, 65536),
            ("--rate-mbps", float, 0.0))
    command("bulk-client", bulk_client, ("--rcvbuf", int, 0))
    command("push-client", push_client, ("--sndbuf", int, 0), ("--rate-mbps", float, 0.0))
    command("stalling-server", stalling_server, ("--rcvbuf", int, 0), ("--read-seconds", float, 3),
            ("--stall-seconds", float, 15))
    command("rpc-server", rpc_server, ("--threads", int, 200), ("--decode", str, "sleep"),
            ("--decode-ms", float, 2.0), ("--decode-wait-ms", float, 0.0), ("--work-ms", float, 300.0), ("--sndbuf", int, 0), ("--pool-csv", str, ""))
    command("rpc-client", rpc_client, ("--connections", int, 1), ("--concurrency", int, 200),
            ("--request-size", int, 512), ("--response-size", int, 1024), ("--rate", float, 0.0))
    command("churn-server", churn_server, ("--max-requests", int, 1))
    command("churn-client", churn_client, ("--threads", int, 16), ("--requests", int, 10000),
            ("--per-connection", int, 1))
    command("slow-accept-server", slow_accept_server, ("--backlog", int, 8), ("--accept-ms", float, 200))
    command("connect-burst", connect_burst, ("--count", int, 300))
    command("burst-server", burst_server, ("--burst-bytes", int, 2 << 20))
    command("burst-client", burst_client, ("--burst-bytes", int, 2 << 20), ("--gap-ms", float, 1000))
    command("heartbeat-server", heartbeat_server, ("--cost-ms", float, 0.2))
    command("heartbeat-client", heartbeat_client, ("--connections", int, 2000), ("--period-s", float, 10),
            ("--first-s", float, 5), ("--jitter", int, 0))
    args = parser.parse_args()
    args.handler(args)


if __name__ == "__main__":
    main()
