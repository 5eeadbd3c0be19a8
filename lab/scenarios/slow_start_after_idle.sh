#!/usr/bin/env bash
# slow_start_after_idle: over ONE reused connection (RTT_MS, congestion control CC set on the
# socket with TCP_CONGESTION), the client asks for a BURST_BYTES burst, then idles GAP_MS and
# asks again. With net.ipv4.tcp_slow_start_after_idle=SSAI=1 (set inside the namespaces) and an
# idle gap longer than the RTO (~200 ms + RTT), the kernel restarts cwnd at its initial 10
# segments before every burst, so each burst pays slow start again. SSAI=0 keeps the window
# (the contrast); a gap shorter than the RTO never triggers the restart; bbr ignores the
# sysctl altogether (the restart is skipped for congestion controls with cong_control).
# Bundle: host "server" (the sender of the bursts); load.jsonl has the burst times.
# Variables (defaults = base): SSAI=1 RTT_MS=20 RUN_S=15 BURST_BYTES=2097152 GAP_MS=1000
#   CC=cubic|bbr INTERVAL=1
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start slow_start_after_idle

SSAI=${SSAI:-1}
RTT_MS=${RTT_MS:-20}
RUN_S=${RUN_S:-15}
BURST_BYTES=${BURST_BYTES:-$((2 << 20))}
GAP_MS=${GAP_MS:-1000}

lab_netns
lab_ns_sysctl "$SRV_NS" net.ipv4.tcp_slow_start_after_idle="$SSAI"
lab_ns_sysctl "$CLI_NS" net.ipv4.tcp_slow_start_after_idle="$SSAI"
lab_delay "$RTT_MS"
lab_bg in_srv "${LOAD[@]}" burst-server --port 5006 --burst-bytes "$BURST_BYTES"
sleep 0.5
lab_collect "$SRV_NS" server "$INTERVAL" $((RUN_S + 1)) --ss-filter '( sport = :5006 )'
in_cli "${LOAD[@]}" burst-client --host "$SRV_IP" --port 5006 --burst-bytes "$BURST_BYTES" --gap-ms "$GAP_MS" \
	--seconds "$RUN_S" | sed "s/^{/{\"tcp_slow_start_after_idle\": $SSAI, \"cc\": \"$LAB_CC\", \"rtt_ms\": $RTT_MS, /" \
	>>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
