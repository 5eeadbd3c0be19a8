# Shared helpers for the lab scenarios (bash; sourced, not run).
#
# Topology: two network namespaces joined by a veth pair
#   rl-srv (10.77.0.1, veth rl-srv0)  <---->  rl-cli (10.77.0.2, veth rl-cli0)
# or, with LAB_LINK=lo, ONE namespace rl-srv where client and server talk over its loopback
# (127.0.0.1, MTU 65536, no GSO cap: what a sidecar or a same-host consumer sees).
# Delay: an NFQUEUE rule on rl-srv's INPUT hands every TCP packet arriving at the server to
# tools/nfq_delay, which re-injects it after DELAY ms: the server-side RTT is DELAY ms (on
# loopback both directions cross INPUT, so each waits DELAY / 2).
#
# Variables every scenario honours (lab/record.py sets them from a fixture's captures.toml):
#   LAB_OUT_DIR    write the bundles into this folder outright (else lab/out/<scenario>)
#   LAB_NS_SUFFIX  suffix of the namespace names (two lab runs can share the machine)
#   LAB_LINK       veth (default) or lo
#   INTERVAL       collector interval in seconds (default 1)
#   CC             congestion control set on every lab socket with TCP_CONGESTION (default
#                  cubic; bbr is the namespaces' default here). Exported to load.py as LAB_CC.
# Scenario-specific ones (RTT_MS, buffers, connection counts, run length ...) are listed at
# the top of each scenario script.
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
LAB_LINK=${LAB_LINK:-veth}
case $LAB_LINK in
	veth) ;;
	lo)
		CLI_NS=$SRV_NS
		SRV_IP=127.0.0.1
		CLI_IP=127.0.0.1
		;;
	*) echo "LAB_LINK must be veth or lo, not $LAB_LINK" >&2; exit 2 ;;
esac
INTERVAL=${INTERVAL:-1}
export LAB_CC=${CC:-cubic}

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

# lab_netns: the two namespaces and the veth pair between them (LAB_LINK=lo: one namespace).
lab_netns() {
	local ns
	if [ "$LAB_LINK" = lo ]; then
		ip netns del "$SRV_NS" 2>/dev/null || true
		ip netns add "$SRV_NS"
		LAB_NAMESPACES+=("$SRV_NS")
		ip netns exec "$SRV_NS" ip link set lo up
		return
	fi
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
	# GSO_MAX=0 leaves the veth's default (64 KB): SO_SNDBUF then binds loosely, and the kernel
	# can report sndbuf_limited (see lab/README.md).
	if [ "${GSO_MAX:-1500}" != 0 ]; then
		ip netns exec "$SRV_NS" ip link set rl-srv0 gso_max_size "${GSO_MAX:-1500}"
		ip netns exec "$CLI_NS" ip link set rl-cli0 gso_max_size "${GSO_MAX:-1500}"
	fi
}

# lab_delay MS: every TCP packet entering rl-srv waits MS ms (server-side RTT = MS).
# On loopback every packet crosses rl-srv's INPUT once, whichever way it goes: MS / 2 each.
lab_delay() {
	local ms=$1
	if [ "$LAB_LINK" = lo ]; then
		ms=$(awk -v ms="$ms" 'BEGIN { print ms / 2 }')
	fi
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
