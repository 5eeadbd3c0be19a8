#!/usr/bin/env bash
# receiver_not_reading: a sender pushes bulk data over one connection (RTT 20 ms); the
# receiver reads for 3 s, then its reading thread stops for 15 s, then reads again.
# While stalled, the receiver's Recv-Q climbs to its receive buffer and it advertises a
# zero window (nstat TcpExtTCPToZeroWindowAdv / TCPWantZeroWindowAdv); the sender's Send-Q
# fills, ss shows rwnd_limited and the sender sends zero-window probes.
# Bundles: host "receiver" (rl-srv) and host "sender" (rl-cli).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start receiver_not_reading

RTT_MS=20
READ_S=3
STALL_S=15
TAIL_S=4
TOTAL_S=$((READ_S + STALL_S + TAIL_S))

lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" stalling-server --port 5003 --read-seconds "$READ_S" --stall-seconds "$STALL_S" \
	--seconds "$TAIL_S" >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" receiver 1 $((TOTAL_S + 1)) --ss-filter '( sport = :5003 )'
lab_collect "$CLI_NS" sender 1 $((TOTAL_S + 1)) --ss-filter '( dport = :5003 )'
in_cli "${LOAD[@]}" push-client --host "$SRV_IP" --port 5003 --seconds "$TOTAL_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
