#!/usr/bin/env bash
# short_lived_connections, independent (indep15): Java fetch-server (rl-srv) answers "GET n" with n
# bytes; Java fetch-client (rl-cli) threads open a connection per PER_CONN requests (0 = one
# reused connection per thread) and close it. Java sockets: the namespaces' default cc (bbr).
# env: RTT_MS (50) THREADS (4) SIZE (1048576) PER_CONN (1) THINK_MS (0) SECS (20) INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_slc
RTT_MS=${RTT_MS:-50}; THREADS=${THREADS:-4}; SIZE=${SIZE:-1048576}; PER_CONN=${PER_CONN:-1}; THINK_MS=${THINK_MS:-0}
SECS=${SECS:-20}
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep15.class" -nt "$IND/Indep15.java" ] || javac -d "$JCP" "$IND/Indep15.java"
lab_netns
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
lab_bg in_srv java -cp "$JCP" Indep15 fetch-server 6700 $((SECS + 6)) >"$OUT_DIR/load.jsonl"
sleep 1.5
lab_collect "$SRV_NS" server "$INTERVAL" $((SECS + 2)) --ss-filter '( sport = :6700 )'
lab_collect "$CLI_NS" client "$INTERVAL" $((SECS + 2)) --ss-filter '( dport = :6700 )'
sleep 1
in_cli java -cp "$JCP" Indep15 fetch-client "$SRV_IP" 6700 "$THREADS" "$SECS" "$SIZE" "$PER_CONN" "$THINK_MS" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
