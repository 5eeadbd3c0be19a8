#!/usr/bin/env bash
# cpu_saturation: BURNERS busy-loop processes (default 2 = every core of this 2-vCPU machine)
# spin on the server while a Dubbo-like request load runs (4 connections, 20 requests in
# flight, 20 ms of sleeping work, 4 KB replies: the healthy scenario's load), so the server's
# I/O and pool threads wait for a CPU. PIN=1 pins the burners to core 1 with taskset (one core
# at 100 %, the machine half idle). REQUEST_LOAD=0 runs the burners alone (no request traffic).
# BURNERS=0 is the contrast: the same request load on an idle machine. RUN_S sets the length.
# nmon (CPU_ALL, per-core CPU, PROC run queue; host-wide: the namespaces share the machine's
# CPUs) is recorded at 1 s on host "server" with the pool CSV; host "client" has the sockets.
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start cpu_saturation

RUN_S=${RUN_S:-30}
BURNERS=${BURNERS:-2}
PIN=${PIN:-0}
LOAD_ON=${REQUEST_LOAD:-1}
log "$BURNERS burners (pinned to core 1: $PIN), request load $LOAD_ON, ${RUN_S}s"

lab_netns
work=$OUT_DIR/.work
mkdir -p "$work"
if [ "$LOAD_ON" = 1 ]; then
	lab_bg in_srv "${LOAD[@]}" rpc-server --port 5013 --seconds $((RUN_S + 4)) --decode-ms 0 --work-ms 20 \
		--threads 64 --pool-csv "$work/threadpool.csv" >>"$OUT_DIR/load.jsonl"
	sleep 0.5
fi
files=()
[ "$LOAD_ON" = 0 ] || files=(--file "$work/threadpool.csv")
lab_collect "$SRV_NS" server 1 $((RUN_S + 2)) --nmon --ss-filter '( sport = :5013 )' "${files[@]}"
[ "$LOAD_ON" = 0 ] || lab_collect "$CLI_NS" client 1 $((RUN_S + 2)) --ss-filter '( dport = :5013 )'
sleep 2 # a few calm samples first
for _ in $(seq 1 "$BURNERS"); do
	if [ "$PIN" = 1 ]; then
		lab_bg in_srv taskset -c 1 python3 -c 'while True: pass'
	else
		lab_bg in_srv python3 -c 'while True: pass'
	fi
done
if [ "$LOAD_ON" = 1 ]; then
	in_cli "${LOAD[@]}" rpc-client --host "$SRV_IP" --port 5013 --connections 4 --concurrency 20 \
		--request-size 512 --response-size 4096 --seconds $((RUN_S - 2)) >>"$OUT_DIR/load.jsonl"
fi
lab_wait_collectors
rm -rf "$work"
cat "$OUT_DIR/load.jsonl" >&2
