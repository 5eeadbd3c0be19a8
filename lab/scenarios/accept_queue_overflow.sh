#!/usr/bin/env bash
# accept_queue_overflow: a server listens with BACKLOG and accepts one connection every
# ACCEPT_MS (a busy or starved acceptor); COUNT clients connect at once and speak (all
# consumers reconnecting after a provider restart). The accept queue, min(BACKLOG, SOMAXCONN),
# sits full (LISTEN Recv-Q = limit + 1 vs Send-Q = limit), the kernel drops SYNs and final
# ACKs (nstat TcpExtListenOverflows / TcpExtListenDrops climb), clients retransmit SYNs
# (1, 2, 4, 8 s ...) and trickle in. ACCEPT_MS=0 is the contrast: an acceptor that keeps up.
# Bundle: host "server" (rl-srv).
# Variables (defaults = base): RUN_S=25 BACKLOG=8 SOMAXCONN=4096 (net.core.somaxconn in the
#   server's namespace) ACCEPT_MS=500 COUNT=400 INTERVAL=1
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start accept_queue_overflow

RUN_S=${RUN_S:-25}
BACKLOG=${BACKLOG:-8}
SOMAXCONN=${SOMAXCONN:-4096}
ACCEPT_MS=${ACCEPT_MS:-500}
COUNT=${COUNT:-400}
# The burst holds COUNT sockets in one process.
ulimit -n "$(ulimit -Hn)"

lab_netns
lab_ns_sysctl "$SRV_NS" net.core.somaxconn="$SOMAXCONN"
lab_bg in_srv "${LOAD[@]}" slow-accept-server --port 5005 --backlog "$BACKLOG" --accept-ms "$ACCEPT_MS" \
	--seconds $((RUN_S + 2)) >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server "$INTERVAL" "$RUN_S" --ss-filter '( sport = :5005 )'
sleep 2
in_cli "${LOAD[@]}" connect-burst --host "$SRV_IP" --port 5005 --count "$COUNT" --seconds $((RUN_S - 3)) \
	>>"$OUT_DIR/load.jsonl"
lab_wait_collectors
sleep 1
cat "$OUT_DIR/load.jsonl" >&2
