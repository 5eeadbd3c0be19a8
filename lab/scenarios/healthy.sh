#!/usr/bin/env bash
# healthy: the baseline. Nothing on the checklist should fire.
# SHAPE=rpc (default): request/response traffic sized well within what the path and the
#   server carry: CONNECTIONS long-lived connections, CONCURRENCY requests in flight (RATE
#   req/s in total, 0 = as fast as answers return), RESPONSE_SIZE replies, server work
#   0-20 ms on a 64-thread pool, default (autotuned) buffers, no loss, no idle gaps, no churn.
#   Bundles: host "server" (rl-srv, with nmon and the pool CSV) and host "client" (rl-cli).
# SHAPE=bulk: one long transfer with autotuned buffers, produced by the application at
#   RATE_MBPS MB/s (0 = as fast as it goes; at 80 ms that reaches tcp_wmem max, see
#   small_send_buffer/autotuned_rtt80). Bundles: host "sender" (rl-srv), "receiver".
# Variables (defaults = base): SHAPE=rpc RTT_MS=20 RUN_S=20 CONNECTIONS=4 CONCURRENCY=20
#   RATE=0 RESPONSE_SIZE=4096 RATE_MBPS=0 INTERVAL=1 LAB_LINK=veth|lo CC=cubic|bbr
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start healthy

SHAPE=${SHAPE:-rpc}
RTT_MS=${RTT_MS:-20}
RUN_S=${RUN_S:-20}
CONNECTIONS=${CONNECTIONS:-4}
CONCURRENCY=${CONCURRENCY:-20}
RATE=${RATE:-0}
RESPONSE_SIZE=${RESPONSE_SIZE:-4096}
RATE_MBPS=${RATE_MBPS:-0}

lab_netns
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
if [ "$SHAPE" = bulk ]; then
	lab_bg in_srv "${LOAD[@]}" bulk-server --port 5009 --rate-mbps "$RATE_MBPS" --seconds "$RUN_S" \
		>>"$OUT_DIR/load.jsonl"
	sleep 0.5
	lab_collect "$SRV_NS" sender "$INTERVAL" $((RUN_S + 2)) --nmon --ss-filter '( sport = :5009 )'
	lab_collect "$CLI_NS" receiver "$INTERVAL" $((RUN_S + 2)) --ss-filter '( dport = :5009 )'
	in_cli "${LOAD[@]}" bulk-client --host "$SRV_IP" --port 5009 >>"$OUT_DIR/load.jsonl"
	lab_wait_collectors
	cat "$OUT_DIR/load.jsonl" >&2
	exit 0
fi
work=$OUT_DIR/.work
mkdir -p "$work"
lab_bg in_srv "${LOAD[@]}" rpc-server --port 5009 --seconds $((RUN_S + 3)) --decode-ms 0 --work-ms 20 \
	--threads 64 --pool-csv "$work/threadpool.csv" >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server "$INTERVAL" $((RUN_S + 2)) --nmon --ss-filter '( sport = :5009 )' --file "$work/threadpool.csv"
lab_collect "$CLI_NS" client "$INTERVAL" $((RUN_S + 2)) --ss-filter '( dport = :5009 )'
in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5009 --connections "$CONNECTIONS" --concurrency "$CONCURRENCY" \
	--rate "$RATE" --request-size 512 --response-size "$RESPONSE_SIZE" --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
rm -rf "$work"
cat "$OUT_DIR/load.jsonl" >&2
