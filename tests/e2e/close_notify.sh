#!/usr/bin/env bash
# e2e: the close extension on UDP (docs/PROTOCOL.md §12). Without it a UDP client notices
# a kick only at its liveness deadline (≥ 30 s); with it:
#   1. `qeli kick alice` → alice's client logs "kicked by the operator" at once and is
#      back in the tunnel within a few seconds; the server log names the reason too;
#   2. `qeli disable-user alice` → the client stops with a clear error (exit 1), new
#      logins are refused until `qeli enable-user alice`;
#   3. a client without the extension (QELI_DISABLE_EXTENSIONS=1, as 0.7.16) is kicked
#      without a word (it would find out at its liveness deadline);
#   4. a client stopped with SIGTERM says goodbye: its session is gone from list-clients
#      within ~2 s (it used to stay until the server's liveness deadline, ~38 s); one
#      without the extension stops silently and its session stays (0.7.16 behaviour);
#   5. the server stopping is announced to the client that can hear it.
# Also: a second client with the same dev in one namespace gets a clear error.
# Along the way: the client's TUN has IPv6 off (no router solicitations reach the
# server, so its `ipv6` drop counter stays 0), list-clients reports bytes both ways.
# Usage: close_notify.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2
export E2E_TRANSPORT=udp

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link_a=$(e2e_add_user "$dir" alice alice-pass)
link_b=$(e2e_add_user "$dir" bob bob-pass)
e2e_start_server server "$dir"
ctl() { "$QELI" "$@" --socket "$dir/control.sock"; }

e2e_start_client alice "$NS_C" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel address"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping through alice's tunnel"

# IPv6 is off on the client's TUN; the server saw no IPv6 from it; bytes are counted.
[ "$(ip netns exec "$NS_C" cat /proc/sys/net/ipv6/conf/vpn0/disable_ipv6)" = 1 ] ||
  e2e_fail "IPv6 is still on for vpn0"
[ "$(e2e_session_counter "$dir" alice drop_ipv6)" = 0 ] || e2e_fail "IPv6 reached the server"
close_notify_of() {
  ctl list-clients --json | jq -r --arg u "$1" '.[] | select(.username == $u) | .close_notify'
}
[ "$(close_notify_of alice)" = true ] || e2e_fail "alice's client did not take the close extension"
for f in rx_bytes tx_bytes; do
  v=$(e2e_session_counter "$dir" alice $f)
  [ "$v" != none ] && [ "$v" -gt 0 ] || e2e_fail "list-clients $f = $v"
done

# 1. Kick: noticed at once, back within a few seconds.
t0=$(date +%s)
ctl kick alice >/dev/null
e2e_wait_for 3 grep -q "session ended: the server ended the session: kicked by the operator" \
  "$E2E_DIR/alice.log" || e2e_fail "alice's client did not hear the kick"
e2e_wait_for 3 grep -q "'alice' .* disconnected: kicked by the operator" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the kick"
e2e_wait_for 8 sh -c "[ \$(grep -c \"connected as 'alice'\" '$E2E_DIR/server.log') -ge 2 ]" ||
  e2e_fail "alice did not reconnect within 8 s"
e2e_wait_for 5 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" >/dev/null ||
  e2e_fail "alice's tunnel is not back"
e2e_log "kick noticed and recovered in $(( $(date +%s) - t0 )) s"

# 2. Disable: the client stops with an error; logins are refused until enabled.
ctl disable-user alice >/dev/null
e2e_wait_exit alice 5
[ "$E2E_RC" = 1 ] || e2e_fail "alice's client did not stop after disable-user (exit $E2E_RC)"
grep -q "the server disabled user 'alice'" "$E2E_DIR/alice.log" ||
  e2e_fail "alice's client does not say it was disabled"
grep -q "disconnected: the user was disabled" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the disable"
ctl list-clients --json | jq -e 'map(select(.username == "alice")) | length == 0' >/dev/null ||
  e2e_fail "alice still has a session"
grep -q "enabled 'alice'" <<<"$(ctl enable-user alice)" || e2e_fail "enable-user"
e2e_start_client alice2 "$NS_C" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice cannot log in after enable-user"

# A second client with the same dev and state in this namespace is turned away with a
# message that says so (and names the first one's PID).
e2e_bg dup "$NS_C" "$QELI" client "$link_a" --known-hosts "$dir/dup.known_hosts" \
  --device-id-file "$dir/dup.device-id" --state-dir "$dir/alice2.state"
e2e_wait_exit dup 10
[ "$E2E_RC" = 1 ] || e2e_fail "a second client with the same dev did not stop (exit $E2E_RC)"
grep -q "another qeli client is already running with dev = vpn0 in this network namespace" \
  "$E2E_DIR/dup.log" || e2e_fail "the second client's error is unclear"
grep -q "(PID $E2E_PID_alice2)" "$E2E_DIR/dup.log" || e2e_fail "the error does not name the PID"

# 3. A client without the extension hears nothing (0.7.16 behaviour).
QELI_DISABLE_EXTENSIONS=1 e2e_start_client bob "$NS_C2" "$dir" "$link_b"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "bob got no tunnel address"
[ "$(close_notify_of bob)" = false ] || e2e_fail "bob took the extension"
ctl kick bob >/dev/null
e2e_wait_for 3 grep -q "'bob' .* disconnected: kicked by the operator" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not end bob's session"
sleep 2
grep -q "the server ended the session" "$E2E_DIR/bob.log" &&
  e2e_fail "a client without the extension was sent a close frame"

# 4. A client stopped with SIGTERM says goodbye; one without the extension does not.
has_session() { ctl list-clients --json | jq -e --arg u "$1" 'any(.[]; .username == $u)' >/dev/null; }
no_session() { ! has_session "$1"; }
e2e_finish bob
QELI_DISABLE_EXTENSIONS=1 e2e_start_client bob2 "$NS_C2" "$dir" "$link_b"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "bob got no tunnel address again"
e2e_finish bob2
sleep 3
has_session bob || e2e_fail "a client without the extension ended its session on SIGTERM"
ctl kick bob >/dev/null
t0=$(date +%s%N)
e2e_finish alice2
e2e_wait_for 2 no_session alice ||
  e2e_fail "alice's session is still listed 2 s after her client stopped"
e2e_log "client goodbye: session gone in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
grep -q "'alice' .* disconnected: the client is stopping" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not say the client is stopping"
e2e_start_client alice3 "$NS_C" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice cannot log in again"

# 5. The server stops: the client that can hear it is told.
e2e_finish server
e2e_wait_for 3 grep -q "the server ended the session: the server is stopping" \
  "$E2E_DIR/alice3.log" || e2e_fail "alice's client was not told the server stops"
e2e_finish alice3
e2e_log "close notify ok"
