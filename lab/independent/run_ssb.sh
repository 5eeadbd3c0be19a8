#!/usr/bin/env bash
# small_send_buffer, independent: the CLIENT sends (python sender, SO_SNDBUF, cc per socket) to a Java sink
# server; RTT_MS delay; collector on the client (sender) namespace.
# env: RTT_MS SNDBUF CC SECONDS WRITE OUT_DIR GSO_MAX
source "$(dirname "$0")/../lib/common.sh"
LAB_NS_SUFFIX=${LAB_NS_SUFFIX:-}
lab_start indep_ssb
RTT_MS=${RTT_MS:-50}; SNDBUF=${SNDBUF:-16384}; CC=${CC:-cubic}; SECONDS_=${SECS:-20}; WRITE=${WRITE:-8192}
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep.class" -nt "$IND/Indep.java" ] || javac -d "$JCP" "$IND/Indep.java"
lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv java -cp "$JCP" Indep sink 6100 $((SECONDS_ + 6)) >"$OUT_DIR/load.jsonl"
sleep 1.5
lab_collect "$CLI_NS" sender "$INTERVAL" $((SECONDS_ + 2)) --ss-filter '( dport = :6100 )'
in_cli python3 $IND/sender.py "$SRV_IP" 6100 "$SNDBUF" "$CC" "$SECONDS_" "$WRITE" "${RATE:-0}" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
