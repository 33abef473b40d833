#!/usr/bin/env bash
# e2e: the path breaks (every packet between the namespaces is dropped, both ways) and
# comes back. The client notices by its own receive-liveness deadline (30 s with the 2 s
# heartbeat pushed here: max(30 s, 3 × (interval + jitter))), tries to resume the session
# for the grace period the server gives (roaming.grace_secs, 3 s here; docs/PROTOCOL.md
# §22), then tears its tunnel down and reconnects by itself once the path is back; the
# server freed the silent session by the same deadline and grace; the device gets its
# address back and traffic flows again.
# Usage: path_break.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "obf.heartbeat.interval_ms = 2000
obf.heartbeat.jitter_ms = 20
roaming.grace_secs = 3"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
ip1=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "no tunnel address"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping before the break"

# Break the path in the server namespace: nothing from or to the client's address.
ip netns exec "$NS_S" nft -f - <<NFT
table ip e2e_cut {
  chain in { type filter hook input priority 0; ip saddr $UL_C drop; }
  chain out { type filter hook output priority 0; ip daddr $UL_C drop; }
}
NFT
t0=$(date +%s)
e2e_log "path cut; waiting for the client's liveness deadline (30 s)"
e2e_wait_for 50 grep -q "session ended: liveness deadline passed" "$E2E_DIR/alice.log" ||
  e2e_fail "the client did not notice the dead path within 50 s"
grep -q "resuming the session" "$E2E_DIR/alice.log" || e2e_fail "the client did not try to resume"
took=$(( $(date +%s) - t0 ))
[ "$took" -ge 28 ] || e2e_fail "the client gave up after only ${took} s"
e2e_wait_for 10 grep -qF "'alice' ($ip1) disconnected: liveness deadline passed" \
  "$E2E_DIR/server.log" || e2e_fail "the server did not free the silent session"
e2e_log "both ends noticed after ${took} s; restoring the path"

ip netns exec "$NS_S" nft delete table ip e2e_cut
t1=$(date +%s)
e2e_wait_for 20 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" ||
  e2e_fail "no traffic within 20 s of the path coming back"
e2e_log "traffic back $(( $(date +%s) - t1 )) s after the path came back"
[ "$(e2e_tunnel_ip "$NS_C")" = "$ip1" ] || e2e_fail "the device lost its address $ip1"
e2e_wait_exit alice 0
[ "$E2E_RC" = running ] || e2e_fail "the client exited ($E2E_RC)"
e2e_finish alice server
e2e_log "path break ok"
