#!/usr/bin/env bash
# small_send_buffer: a sender with SO_SNDBUF = 8 KB (the kernel doubles it: 16 KB) pushes
# bulk data over one connection with a 20 ms RTT. Throughput is capped near buffer / RTT
# (16 KB / 20 ms ~ 800 KB/s) although the path could carry far more; Send-Q sits at the
# buffer size and ss shows sndbuf_limited. Captured on the sender (host "sender").
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start small_send_buffer

RTT_MS=20
SNDBUF=${SNDBUF:-16384}
SECONDS_OF_LOAD=${SECONDS_OF_LOAD:-20}

lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" bulk-server --port 5001 --sndbuf "$SNDBUF" --seconds "$SECONDS_OF_LOAD" >"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" sender 1 $((SECONDS_OF_LOAD + 2)) --ss-filter '( sport = :5001 )'
in_cli "${LOAD[@]}" bulk-client --host "$SRV_IP" --port 5001 >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
