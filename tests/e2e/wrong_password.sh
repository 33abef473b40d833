#!/usr/bin/env bash
# e2e: a client with a wrong password is refused — it keeps retrying and never gets a
# tunnel address, the server log names the reason — while another client (another
# source address, so the per-IP lockout does not touch it) keeps being served.
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

# Bob is refused again and again (backoff 1 s, 2 s, 4 s …): wait for three refusals,
# checking all along that alice's tunnel carries traffic.
rejections() { grep -c "rejected: wrong password (user 'bob')" "$E2E_DIR/server.log" || true; }
end=$(( $(date +%s) + 20 ))
while [ "$(rejections)" -lt 3 ]; do
  [ "$(date +%s)" -lt "$end" ] || e2e_fail "bob refused only $(rejections) times in 20 s"
  e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "alice's tunnel stopped while bob was refused"
done
e2e_log "bob refused $(rejections) times"

e2e_wait_exit bob 0
[ "$E2E_RC" = running ] || e2e_fail "bob's client gave up (exit $E2E_RC) instead of retrying"
grep -q "reconnecting in" "$E2E_DIR/bob.log" || e2e_fail "bob's client never said it retries"
[ -z "$(e2e_tunnel_ip "$NS_C")" ] || e2e_fail "bob got a tunnel address"
ip -n "$NS_C" link show vpn0 >/dev/null 2>&1 && e2e_fail "bob's client created a TUN"
grep -q "connected as 'bob'" "$E2E_DIR/server.log" && e2e_fail "the server admitted bob"

# Alice is still there (same session, never dropped), and a new connection of hers is
# accepted too: the server keeps serving while bob hammers it.
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "alice → server after bob's attempts"
[ "$(grep -c "connected as 'alice'" "$E2E_DIR/server.log")" -eq 1 ] ||
  e2e_fail "alice's session was dropped and re-made"
# Neither log leaks the password.
grep -q "not-bobs-pass" "$E2E_DIR"/server.log "$E2E_DIR"/bob.log && e2e_fail "a log shows the password"
e2e_finish bob alice server
e2e_log "wrong password ok"
