#!/usr/bin/env bash
# ephemeral_port_exhaustion: a client without a connection pool opens a new connection to ONE
# destination (10.77.0.1:5012) for every request and closes it first, so every request leaves
# a TIME-WAIT socket on one of the client's ephemeral ports for 60 s. The client namespace's
# net.ipv4.ip_local_port_range is narrowed to PORT_RANGE (default "40000 40999": 1 000 ports);
# at RATE new connections per second (default 200) the range is full after ~5 s and connect()
# fails with EADDRNOTAVAIL ("Cannot assign requested address") until TIME-WAIT sockets expire.
# TW_REUSE sets the client's net.ipv4.tcp_tw_reuse (default: left at the kernel's 2 =
# loopback only, i.e. off on this veth); 1 lets connect() take over a TIME-WAIT port older than
# 1 s. HOLD=1: the client keeps every connection open instead (a leaking pool), so the range
# fills with ESTABLISHED sockets. Bundles: host "client" (rl-cli: ss -s, ss -tinm of every
# state towards :5012 including TIME-WAIT, nstat, sysctl) and host "server" (rl-srv).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start ephemeral_port_exhaustion

RUN_S=${RUN_S:-25}
PORT_RANGE=${PORT_RANGE:-40000 40999}
RATE=${RATE:-200}
THREADS=${THREADS:-8}
TW_REUSE=${TW_REUSE:-}
HOLD=${HOLD:-0}
CONN_LOAD=(python3 "$LAB_DIR/tools/conn_load.py")
log "client port range $PORT_RANGE, tcp_tw_reuse ${TW_REUSE:-kernel default}, $RATE connections/s (0: no cap), hold $HOLD, ${RUN_S}s"

lab_netns
lab_ns_sysctl "$CLI_NS" net.ipv4.ip_local_port_range="$PORT_RANGE"
[ -z "$TW_REUSE" ] || lab_ns_sysctl "$CLI_NS" net.ipv4.tcp_tw_reuse="$TW_REUSE"
lab_bg in_srv "${CONN_LOAD[@]}" server --port 5012 --max-requests 0 --seconds $((RUN_S + 5)) >>"$OUT_DIR/load.jsonl"
sleep 0.5
# Every state (TIME-WAIT included) towards the one destination: which ports are pinned, and by what.
lab_collect "$CLI_NS" client 1 $((RUN_S + 3)) --ss-filter 'state all ( dport = :5012 )'
lab_collect "$SRV_NS" server 1 $((RUN_S + 3)) --ss-filter '( sport = :5012 )'
sleep 1
in_cli "${CONN_LOAD[@]}" client --host "$SRV_IP" --port 5012 --threads "$THREADS" --per-connection 1 \
	--closer client --rate "$RATE" --hold "$HOLD" --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
