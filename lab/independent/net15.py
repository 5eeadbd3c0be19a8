#!/usr/bin/env python3
"""Independent load programs (indep15), written apart from lab/tools/load.py.

  burst-server PORT CC                     on each 8-byte request (a size), send that many bytes
  burst-client HOST PORT SIZE GAP_MS SECONDS   one connection: ask, read the burst, idle GAP_MS, again
  hb-server PORT COST_MS SECONDS           one selector thread; COST_MS of CPU per message read
  hb-client HOST PORT CONNS PERIOD_S JITTER SECONDS   CONNS idle connections, a 17-byte heartbeat
                                           on each every PERIOD_S (JITTER=1: each at its own phase)
  echo-server PORT RESP SECONDS            thread per connection: 4-byte length + request -> RESP bytes
                                           (env CC: congestion control of the server's sockets)
  echo-client HOST PORT CONNS SECONDS REQ  CONNS threads, one connection each, request after request
Every mode prints one JSON line of results.
"""

import json
import os
import selectors
import socket
import statistics
import struct
import sys
import threading
import time


def out(**kw):
    print(json.dumps(kw), flush=True)


def cc_of(s):
    return s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def burst_server(port, cc):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(16)
    payload = b"b" * (16 << 20)

    def serve(c):
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        try:
            while True:
                (n,) = struct.unpack("!Q", recv_exact(c, 8))
                while n:
                    k = c.send(memoryview(payload)[: min(n, len(payload))])
                    n -= k
        except (EOFError, OSError):
            pass

    while True:
        c, _ = ls.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def burst_client(host, port, size, gap_ms, seconds):
    s = socket.create_connection((host, port))
    times = []
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        s.sendall(struct.pack("!Q", size))
        recv_exact(s, size)
        times.append((time.monotonic() - t0) * 1000)
        time.sleep(gap_ms / 1000)
    out(mode="burst-client", size=size, gap_ms=gap_ms, bursts=len(times),
        first_ms=round(times[0], 1), median_ms=round(statistics.median(times), 1),
        min_ms=round(min(times), 1), max_ms=round(max(times), 1))


def spin(ms):
    t = time.thread_time() + ms / 1000
    while time.thread_time() < t:
        pass


def hb_server(port, cost_ms, seconds):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(4096)
    ls.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(ls, selectors.EVENT_READ)
    conns = msgs = 0
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        for key, _ in sel.select(timeout=0.5):
            if key.fileobj is ls:
                try:
                    while True:
                        c, _ = ls.accept()
                        c.setblocking(False)
                        sel.register(c, selectors.EVENT_READ)
                        conns += 1
                except BlockingIOError:
                    pass
                continue
            c = key.fileobj
            try:
                d = c.recv(4096)
            except OSError:
                d = b""
            if not d:
                sel.unregister(c)
                c.close()
                continue
            msgs += max(1, len(d) // 17)
            spin(cost_ms * max(1, len(d) // 17))
            try:
                c.send(d[:17])
            except OSError:
                pass
    out(mode="hb-server", connections=conns, heartbeats=msgs)


def hb_client(host, port, conns, period, jitter, seconds):
    socks = []
    for i in range(conns):
        s = socket.create_connection((host, port))
        s.setblocking(False)
        socks.append(s)
        if i % 200 == 199:
            time.sleep(0.05)
    msg = b"HB" + b"x" * 15
    t0 = time.monotonic()
    sent = rounds = 0
    # phase of connection i: 0 (all together) or spread evenly over the period
    phases = [(i * period / conns) if jitter else 0.0 for i in range(conns)]
    next_at = [t0 + 3 + p for p in phases]
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    while time.monotonic() - t0 < seconds:
        now = time.monotonic()
        due = [i for i in range(conns) if next_at[i] <= now]
        for i in due:
            try:
                socks[i].send(msg)
                sent += 1
            except OSError:
                pass
            next_at[i] += period
        if due and not jitter:
            rounds += 1
        wait = max(0.0, min(next_at) - time.monotonic())
        for key, _ in sel.select(timeout=min(wait, 0.5)):  # drain the echoes
            try:
                key.fileobj.recv(4096)
            except OSError:
                pass
    out(mode="hb-client", connections=conns, period_s=period, jitter=jitter, sent=sent, rounds=rounds)


def echo_server(port, resp, seconds):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(64)
    ls.settimeout(1)
    body = b"r" * resp
    served = [0]

    cc = os.environ.get("CC")

    def serve(c):
        if cc:
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        try:
            while True:
                (n,) = struct.unpack("!I", recv_exact(c, 4))
                recv_exact(c, n)
                c.sendall(struct.pack("!I", resp) + body)
                served[0] += 1
        except (EOFError, OSError):
            pass

    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(c,), daemon=True).start()
    out(mode="echo-server", served=served[0], resp=resp)


def echo_client(host, port, conns, seconds, req):
    lat = []
    lock = threading.Lock()
    cc = os.environ.get("CC")

    def run():
        s = socket.socket()
        if cc:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        s.connect((host, port))
        t_end = time.monotonic() + seconds
        payload = struct.pack("!I", req) + b"q" * req
        while time.monotonic() < t_end:
            t0 = time.monotonic()
            s.sendall(payload)
            (n,) = struct.unpack("!I", recv_exact(s, 4))
            recv_exact(s, n)
            with lock:
                lat.append((time.monotonic() - t0) * 1000)
        s.close()

    ts = [threading.Thread(target=run) for _ in range(conns)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    lat.sort()
    out(mode="echo-client", conns=conns, requests=len(lat), p50_ms=round(lat[len(lat) // 2], 1),
        p99_ms=round(lat[int(len(lat) * 0.99)], 1), max_ms=round(lat[-1], 1))


if __name__ == "__main__":
    a = sys.argv[1:]
    m = a[0]
    if m == "burst-server":
        burst_server(int(a[1]), a[2])
    elif m == "burst-client":
        burst_client(a[1], int(a[2]), int(a[3]), float(a[4]), float(a[5]))
    elif m == "hb-server":
        hb_server(int(a[1]), float(a[2]), float(a[3]))
    elif m == "hb-client":
        hb_client(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]), float(a[6]))
    elif m == "echo-server":
        echo_server(int(a[1]), int(a[2]), float(a[3]))
    elif m == "echo-client":
        echo_client(a[1], int(a[2]), int(a[3]), float(a[4]), int(a[5]))
    else:
        raise SystemExit("unknown mode " + m)
