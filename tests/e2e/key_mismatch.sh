#!/usr/bin/env bash
# e2e: a changed server key stops the client. Two cases, one after the other:
#   pinned — alice, pinned by the key in her qeli:// link (the default static-bound KDF);
#   tofu   — bob, from a config without `key` (server `bind_static_to_session = false`,
#            client `bind_static = false`), pinned on first use in his known_hosts;
# each connects and carries a ping; the profile's identity is rotated and the server
# restarts; the client must stop with "SERVER KEY MISMATCH" and a non-zero exit, never
# authenticate to the new key, leave no TUN, and (tofu) keep the old pin.
# Usage: key_mismatch.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

public_key() {
  "$QELI" show-identity -c "$1/server.conf" --identity-dir "$1/identity" |
    grep -o '[0-9a-f]\{64\}' | head -1
}

# run_case NAME CLIENT_ARGS... — the server config in $E2E_DIR/NAME must exist.
run_case() {
  local name=$1 dir="$E2E_DIR/$1"
  shift
  e2e_start_server "server-$name" "$dir"
  e2e_start_client "$name" "$NS_C" "$dir" "$@"
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "$name: no tunnel address"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$name: ping through the tunnel"

  e2e_finish "server-$name"
  "$QELI" rotate-identity e2e -c "$dir/server.conf" --identity-dir "$dir/identity" >/dev/null ||
    e2e_fail "rotate-identity"
  e2e_start_server "server-$name-rotated" "$dir"
  e2e_wait_exit "$name" 15
  local rc=$E2E_RC
  [ "$rc" != running ] || e2e_fail "$name: still running 15 s after the key changed"
  [ "$rc" -ne 0 ] || e2e_fail "$name: exited 0 on a key mismatch"
  grep -q "SERVER KEY MISMATCH" "$E2E_DIR/$name.log" || e2e_fail "$name: no SERVER KEY MISMATCH"
  grep -q "connected as" "$E2E_DIR/server-$name-rotated.log" &&
    e2e_fail "$name: authenticated to the new key"
  ip -n "$NS_C" link show vpn0 >/dev/null 2>&1 && e2e_fail "$name: left vpn0 behind"
  e2e_finish "server-$name-rotated"
  e2e_log "$name: exit $rc, $(grep -o 'SERVER KEY MISMATCH.*' "$E2E_DIR/$name.log")"
}

# Pinned by the link.
e2e_server_conf "$E2E_DIR/pinned" fake-tls
link=$(e2e_add_user "$E2E_DIR/pinned" alice alice-pass)
run_case pinned "$link"

# Trust on first use.
dir="$E2E_DIR/tofu"
e2e_server_conf "$dir" fake-tls
sed -i '/^\[auth\]/a bind_static_to_session = false' "$dir/server.conf"
e2e_add_user "$dir" bob bob-pass >/dev/null
old_key=$(public_key "$dir")
cat >"$dir/bob.conf" <<CONF
[qeli]
server = $UL_S:$E2E_PORT
mode = fake-tls
user = bob
pass = bob-pass
bind_static = false
dev = vpn0
CONF
"$QELI" check-config --client "$dir/bob.conf" >/dev/null || e2e_fail "bob.conf rejected"
run_case tofu -c "$dir/bob.conf"
grep -qx "$UL_S:$E2E_PORT $old_key" "$dir/tofu.known_hosts" ||
  e2e_fail "known_hosts lost the first-use pin: $(cat "$dir/tofu.known_hosts")"
[ "$(wc -l <"$dir/tofu.known_hosts")" -eq 1 ] || e2e_fail "known_hosts was appended to"
e2e_finish
e2e_log "key mismatch ok"
