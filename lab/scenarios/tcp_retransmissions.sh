#!/usr/bin/env bash
# tcp_retransmissions: request/response traffic (4 connections, 40 in flight, 32 KB
# replies, RTT 20 ms) while iptables drops 5 % of the packets entering each namespace at
# random (-m statistic --mode random --probability 0.05 -j DROP): the server retransmits
# (nstat TcpRetransSegs / TcpOutSegs ~ 5 %, TcpExtTCPLostRetransmit, RTO timeouts,
# per-socket retrans:), response times grow. Bundles: host "server" (rl-srv), "client" (rl-cli).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start tcp_retransmissions

RTT_MS=20
RUN_S=${RUN_S:-20}
LOSS=0.05

lab_netns
lab_delay "$RTT_MS"
# Inserted ahead of the delay rule: a dropped packet never reaches the delay line.
in_srv iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
in_cli iptables -I INPUT 1 -p tcp -m statistic --mode random --probability "$LOSS" -j DROP
lab_bg in_srv "${LOAD[@]}" rpc-server --port 5008 --seconds $((RUN_S + 3)) --decode-ms 0 --work-ms 20 \
	--threads 64 >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 $((RUN_S + 2)) --ss-filter '( sport = :5008 )'
lab_collect "$CLI_NS" client 1 $((RUN_S + 2)) --ss-filter '( dport = :5008 )'
in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5008 --connections 4 --concurrency 40 \
	--request-size 512 --response-size 32768 --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
in_srv iptables -L INPUT -v -n | sed -n 1,4p >&2
cat "$OUT_DIR/load.jsonl" >&2
