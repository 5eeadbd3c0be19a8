#!/usr/bin/env bash
# receiver_not_reading: a sender pushes bulk data over one connection; the receiver reads for
# READ_S, then its reading thread stops for STALL_S, then reads again for TAIL_S.
# While stalled, the receiver's Recv-Q climbs to its receive buffer and it advertises a
# zero window (nstat TcpExtTCPToZeroWindowAdv / TCPWantZeroWindowAdv); the sender's Send-Q
# fills, ss shows rwnd_limited and the sender sends zero-window probes.
# STALL_S=0 is the contrast: a receiver that keeps up (with RATE_MBPS > 0 the sender offers
# only that many MB/s, a rate the reader easily sustains).
# Bundles: host "receiver" (rl-srv) and host "sender" (rl-cli).
# Variables (defaults = base): RTT_MS=20 READ_S=3 STALL_S=15 TAIL_S=4 RCVBUF=0 (autotuned)
#   SNDBUF=0 RATE_MBPS=0 (unlimited) INTERVAL=1 CC=cubic|bbr
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start receiver_not_reading

RTT_MS=${RTT_MS:-20}
READ_S=${READ_S:-3}
STALL_S=${STALL_S:-15}
TAIL_S=${TAIL_S:-4}
RCVBUF=${RCVBUF:-0}
SNDBUF=${SNDBUF:-0}
RATE_MBPS=${RATE_MBPS:-0}
TOTAL_S=$((READ_S + STALL_S + TAIL_S))

lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" stalling-server --port 5003 --rcvbuf "$RCVBUF" --read-seconds "$READ_S" \
	--stall-seconds "$STALL_S" --seconds "$TAIL_S" >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" receiver "$INTERVAL" $((TOTAL_S + 1)) --ss-filter '( sport = :5003 )'
lab_collect "$CLI_NS" sender "$INTERVAL" $((TOTAL_S + 1)) --ss-filter '( dport = :5003 )'
in_cli "${LOAD[@]}" push-client --host "$SRV_IP" --port 5003 --sndbuf "$SNDBUF" --rate-mbps "$RATE_MBPS" \
	--seconds "$TOTAL_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
