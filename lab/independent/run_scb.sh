#!/usr/bin/env bash
# single_connection_bottleneck, independent (indep15): Java mux-server (rl-srv), one reader thread
# per connection spending DECODE_US of CPU per frame before a POOL-thread pool (0..WORK_MS each);
# Java mux-client (rl-cli) offering RATE req/s of REQ bytes, at most INFLIGHT outstanding, over
# CONNS connection(s). Pool CSV and nmon in the provider's bundle.
# env: CONNS (1) INFLIGHT (300) RATE (800) DECODE_US (1500) PARK_US (0: after its CPU, the reader
#      blocks this long per frame) POOL (100) WORK_MS (5) REQ (8192)
#      RTT_MS (20) SECS (20) INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_scb
CONNS=${CONNS:-1}; INFLIGHT=${INFLIGHT:-300}; RATE=${RATE:-800}; DECODE_US=${DECODE_US:-1500}; POOL=${POOL:-100}
WORK_MS=${WORK_MS:-5}; REQ=${REQ:-8192}; RTT_MS=${RTT_MS:-20}; SECS=${SECS:-20}
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep15.class" -nt "$IND/Indep15.java" ] || javac -d "$JCP" "$IND/Indep15.java"
work=$OUT_DIR/.work
mkdir -p "$work"
lab_netns
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
lab_bg in_srv java -cp "$JCP" Indep15 mux-server 7000 "$DECODE_US" "$POOL" "$WORK_MS" "$work/threadpool.csv" "${PARK_US:-0}" >"$OUT_DIR/load.jsonl"
sleep 1.5
lab_collect "$SRV_NS" provider "$INTERVAL" $((SECS + 2)) --nmon --ss-filter '( sport = :7000 )' --file "$work/threadpool.csv"
lab_collect "$CLI_NS" consumer "$INTERVAL" $((SECS + 2)) --ss-filter '( dport = :7000 )'
in_cli java -cp "$JCP" Indep15 mux-client "$SRV_IP" 7000 "$CONNS" "$INFLIGHT" "$RATE" "$SECS" "$REQ" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
rm -rf "$work"
cat "$OUT_DIR/load.jsonl" >&2
