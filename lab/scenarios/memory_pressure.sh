#!/usr/bin/env bash
# memory_pressure: a process whose working set does not fit in its memory limit. The lab
# machine has 24 GiB and no swap, so the pressure is made inside a memory cgroup (v1 here:
# memory.limit_in_bytes = LIMIT_MB, default 384) rather than by starving the host:
# tools/mem_thrash.py keeps ANON_MB (default 200) of anonymous memory resident and reads
# random pages of a FILE_MB (default 1024) memory-mapped file. The page cache left to the
# file inside the limit (~LIMIT_MB - ANON_MB) is far smaller than the file, so nearly every
# read is a major fault (a disk read) and the cgroup reclaims constantly. LIMIT_MB=4096 is
# the contrast: the same workload with room (the whole file stays cached).
# What the capture reflects: nmon MEM is HOST-wide (free memory stays ~20 GiB: the host is
# not short of memory), while nmon VM (pgmajfault, pgpgin, pgscan/pgsteal) counts the
# cgroup's faults and reclaim because /proc/vmstat is global. cgroup-memory.prom in the bundle
# samples the cgroup's own usage, limit, failcnt, cache/rss and page faults every second
# (Prometheus text, cAdvisor's container_memory_* names).
# Bundle: host "app" (1 s nmon, no network).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start memory_pressure

RUN_S=${RUN_S:-30}
LIMIT_MB=${LIMIT_MB:-384}
ANON_MB=${ANON_MB:-200}
FILE_MB=${FILE_MB:-1024}
CGROUP=/sys/fs/cgroup/memory/rl-mem${LAB_NS_SUFFIX:-}
DATA_DIR=/var/tmp/rl-mem${LAB_NS_SUFFIX:-}
THRASH=(python3 "$LAB_DIR/tools/mem_thrash.py")
log "memory cgroup limit $LIMIT_MB MB, anon $ANON_MB MB, file $FILE_MB MB, ${RUN_S}s"

[ -d /sys/fs/cgroup/memory ] || { echo "needs the cgroup v1 memory controller at /sys/fs/cgroup/memory" >&2; exit 1; }
mem_cleanup() {
	set +e
	lab_cleanup
	local pid
	for pid in $(cat "$CGROUP/cgroup.procs" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
	sleep 0.3
	rmdir "$CGROUP" 2>/dev/null
	rm -rf "$DATA_DIR"
}
trap mem_cleanup EXIT
rmdir "$CGROUP" 2>/dev/null || true
mkdir -p "$CGROUP" "$DATA_DIR"
echo $((LIMIT_MB << 20)) >"$CGROUP/memory.limit_in_bytes"
in_cgroup() { sh -c 'echo $$ >"$0/cgroup.procs" && shift && exec "$@"' "$CGROUP" _ "$@"; }
work=$OUT_DIR/.work
mkdir -p "$work"

# The file is written, synced and dropped from the cache, then read once sequentially inside
# the cgroup (what stays cached is what the limit allows: all of it with room, the tail of it
# under a tight limit), so the capture starts in the steady state, not with a cold file.
in_cgroup "${THRASH[@]}" prepare --file "$DATA_DIR/store.bin" --file-mb "$FILE_MB" >>"$OUT_DIR/load.jsonl"
in_cgroup cat "$DATA_DIR/store.bin" >/dev/null

# The cgroup's own view, every second, in Prometheus text format with cAdvisor's metric names
# (what a container platform would have scraped): usage vs limit, limit hits, page cache vs
# anonymous memory, and the cgroup's page faults.
sample_cgroup() {
	local id=${CGROUP#/sys/fs/cgroup/memory}
	while :; do
		date -u +%Y-%m-%dT%H:%M:%S.%3NZ
		awk -v id="$id" -v usage="$(cat "$CGROUP/memory.usage_in_bytes")" \
			-v limit="$(cat "$CGROUP/memory.limit_in_bytes")" -v failcnt="$(cat "$CGROUP/memory.failcnt")" '
			BEGIN {
				printf "# TYPE container_memory_usage_bytes gauge\ncontainer_memory_usage_bytes{id=\"%s\"} %s\n", id, usage
				printf "# TYPE container_spec_memory_limit_bytes gauge\ncontainer_spec_memory_limit_bytes{id=\"%s\"} %s\n", id, limit
				printf "# TYPE container_memory_failcnt counter\ncontainer_memory_failcnt{id=\"%s\"} %s\n", id, failcnt
			}
			$1 == "cache" { printf "container_memory_cache{id=\"%s\"} %s\n", id, $2 }
			$1 == "rss" { printf "container_memory_rss{id=\"%s\"} %s\n", id, $2 }
			$1 == "mapped_file" { printf "container_memory_mapped_file{id=\"%s\"} %s\n", id, $2 }
			$1 == "pgfault" || $1 == "pgmajfault" {
				printf "container_memory_failures_total{failure_type=\"%s\",id=\"%s\",scope=\"container\"} %s\n", $1, id, $2
			}' "$CGROUP/memory.stat"
		sleep 1
	done >"$work/cgroup-memory.prom"
}
lab_bg sample_cgroup
# The collector's socket commands run in an empty lab namespace (no other process's sockets or
# counters); nmon's CPU and memory are host-wide either way.
lab_netns
"$COLLECTOR" --netns "$SRV_NS" --host app --interval 1 --duration $((RUN_S + 4)) --out "$OUT_DIR" --nmon \
	--ss-filter '( sport = :1 )' \
	--file "$work/cgroup-memory.prom" >/dev/null &
collector=$!
sleep 2 # calm samples first
lab_bg in_cgroup "${THRASH[@]}" run --file "$DATA_DIR/store.bin" --anon-mb "$ANON_MB" --seconds "$RUN_S" \
	>>"$OUT_DIR/load.jsonl"
wait "${LAB_PIDS[-1]}" || true
wait "$collector" || log "collector exited with $?"
rm -rf "$work"
ls "$OUT_DIR"/*.tar.gz >&2
cat "$OUT_DIR/load.jsonl" >&2
