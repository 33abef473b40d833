#!/usr/bin/env bash
# e2e: two clients on one host, in two network namespaces, with the same TUN name (vpn0)
# and the same state directory, each keep their own host journal (named per namespace:
# journal-vpn0@<netns>.log), so both run at once; after a kill -9 of one of them,
# `qeli client --cleanup` in its namespace finds and undoes its journal and leaves the
# other client alone. (With journals named per TUN only, the second client was refused:
# the first one holds the lock on journal-vpn0.log.)
# Usage: state_per_netns.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

dir="$E2E_DIR/srv"
shared="$E2E_DIR/shared-state"
e2e_server_conf "$dir" fake-tls
e2e_add_user "$dir" alice alice-pass >/dev/null
e2e_add_user "$dir" bob bob-pass >/dev/null
# `exclude` pins a route through the physical link: a journaled change that outlives a
# kill -9 (routes through the TUN vanish with it).
conf_a=$(e2e_client_conf "$dir" alice alice alice-pass "exclude = 198.51.100.0/24")
conf_b=$(e2e_client_conf "$dir" bob bob bob-pass "exclude = 198.51.100.0/24")
e2e_start_server server "$dir"
start() {  # NAME NS CONF: one state dir for both, their own TOFU store and device id
  e2e_bg "$1" "$2" "$QELI" client -c "$3" --state-dir "$shared" \
    --known-hosts "$dir/$1.known_hosts" --device-id-file "$dir/$1.device-id"
}
start alice "$NS_C" "$conf_a"
start bob "$NS_C2" "$conf_b"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "bob got no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "alice → server"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "bob → server"
[ -f "$shared/journal-vpn0@$NS_C.log" ] || e2e_fail "no journal for $NS_C: $(ls "$shared")"
[ -f "$shared/journal-vpn0@$NS_C2.log" ] || e2e_fail "no journal for $NS_C2: $(ls "$shared")"
e2e_log "1: both clients run with one state dir:" $(cd "$shared" && ls journal-*)

kill -KILL "$E2E_PID_alice"
e2e_wait_exit alice 5  # its journal lock goes with the process
pinned() { ip -n "$1" route show proto 113 | grep -c '198.51.100.0/24' || true; }
[ "$(pinned "$NS_C")" = 1 ] || e2e_fail "alice's exclude route is not there after kill -9"
out=$(ip netns exec "$NS_C" "$QELI" client -c "$conf_a" --state-dir "$shared" --cleanup 2>&1) ||
  e2e_fail "--cleanup in $NS_C failed: $out"
echo "$out" | grep -Eq 'undid [1-9][0-9]* change' || e2e_fail "--cleanup found nothing to undo: $out"
[ "$(grep -c '^+' "$shared/journal-vpn0@$NS_C.log" || true)" = 0 ] ||
  e2e_fail "alice's journal still holds records after --cleanup"
[ "$(pinned "$NS_C")" = 0 ] || e2e_fail "--cleanup left alice's exclude route"
[ "$(pinned "$NS_C2")" = 1 ] || e2e_fail "bob's exclude route is gone"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "bob lost his tunnel to alice's cleanup"
[ "$(grep -c '^+' "$shared/journal-vpn0@$NS_C2.log")" -gt 0 ] || e2e_fail "bob's journal was emptied"
e2e_log "2: --cleanup in $NS_C undid alice's changes only"
e2e_finish bob server
