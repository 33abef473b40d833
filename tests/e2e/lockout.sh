#!/usr/bin/env bash
# e2e: the brute-force lockout is keyed by (source address, user) with a per-address
# ceiling (docs/OPERATIONS.md "Brute force"; the trial: one user's typos locked a
# colleague behind the same address out, and the client said only "peer closed").
#
#   1. bob mistypes from $UL_C until (UL_C, bob) is locked (max_attempts = 2); his client
#      stops after 3 refusals and names the possible lockout;
#   2. carol logs in from the same address at once: the pair lockout is not hers;
#   3. spraying two more names from UL_C crosses the per-address ceiling
#      (address_max_attempts = 5): the whole address is locked;
#   4. dave (right password) from UL_C is closed before the handshake; his client says it
#      is probably locked out and how long to wait; list-blocked shows both lockouts;
#      carol's running session is untouched; unblock lets dave in.
# Usage: lockout.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
# The per-address new-session rate limit stays out of the way (many clients, one address).
e2e_server_conf "$dir" fake-tls 'perf.connection.new_session_rate_max = 1000'
sed -i 's/^users_file = users.conf$/&\nbrute_force.max_attempts = 2\nbrute_force.address_max_attempts = 5/' \
  "$dir/server.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "config with the lockout keys"
link_bob=$(e2e_add_user "$dir" bob bob-pass)
link_carol=$(e2e_add_user "$dir" carol carol-pass)
link_dave=$(e2e_add_user "$dir" dave dave-pass)
e2e_add_user "$dir" u1 u1-pass >/dev/null
e2e_add_user "$dir" u2 u2-pass >/dev/null
bad() { echo "${1/$2-pass/wrong-pass}"; }
e2e_start_server server "$dir"
blocked_json() { "$QELI" list-blocked --json --socket "$dir/control.sock"; }

# 1. bob: two failures lock the pair; the third attempt is refused without a check.
e2e_start_client bob "$NS_C" "$dir" "$(bad "$link_bob" bob)"
e2e_wait_exit bob 20
[ "$E2E_RC" = 1 ] || e2e_fail "bob's client did not stop (exit $E2E_RC)"
grep -q "user 'bob' is locked out at this address" "$E2E_DIR/bob.log" ||
  e2e_fail "bob's client does not mention the lockout"
grep -q "rejected: user locked out at this address" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not refuse bob's third attempt as a pair lockout"
blocked_json | jq -e --arg ip "$UL_C" 'map(select(.ip == $ip and .user == "bob")) | length == 1' \
  >/dev/null || e2e_fail "list-blocked does not show ($UL_C, bob): $(blocked_json)"

# 2. carol from the same address: in at once.
e2e_start_client carol "$NS_C" "$dir" "$link_carol"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "carol was locked out by bob's typos"

# 3. Spraying: u1 and u2 fail from UL_C too; 2 + 2 + 1 = 5 failures lock the address.
e2e_start_client u1 "$NS_C" "$dir" "$(bad "$link_bob" bob | sed 's/bob:/u1:/')"
e2e_wait_exit u1 20
e2e_start_client u2 "$NS_C" "$dir" "$(bad "$link_bob" bob | sed 's/bob:/u2:/')"
e2e_wait_for 20 sh -c "\"$QELI\" list-blocked --json --socket '$dir/control.sock' |
  jq -e 'map(select(.ip == \"$UL_C\" and .user == \"\")) | length == 1'" ||
  e2e_fail "the address was not locked after 5 failures of 3 names: $(blocked_json)"
e2e_stop u2
grep -Eq "^$UL_C +5 +([0-9]+m )?[0-9]+s +\(every user\)" <<<"$("$QELI" list-blocked --socket "$dir/control.sock")" ||
  e2e_fail "list-blocked text: $("$QELI" list-blocked --socket "$dir/control.sock")"

# 4. dave: the right password, but the address is locked: closed before the handshake.
printf '[qeli]\ndev = vpnd\n' >"$dir/dave.conf"  # carol has vpn0 in this namespace
e2e_start_client dave "$NS_C" "$dir" -c "$dir/dave.conf" "$link_dave"
e2e_wait_for 10 grep -q "probably locked out" "$E2E_DIR/dave.log" ||
  e2e_fail "dave's client does not say it is probably locked out"
grep -q "15 minutes after the last failure by default" "$E2E_DIR/dave.log" ||
  e2e_fail "dave's client does not say how long to wait"
grep -q "connected as 'dave'" "$E2E_DIR/server.log" && e2e_fail "dave got in while locked out"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "carol's session suffered from the lockout"
"$QELI" unblock "$UL_C" --socket "$dir/control.sock" >/dev/null || e2e_fail "unblock"
[ "$(blocked_json | jq length)" = 0 ] || e2e_fail "still blocked: $(blocked_json)"
e2e_wait_for 20 grep -q "connected as 'dave'" "$E2E_DIR/server.log" ||
  e2e_fail "dave was not let in after unblock"
e2e_finish dave carol server
e2e_log "lockout ok"
