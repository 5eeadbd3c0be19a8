#!/usr/bin/env bash
# slow_start_after_idle, independent (indep15): net15.py burst-server (rl-srv) sends SIZE bytes on
# each request of one burst-client connection (rl-cli) that idles GAP_MS between bursts.
# env: SSAI (1) RTT_MS (50) CC (cubic) SIZE (1048576) GAP_MS (1000) SECS (20) INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_ssai
SSAI=${SSAI:-1}; RTT_MS=${RTT_MS:-50}; SIZE=${SIZE:-1048576}; GAP_MS=${GAP_MS:-1000}; SECS=${SECS:-20}
IND=$(cd "$(dirname "$0")" && pwd)
lab_netns
lab_ns_sysctl "$SRV_NS" net.ipv4.tcp_slow_start_after_idle="$SSAI"
lab_ns_sysctl "$CLI_NS" net.ipv4.tcp_slow_start_after_idle="$SSAI"
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
lab_bg in_srv python3 "$IND/net15.py" burst-server 6600 "$LAB_CC"
sleep 0.5
lab_collect "$SRV_NS" sender "$INTERVAL" $((SECS + 1)) --ss-filter '( sport = :6600 )'
in_cli python3 "$IND/net15.py" burst-client "$SRV_IP" 6600 "$SIZE" "$GAP_MS" "$SECS" >"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
