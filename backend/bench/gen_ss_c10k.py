"""A C10K ``ss -tinm`` capture for parser benchmarks: one provider, thousands of consumers.

Field report C: a provider holding 7 000 consumer connections on one listen port, captured by
``while :; do <timestamp>; ss -tinm; sleep 5; done`` for 10 minutes (120 snapshots of about
3.7 MB each, 450 MB). The line shapes are those of the real capture
``tests/fixtures/ss/ss-tinm-loop.txt`` (its column layout, its server-side ``cubic``
connections' info fields); the peers and counters are generated:

- a LISTEN row for the provider's port (its accept queue and backlog), then one ESTAB row
  per consumer (``10.<a>.<b>.<c>:<ephemeral port>`` towards ``10.0.0.5:8443``), each with
  its info line;
- about 1 % of the connections are busy (requests and responses every snapshot: bytes and
  segments climb by hundreds of KiB, cwnd, rtt and delivery rate move, Send-Q and the socket
  buffers fill now and then, the odd retransmit adds ``retrans:``/``lost:`` fields), the
  rest nearly idle (a small request now and then, ``lastsnd``/``lastrcv``/``lastack`` growing
  by the interval in between, ``app_limited``);
- monotone counters (``bytes_*``, ``segs_*``, ``delivered``, ``busy``) never go down;
- timestamp lines rotate the three forms a capture loop writes (see :mod:`bench.gen_ss`).

The output is deterministic (fixed seed). Usage:
``python -m bench.gen_ss_c10k OUT [MEGABYTES]`` (default: 7 000 connections x 120 snapshots).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.gen_ss import START, timestamp_line
from bench.repeat import write_repeated

HEADER = "State      Recv-Q Send-Q       Local Address:Port        Peer Address:Port Process\n"
LOCAL_ADDR = "10.0.0.5"
LOCAL_PORT = 8443
BUSY_SHARE = 0.01
MSS = 1448


def _row(
    state: str, recvq: int, sendq: int, laddr: str, lport: object, paddr: str, pport: object
) -> str:
    # The column layout of iproute2 6.1 (see the fixture): address right-aligned, port left.
    return f"{state:<10} {recvq:<6} {sendq:<6} {laddr:>19}:{lport!s:<5} {paddr:>18}:{pport!s:<5}\n"


class C10kCapture:
    """Connection state for ``connections`` consumers, advanced one snapshot at a time."""

    def __init__(self, connections: int = 7000, interval_s: int = 5, seed: int = 10_000) -> None:
        rng = self.rng = np.random.default_rng(seed)
        self.n = n = connections
        self.interval_ms = interval_s * 1000
        index = np.arange(n)
        self.peers = [
            f"10.{16 + (i // 62_500) % 200}.{(i // 250) % 250}.{1 + i % 250}" for i in range(n)
        ]
        self.peer_ports = rng.integers(32768, 60999, n)
        self.busy = rng.random(n) < BUSY_SHARE
        self.busy[:3] = True  # a handful at least, whatever the count
        # Round trips: consumers in a few data centres (0.2 ms to 40 ms), busy ones jitter.
        self.base_rtt = np.round(
            rng.choice([0.25, 1.1, 7.5, 38.0], n) * rng.uniform(0.8, 1.3, n), 3
        )
        self.rtt = self.base_rtt.copy()
        self.rttvar = np.round(self.rtt / 2, 3)
        self.cwnd = np.where(self.busy, rng.integers(10, 120, n), 10)
        self.ssthresh = np.where(self.busy & (rng.random(n) < 0.5), rng.integers(8, 90, n), 0)
        # Counters so far: the connections have lived for a while before the capture starts.
        age_requests = rng.integers(50, 5000, n) * np.where(self.busy, 40, 1)
        self.bytes_received = age_requests * rng.integers(200, 900, n)
        self.bytes_acked = age_requests * rng.integers(600, 20_000, n) + 1
        self.bytes_sent = self.bytes_acked + np.where(self.busy, rng.integers(0, MSS * 4, n), 0)
        self.segs_in = age_requests * 2 + rng.integers(1, 50, n)
        self.segs_out = self.bytes_acked // MSS + age_requests + 1
        self.data_segs_in = age_requests
        self.data_segs_out = self.bytes_acked // MSS + age_requests
        self.delivered = self.data_segs_out + 1
        self.busy_ms = age_requests * rng.integers(1, 30, n)
        self.retrans_total = np.where(self.busy, rng.integers(0, 20, n), 0)
        self.lastsnd = rng.integers(0, 60_000, n)
        self.lastrcv = self.lastsnd + rng.integers(0, 40, n)
        self.lastack = self.lastsnd.copy()
        self.delivery_rate = (self.cwnd * MSS * 8 / (self.rtt / 1000)).astype(np.int64)
        self.rcv_space = rng.choice([14480, 28960, 57920], n)
        self.rcv_ssthresh = self.rcv_space * 2
        self.snd_wnd = rng.choice([64256, 131072, 262144, 501760], n)
        del index

    def advance(self) -> None:
        """Five seconds later: busy connections move data, idle ones mostly wait."""
        rng, n, busy = self.rng, self.n, self.busy
        active = busy | (rng.random(n) < 0.04)  # an idle consumer's occasional request
        requests = np.where(busy, rng.integers(20, 400, n), np.where(active, 1, 0))
        received = requests * rng.integers(200, 900, n)
        sent = requests * np.where(busy, rng.integers(2000, 60_000, n), rng.integers(300, 4000, n))
        self.bytes_received += received
        self.bytes_acked += sent
        self.bytes_sent = np.maximum(self.bytes_sent + sent, self.bytes_acked) + np.where(
            busy, rng.integers(0, MSS * 8, n), 0
        )
        out_segs = sent // MSS + requests
        self.segs_out += out_segs + (requests > 0)
        self.data_segs_out += out_segs
        self.segs_in += requests * 2
        self.data_segs_in += requests
        self.delivered += out_segs
        self.busy_ms += np.where(
            busy, rng.integers(200, 4000, n), requests * rng.integers(1, 20, n)
        )
        lost = busy & (rng.random(n) < 0.05)
        self.retrans_total += lost * rng.integers(1, 4, n)
        self.rtt = np.where(active, np.round(self.base_rtt * rng.uniform(0.8, 2.5, n), 3), self.rtt)
        self.rttvar = np.where(
            active, np.round(self.rtt * rng.uniform(0.1, 0.6, n), 3), self.rttvar
        )
        grown = np.minimum(self.cwnd + rng.integers(0, 12, n), 400)
        self.cwnd = np.where(busy, np.where(lost, np.maximum(self.cwnd // 2, 2), grown), self.cwnd)
        self.ssthresh = np.where(lost, np.maximum(self.cwnd, 2), self.ssthresh)
        self.delivery_rate = np.where(
            active,
            (self.cwnd * MSS * 8 / (self.rtt / 1000) * rng.uniform(0.3, 1.0, n)).astype(np.int64),
            self.delivery_rate,
        )
        since = rng.integers(0, self.interval_ms, n)
        self.lastsnd = np.where(active, since, self.lastsnd + self.interval_ms)
        self.lastack = np.where(active, since, self.lastack + self.interval_ms)
        self.lastrcv = np.where(
            active, since + rng.integers(0, 40, n), self.lastrcv + self.interval_ms
        )
        self.lost_now = lost

    def snapshot(self, index: int, moment: dt.datetime) -> str:
        if index:
            self.advance()
        else:
            self.lost_now = np.zeros(self.n, dtype=bool)
        rng, n = self.rng, self.n
        backlog_now = int(rng.integers(0, 3))
        out = [timestamp_line(moment, index), HEADER]
        out.append(_row("LISTEN", backlog_now, 4096, "0.0.0.0", LOCAL_PORT, "0.0.0.0", "*"))
        busy = self.busy
        sendq = np.where(busy & (rng.random(n) < 0.3), rng.integers(1, 400_000, n), 0)
        recvq = np.where(busy & (rng.random(n) < 0.05), rng.integers(1, 40_000, n), 0)
        w_mem = np.where(sendq > 0, sendq + rng.integers(0, 40_000, n), 0)
        t_mem = np.where(sendq > 0, w_mem + rng.integers(0, 8192, n), 0)
        for i in range(n):
            rtt = self.rtt[i]
            cwnd = int(self.cwnd[i])
            send_bps = int(cwnd * MSS * 8 / (rtt / 1000))
            skmem = (
                f"skmem:(r{int(recvq[i])},rb131072,t{int(t_mem[i])},tb{87040 if busy[i] else 46080},"
                f"f{int(-w_mem[i]) % 4096},w{int(w_mem[i])},o0,bl0,d{int(self.retrans_total[i] // 7)})"
            )
            ssthresh = f" ssthresh:{int(self.ssthresh[i])}" if self.ssthresh[i] else ""
            unacked = int(self.bytes_sent[i] - self.bytes_acked[i]) // MSS
            extra = f" unacked:{unacked}" if unacked else ""
            if self.retrans_total[i]:
                extra += f" retrans:{int(self.lost_now[i])}/{int(self.retrans_total[i])}"
                if self.lost_now[i]:
                    extra += " lost:1"
            limited = "" if busy[i] else " app_limited"
            info = (
                f"\t {skmem} cubic wscale:7,7 rto:{204 + int(rtt)} rtt:{rtt:g}/{self.rttvar[i]:g}"
                f" ato:40 mss:{MSS} pmtu:1500 rcvmss:536 advmss:{MSS} cwnd:{cwnd}{ssthresh}"
                f" bytes_sent:{int(self.bytes_sent[i])} bytes_acked:{int(self.bytes_acked[i])}"
                f" bytes_received:{int(self.bytes_received[i])} segs_out:{int(self.segs_out[i])}"
                f" segs_in:{int(self.segs_in[i])} data_segs_out:{int(self.data_segs_out[i])}"
                f" data_segs_in:{int(self.data_segs_in[i])} send {send_bps}bps"
                f" lastsnd:{int(self.lastsnd[i])} lastrcv:{int(self.lastrcv[i])}"
                f" lastack:{int(self.lastack[i])} pacing_rate {send_bps * 2}bps"
                f" delivery_rate {int(self.delivery_rate[i])}bps delivered:{int(self.delivered[i])}"
                f"{limited} busy:{int(self.busy_ms[i])}ms{extra} rcv_space:{int(self.rcv_space[i])}"
                f" rcv_ssthresh:{int(self.rcv_ssthresh[i])} minrtt:{self.base_rtt[i]:g}"
                f" snd_wnd:{int(self.snd_wnd[i])}\n"
            )
            out.append(
                _row(
                    "ESTAB",
                    int(recvq[i]),
                    int(sendq[i]),
                    LOCAL_ADDR,
                    LOCAL_PORT,
                    self.peers[i],
                    int(self.peer_ports[i]),
                )
            )
            out.append(info)
        return "".join(out)

    def snapshots(self, interval_s: int) -> Iterator[str]:
        index = 0
        while True:
            yield self.snapshot(index, START + dt.timedelta(seconds=index * interval_s))
            index += 1


def generate_c10k(
    path: Path, connections: int = 7000, snapshots: int = 120, interval_s: int = 5
) -> None:
    """Write ``snapshots`` snapshots of ``connections`` consumers, ``interval_s`` apart."""
    capture = C10kCapture(connections, interval_s)
    with path.open("w", encoding="utf-8") as out:
        for _, text in zip(range(snapshots), capture.snapshots(interval_s), strict=False):
            out.write(text)


def generate(path: Path, target_bytes: int) -> None:
    """Write 7 000-connection snapshots, 5 s apart, until ``path`` holds ``target_bytes``."""
    capture = C10kCapture()
    stream = capture.snapshots(5)
    write_repeated(path, target_bytes, lambda _: next(stream))


if __name__ == "__main__":
    out_path = Path(sys.argv[1])
    if len(sys.argv) > 2:
        generate(out_path, int(sys.argv[2]) * 1024 * 1024)
    else:
        generate_c10k(out_path)
