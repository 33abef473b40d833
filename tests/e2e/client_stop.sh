#!/usr/bin/env bash
# e2e: SIGTERM / SIGINT stop the client promptly (≤ 3 s) whatever it is doing, with exit
# code 0, and it undoes everything it created:
#   1. connected in full-tunnel mode (gateway = true: the server pinned via the current
#      path, then 0.0.0.0/1 and 128.0.0.0/1 through the TUN) — SIGINT; the routing table
#      is exactly what it was before and the TUN is gone;
#   2. connecting to a server that drops its SYNs (the connect timeout is 30 s) — SIGTERM;
#   3. waiting out its reconnect backoff after refused connections — SIGTERM.
# Usage: client_stop.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
e2e_add_user "$dir" alice alice-pass >/dev/null
key=$("$QELI" show-identity -c "$dir/server.conf" --identity-dir "$dir/identity" |
  grep -o '[0-9a-f]\{64\}' | head -1)
cat >"$dir/full.conf" <<CONF
[qeli]
server = $UL_S:$E2E_PORT
mode = fake-tls
user = alice
pass = alice-pass
key = $key
dev = vpn0
gateway = true
CONF
"$QELI" check-config --client "$dir/full.conf" >/dev/null || e2e_fail "full.conf rejected"

# stop_within NAME SIGNAL — signals the client and requires exit 0 within 3 s.
stop_within() {
  local var="E2E_PID_$1" t0
  t0=$(date +%s%N)
  kill "-$2" "${!var}"
  e2e_wait_exit "$1" 3
  [ "$E2E_RC" != running ] || e2e_fail "$1: still running 3 s after SIG$2"
  [ "$E2E_RC" -eq 0 ] || e2e_fail "$1: exit $E2E_RC after SIG$2"
  e2e_log "$1: SIG$2 → exit 0 in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
}

# 1. Connected, full tunnel.
ip -n "$NS_C" route add default via "$UL_S"
before=$(ip -n "$NS_C" -4 route show table all)
e2e_start_server server "$dir"
e2e_start_client full "$NS_C" "$dir" -c "$dir/full.conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "full tunnel: no address"
routes=$(ip -n "$NS_C" -4 route show)
for r in "0.0.0.0/1 dev vpn0" "128.0.0.0/1 dev vpn0" "$UL_S dev $VETH_C"; do
  grep -q "^$r" <<<"$routes" || e2e_fail "full tunnel: no route '$r' in:
$routes"
done
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "full tunnel: ping"
stop_within full INT
after=$(ip -n "$NS_C" -4 route show table all)
[ "$after" = "$before" ] || e2e_fail "routes not restored; before:
$before
after:
$after"
ip -n "$NS_C" link show vpn0 >/dev/null 2>&1 && e2e_fail "vpn0 left behind"

# 2. Connecting to a server that never answers.
ip netns exec "$NS_S" nft -f - <<NFT
table ip e2e_mute {
  chain in { type filter hook input priority 0; ip saddr $UL_C tcp dport $E2E_PORT drop; }
}
NFT
e2e_start_client mute "$NS_C" "$dir" -c "$dir/full.conf"
sleep 2
ss_out=$(ip netns exec "$NS_C" ss -tn state syn-sent)
grep -q "$UL_S:$E2E_PORT" <<<"$ss_out" || e2e_fail "the client is not in a connect: $ss_out"
stop_within mute TERM
ip netns exec "$NS_S" nft delete table ip e2e_mute

# 3. Backing off after refused connections (the server is gone).
e2e_finish server
e2e_start_client backoff "$NS_C" "$dir" -c "$dir/full.conf"
e2e_wait_for 10 sh -c "[ \$(grep -c 'reconnecting in' '$E2E_DIR/backoff.log') -ge 2 ]" ||
  e2e_fail "the client did not back off"
sleep 0.5
stop_within backoff TERM
[ "$(ip -n "$NS_C" -4 route show table all)" = "$before" ] || e2e_fail "routes changed"
e2e_finish
e2e_log "client stop ok"
