#!/usr/bin/env bash
# e2e: a client that vanishes without a word — `kill -9` while its path is blackholed, so
# not even a FIN or RST reaches the server — is freed by the server's receive-liveness
# deadline: max(30 s, 3 × (heartbeat interval + jitter)) = 30 s with the 2 s heartbeat set
# here. Our client took the resume extension (docs/PROTOCOL.md §22), so the server then
# holds the session for roaming.grace_secs (3 s here) before it logs "disconnected:
# liveness deadline passed"; and the same device, reconnecting, gets its address back.
# Usage: kill9_liveness.sh QELI_BINARY
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
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping before the kill"

# Blackhole everything the client namespace sends to the server, then kill the client:
# its kernel's FIN (and the RSTs answering the server's heartbeats) never arrive.
ip netns exec "$NS_C" nft -f - <<NFT
table ip e2e_blackhole {
  chain out { type filter hook output priority 0; ip daddr $UL_S drop; }
}
NFT
t0=$(date +%s)
kill -KILL "$E2E_PID_alice"
# The server cannot know yet: the silent session is still listed.
[ "$(e2e_sessions "$dir")" = "alice $ip1" ] || e2e_fail "sessions after the kill: $(e2e_sessions "$dir")"
e2e_wait_exit alice 5
e2e_log "client killed; waiting for the server's liveness deadline (30 s)"

line="'alice' ($ip1) disconnected: liveness deadline passed"
e2e_wait_for 48 grep -qF "$line" "$E2E_DIR/server.log" ||
  e2e_fail "no \"$line\" within 48 s"
grep -qF "'alice' ($ip1): not resumed within 3 s" "$E2E_DIR/server.log" ||
  e2e_fail "the session was not held for a resume first"
took=$(( $(date +%s) - t0 ))
e2e_log "session freed after ${took} s"
[ "$took" -ge 28 ] || e2e_fail "freed after only ${took} s: before the 30 s deadline"
[ -z "$(e2e_sessions "$dir")" ] || e2e_fail "still listed after the deadline: $(e2e_sessions "$dir")"
grep -q "alice.*disconnected: peer closed" "$E2E_DIR/server.log" &&
  e2e_fail "the server saw a close: the blackhole leaked"

# The same device (same device id) reconnects and gets the same address back.
ip netns exec "$NS_C" nft delete table ip e2e_blackhole
cp "$dir/alice.device-id" "$dir/alice-again.device-id"
e2e_start_client alice-again "$NS_C" "$dir" "$link"
ip2=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "no tunnel address after reconnecting"
[ "$ip2" = "$ip1" ] || e2e_fail "the device got $ip2 instead of its address $ip1"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping after reconnecting"
e2e_finish alice-again server
e2e_log "kill -9 liveness ok"
