#!/usr/bin/env bash
# tcp_retransmissions: request/response traffic (CONNECTIONS connections, CONCURRENCY in
# flight, RESPONSE_SIZE replies, RTT_MS) while iptables drops LOSS of the packets entering
# each namespace at random (-m statistic --mode random --probability LOSS -j DROP): the server
# retransmits (nstat TcpRetransSegs / TcpOutSegs ~ LOSS, TcpExtTCPLostRetransmit, RTO
# timeouts, per-socket retrans:), response times grow. LOSS=0 is the contrast (no drop rule).
# Bundles: host "server" (rl-srv), "client" (rl-cli).
# Variables (defaults = base): LOSS=0.05 RTT_MS=20 RUN_S=20 CONNECTIONS=4 CONCURRENCY=40
#   RESPONSE_SIZE=32768 INTERVAL=1 CC=cubic|bbr
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start tcp_retransmissions

RTT_MS=${RTT_MS:-20}
RUN_S=${RUN_S:-20}
LOSS=${LOSS:-0.05}
CONNECTIONS=${CONNECTIONS:-4}
CONCURRENCY=${CONCURRENCY:-40}
RESPONSE_SIZE=${RESPONSE_SIZE:-32768}

lab_netns
lab_delay "$RTT_MS"
if [ "$LOSS" != 0 ]; then
	# Inserted ahead of the delay rule: a dropped packet never reaches the delay line.
	in_srv iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
	in_cli iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
fi
lab_bg in_srv "${LOAD[@]}" rpc-server --port 5008 --seconds $((RUN_S + 3)) --decode-ms 0 --work-ms 20 \
	--threads 64 >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server "$INTERVAL" $((RUN_S + 2)) --ss-filter '( sport = :5008 )'
lab_collect "$CLI_NS" client "$INTERVAL" $((RUN_S + 2)) --ss-filter '( dport = :5008 )'
in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5008 --connections "$CONNECTIONS" \
	--concurrency "$CONCURRENCY" --request-size 512 --response-size "$RESPONSE_SIZE" --seconds "$RUN_S" \
	>>"$OUT_DIR/load.jsonl"
lab_wait_collectors
in_srv iptables -L INPUT -v -n | sed -n 1,4p >&2
cat "$OUT_DIR/load.jsonl" >&2
