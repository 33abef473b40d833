#!/usr/bin/env bash
# e2e: the server restarts (SIGTERM, down for ~2 s, started again) and the client comes
# back by itself: traffic flows again within 10 s of the new server listening, the client
# process never exits, and the server removed its TUN while it was down.
# Usage: server_restart.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel address"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping before the restart"

e2e_finish server
ip -n "$NS_S" link show qes0 >/dev/null 2>&1 && e2e_fail "the stopped server left its TUN"
sleep 2
e2e_start_server server-again "$dir"
t0=$(date +%s%N)
e2e_wait_for 10 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" ||
  e2e_fail "no traffic within 10 s of the restart"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
e2e_log "traffic back ${ms} ms after the new server listened"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping after the restart"
ip netns exec "$NS_S" ping -c 3 -i 0.2 -W 2 "$(e2e_tunnel_ip "$NS_C")" >/dev/null ||
  e2e_fail "server → client after the restart"
e2e_wait_exit alice 0
[ "$E2E_RC" = running ] || e2e_fail "the client exited ($E2E_RC) during the restart"
grep -q "connected as 'alice'" "$E2E_DIR/server-again.log" || e2e_fail "no new session line"
e2e_finish alice server-again
e2e_log "server restart ok"
