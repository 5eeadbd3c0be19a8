# The Java scenarios: compile lab/java/PoolAndGc.java once and run it under the collector.
# java_run HOST WARMUP_S OVERLOAD_S COOLDOWN_S CHURN JVM_OPTIONS...
java_run() {
	local host=$1 warmup=$2 overload=$3 cooldown=$4 churn=$5
	shift 5
	local classes=$BIN_DIR/java run_s=$((warmup + overload + cooldown))
	mkdir -p "$classes"
	if [ ! -f "$classes/PoolAndGc.class" ] || [ "$LAB_DIR/java/PoolAndGc.java" -nt "$classes/PoolAndGc.class" ]; then
		javac -d "$classes" "$LAB_DIR/java/PoolAndGc.java"
	fi
	local work=$OUT_DIR/.work
	mkdir -p "$work"
	lab_bg java "$@" -Xlog:gc*:file="$work/gc.log":time,uptime,level,tags -cp "$classes" PoolAndGc \
		"$work/threadpool.csv" "$work/app.log" "$warmup" "$overload" "$cooldown" "$churn" >>"$OUT_DIR/load.jsonl"
	local jvm_pid=${LAB_PIDS[-1]}
	sleep 1
	# The JVM runs on the host (no network involved); the collector's socket commands run in an
	# empty lab namespace, so ss / nstat / netstat hold no sockets or counters of whatever else
	# the machine runs (nmon's CPU and memory are host-wide either way). The JVM's files join
	# the bundle at the end; jstack attaches from outside the namespace.
	lab_netns
	"$COLLECTOR" --netns "$SRV_NS" --host "$host" --interval 2 --duration "$run_s" --out "$OUT_DIR" --nmon \
		--jstack-pid "$jvm_pid" --ss-filter '( sport = :1 )' \
		--file "$work/gc.log" --file "$work/threadpool.csv" --file "$work/app.log" >/dev/null
	wait "$jvm_pid" || true
	rm -rf "$work"
	ls "$OUT_DIR"/*.tar.gz >&2
	cat "$OUT_DIR/load.jsonl" >&2
}
