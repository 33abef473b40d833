#!/usr/bin/env bash
# e2e: `perf.connection.idle_timeout_secs` — a session that carries no IP packet either
# way for that long is closed by the server (heartbeats do not count), the server log says
# "idle timeout", and a client that then sends traffic simply reconnects.
# Usage: idle_timeout.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/idle"
e2e_server_conf "$dir" fake-tls "perf.connection.idle_timeout_secs = 3
obf.heartbeat.interval_ms = 1000"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel address"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping before going idle"

# Silence (heartbeats only) for longer than the timeout: the server ends the session.
e2e_wait_for 12 grep -q "disconnected: idle timeout" "$E2E_DIR/server.log" ||
  e2e_fail "the idle session was not closed"
e2e_wait_for 3 grep -q "the server ended the session: idle timeout" "$E2E_DIR/alice.log" ||
  e2e_fail "the client was not told why (close extension)"
# Traffic again: the client has reconnected by itself.
e2e_wait_for 15 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" || e2e_fail "no reconnect"
e2e_finish alice server
e2e_log "idle timeout ok"
