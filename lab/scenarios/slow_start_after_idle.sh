#!/usr/bin/env bash
# slow_start_after_idle: over ONE reused connection (RTT 20 ms, cubic set on the socket
# with TCP_CONGESTION), the client asks for a 2 MB burst, then idles 1 s (longer than the
# ~220 ms RTO) and asks again. With net.ipv4.tcp_slow_start_after_idle=1 (set inside the
# namespace) the kernel restarts cwnd at its initial 10 segments before every burst, so
# each burst pays slow start again; the contrast run sets it to 0 and keeps the window.
# Bundles: host "server" in lab/out/slow_start_after_idle (=1) and
# lab/out/slow_start_after_idle-contrast (=0); load.jsonl has the burst times.
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start slow_start_after_idle

RTT_MS=20
RUN_S=${RUN_S:-15}

run() {
	local slow_start_after_idle=$1
	lab_netns
	lab_ns_sysctl "$SRV_NS" net.ipv4.tcp_slow_start_after_idle="$slow_start_after_idle"
	lab_ns_sysctl "$CLI_NS" net.ipv4.tcp_slow_start_after_idle="$slow_start_after_idle"
	lab_delay "$RTT_MS"
	lab_bg in_srv "${LOAD[@]}" burst-server --port 5006 --burst-bytes $((2 << 20))
	sleep 0.5
	lab_collect "$SRV_NS" server 1 $((RUN_S + 1)) --ss-filter '( sport = :5006 )'
	in_cli "${LOAD[@]}" burst-client --host "$SRV_IP" --port 5006 --burst-bytes $((2 << 20)) --gap-ms 1000 \
		--seconds "$RUN_S" | sed "s/^{/{\"tcp_slow_start_after_idle\": $slow_start_after_idle, /" >>"$OUT_DIR/load.jsonl"
	lab_wait_collectors
	cat "$OUT_DIR/load.jsonl" >&2
	lab_reset
}

run 1
lab_switch_out slow_start_after_idle-contrast
run 0
