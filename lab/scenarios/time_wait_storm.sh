#!/usr/bin/env bash
# time_wait_storm: 16 client threads send HTTP-like requests; the server closes every
# connection after one request (a keep-alive limit of 1, the extreme of GlassFish's
# max-connections / a client pool that keeps too few idle connections), so each request
# pays a handshake and the server, the active closer, keeps a TIME_WAIT socket for 60 s.
# 20 000 requests in at most 20 s: TIME-WAIT climbs into the thousands while ESTAB stays
# in the tens. Bundles: host "server" (rl-srv) and host "client" (rl-cli).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start time_wait_storm

RUN_S=${RUN_S:-20}
REQUESTS=${REQUESTS:-20000}

lab_netns
lab_bg in_srv "${LOAD[@]}" churn-server --port 5004 --max-requests 1 --seconds $((RUN_S + 5)) >>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 $((RUN_S + 4)) --ss-filter '( sport = :5004 )'
lab_collect "$CLI_NS" client 1 $((RUN_S + 4)) --ss-filter '( dport = :5004 )'
sleep 1
in_cli "${LOAD[@]}" churn-client --host "$SRV_IP" --port 5004 --threads 16 --requests "$REQUESTS" \
	--seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
