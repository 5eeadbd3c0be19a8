#!/usr/bin/env bash
# time_wait_storm: THREADS client threads send HTTP-like requests to one server port; a
# connection carries PER_CONN requests and is then closed by CLOSER, so each new connection
# pays a handshake and the side that closes first keeps a TIME-WAIT socket for 60 s:
#   CLOSER=server (default): the server closes (a keep-alive limit, GlassFish's
#     max-connections / maxKeepAliveRequests): TIME-WAIT sits on the server's listening port
#     :5004 and consumes no ephemeral port; the remedy is the server's keep-alive limit.
#   CLOSER=client: the client closes after its PER_CONN requests (no pooling): TIME-WAIT
#     sits on the client's ephemeral ports, each pinning a port of ip_local_port_range
#     towards 10.77.0.1:5004 (port pressure; tcp_tw_reuse and pooling are the remedies).
#   PER_CONN=0: one connection per thread for the whole run (keep-alive reused: the contrast).
# Defaults: 16 threads, one request per connection, 20 000 requests (REQUESTS=0: no cap) in at
# most RUN_S=20 s. Bundles: host "server" (rl-srv) and host "client" (rl-cli), 1 s snapshots,
# ss -tinm filtered to port 5004 (ss -s counts every socket of the namespace).
# shellcheck source=lab/lib/common.sh
source "$(dirname "$0")/../lib/common.sh"
lab_start time_wait_storm

RUN_S=${RUN_S:-20}
REQUESTS=${REQUESTS:-20000}
THREADS=${THREADS:-16}
PER_CONN=${PER_CONN:-1}
CLOSER=${CLOSER:-server}
CONN_LOAD=(python3 "$LAB_DIR/tools/conn_load.py")
case $CLOSER in
	server) MAX_REQUESTS=$PER_CONN ;;
	client) MAX_REQUESTS=0 ;; # the server closes only after the client did
	*) echo "CLOSER must be server or client" >&2; exit 2 ;;
esac
log "closer $CLOSER, $THREADS threads, $PER_CONN requests per connection (0: reused), $REQUESTS requests, ${RUN_S}s"

lab_netns
lab_bg in_srv "${CONN_LOAD[@]}" server --port 5004 --max-requests "$MAX_REQUESTS" --seconds $((RUN_S + 5)) \
	>>"$OUT_DIR/load.jsonl"
sleep 0.5
lab_collect "$SRV_NS" server 1 $((RUN_S + 4)) --ss-filter '( sport = :5004 )'
lab_collect "$CLI_NS" client 1 $((RUN_S + 4)) --ss-filter '( dport = :5004 )'
sleep 1
in_cli "${CONN_LOAD[@]}" client --host "$SRV_IP" --port 5004 --threads "$THREADS" --requests "$REQUESTS" \
	--per-connection "$PER_CONN" --closer "$CLOSER" --seconds "$RUN_S" >>"$OUT_DIR/load.jsonl"
lab_wait_collectors
cat "$OUT_DIR/load.jsonl" >&2
