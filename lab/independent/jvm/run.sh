#!/usr/bin/env bash
# Independent JVM reproductions (indep15jvm): GC logs of five collectors, pools and locks
# under jstack. No root, no network namespace: plain java / jstack on this host.
#   lab/independent/jvm/run.sh                  # every case below (~10 min)
#   CASES="gc-g1-256-heavy pool-under-8" lab/independent/jvm/run.sh
#   OUT=/tmp/jvm-out lab/independent/jvm/run.sh  # artifacts in $OUT/<case>/
# Then: rootline analyze $OUT/<case>/*   (or verdicts.sh $OUT/<case>)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/indep15jvm}
CLS=$OUT/.classes
JAVA_OPTS=${JAVA_OPTS:--XX:ActiveProcessorCount=1}
mkdir -p "$CLS"
javac -d "$CLS" "$HERE"/HeapChurn.java "$HERE"/PoolPressure.java "$HERE"/LockShapes.java

PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# gc CASE GC_FLAG XMX LIVE_MB SECONDS DECORATORS [STEP_US]
gc() {
	local case=$1 flag=$2 xmx=$3 live=$4 secs=$5 decor=$6 step=${7:-0}
	local dir=$OUT/$case
	rm -rf "$dir" && mkdir -p "$dir"
	nice java $JAVA_OPTS $flag -Xms"$xmx" -Xmx"$xmx" \
		-Xlog:gc*,safepoint:file="$dir/gc.log":"$decor" -cp "$CLS" HeapChurn "$live" "$secs" 64 256 "$step" \
		>"$dir/run.json" 2>"$dir/stderr.txt" || echo "{\"exit\":$?}" >>"$dir/run.json"
	echo "$case: $(cat "$dir/run.json")"
}

# dumps DIR PID FIRST_AT COUNT GAP: jstack COUNT times, GAP s apart, from FIRST_AT s
dumps() {
	local dir=$1 pid=$2 first=$3 count=$4 gap=$5 i
	sleep "$first"
	for ((i = 1; i <= count; i++)); do
		jstack -l "$pid" >"$dir/jstack-$i.txt" 2>&1 || true
		[ "$i" -lt "$count" ] && sleep "$gap"
	done
	return 0
}

# pool CASE MODE CORE MAX QUEUE TASK_MS RATE LOAD_S TAIL_S FORMAT LOG WAIT INTERVAL_MS FIRST_DUMP DUMPS GAP
pool() {
	local case=$1 dir=$OUT/$1
	shift
	rm -rf "$dir" && mkdir -p "$dir"
	local ext=jsonl
	[ "${9}" = csv ] && ext=csv
	nice java $JAVA_OPTS -cp "$CLS" PoolPressure "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" \
		"$dir/threadpool.$ext" "$dir/app.log" "$9" "${10}" "${11}" "${12}" biz-exec >"$dir/run.json" 2>"$dir/stderr.txt" &
	local pid=$!
	PIDS+=("$pid")
	dumps "$dir" "$pid" "${13}" "${14}" "${15}"
	wait "$pid" || true
	echo "$case: $(cat "$dir/run.json")"
}

# locks CASE MODE THREADS HOLD_MS SECONDS KIND FIRST_DUMP DUMPS GAP
locks() {
	local case=$1 dir=$OUT/$1
	rm -rf "$dir" && mkdir -p "$dir"
	nice java $JAVA_OPTS -cp "$CLS" LockShapes "$2" "$3" "$4" "$5" "$6" order-exec >"$dir/run.json" 2>"$dir/stderr.txt" &
	local pid=$!
	PIDS+=("$pid")
	dumps "$dir" "$pid" "$7" "$8" "$9"
	wait "$pid" || true
	echo "$case: $(cat "$dir/run.json")"
}

# rotation CASE DECORATORS: one JVM whose -Xlog:gc rotates every 8 KB (filecount=9), 14 s, then a JVM
# run twice on one file name without size rotation (-Xlog moves the earlier run's file aside
# to .0 at start): the files of one JVM vs two runs.
rotation() {
	local case=$1 decor=$2 dir=$OUT/$1
	rm -rf "$dir" && mkdir -p "$dir/one" "$dir/two"
	nice java $JAVA_OPTS -XX:+UseG1GC -Xmx64m -Xlog:gc:file="$dir/one/gc.log":"$decor":filecount=9,filesize=8k \
		-cp "$CLS" HeapChurn 40 14 64 256 2000 >"$dir/one/run.json" 2>&1 || true
	for run in 1 2; do
		nice java $JAVA_OPTS -XX:+UseG1GC -Xmx64m -Xlog:gc:file="$dir/two/gc.log":"$decor":filecount=2,filesize=0 \
			-cp "$CLS" HeapChurn 40 3 64 256 2000 >>"$dir/two/run.json" 2>&1 || true
	done
	echo "$case: $(ls "$dir"/one "$dir"/two | tr '\n' ' ')"
}

TU=time,uptime,level,tags
run_case() {
	case $1 in
	# GC: a live set near -Xmx (heavy) vs a small one (healthy), same collector and heap
	gc-serial-64-heavy) gc "$1" -XX:+UseSerialGC 64m 52 5 time ;;
	gc-serial-64-healthy) gc "$1" -XX:+UseSerialGC 64m 8 60 utctime 200 ;;
	gc-parallel-512-heavy) gc "$1" -XX:+UseParallelGC 512m 440 5 uptime ;;
	gc-parallel-512-churn) gc "$1" -XX:+UseParallelGC 512m 32 5 uptime ;;
	gc-parallel-512-healthy) gc "$1" -XX:+UseParallelGC 512m 32 60 uptime 3000 ;;
	gc-g1-256-heavy) gc "$1" -XX:+UseG1GC 256m 220 60 $TU ;;
	gc-g1-256-churn) gc "$1" -XX:+UseG1GC 256m 16 60 $TU 100 ;;
	gc-g1-256-healthy) gc "$1" -XX:+UseG1GC 256m 16 60 $TU 3000 ;;
	gc-g1-2g-heavy) gc "$1" -XX:+UseG1GC 2g 1800 5 utctime ;;
	gc-zgc-2g-oom) gc "$1" -XX:+UseZGC 2g 1800 60 $TU ;;
	gc-zgc-2g-heavy) gc "$1" -XX:+UseZGC 2g 1500 60 $TU ;;
	gc-zgc-2g-healthy) gc "$1" -XX:+UseZGC 2g 100 5 $TU ;;
	gc-zgc-64-oom) gc "$1" -XX:+UseZGC 64m 48 5 time ;;
	gc-zgc-64-heavy) gc "$1" -XX:+UseZGC 64m 36 5 time ;;
	gc-zgc-1g-healthy) gc "$1" -XX:+UseZGC 1g 64 60 utctime 3000 ;;
	gc-shen-512-oom) gc "$1" -XX:+UseShenandoahGC 512m 460 5 $TU ;;
	gc-shen-512-heavy) gc "$1" -XX:+UseShenandoahGC 512m 300 5 $TU ;;
	gc-shen-512-heavy-60s) gc "$1" -XX:+UseShenandoahGC 512m 300 60 uptime ;;
	gc-shen-512-healthy) gc "$1" -XX:+UseShenandoahGC 512m 32 5 uptime ;;
	gc-rotation-tu) rotation "$1" $TU ;;
	gc-rotation-uptime) rotation "$1" uptime ;;
	# pools: saturated under load, after load (backlog drained), busy but not saturated
	pool-under-8) pool "$1" under 4 8 50 100 200 15 10 json reject sleep 200 5 5 2 ;;
	pool-busy-8) pool "$1" busy 4 8 50 100 40 15 10 json reject sleep 200 5 5 2 ;;
	pool-under-200) pool "$1" under 200 200 0 500 600 15 8 csv dubbo park 1000 5 4 2 ;;
	pool-busy-200) pool "$1" busy 200 200 0 500 200 15 8 csv dubbo park 1000 5 4 2 ;;
	pool-after-8) pool "$1" after 8 8 100 100 100 12 12 json dubbo sleep 500 4 6 3 ;;
	pool-after-200) pool "$1" after 200 200 0 400 800 12 10 csv reject future 1000 4 6 3 ;;
	pool-busy-8-3dumps) pool "$1" busy 8 8 20 200 30 20 5 json reject future 1000 6 3 5 ;;
	# locks: one shared lock vs one lock each; deadlocks
	lock-shared-monitor-16) locks "$1" shared 16 20 14 monitor 3 5 2 ;;
	lock-own-monitor-16) locks "$1" own 16 20 14 monitor 3 5 2 ;;
	lock-shared-rlock-8) locks "$1" shared 8 50 10 rlock 3 3 2 ;;
	lock-own-rlock-200) locks "$1" own 200 20 12 rlock 4 3 2 ;;
	lock-shared-monitor-200-2dumps) locks "$1" shared 200 5 16 monitor 4 2 5 ;;
	lock-deadlock-both) locks "$1" deadlock 8 20 10 both 3 3 2 ;;
	lock-deadlock-monitor-1dump) locks "$1" deadlock 8 20 6 monitor 3 1 2 ;;
	*) echo "unknown case $1" >&2; return 1 ;;
	esac
}

ALL=$(sed -n 's/^\t\(gc-[a-z0-9-]*\|pool-[a-z0-9-]*\|lock-[a-z0-9-]*\)).*/\1/p' "$0")
for c in ${CASES:-$ALL}; do
	run_case "$c"
done
