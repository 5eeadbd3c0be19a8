#!/usr/bin/env bash
# healthy: the baseline. Request/response traffic sized well within what the path and
# the server carry: 4 long-lived connections, 20 requests in flight, 4 KB replies, server
# work 0-20 ms on a 64-thread pool, RTT 20 ms, default (autotuned) buffers, no loss, no
# idle gaps, no connection churn. Nothing on the checklist should fire.
# Bundles: host "server" (rl-srv, with nmon and the pool CSV) and host "client" (rl-cli).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start healthy

RTT_MS=20
RUN_S=${RUN_S:-20}

lab_netns
lab_delay "$RTT_MS"
work=$OUT_DIR/.work
mkdir -p "$work"
lab_bg in_srv "${LOAD[@]}" rpc-server --port 5009 --seconds $((RUN_S + 3)) --decode-ms 0 --work-ms 20 \
	--threads 64 --pool-csv "$work/threadpool.csv" >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 $((RUN_S + 2)) --nmon --ss-filter '( sport = :5009 )' --file "$work/threadpool.csv"
lab_collect "$CLI_NS" client 1 $((RUN_S + 2)) --ss-filter '( dport = :5009 )'
in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5009 --connections 4 --concurrency 20 \
	--request-size 512 --response-size 4096 --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
rm -rf "$work"
cat "$OUT_DIR/load.jsonl" >&2
