#!/usr/bin/env bash
# verdicts.sh CASE_DIR... : the JVM-side verdicts of each case (every file of its folder
# analysed together), with their evidence lines (+ met, - not met, . informational).
#   ROOTLINE=/path/to/venv/bin/rootline lab/independent/jvm/verdicts.sh /tmp/indep15jvm/*/
set -euo pipefail
ROOTLINE=${ROOTLINE:-rootline}
IDS=${IDS:-gc_pauses threadpool_exhaustion thread_lock_contention}
for d in "$@"; do
	files=$(find "$d" -maxdepth 1 -type f ! -name run.json ! -name stderr.txt | sort)
	echo "== $(basename "$d")"
	# shellcheck disable=SC2086 # ROOTLINE may be a command with arguments, files are words
	$ROOTLINE analyze --json $files 2>/dev/null | IDS=$IDS python3 -c '
import json, os, sys
ids = os.environ["IDS"].split()
for f in json.load(sys.stdin)["findings"]:
    if f["id"] not in ids:
        continue
    print("  %-24s %-17s %s" % (f["id"], f["verdict"], f["summary"]))
    for e in f["evidence"]:
        mark = {True: "+", False: "-", None: "."}[e.get("met")]
        print("      %s %s" % (mark, e["summary"]))
'
done
