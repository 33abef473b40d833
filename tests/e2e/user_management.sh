#!/usr/bin/env bash
# e2e: user management without editing files (docs/OPERATIONS.md "Users"):
# list-users, show-routes, share-link (a device credential: the live session goes on;
# --reset: a new password, the password session ends and its client is told why, the
# device link still connects), passwd (from standard input),
# remove-user, add-client; each edit keeps the users file in 0.7.16's format and the
# running server picks it up at once. rotate-identity prints the next steps.
# Usage: user_management.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/users"
e2e_server_conf "$dir" fake-tls "route = 192.0.2.0/24"
old_link=$(e2e_add_user "$dir" alice alice-pass)
e2e_add_user "$dir" bob bob-pass >/dev/null
printf 'allowed_networks = 10.77.0.1/32\nclient_subnet = 192.168.77.0/24\n' >>"$dir/users.conf"
e2e_start_server server "$dir"
sock="$dir/control.sock"
q() { "$QELI" "$@" -c "$dir/server.conf" --socket "$sock"; }

"$QELI" list-users -c "$dir/server.conf" | grep -q '^alice ' || e2e_fail "list-users lacks alice"
"$QELI" list-users --json -c "$dir/server.conf" | jq -e 'length == 2' >/dev/null ||
  e2e_fail "list-users --json"
routes=$("$QELI" show-routes bob -c "$dir/server.conf")
grep -q "192.0.2.0/24 via $TUN_NET.1" <<<"$routes" || e2e_fail "show-routes: pushed route: $routes"
grep -q "client_subnet): 192.168.77.0/24" <<<"$routes" || e2e_fail "show-routes: client_subnet"
grep -q "the user): 10.77.0.1/32" <<<"$routes" || e2e_fail "show-routes: allowed_networks"

# share-link: a link with a device credential of its own, as 0.7.16 re-sends a config
# without cutting the user off: alice's live session goes on and the new link connects.
e2e_start_client alice "$NS_C" "$dir" "$old_link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel address"
# Without the server's identity directory there is no key to pin: refused, nothing made.
q share-link alice --host "$UL_S:$E2E_PORT" --no-qr --identity-dir "$dir/none" 2>/dev/null &&
  e2e_fail "share-link issued a link without the profile's key"
[ -e "$dir/none" ] && e2e_fail "share-link created an identity directory"
"$QELI" list-devices alice -c "$dir/server.conf" | grep -q link-1 &&
  e2e_fail "a refused share-link still added a device"
out=$(q share-link alice --host "$UL_S:$E2E_PORT" --no-qr --identity-dir "$dir/identity")
dev_link=$(grep '^qeli://' <<<"$out") || e2e_fail "share-link printed no link: $out"
[ "$dev_link" != "$old_link" ] || e2e_fail "share-link reused the old link"
grep -q "keep working" <<<"$out" || e2e_fail "share-link does not say the old links work: $out"
grep -q "ended 0 live session" <<<"$out" || e2e_fail "share-link ended a session: $out"
"$QELI" list-devices alice -c "$dir/server.conf" | grep -q link-1 || e2e_fail "no device link-1"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "alice's session suffered from share-link"

# share-link --reset: a new password; the password session ends with "credentials
# changed". The device credential is not the password: it survives the reset.
out=$(q share-link alice --reset --host "$UL_S:$E2E_PORT" --no-qr --identity-dir "$dir/identity")
new_link=$(grep '^qeli://' <<<"$out") || e2e_fail "share-link --reset printed no link: $out"
[ "$new_link" != "$old_link" ] || e2e_fail "share-link --reset reused the old link"
grep -q "ended 1 live session" <<<"$out" || e2e_fail "share-link --reset did not end the session: $out"
e2e_wait_exit alice 15
[ "$E2E_RC" = 1 ] || e2e_fail "alice's client kept going after the reset (exit $E2E_RC)"
grep -q "changed the password of user 'alice'" "$E2E_DIR/alice.log" || e2e_fail "not told why"
grep -q '^password_hash = \$argon2id\$' "$dir/users.conf" || e2e_fail "users file format"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "the edited users file is refused"
e2e_start_client alice1 "$NS_C" "$dir" "$dev_link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "the device link does not connect"
e2e_stop alice1
e2e_start_client alice2 "$NS_C" "$dir" "$new_link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "the new link does not connect"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping with the new link"

# passwd from standard input.
echo 'alice-third' | q passwd alice --password-stdin | grep -q "ended 1 live session" ||
  e2e_fail "passwd did not end the session"
e2e_wait_exit alice2 15
[ "$E2E_RC" = 1 ] || e2e_fail "alice2 kept going after passwd (exit $E2E_RC)"
third=$(sed -E 's#^qeli://alice:[^@]*@#qeli://alice:alice-third@#' <<<"$new_link")
e2e_start_client alice3 "$NS_C" "$dir" "$third"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "the passwd password does not work"

# remove-user: gone from the file and from the server.
q remove-user alice | grep -q "ended 1 live session" || e2e_fail "remove-user did not end the session"
e2e_wait_exit alice3 15
[ "$E2E_RC" = 1 ] || e2e_fail "alice3 kept going after remove-user"
grep -q '\[user:alice\]' "$dir/users.conf" && e2e_fail "alice is still in the users file"
grep -q '\[user:bob\]' "$dir/users.conf" || e2e_fail "remove-user took bob too"
"$QELI" list-users -c "$dir/server.conf" | grep -q '^alice ' && e2e_fail "list-users still lists alice"
q remove-user alice 2>/dev/null && e2e_fail "removing a removed user succeeded"

# add-client with the server running: the server reloads at once; the new user connects
# without a manual reload.
out=$(echo 'carol-pass' | q add-client carol --password-stdin --identity-dir "$dir/identity" \
  --link --host "$UL_S:$E2E_PORT" --link-profile e2e --no-qr)
grep -q "reloaded its users: carol can connect now" <<<"$out" || e2e_fail "add-client: $out"
e2e_start_client carol "$NS_C" "$dir" "$(grep '^qeli://' <<<"$out")"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "carol, added live, got no tunnel"
e2e_finish carol

# rotate-identity says what to do next on the server's side.
"$QELI" rotate-identity e2e -c "$dir/server.conf" --identity-dir "$dir/identity" |
  grep -q "qeli share-link USER" || e2e_fail "rotate-identity prints no next step"
e2e_finish server
e2e_log "user management ok"
