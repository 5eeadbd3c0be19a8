#!/usr/bin/env bash
# heartbeat_storm: CONNECTIONS idle connections to one server whose single event-loop thread
# (one Netty worker) spends COST_MS of CPU per heartbeat. Every PERIOD_S (the incidents' 60 s,
# shortened to fit) the client sends a 17-byte heartbeat on all connections at once, with no
# jitter: the server's CPU, the packet rate (nstat/nmon) and the sockets' Recv-Q spike together
# once per period and are quiet in between. JITTER=1 is the contrast: the same heartbeats,
# each connection at its own random phase of the period (spread evenly).
# Bundle: host "provider" (rl-srv); ss -tinm is limited to the connections from client ports
# 40000-40999 to keep the capture small, ss -s counts all of them.
# Variables (defaults = base): CONNECTIONS=3000 PERIOD_S=10 RUN_S=60 COST_MS=0.3 JITTER=0
#   INTERVAL=1
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start heartbeat_storm

CONNECTIONS=${CONNECTIONS:-3000}
PERIOD_S=${PERIOD_S:-10}
RUN_S=${RUN_S:-60}
COST_MS=${COST_MS:-0.3}
JITTER=${JITTER:-0}
# Each side holds CONNECTIONS sockets in one process: raise the soft limit to the hard one.
ulimit -n "$(ulimit -Hn)"

lab_netns
lab_bg in_srv "${LOAD[@]}" heartbeat-server --port 5007 --cost-ms "$COST_MS" --seconds $((RUN_S + 8)) \
	>>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" provider "$INTERVAL" "$RUN_S" --nmon \
	--ss-filter '( sport = :5007 and dport >= :40000 and dport < :41000 )'
in_cli "${LOAD[@]}" heartbeat-client --host "$SRV_IP" --port 5007 --connections "$CONNECTIONS" \
	--period-s "$PERIOD_S" --jitter "$JITTER" --first-s 4 --seconds $((RUN_S - 1)) >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
