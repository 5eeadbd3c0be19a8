#!/bin/sh
# rootline-collect.sh: capture the network / JVM snapshots Rootline reads, at an interval,
# for a bounded time, into one bundle per host (and optionally upload it).
#
# POSIX sh. Needs iproute2 (ss, nstat), procps (sysctl), coreutils, tar, gzip; uses
# net-tools (netstat), nmon, jstack and curl when present and asked for.
# Every snapshot is preceded by a line "=== <UTC ISO-8601 time> ===", which is what the
# Rootline parsers split on.

set -u

usage() {
	cat <<'EOF'
Usage: rootline-collect.sh [options]

Captures, every INTERVAL seconds for DURATION seconds:
  ss -tinm      -> ss-tinm.txt     sockets with TCP info and memory (Send-Q, cwnd, rtt, skmem)
  ss -lnt       -> ss-lnt.txt      listening sockets (accept queue: Recv-Q vs backlog)
  ss -s         -> ss-s.txt        socket summary (TIME-WAIT, ESTAB counts)
  nstat -az     -> nstat.txt       kernel SNMP/netstat counters (private history file)
  netstat -s    -> netstat-s.txt   protocol statistics (if net-tools is installed)
  jstack PID    -> jstack.txt      thread dumps (with --jstack-pid)
once at start and at end:
  sysctl net.* and fs.file-max -> sysctl.txt
and, with --nmon, an nmon recording (nmon.nmon) for the same period.

Writes OUT/rootline-HOST-YYYYmmddTHHMMSS.tar.gz (top folder of the same name).
Stops early and still writes the bundle on Ctrl-C / SIGTERM.

Options:
  --interval S      seconds between snapshots (default 5)
  --duration S      total capture time in seconds (default 60)
  --out DIR         where to write the bundle (default .)
  --host NAME       host name recorded in the bundle (default: uname -n)
  --jstack-pid PID  also run 'jstack PID' every interval
  --nmon            also record nmon (nmon -F ... -s INTERVAL -c COUNT)
  --netns NAME      run the socket commands (ss, nstat, netstat, sysctl, nmon) in
                    'ip netns exec NAME'
  --file PATH       copy PATH into the bundle when the capture ends (GC log, thread-pool
                    metrics, application log); may be given several times
  --ss-filter EXPR  ss filter for the ss -tinm snapshot, e.g. '( sport = :8080 )'
                    (keeps captures small on hosts with many sockets)
  --upload URL      after capture, send the bundle to a Rootline server at URL
  --token T         API token for --upload
  --incident ID     incident id for --upload
  -h, --help        this text

Example:
  sudo ./rootline-collect.sh --interval 2 --duration 120 --jstack-pid 4242 --nmon \
       --upload https://rootline.example.com --token "$TOKEN" --incident 7f3c...
EOF
}

die() {
	echo "rootline-collect: $*" >&2
	exit 2
}

note() {
	echo "rootline-collect: $*" >&2
}

is_uint() {
	case $1 in
		'' | *[!0-9]*) return 1 ;;
		*) return 0 ;;
	esac
}

interval=5
duration=60
out_dir=.
host_name=$(uname -n)
jstack_pid=
with_nmon=0
netns=
ss_filter=
extra_files=
upload_url=
token=
incident=

while [ $# -gt 0 ]; do
	case $1 in
		--interval) [ $# -ge 2 ] || die "$1 needs a value"; interval=$2; shift 2 ;;
		--duration) [ $# -ge 2 ] || die "$1 needs a value"; duration=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out_dir=$2; shift 2 ;;
		--host) [ $# -ge 2 ] || die "$1 needs a value"; host_name=$2; shift 2 ;;
		--jstack-pid) [ $# -ge 2 ] || die "$1 needs a value"; jstack_pid=$2; shift 2 ;;
		--nmon) with_nmon=1; shift ;;
		--netns) [ $# -ge 2 ] || die "$1 needs a value"; netns=$2; shift 2 ;;
		--ss-filter) [ $# -ge 2 ] || die "$1 needs a value"; ss_filter=$2; shift 2 ;;
		--file) [ $# -ge 2 ] || die "$1 needs a value"; extra_files="$extra_files$2
"; shift 2 ;;
		--upload) [ $# -ge 2 ] || die "$1 needs a value"; upload_url=$2; shift 2 ;;
		--token) [ $# -ge 2 ] || die "$1 needs a value"; token=$2; shift 2 ;;
		--incident) [ $# -ge 2 ] || die "$1 needs a value"; incident=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option: $1" ;;
	esac
done

if ! is_uint "$interval" || [ "$interval" -lt 1 ]; then
	die "--interval must be a whole number of seconds >= 1"
fi
if ! is_uint "$duration" || [ "$duration" -lt 1 ]; then
	die "--duration must be a whole number of seconds >= 1"
fi
[ -z "$jstack_pid" ] || is_uint "$jstack_pid" || die "--jstack-pid must be a process id"
if [ -n "$upload_url" ]; then
	if [ -z "$token" ] || [ -z "$incident" ]; then
		die "--upload needs --token and --incident"
	fi
	command -v curl >/dev/null 2>&1 || die "--upload needs curl"
fi
command -v ss >/dev/null 2>&1 || die "ss (iproute2) not found"
# The host name goes into a file name and a URL: keep it to safe characters.
host_name=$(printf '%s' "$host_name" | tr -c 'A-Za-z0-9._-' '_')
[ -n "$host_name" ] || die "--host is empty"

# Commands that look at sockets run inside the namespace when one is given.
in_ns() {
	if [ -n "$netns" ]; then
		ip netns exec "$netns" "$@"
	else
		"$@"
	fi
}
if [ -n "$netns" ]; then
	ip netns exec "$netns" true || die "cannot enter network namespace $netns"
fi

# GNU date prints nanoseconds with %N; others print a literal N: fall back to whole seconds.
case $(date -u +%N) in
	*N*) time_format=+%Y-%m-%dT%H:%M:%SZ ;;
	*) time_format=+%Y-%m-%dT%H:%M:%S.%NZ ;;
esac
stamp_line() {
	echo "=== $(date -u "$time_format") ==="
}

name=rootline-$host_name-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$out_dir" || die "cannot create $out_dir"
dir=$out_dir/$name
mkdir "$dir" || die "cannot create $dir"
# nstat keeps its "previous values" in a history file: use a private one, and -s never
# updates it, so the user's own nstat deltas are not disturbed.
nstat_history=$dir/.nstat-history
have_nstat=0
command -v nstat >/dev/null 2>&1 && have_nstat=1
have_netstat=0
command -v netstat >/dev/null 2>&1 && have_netstat=1

capture_sysctl() {
	{
		stamp_line
		in_ns sysctl -a 2>/dev/null | grep -E '^(net\.|fs\.file-max)'
	} >>"$dir/sysctl.txt"
}

capture_once() {
	# ss filters are words on the command line; an empty filter must add no argument.
	{
		stamp_line
		if [ -n "$ss_filter" ]; then
			# shellcheck disable=SC2086 # the filter is meant to split into ss words
			in_ns ss -tinm $ss_filter
		else
			in_ns ss -tinm
		fi
	} >>"$dir/ss-tinm.txt"
	{ stamp_line; in_ns ss -lnt; } >>"$dir/ss-lnt.txt"
	{ stamp_line; in_ns ss -s; } >>"$dir/ss-s.txt"
	if [ "$have_nstat" = 1 ]; then
		{ stamp_line; in_ns env NSTAT_HISTORY="$nstat_history" nstat -asz; } >>"$dir/nstat.txt"
	fi
	if [ "$have_netstat" = 1 ]; then
		{ stamp_line; in_ns netstat -s; } >>"$dir/netstat-s.txt"
	fi
	if [ -n "$jstack_pid" ]; then
		if kill -0 "$jstack_pid" 2>/dev/null; then
			# A JVM stuck in a long safepoint can hold jstack: never let it eat the interval.
			{ stamp_line; timeout "$interval" jstack "$jstack_pid"; } >>"$dir/jstack.txt" 2>&1
		fi
	fi
}

nmon_pid=
start_nmon() {
	if ! command -v nmon >/dev/null 2>&1; then
		note "nmon not found: no nmon recording"
		return
	fi
	# nmon takes its first snapshot at once: COUNT snapshots span (COUNT - 1) intervals, so
	# this count ends on its own by the deadline and the file is complete.
	count=$((duration / interval))
	[ "$count" -ge 1 ] || count=1
	# nmon daemonizes; -p prints the pid of the recording process so we can stop it.
	nmon_pid=$(cd "$dir" && in_ns nmon -F nmon.nmon -s "$interval" -c "$count" -p 2>/dev/null | tail -n 1)
	is_uint "$nmon_pid" || { note "nmon did not start"; nmon_pid=; }
}
stop_nmon() {
	# After a full run nmon is finishing its last snapshot: give it a moment. Then SIGUSR2
	# makes it write what it has and exit.
	if [ -n "$nmon_pid" ] && [ "$stopping" = 0 ]; then
		waited=0
		while kill -0 "$nmon_pid" 2>/dev/null && [ "$waited" -lt 4 ]; do
			sleep 1
			waited=$((waited + 1))
		done
	fi
	if [ -n "$nmon_pid" ] && kill -0 "$nmon_pid" 2>/dev/null; then
		kill -USR2 "$nmon_pid" 2>/dev/null
		sleep 1
		kill "$nmon_pid" 2>/dev/null
	fi
	nmon_pid=
}

stopping=0
sleeper=
on_signal() {
	stopping=1
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null
}
trap on_signal INT TERM
# If anything goes wrong before the bundle is written, do not leave nmon running.
trap 'stop_nmon' EXIT

now() { date +%s; }
started=$(now)
deadline=$((started + duration))
note "capturing every ${interval}s for ${duration}s into $dir${netns:+ (netns $netns)}"

capture_sysctl
[ "$with_nmon" = 0 ] || start_nmon
snapshots=0
while :; do
	capture_once
	snapshots=$((snapshots + 1))
	[ "$stopping" = 0 ] || break
	left=$((deadline - $(now)))
	[ "$left" -gt 0 ] || break
	[ "$left" -lt "$interval" ] || left=$interval
	# Sleep in the background and wait for it, so a signal ends the wait at once.
	sleep "$left" &
	sleeper=$!
	wait "$sleeper" 2>/dev/null
	sleeper=
	[ "$stopping" = 0 ] || break
done
trap '' INT TERM
capture_sysctl
stop_nmon
rm -f "$nstat_history"
# Files the user named (one per line in $extra_files): copied as they are at the end.
old_ifs=$IFS
IFS='
'
set -f # no globbing of the names
for file in $extra_files; do
	if [ -f "$file" ]; then
		cp "$file" "$dir/" || note "cannot copy $file"
	else
		note "no such file: $file"
	fi
done
set +f
IFS=$old_ifs

bundle=$out_dir/$name.tar.gz
tar -czf "$bundle" -C "$out_dir" "$name" || die "cannot write $bundle"
rm -rf "$dir"
note "$snapshots snapshots in $(($(now) - started))s -> $bundle"

if [ -n "$upload_url" ]; then
	url="${upload_url%/}/api/incidents/$incident/artifacts?filename=$name.tar.gz&host=$host_name"
	if curl -fsS -H "Authorization: Bearer $token" -H 'Content-Type: application/gzip' \
		--data-binary @"$bundle" "$url" >/dev/null; then
		note "uploaded to incident $incident"
	else
		note "upload failed; the bundle is kept at $bundle"
		exit 1
	fi
fi
echo "$bundle"
