#!/usr/bin/env bash
# accept_queue_overflow, independent: Java ServerSocket(BACKLOG) accepting every ACCEPT_MS in rl-srv;
# CLIENTS curl processes started at once (or over RAMP_S seconds) in rl-cli.
# env: BACKLOG ACCEPT_MS CLIENTS RAMP_S RUN_S INTERVAL ABORT(0/1) CAPTURE_CLIENT(0/1)
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_aqo
BACKLOG=${BACKLOG:-20}; ACCEPT_MS=${ACCEPT_MS:-200}; CLIENTS=${CLIENTS:-300}; RAMP_S=${RAMP_S:-0}; RUN_S=${RUN_S:-30}
IND=$(cd "$(dirname "$0")" && pwd)
JCP=$BIN_DIR/independent
mkdir -p "$JCP"
[ "$JCP/Indep.class" -nt "$IND/Indep.java" ] || javac -d "$JCP" "$IND/Indep.java"
lab_netns
[ "${ABORT:-0}" = 1 ] && lab_ns_sysctl "$SRV_NS" net.ipv4.tcp_abort_on_overflow=1
lab_bg in_srv java -cp "$JCP" Indep slow-accept 6300 "$BACKLOG" "$ACCEPT_MS" $((RUN_S + 2)) >"$OUT_DIR/load.jsonl"
sleep 1.5
lab_collect "$SRV_NS" server "$INTERVAL" "$RUN_S" --ss-filter '( sport = :6300 )'
[ "${CAPTURE_CLIENT:-0}" = 1 ] && lab_collect "$CLI_NS" client "$INTERVAL" "$RUN_S" --ss-filter '( dport = :6300 )'
sleep 2
gap=$(awk -v r="$RAMP_S" -v c="$CLIENTS" 'BEGIN{print r/c}')
in_cli bash -c '
for i in $(seq '"$CLIENTS"'); do
  curl -s -o /dev/null -w "%{http_code} %{time_total}\n" --max-time '"$((RUN_S - 4))"' http://'"$SRV_IP"':6300/ &
  [ "'"$gap"'" != 0 ] && sleep '"$gap"'
done; wait' >"$OUT_DIR/curl.txt" 2>&1
lab_wait_collectors
sleep 1
awk '{c[$1]++; s+=$2; if ($2>m) m=$2} END {for (k in c) printf "code %s: %d\n", k, c[k]; printf "mean %.2f s max %.2f s\n", s/NR, m}' "$OUT_DIR/curl.txt" >&2
cat "$OUT_DIR/load.jsonl" >&2
