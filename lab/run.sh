#!/usr/bin/env bash
# lab/run.sh [scenario...]: reproduce failure modes for real and capture them with the
# collector. Runs every scenario once with its default settings (about 8 minutes), each under
# 120 s, as root. Bundles land in lab/out/<scenario>/; set LAB_OUT=DIR to write elsewhere.
# Scenario variables (RTT_MS, CC, INTERVAL, ...) pass through from the environment.
# The committed fixtures (every variation and contrast) are recorded by lab/record.py from
# lab/fixtures/<scenario>/captures.toml, not by this script.
set -euo pipefail
LAB_DIR=$(cd "$(dirname "$0")" && pwd)
ALL=(small_send_buffer single_connection_bottleneck receiver_not_reading time_wait_storm
	accept_queue_overflow slow_start_after_idle threadpool_exhaustion gc_pauses heartbeat_storm
	tcp_retransmissions healthy)

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
	echo "usage: $0 [scenario...]   scenarios: ${ALL[*]}"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "the lab needs root (namespaces, iptables)" >&2; exit 1; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=("${ALL[@]}")

failed=()
for scenario in "${scenarios[@]}"; do
	script=$LAB_DIR/scenarios/$scenario.sh
	[ -f "$script" ] || { echo "unknown scenario: $scenario (known: ${ALL[*]})" >&2; exit 2; }
	started=$(date +%s)
	# Under the lab lock: never at the same time as lab/record.py or another lab run.
	if flock /tmp/rootline-lab.lock timeout 120 bash "$script"; then
		echo "== $scenario: ok in $(($(date +%s) - started)) s" >&2
	else
		echo "== $scenario: FAILED" >&2
		failed+=("$scenario")
	fi
done
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]}" >&2; exit 1; }
