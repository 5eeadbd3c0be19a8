#!/usr/bin/env python3
"""Bulk sender (indep14): connect, optionally fix SO_SNDBUF and TCP_CONGESTION, write for N s."""
import json, socket, sys, time

host, port, sndbuf, cc, seconds, write = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5]), int(sys.argv[6])
rate = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0  # bytes/s offered, 0 = as fast as possible
s = socket.socket()
if sndbuf:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
s.connect((host, port))
buf = b"x" * write
total, t0 = 0, time.monotonic()
while time.monotonic() - t0 < seconds:
    total += s.send(buf)
    if rate:
        ahead = total / rate - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
el = time.monotonic() - t0
print(json.dumps({"mode": "sender", "sndbuf_set": sndbuf, "sndbuf_kernel": s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
                  "cc": s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode(),
                  "bytes": total, "seconds": round(el, 2), "rate_Bps": round(total / el)}))
s.close()
