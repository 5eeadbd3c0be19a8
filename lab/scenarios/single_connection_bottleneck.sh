#!/usr/bin/env bash
# single_connection_bottleneck: a Dubbo-like provider with ONE I/O thread per connection that
# decodes every request frame (DECODE=cpu: DECODE_MS of real CPU per frame, outside the GIL so
# 8 connections get 8 threads that can run in parallel) and hands it to a 200-thread business
# pool that works 0..WORK_MS (uniform; a downstream call). The consumer offers RATE req/s and
# keeps at most CONCURRENCY requests in flight over CONNECTIONS connection(s) (RTT_MS).
# With one connection its single I/O thread caps intake at 1 / DECODE_MS (500 req/s at 2 ms)
# below the offered rate: requests wait in the socket (provider Recv-Q near rb, consumer
# Send-Q), in flight climbs to the cap and response time balloons while the pool idles.
# CONNECTIONS=8 is the contrast: same offered load, 8 I/O threads.
# Bundles: host "provider" (rl-srv: ss, nmon, the pool CSV) and host "consumer" (rl-cli).
# Variables (defaults = base): RTT_MS=20 RUN_S=20 CONNECTIONS=1 CONCURRENCY=200 RATE=600
#   DECODE=cpu|sleep DECODE_MS=2 DECODE_WAIT_MS=0 (after its CPU, the I/O thread blocks this
#   long per frame: flushes, locks; 1 + 1 ms keeps the 500 req/s cap on half a core, so the
#   8-connection contrast fits this 2-vCPU machine) WORK_MS=2 REQUEST_SIZE=16384
#   RESPONSE_SIZE=2048 INTERVAL=1
#   LAB_LINK=veth|lo CC=cubic|bbr
# (DECODE=sleep WORK_MS=300 REQUEST_SIZE=512 RATE=0 is the first lab run, "sleep_decode".)
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start single_connection_bottleneck

RTT_MS=${RTT_MS:-20}
RUN_S=${RUN_S:-20}
CONNECTIONS=${CONNECTIONS:-1}
CONCURRENCY=${CONCURRENCY:-200}
RATE=${RATE:-600}
DECODE=${DECODE:-cpu}
DECODE_MS=${DECODE_MS:-2}
DECODE_WAIT_MS=${DECODE_WAIT_MS:-0}
WORK_MS=${WORK_MS:-2}
REQUEST_SIZE=${REQUEST_SIZE:-16384}
RESPONSE_SIZE=${RESPONSE_SIZE:-2048}

work=$OUT_DIR/.work
mkdir -p "$work"
lab_netns
[ "$RTT_MS" = 0 ] || lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" rpc-server --host "$SRV_IP" --port 5002 --seconds $((RUN_S + 3)) --decode "$DECODE" \
	--decode-ms "$DECODE_MS" --decode-wait-ms "$DECODE_WAIT_MS" --work-ms "$WORK_MS" --threads 200 --pool-csv "$work/threadpool.csv" >>"$OUT_DIR/load.jsonl"
sleep 1
lab_collect "$SRV_NS" provider "$INTERVAL" $((RUN_S + 2)) --nmon --ss-filter '( sport = :5002 )' \
	--file "$work/threadpool.csv"
lab_collect "$CLI_NS" consumer "$INTERVAL" $((RUN_S + 2)) --ss-filter '( dport = :5002 )'
in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5002 --connections "$CONNECTIONS" \
	--concurrency "$CONCURRENCY" --rate "$RATE" --request-size "$REQUEST_SIZE" --response-size "$RESPONSE_SIZE" \
	--seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
rm -rf "$work"
cat "$OUT_DIR/load.jsonl" >&2
