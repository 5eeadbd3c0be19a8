#!/usr/bin/env bash
# tcp_retransmissions, independent (indep15): net15.py echo-server (rl-srv) answers RESP bytes per
# request to CONNS echo-client connections (rl-cli), one request in flight each, while iptables
# drops LOSS of the TCP packets entering each namespace (0 = no rule: the contrast).
# env: LOSS (0.01) LOSS_AT (both; srv: only packets entering the server, the requests and the
#      client's ACKs; cli: only those entering the client, the replies) RTT_MS (20)
#      CC (cubic, on both ends' sockets) CONNS (8) RESP (65536) SECS (20) INTERVAL
source "$(dirname "$0")/../lib/common.sh"
lab_start indep_rtx
LOSS=${LOSS:-0.01}; RTT_MS=${RTT_MS:-20}; CONNS=${CONNS:-8}; RESP=${RESP:-65536}; SECS=${SECS:-20}
IND=$(cd "$(dirname "$0")" && pwd)
lab_netns
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
LOSS_AT=${LOSS_AT:-both}
if [ "$LOSS" != 0 ]; then
	[ "$LOSS_AT" = cli ] || in_srv iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
	[ "$LOSS_AT" = srv ] || in_cli iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
fi
lab_bg in_srv env CC="$LAB_CC" python3 "$IND/net15.py" echo-server 6900 "$RESP" $((SECS + 4)) >"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server "$INTERVAL" $((SECS + 1)) --ss-filter '( sport = :6900 )'
lab_collect "$CLI_NS" client "$INTERVAL" $((SECS + 1)) --ss-filter '( dport = :6900 )'
in_cli env CC="$LAB_CC" python3 "$IND/net15.py" echo-client "$SRV_IP" 6900 "$CONNS" "$SECS" 300 >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
in_srv iptables -L INPUT -v -n | sed -n 3p >&2
in_cli iptables -L INPUT -v -n | sed -n 3p >&2
cat "$OUT_DIR/load.jsonl" >&2
