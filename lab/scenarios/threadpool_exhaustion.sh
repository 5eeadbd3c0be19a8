#!/usr/bin/env bash
# threadpool_exhaustion: lab/java/PoolAndGc.java with a bounded pool "order-service"
# (core 4, max 8, queue 50, AbortPolicy, tasks of 100 ms: capacity 80 tasks/s) offered
# 30 tasks/s for 5 s, 200 tasks/s for 15 s, then 10 tasks/s for 6 s. Under the overload the
# pool sits at active = max = 8 with the queue full (50/50) and rejections climbing; the
# app log gets Dubbo-style "Thread pool is EXHAUSTED" lines. The heap is left quiet (G1,
# 512 MB, no churn) so GC stays out of the picture. jstack every 2 s shows the 8 pool
# threads TIMED_WAITING in handleOrder. Bundle: host "app" with gc.log, threadpool.csv, app.log.
# Variations: WARMUP_S / OVERLOAD_S / COOLDOWN_S (phase lengths, default 5 / 15 / 6) and
# POOL_OPTS, system properties read by PoolAndGc (pool.core, pool.max, pool.queue, task.ms,
# rate.warmup, rate.overload, rate.cooldown, backlog.tasks, backlog.rate; see the class comment),
# e.g. POOL_OPTS="-Dpool.core=200 -Dpool.max=200 -Dpool.queue=0 -Dtask.ms=300".
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
# shellcheck source=lab/lib/java.sh
source "$LAB_DIR/lib/java.sh"
lab_start threadpool_exhaustion
read -r -a pool_opts <<<"${POOL_OPTS:-}"
log "phases ${WARMUP_S:-5}/${OVERLOAD_S:-15}/${COOLDOWN_S:-6} s, options: ${POOL_OPTS:-defaults}"
java_run app "${WARMUP_S:-5}" "${OVERLOAD_S:-15}" "${COOLDOWN_S:-6}" 0 -Xmx512m -XX:+UseG1GC "${pool_opts[@]}"
