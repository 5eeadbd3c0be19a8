#!/usr/bin/env bash
# single_connection_bottleneck: a Dubbo-like provider (one I/O thread per connection that
# spends 2 ms decoding each request, then a 200-thread business pool sleeping 0-300 ms)
# receives 200 concurrent requests from one consumer over ONE connection (RTT 20 ms).
# The connection's single reader caps intake near 1 / 2 ms = 500 req/s while the consumer
# wants ~1300 req/s: requests wait in the socket (Recv-Q on the provider, Send-Q on the
# consumer), response time balloons, CPU stays low. The contrast run sends the same load
# over 8 connections (lab/out/single_connection_bottleneck-contrast).
# Bundles: host "provider" in each folder, with nmon and the business pool CSV.
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start single_connection_bottleneck

RTT_MS=20
RUN_S=${RUN_S:-20}
CONCURRENCY=200

run() {
	local connections=$1
	local work=$OUT_DIR/.work
	mkdir -p "$work"
	lab_netns
	lab_delay "$RTT_MS"
	lab_bg in_srv "${LOAD[@]}" rpc-server --port 5002 --seconds $((RUN_S + 3)) --decode-ms 2 --work-ms 300 \
		--threads 200 --pool-csv "$work/threadpool.csv" >>"$OUT_DIR/load.jsonl"
	sleep 0.5
	lab_collect "$SRV_NS" provider 1 $((RUN_S + 2)) --nmon --ss-filter '( sport = :5002 )' \
		--file "$work/threadpool.csv"
	in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5002 --connections "$connections" \
		--concurrency "$CONCURRENCY" --request-size 512 --response-size 2048 --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
	lab_wait_collectors
	rm -rf "$work"
	cat "$OUT_DIR/load.jsonl" >&2
	lab_reset
}

run 1
lab_switch_out single_connection_bottleneck-contrast
run 8
