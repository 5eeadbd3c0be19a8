# Shared helpers for the lab scenarios (bash; sourced, not run).
#
# Topology: two network namespaces joined by a veth pair
#   rl-srv (10.77.0.1, veth rl-srv0)  <---->  rl-cli (10.77.0.2, veth rl-cli0)
# Delay: an NFQUEUE rule on rl-srv's INPUT hands every TCP packet arriving at the server to
# tools/nfq_delay, which re-injects it after DELAY ms: the server-side RTT is DELAY ms.
# Everything a scenario starts is registered here and undone by lab_cleanup (run from the
# EXIT trap): processes killed by pid, namespaces deleted (their iptables rules and sysctls go
# with them), global sysctls restored.

set -euo pipefail

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$LAB_DIR/.." && pwd)
COLLECTOR=$REPO_DIR/collector/rootline-collect.sh
# shellcheck disable=SC2034 # used by the scenario scripts
LOAD=(python3 "$LAB_DIR/tools/load.py")
BIN_DIR=$LAB_DIR/out/.bin
# LAB_NS_SUFFIX lets two lab runs share the machine (their own namespaces, same addresses).
SRV_NS=rl-srv${LAB_NS_SUFFIX:-}
CLI_NS=rl-cli${LAB_NS_SUFFIX:-}
SRV_IP=10.77.0.1
CLI_IP=10.77.0.2

LAB_PIDS=()
LAB_NAMESPACES=()
LAB_SYSCTL_RESTORE=()
LAB_COLLECTORS=()

log() { echo "[lab $(date -u +%H:%M:%S)] $*" >&2; }

lab_require_root() {
	[ "$(id -u)" = 0 ] || { echo "the lab needs root (namespaces, iptables)" >&2; exit 1; }
}

# lab_start SCENARIO: prepare lab/out/SCENARIO (emptied) and the cleanup trap.
lab_start() {
	SCENARIO=$1
	# LAB_OUT_DIR names the folder outright (a variation recorded into lab/fixtures/<scenario>/<name>).
	OUT_DIR=${LAB_OUT_DIR:-${LAB_OUT:-$LAB_DIR/out}/$SCENARIO}
	rm -rf "$OUT_DIR"
	mkdir -p "$OUT_DIR"
	lab_require_root
	trap lab_cleanup EXIT
	trap 'exit 130' INT TERM
	log "scenario $SCENARIO -> $OUT_DIR"
}

lab_cleanup() {
	local pid ns entry
	set +e
	for pid in "${LAB_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	sleep 0.5
	for pid in "${LAB_PIDS[@]}"; do
		kill -9 "$pid" 2>/dev/null
	done
	for ns in "${LAB_NAMESPACES[@]}"; do
		# Processes still inside would keep sockets alive: kill them by pid, then drop the ns.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	for entry in "${LAB_SYSCTL_RESTORE[@]}"; do
		sysctl -q -w "$entry" >/dev/null
	done
	log "cleaned up"
}

# lab_bg CMD...: run in the background and remember the pid for cleanup.
lab_bg() {
	"$@" &
	LAB_PIDS+=($!)
}

# lab_netns: the two namespaces and the veth pair between them.
lab_netns() {
	local ns
	for ns in "$SRV_NS" "$CLI_NS"; do
		ip netns del "$ns" 2>/dev/null || true
		ip netns add "$ns"
		LAB_NAMESPACES+=("$ns")
		ip netns exec "$ns" ip link set lo up
	done
	ip link add rl-srv0 netns "$SRV_NS" type veth peer name rl-cli0 netns "$CLI_NS"
	ip netns exec "$SRV_NS" ip addr add "$SRV_IP/24" dev rl-srv0
	ip netns exec "$CLI_NS" ip addr add "$CLI_IP/24" dev rl-cli0
	ip netns exec "$SRV_NS" ip link set rl-srv0 up
	ip netns exec "$CLI_NS" ip link set rl-cli0 up
	# The stack builds up-to-64 KB GSO segments whatever the NIC offers, and a socket's tail
	# segment may grow to that size past SO_SNDBUF, so a 16 KB send buffer would behave like
	# 80 KB. Capping GSO at one MSS makes SO_SNDBUF bind as it does on the incidents' paths.
	ip netns exec "$SRV_NS" ip link set rl-srv0 gso_max_size 1500
	ip netns exec "$CLI_NS" ip link set rl-cli0 gso_max_size 1500
}

# lab_delay MS: every TCP packet entering rl-srv waits MS ms (server-side RTT = MS).
lab_delay() {
	local ms=$1
	mkdir -p "$BIN_DIR"
	if [ ! -x "$BIN_DIR/nfq_delay" ] || [ "$LAB_DIR/tools/nfq_delay.c" -nt "$BIN_DIR/nfq_delay" ]; then
		gcc -O2 -o "$BIN_DIR/nfq_delay" "$LAB_DIR/tools/nfq_delay.c" -lnetfilter_queue -lnfnetlink
	fi
	lab_bg ip netns exec "$SRV_NS" "$BIN_DIR/nfq_delay" 0 "$ms"
	sleep 0.3
	ip netns exec "$SRV_NS" iptables -A INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass
}

# lab_ns_sysctl NS KEY=VALUE: namespace-local, gone with the namespace.
lab_ns_sysctl() {
	ip netns exec "$1" sysctl -q -w "$2"
}

# lab_collect NS HOST INTERVAL DURATION [collector options...]: collector in the background.
lab_collect() {
	local ns=$1 host=$2 interval=$3 duration=$4
	shift 4
	"$COLLECTOR" --netns "$ns" --host "$host" --interval "$interval" --duration "$duration" \
		--out "$OUT_DIR" "$@" >/dev/null &
	LAB_COLLECTORS+=($!)
}

# lab_wait_collectors: wait until every collector has written its bundle.
lab_wait_collectors() {
	local pid
	for pid in "${LAB_COLLECTORS[@]}"; do
		wait "$pid" || log "collector $pid exited with $?"
	done
	LAB_COLLECTORS=()
	ls "$OUT_DIR"/*.tar.gz >&2
}

# in_srv / in_cli CMD...: run in a namespace.
in_srv() { ip netns exec "$SRV_NS" "$@"; }
in_cli() { ip netns exec "$CLI_NS" "$@"; }

# lab_switch_out NAME: later bundles of this run go to lab/out/NAME (e.g. SCENARIO-contrast,
# the comparison run that should NOT show the failure).
lab_switch_out() {
	OUT_DIR=${LAB_OUT:-$LAB_DIR/out}/$1
	rm -rf "$OUT_DIR"
	mkdir -p "$OUT_DIR"
	log "now writing to $OUT_DIR"
}

# lab_restart_netns: fresh namespaces (and delay) between the two runs of a scenario.
lab_reset() {
	local pid ns
	for pid in "${LAB_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
	LAB_PIDS=()
	for ns in "${LAB_NAMESPACES[@]}"; do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
		ip netns del "$ns" 2>/dev/null || true
	done
	LAB_NAMESPACES=()
}
