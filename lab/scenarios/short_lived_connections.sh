#!/usr/bin/env bash
# short_lived_connections: report B's cross-room read. The client fetches RESPONSE_BYTES
# (default 4 MiB) from the server over a path of RTT_MS (default 20 ms) with THREADS threads
# (default 2), opening a NEW connection for every request (PER_CONN=1) and closing it when the
# response is in: every transfer pays a handshake and spends its life in slow start from the
# initial window, so a request takes several RTTs more than the transfer needs.
# PER_CONN=0 is the contrast: one connection per thread reused for every request (its cwnd
# stays open: requests follow each other without idle gaps, so slow start after idle never
# applies). Bundles: host "server" (rl-srv) and host "client" (rl-cli), 1 s snapshots, ss
# filtered to port 5011. The client prints per-request times (connect included).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start short_lived_connections

RTT_MS=${RTT_MS:-20}
RUN_S=${RUN_S:-20}
THREADS=${THREADS:-2}
PER_CONN=${PER_CONN:-1}
RESPONSE_BYTES=${RESPONSE_BYTES:-$((4 << 20))}
CONN_LOAD=(python3 "$LAB_DIR/tools/conn_load.py")
log "RTT ${RTT_MS} ms, $THREADS threads, $RESPONSE_BYTES bytes per request, $PER_CONN requests per connection (0: reused), ${RUN_S}s"

lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv "${CONN_LOAD[@]}" server --port 5011 --max-requests 0 --response-size "$RESPONSE_BYTES" \
	--seconds $((RUN_S + 5)) >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 $((RUN_S + 3)) --ss-filter '( sport = :5011 )'
lab_collect "$CLI_NS" client 1 $((RUN_S + 3)) --ss-filter '( dport = :5011 )'
sleep 1
in_cli "${CONN_LOAD[@]}" client --host "$SRV_IP" --port 5011 --threads "$THREADS" --per-connection "$PER_CONN" \
	--closer client --response-size "$RESPONSE_BYTES" --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
