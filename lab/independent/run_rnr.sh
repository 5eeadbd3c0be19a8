#!/usr/bin/env bash
# receiver_not_reading, independent: Java pause-reader server (rl-srv) fed by a Java blast client (rl-cli).
# env: RTT_MS RCVBUF READ_S PAUSE_S AGAIN_S CHUNK CAPTURE=both|rx|tx INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_rnr
RTT_MS=${RTT_MS:-30}; RCVBUF=${RCVBUF:-65536}; READ_S=${READ_S:-3}; PAUSE_S=${PAUSE_S:-12}; AGAIN_S=${AGAIN_S:-4}; CHUNK=${CHUNK:-4096}
CAPTURE=${CAPTURE:-both}
TOTAL=$((READ_S + PAUSE_S + AGAIN_S))
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep.class" -nt "$IND/Indep.java" ] || javac -d "$JCP" "$IND/Indep.java"
lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv java -cp "$JCP" Indep pause-reader 6200 "$RCVBUF" "$READ_S" "$PAUSE_S" "$AGAIN_S" "$CHUNK" >"$OUT_DIR/load.jsonl"
sleep 1.5
[ "$CAPTURE" = tx ] || lab_collect "$SRV_NS" receiver "$INTERVAL" $((TOTAL + 1)) --ss-filter '( sport = :6200 )'
[ "$CAPTURE" = rx ] || lab_collect "$CLI_NS" sender "$INTERVAL" $((TOTAL + 1)) --ss-filter '( dport = :6200 )'
in_cli java -cp "$JCP" Indep blast "$SRV_IP" 6200 "$TOTAL" 65536 >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
sleep 1
cat "$OUT_DIR/load.jsonl" >&2
