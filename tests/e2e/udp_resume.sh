#!/usr/bin/env bash
# e2e: a UDP client that was stopped (SIGSTOP; a suspend looks the same to it) for longer
# than the liveness deadline reconnects within seconds of resuming (issue 13). Before,
# the server's heartbeats queued in its socket while it was stopped were read on resume
# as fresh proof of life, and the client sat another whole liveness interval (30 s) on a
# session the server had already ended.
# Usage: udp_resume.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
E2E_TRANSPORT=udp
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
# Heartbeat every 5 s: the liveness deadline is its floor, 30 s, on both ends.
e2e_server_conf "$dir" fake-tls 'obf.heartbeat.interval_ms = 5000'
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client c "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no traffic"

kill -STOP "$E2E_PID_c"
e2e_wait_for 45 grep -q "'alice' .* disconnected: liveness" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not end the stopped client's session"
sleep 2
kill -CONT "$E2E_PID_c"
t0=$(date +%s%N)
e2e_wait_for 30 sh -c "[ \$(grep -c \"connected as 'alice'\" '$E2E_DIR/server.log') -ge 2 ]" ||
  e2e_fail "the client did not reconnect after resuming"
took=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$took" -lt 8000 ] || e2e_fail "the client took $took ms to reconnect after resuming"
e2e_wait_tunnel 10 "$NS_C" >/dev/null || e2e_fail "no tunnel after resuming"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no traffic after resuming"
e2e_finish c server
e2e_log "udp_resume ok: reconnected $took ms after SIGCONT"
