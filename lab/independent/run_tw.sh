#!/usr/bin/env bash
# time_wait_storm, independent: Java HTTP server that closes each connection after one reply (rl-srv),
# Java client opening a connection per request (rl-cli). env: THREADS RATE RUN_S INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_tw
THREADS=${THREADS:-48}; RATE=${RATE:-800}; RUN_S=${RUN_S:-25}
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep.class" -nt "$IND/Indep.java" ] || javac -d "$JCP" "$IND/Indep.java"
lab_netns
lab_bg in_srv java -cp "$JCP" Indep ${SERVER_MODE:-close-server} 6400 8 $((RUN_S + 4)) >"$OUT_DIR/load.jsonl"
sleep 1.5
lab_collect "$SRV_NS" server "$INTERVAL" $((RUN_S + 2)) --ss-filter '( sport = :6400 )'
lab_collect "$CLI_NS" client "$INTERVAL" $((RUN_S + 2)) --ss-filter '( dport = :6400 )'
sleep 1
in_cli env ${CLIENT_CLOSES:+CLIENT_CLOSES=1} java -cp "$JCP" Indep churn-client "$SRV_IP" 6400 "$THREADS" "$RUN_S" "$RATE" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
