#!/usr/bin/env bash
# e2e: a client with a wrong password is refused, and after 3 consecutive refusals it
# stops with a clear error and a non-zero exit — before the server's per-IP lockout
# (brute_force.max_attempts = 5) would lock it out at its address — while another client
# (another source address) keeps being served. Then the lockout itself: two more wrong
# attempts lock (address, bob) out, `qeli list-blocked` shows it with its time left, and
# `qeli unblock` lets the right password in again (lockout.sh: the pair and the ceiling).
# Usage: wrong_password.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link_a=$(e2e_add_user "$dir" alice alice-pass)
link_b=$(e2e_add_user "$dir" bob bob-pass)
bad_link=${link_b/bob-pass/not-bobs-pass}
[ "$bad_link" != "$link_b" ] || e2e_fail "could not forge the wrong-password link"
e2e_start_server server "$dir"

e2e_start_client alice "$NS_C2" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "alice got no tunnel address"
e2e_start_client bob "$NS_C" "$dir" "$bad_link"

# Bob is refused three times (backoff 1 s, 2 s), then his client gives up, checking all
# along that alice's tunnel carries traffic.
rejections() { grep -c "rejected: wrong password (user 'bob')" "$E2E_DIR/server.log" || true; }
end=$(( $(date +%s) + 20 ))
while [ "$(rejections)" -lt 3 ]; do
  [ "$(date +%s)" -lt "$end" ] || e2e_fail "bob refused only $(rejections) times in 20 s"
  e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "alice's tunnel stopped while bob was refused"
done
e2e_wait_exit bob 10
[ "$E2E_RC" = 1 ] || e2e_fail "bob's client did not stop after 3 refusals (exit $E2E_RC)"
e2e_log "bob refused $(rejections) times, then his client stopped"
[ "$(rejections)" -eq 3 ] || e2e_fail "bob was refused $(rejections) times, not 3"
grep -q "authentication rejected 3 times: check the user name and password" "$E2E_DIR/bob.log" ||
  e2e_fail "bob's client does not say why it stopped"
grep -q "reconnecting in" "$E2E_DIR/bob.log" || e2e_fail "bob's client never backed off"
[ -z "$(e2e_tunnel_ip "$NS_C")" ] || e2e_fail "bob got a tunnel address"
ip -n "$NS_C" link show vpn0 >/dev/null 2>&1 && e2e_fail "bob's client created a TUN"
grep -q "connected as 'bob'" "$E2E_DIR/server.log" && e2e_fail "the server admitted bob"
blocked() { "$QELI" list-blocked --json --socket "$dir/control.sock" | jq -r '.[].ip'; }
[ -z "$(blocked)" ] || e2e_fail "bob's address was locked out: $(blocked)"
grep -q "locked out" "$E2E_DIR/server.log" && e2e_fail "the server logged a lockout"

# Alice is still there (same session, never dropped), and a new connection of hers is
# accepted too: the server keeps serving while bob hammers it.
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "alice → server after bob's attempts"
[ "$(grep -c "connected as 'alice'" "$E2E_DIR/server.log")" -eq 1 ] ||
  e2e_fail "alice's session was dropped and re-made"
# The lockout: two more wrong attempts make five for bob's address.
e2e_start_client bob-again "$NS_C" "$dir" "$bad_link"
e2e_wait_for 20 sh -c "\"$QELI\" list-blocked --json --socket '$dir/control.sock' |
  jq -e 'map(select(.ip == \"$UL_C\")) | length == 1' >/dev/null" ||
  e2e_fail "bob was not locked out at his address after 5 failures"
"$QELI" list-blocked --socket "$dir/control.sock" | grep -E "^$UL_C +5 +([0-9]+m )?[0-9]+s +bob$" >/dev/null ||
  e2e_fail "list-blocked does not show ($UL_C, bob) with its time left and 5 failures"
e2e_finish bob-again
"$QELI" unblock "$UL_C" --socket "$dir/control.sock" >/dev/null || e2e_fail "qeli unblock"
[ -z "$(blocked)" ] || e2e_fail "still blocked after unblock: $(blocked)"
"$QELI" unblock "$UL_C" --socket "$dir/control.sock" 2>/dev/null &&
  e2e_fail "unblocking an address that is not blocked succeeded"
e2e_start_client bob-right "$NS_C" "$dir" "$link_b"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "bob's right password was not let in after unblock"

# Neither log leaks the password.
grep -q "not-bobs-pass" "$E2E_DIR"/server.log "$E2E_DIR"/bob*.log && e2e_fail "a log shows the password"
e2e_finish bob-right alice server
e2e_log "wrong password ok"
