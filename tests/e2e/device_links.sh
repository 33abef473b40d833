#!/usr/bin/env bash
# e2e: device links (`qeli add-device`; docs/OPERATIONS.md "Device links"). Alice has her
# password link and two device links; each device link carries a credential generated
# for that device only (the users file keeps an Argon2id hash, never the credential).
#
#   * the phone's link gets a tunnel; so does the laptop's from a client speaking 0.7.16's
#     wire (QELI_DISABLE_EXTENSIONS=1): the link is a plain user:password link to it;
#   * revoke-device ends the phone's live session at once and its link no longer logs in
#     ("unknown or revoked device"); the laptop's link and alice's password still work;
#   * passwd (a new user password) leaves the laptop's device session alone.
#
# Usage: device_links.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls ""
pw_link=$(e2e_add_user "$dir" alice alice-pass)
add_device() {  # NAME — prints the device's link; its id in $E2E_DIR/NAME.id
  "$QELI" add-device alice --name "$1" -c "$dir/server.conf" --identity-dir "$dir/identity" \
    --host "$UL_S:$E2E_PORT" --link-profile e2e --no-qr --socket "$dir/control.sock" \
    >"$E2E_DIR/add-$1.out" 2>&1 || e2e_fail "add-device $1: $(cat "$E2E_DIR/add-$1.out")"
  grep -o 'revoke-device alice [0-9a-f]*' "$E2E_DIR/add-$1.out" | awk '{print $3}' >"$E2E_DIR/$1.id"
  grep '^qeli://' "$E2E_DIR/add-$1.out" || e2e_fail "add-device $1 printed no link"
}
# stop NAME — a client that may already have stopped by itself (a revoked or refused
# credential makes it give up): stopped either way, exit code not judged.
stop() {
  local var="E2E_PID_${1//-/_}"
  kill -TERM "${!var}" 2>/dev/null || true
  e2e_wait_exit "$1" 10
}
phone_link=$(add_device phone)
laptop_link=$(add_device laptop)
phone_id=$(cat "$E2E_DIR/phone.id")
case "$phone_link" in qeli://alice:qd1.$phone_id.*) ;; *) e2e_fail "phone link: $phone_link" ;; esac
cred=${phone_link#qeli://alice:}
cred=${cred%%@*}
! grep -q "$cred" "$dir/users.conf" || e2e_fail "the device credential is in the users file"
grep -qF "device.$phone_id = phone \$argon2id\$v=19" "$dir/users.conf" || e2e_fail "no hash line"
[ "$("$QELI" list-devices alice -c "$dir/server.conf" --json | jq length)" = 2 ] ||
  e2e_fail "list-devices: $("$QELI" list-devices alice -c "$dir/server.conf")"

e2e_start_server server "$dir"
e2e_start_client phone "$NS_C" "$dir" "$phone_link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "the phone link got no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping over the phone link"
QELI_DISABLE_EXTENSIONS=1 e2e_start_client laptop "$NS_C2" "$dir" "$laptop_link"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "the laptop link got no tunnel (0.7.16 wire)"

# Revoke the phone: its session ends now; the laptop's stays.
"$QELI" revoke-device alice "$phone_id" -c "$dir/server.conf" --socket "$dir/control.sock" \
  >"$E2E_DIR/revoke.out" 2>&1 || e2e_fail "revoke-device: $(cat "$E2E_DIR/revoke.out")"
e2e_wait_for 10 grep -q "ending the session of 'alice': device revoked" "$E2E_DIR/server.log" ||
  e2e_fail "the phone's session did not end on revoke"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "the laptop's session did not survive the phone's revoke"
stop phone
e2e_start_client phone-again "$NS_C" "$dir" "$phone_link"
e2e_wait_for 15 grep -q "rejected: unknown or revoked device $phone_id (user 'alice')" \
  "$E2E_DIR/server.log" || e2e_fail "the revoked link was not refused"
stop phone-again

# A new password for alice: password sessions end, the laptop's device session does not.
"$QELI" passwd alice -c "$dir/server.conf" --socket "$dir/control.sock" >/dev/null 2>&1 ||
  e2e_fail "passwd"
sleep 1
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "passwd ended the laptop's device session"
e2e_finish laptop

# The password link (before passwd) is refused; the laptop link works from NS_C too.
e2e_start_client laptop2 "$NS_C" "$dir" "$laptop_link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "the laptop link from another host"
e2e_finish laptop2 server
e2e_log "device links ok (password link was $pw_link)"
