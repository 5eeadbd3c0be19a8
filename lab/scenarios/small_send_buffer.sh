#!/usr/bin/env bash
# small_send_buffer: a sender with SO_SNDBUF set by hand (kernel doubles it: 16 KB -> skmem
# tb 32768) pushes bulk data over one connection with a long RTT. Throughput is capped near
# buffer / RTT although the path could carry far more; Send-Q sits at the buffer.
# Captured on the sender (host "sender").
# Variables (defaults = the original run):
#   RTT_MS=20  SNDBUF=16384 (0 = autotuned: the contrast)  SECONDS_OF_LOAD=20
#   WRITE_SIZE=65536 (bytes per send())  CC=cubic|bbr  GSO_MAX=1500 (0 = veth default 64 KB)
#   INTERVAL=1
# With cubic every full segment leaves the moment it is written, so when the writer blocks
# nothing is left unsent and the kernel never starts its sndbuf_limited clock; with bbr
# (pacing) data waits in the write queue and ss reports sndbuf_limited (lab/README.md).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start small_send_buffer

RTT_MS=${RTT_MS:-20}
SNDBUF=${SNDBUF:-16384}
SECONDS_OF_LOAD=${SECONDS_OF_LOAD:-20}
WRITE_SIZE=${WRITE_SIZE:-65536}

lab_netns
lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" bulk-server --port 5001 --sndbuf "$SNDBUF" --write-size "$WRITE_SIZE" \
	--seconds "$SECONDS_OF_LOAD" >"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" sender "$INTERVAL" $((SECONDS_OF_LOAD + 2)) --ss-filter '( sport = :5001 )'
in_cli "${LOAD[@]}" bulk-client --host "$SRV_IP" --port 5001 >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
