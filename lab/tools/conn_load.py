"""Connection-layout load for the lab (lab helper B's scenarios), stdlib only.

Shapes that differ in *how connections are used*, not in what flows over them:
who closes first (TIME-WAIT on the server's listening port or on the client's ephemeral
ports), how many requests a connection carries before it is closed (keep-alive limits),
how big each response is (short transfers vs transfers that spend their life in slow
start), how fast connections are opened (ephemeral port exhaustion) and whether they are
kept (a leaking pool holding ports in ESTABLISHED).

Wire format: the client sends ``GET /\\r\\n\\r\\n`` (one request), the server answers
``HTTP/1.1 200 OK\\r\\nContent-Length: N\\r\\n\\r\\n`` + N bytes. Every command is bounded
by ``--seconds`` and prints one JSON line of results on stdout at the end.

    conn_load.py server --port 5004 --max-requests 1 --response-size 2
    conn_load.py client --host 10.77.0.1 --port 5004 --threads 16 --per-connection 1 --closer server
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import socket
import threading
import time

REQUEST = b"GET / HTTP/1.1\r\nHost: lab\r\n\r\n"


def report(**numbers: object) -> None:
    print(json.dumps(numbers), flush=True)


def cubic(sock: socket.socket) -> None:
    # Namespaces here default to bbr; the incidents ran cubic (see lab/README.md).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")


def percentile(ordered: list[float], q: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- server ------------------------------------------------------------------------------


def server(args: argparse.Namespace) -> None:
    """Answer requests; close a connection after --max-requests (0: only when the client closes)."""
    listen = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    cubic(listen)
    listen.bind(("0.0.0.0", args.port))
    listen.listen(4096)
    listen.settimeout(0.5)
    header = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % args.response_size
    body = b"x" * args.response_size
    stop_at = time.monotonic() + args.seconds
    counts = {"connections": 0, "requests": 0, "server_closed": 0, "client_closed": 0}
    lock = threading.Lock()

    def handle(conn: socket.socket) -> None:
        served = 0
        closed_by = "client_closed"
        try:
            while True:
                data = conn.recv(4096)
                if not data:
                    break
                conn.sendall(header + body if len(body) < 65536 else header)
                if len(body) >= 65536:
                    conn.sendall(body)
                served += 1
                if args.max_requests and served >= args.max_requests:
                    closed_by = "server_closed"
                    break
        except OSError:
            pass
        conn.close()
        with lock:
            counts["requests"] += served
            counts[closed_by] += 1

    while time.monotonic() < stop_at:
        try:
            conn, _ = listen.accept()
        except TimeoutError:
            continue
        counts["connections"] += 1
        threading.Thread(target=handle, args=(conn,), daemon=True).start()
    report(role="conn-server", max_requests=args.max_requests, response_size=args.response_size, **counts)
    os._exit(0)


# --- client ------------------------------------------------------------------------------


def read_response(sock: socket.socket, size: int) -> bool:
    """Read one response of --response-size bytes (header + body); False if the peer closed."""
    want = None
    buf = b""
    while want is None:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        buf += chunk
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            want = end + 4 + size
    got = len(buf)
    while got < want:
        chunk = sock.recv(min(1 << 20, want - got))
        if not chunk:
            return False
        got += len(chunk)
    return True


def client(args: argparse.Namespace) -> None:
    """--threads threads send requests; a new connection every --per-connection requests
    (0: one connection per thread for the whole run). --closer client: the client closes
    first (TIME-WAIT on its ephemeral port); --closer server: it waits for the server's close
    (the server runs with --max-requests equal to --per-connection). --hold keeps every
    connection open (a leaking pool). --rate caps new connections per second (all threads)."""
    stop_at = time.monotonic() + args.seconds
    started = time.monotonic()
    lock = threading.Lock()
    counts = {"requests": 0, "connections": 0, "connect_errors": 0, "eaddrnotavail": 0, "other_errors": 0}
    latencies: list[float] = []  # seconds per request, connect included for a connection's first
    first_requests: list[float] = []  # requests that opened their connection
    per_second: dict[int, list[int]] = {}  # second -> [connections opened, connect errors, requests]
    first_eaddrnotavail: list[float] = []
    held: list[socket.socket] = []
    pace = args.threads / args.rate if args.rate else 0.0

    def tick(index: int) -> None:
        second = int(time.monotonic() - started)
        per_second.setdefault(second, [0, 0, 0])[index] += 1

    def worker() -> None:
        next_open = time.monotonic()
        while time.monotonic() < stop_at:
            with lock:
                if args.requests and counts["requests"] >= args.requests:
                    return
            if pace:
                delay = next_open - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                next_open = max(next_open + pace, time.monotonic() - pace)
            opened = time.monotonic()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            cubic(sock)
            sock.settimeout(10)
            try:
                sock.connect((args.host, args.port))
            except OSError as e:
                sock.close()
                with lock:
                    counts["connect_errors"] += 1
                    if e.errno == errno.EADDRNOTAVAIL:
                        counts["eaddrnotavail"] += 1
                        if not first_eaddrnotavail:
                            first_eaddrnotavail.append(time.monotonic() - started)
                    tick(1)
                time.sleep(0.01)
                continue
            with lock:
                counts["connections"] += 1
                tick(0)
            served = 0
            try:
                while time.monotonic() < stop_at:
                    begin = opened if served == 0 else time.monotonic()
                    sock.sendall(REQUEST)
                    if not read_response(sock, args.response_size):
                        break
                    took = time.monotonic() - begin
                    served += 1
                    with lock:
                        counts["requests"] += 1
                        latencies.append(took)
                        if served == 1:
                            first_requests.append(took)
                        tick(2)
                    if args.per_connection and served >= args.per_connection:
                        break
                    if args.think_ms:
                        time.sleep(args.think_ms / 1000)
                if args.hold:
                    held.append(sock)
                    continue
                if args.closer == "server":
                    # Wait for the server's FIN so the server is the active closer.
                    sock.settimeout(2.0)
                    try:
                        sock.recv(1)
                    except (TimeoutError, OSError):
                        pass
                sock.close()
            except OSError:
                with lock:
                    counts["other_errors"] += 1
                sock.close()

    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    firsts = sorted(first_requests)
    seconds = [per_second.get(s, [0, 0, 0]) for s in range(int(elapsed) + 1)]
    report(
        role="conn-client",
        threads=args.threads,
        per_connection=args.per_connection,
        closer=args.closer,
        hold=bool(args.hold),
        response_size=args.response_size,
        **counts,
        held_open=len(held),
        seconds=round(elapsed, 1),
        rps=round(counts["requests"] / elapsed, 1),
        connections_per_s=round(counts["connections"] / elapsed, 1),
        mean_ms=round(1000 * sum(ordered) / len(ordered), 1) if ordered else None,
        p50_ms=round(1000 * percentile(ordered, 0.5), 1),
        p99_ms=round(1000 * percentile(ordered, 0.99), 1),
        first_request_mean_ms=round(1000 * sum(firsts) / len(firsts), 1) if firsts else None,
        first_eaddrnotavail_s=round(first_eaddrnotavail[0], 1) if first_eaddrnotavail else None,
        per_second_opened_failed_requests=seconds,
    )
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, handler in (("server", server), ("client", client)):
        p = sub.add_parser(name, help=(handler.__doc__ or "").splitlines()[0])
        p.set_defaults(handler=handler)
        p.add_argument("--host", default="10.77.0.1")
        p.add_argument("--port", type=int, default=5004)
        p.add_argument("--seconds", type=float, default=20)
        p.add_argument("--response-size", type=int, default=2)
    srv = sub.choices["server"]
    srv.add_argument("--max-requests", type=int, default=1)
    cli = sub.choices["client"]
    cli.add_argument("--threads", type=int, default=16)
    cli.add_argument("--requests", type=int, default=0, help="stop after this many (0: no limit)")
    cli.add_argument("--per-connection", type=int, default=1)
    cli.add_argument("--closer", choices=("client", "server"), default="client")
    cli.add_argument("--hold", type=int, default=0)
    cli.add_argument("--rate", type=float, default=0, help="new connections per second, all threads (0: no cap)")
    cli.add_argument("--think-ms", type=float, default=0, help="pause between requests on one connection")
    args = parser.parse_args()
    args.handler(args)


if __name__ == "__main__":
    main()
