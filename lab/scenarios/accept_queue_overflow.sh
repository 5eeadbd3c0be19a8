#!/usr/bin/env bash
# accept_queue_overflow: a server listens with backlog 8 and accepts one connection every
# 500 ms (a busy or starved acceptor); 400 clients connect at once (all consumers
# reconnecting after a provider restart). The accept queue sits full (LISTEN Recv-Q 9 vs
# Send-Q 8), the kernel drops SYNs and final ACKs (nstat TcpExtListenOverflows /
# TcpExtListenDrops climb), clients retransmit SYNs (1, 2, 4, 8 s ...) and trickle in.
# Bundle: host "server" (rl-srv).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start accept_queue_overflow

RUN_S=${RUN_S:-25}

lab_netns
lab_bg in_srv "${LOAD[@]}" slow-accept-server --port 5005 --backlog 8 --accept-ms 500 --seconds $((RUN_S + 2)) \
	>>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 "$RUN_S" --ss-filter '( sport = :5005 )'
sleep 2
in_cli "${LOAD[@]}" connect-burst --host "$SRV_IP" --port 5005 --count 400 --seconds $((RUN_S - 3)) >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
sleep 1
cat "$OUT_DIR/load.jsonl" >&2
