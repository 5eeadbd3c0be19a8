#!/usr/bin/env bash
# heartbeat_storm, independent (indep15): net15.py hb-server (one selector thread, COST_MS of CPU
# per heartbeat, rl-srv) and hb-client holding CONNS connections (rl-cli) that sends a 17-byte
# heartbeat on each every PERIOD_S, all at once (JITTER=0) or each at its own phase (JITTER=1).
# The client's ports are 30000-39999; ss -tinm keeps ports 30000-30499 only; nmon on the server.
# env: CONNS (2000) PERIOD_S (10) JITTER (0) COST_MS (0.3) SECS (60) INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_hb
CONNS=${CONNS:-2000}; PERIOD_S=${PERIOD_S:-10}; JITTER=${JITTER:-0}; COST_MS=${COST_MS:-0.3}; SECS=${SECS:-60}
IND=$(cd "$(dirname "$0")" && pwd)
ulimit -n "$(ulimit -Hn)"
lab_netns
lab_ns_sysctl "$CLI_NS" net.ipv4.ip_local_port_range="30000 39999"
lab_bg in_srv python3 "$IND/net15.py" hb-server 6800 "$COST_MS" $((SECS + 15)) >"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" provider "$INTERVAL" "$SECS" --nmon \
	--ss-filter '( sport = :6800 and dport >= :30000 and dport < :30500 )'
in_cli python3 "$IND/net15.py" hb-client "$SRV_IP" 6800 "$CONNS" "$PERIOD_S" "$JITTER" $((SECS - 1)) >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
