#!/usr/bin/env bash
# gc_pauses: lab/java/PoolAndGc.java with its allocation thread on: ~140 MB of small linked
# objects kept alive in a 256 MB heap with the serial collector, a slice replaced
# continuously. The old generation fills every few hundred ms and each full GC stops the
# world for ~200 ms or more; GC takes most of the wall time. The pool is offered a load it
# can carry (30 tasks/s for 24 s) so only GC hurts. Bundle: host "app" with gc.log,
# threadpool.csv, app.log and jstack dumps.
# Variations: HEAP (default 256m), GC (collector flag, default -XX:+UseSerialGC), LIVE_MB
# (live set, default 140), RUN_S (default 24), e.g. GC=-XX:+UseG1GC HEAP=2g for a roomy heap.
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
# shellcheck source=lab/lib/java.sh
source "$LAB_DIR/lib/java.sh"
lab_start gc_pauses
log "heap ${HEAP:-256m}, ${GC:--XX:+UseSerialGC}, live set ${LIVE_MB:-140} MB, ${RUN_S:-24}s"
java_run app "${RUN_S:-24}" 0 0 1 -Xmx"${HEAP:-256m}" "${GC:--XX:+UseSerialGC}" -Dchurn.mb="${LIVE_MB:-140}"
