#!/usr/bin/env bash
# e2e: the client's state and lifecycle findings of the trial (issue 13).
#
#   1. two clients of one user with different `dev` in one namespace (one state dir, no
#      --device-id-file): each has its own device id, so neither supersedes the other;
#   2. a client started from a file + link with the kill switch and a custom --state-dir
#      is killed with SIGKILL; `qeli client --cleanup` WITHOUT arguments finds its state
#      (the registry) and undoes the pinned route and the kill switch, exit 0;
#      `--cleanup` with nothing to do says so and exits 0 too;
#   3. the reconnect back-off starts over after every AUTH OK: four quick server restarts
#      in a row, the fourth reconnect is as quick as the first;
#   4. a running client resolves the server's name again before reconnecting: the name
#      moves to another address of the server and the client follows;
#   5. without CAP_NET_ADMIN, client and server say which privilege is missing.
# Usage: client_state.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT
export QELI_RUN_DIR="$E2E_DIR/run"  # the client registry (never the host's /run/qeli)

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls 'perf.connection.new_session_rate_max = 1000'
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
connected() { grep -c "connected as 'alice'" "$E2E_DIR/$1.log" || true; }

# --- 1. two devs, one namespace, one state dir --------------------------------------
two() {
  e2e_bg "$1" "$NS_C" "$QELI" client -c "$dir/$1.conf" "$link" --known-hosts "$dir/kh" \
    --state-dir "$dir/shared.state" --status-socket "$dir/$1.sock"
}
printf '[qeli]\ndev = vpna\n' >"$dir/a.conf"
printf '[qeli]\ndev = vpnb\n' >"$dir/b.conf"
two a
e2e_wait_tunnel 15 "$NS_C" vpna >/dev/null || e2e_fail "a: no tunnel"
two b
e2e_wait_tunnel 15 "$NS_C" vpnb >/dev/null || e2e_fail "b: no tunnel"
sleep 4
grep -q "superseded" "$E2E_DIR/server.log" && e2e_fail "the two devs share a device id"
[ "$(connected server)" = 2 ] || e2e_fail "expected 2 sessions, saw $(connected server) connects"
grep -q . <<<"$(e2e_tunnel_ip "$NS_C" vpna)" || e2e_fail "a lost its tunnel"
# Per dev and namespace: device-id-<dev>@<netns name>.
ls "$dir/shared.state/device-id-vpna@$NS_C" "$dir/shared.state/device-id-vpnb@$NS_C" >/dev/null ||
  e2e_fail "no per-dev device ids: $(ls "$dir/shared.state")"
e2e_finish a b
e2e_log "1: two devs in one namespace keep their sessions"

# --- 2. --cleanup after SIGKILL, however the client was started --------------------
ip -n "$NS_C" route add default via "$UL_S"
printf '[qeli]\ndev = ksv0\ngateway = true\nkill_switch = true\n' >"$dir/ks.conf"
e2e_start_client ks "$NS_C" "$dir" -c "$dir/ks.conf" "$link"
e2e_wait_tunnel 15 "$NS_C" ksv0 >/dev/null || e2e_fail "ks: no tunnel"
grep -q qeli_ks_ksv0 <<<"$(ip netns exec "$NS_C" nft list tables)" || e2e_fail "ks: no kill switch"
kill -KILL "$E2E_PID_ks"
sleep 0.5
grep -q qeli_ks_ksv0 <<<"$(ip netns exec "$NS_C" nft list tables)" || e2e_fail "the kill switch went with the process"
out=$(ip netns exec "$NS_C" "$QELI" client --cleanup 2>&1) || e2e_fail "--cleanup failed: $out"
grep -q qeli_ks_ksv0 <<<"$(ip netns exec "$NS_C" nft list tables)" &&
  e2e_fail "--cleanup left the kill switch: $out"
grep -q . <<<"$(ip -n "$NS_C" route show proto 113 2>/dev/null)" && e2e_fail "--cleanup left routes"
grep -q "undid [1-9]" <<<"$(echo "$out")" || e2e_fail "--cleanup does not say what it undid: $out"
ip netns exec "$NS_C" ping -c 1 -W 2 "$UL_S" >/dev/null || e2e_fail "the host is still offline"
out=$(ip netns exec "$NS_C" "$QELI" client --cleanup 2>&1) || e2e_fail "an idle --cleanup failed"
grep -q "undid 0 change(s)" <<<"$(echo "$out")" || e2e_fail "an idle --cleanup: $out"
ip -n "$NS_C" route del default via "$UL_S"
e2e_log "2: --cleanup without arguments undid the crashed client's kill switch and routes"

# --- 3. the back-off starts over after every AUTH OK --------------------------------
e2e_start_client r "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "r: no tunnel"
took=0
for i in 1 2 3 4; do
  e2e_stop server
  before=$(grep -c "connected to" "$E2E_DIR/r.log")
  t0=$(date +%s%N)
  e2e_start_server server "$dir"
  e2e_wait_for 20 sh -c "[ \$(grep -c 'connected to' '$E2E_DIR/r.log') -gt $before ]" ||
    e2e_fail "restart $i: no reconnect"
  took=$(( ($(date +%s%N) - t0) / 1000000 ))
  e2e_log "restart $i: reconnected after $took ms"
done
[ "$took" -lt 5000 ] || e2e_fail "the fourth reconnect took $took ms: the back-off kept growing"
e2e_finish r

# --- 4. the server's name moves --------------------------------------------------------
mkdir -p "/etc/netns/$NS_C"
printf '%s qeli-e2e-server\n' "$UL_S" >"/etc/netns/$NS_C/hosts"
named=${link/@$UL_S:/@qeli-e2e-server:}
e2e_start_client n "$NS_C" "$dir" "$named"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "n: no tunnel by name"
e2e_stop server
ip -n "$NS_S" addr add "$UL_NET.3/24" dev "$VETH_S"
printf '%s qeli-e2e-server\n' "$UL_NET.3" >"/etc/netns/$NS_C/hosts"  # same inode: seen at once
sed -i "s/^bind.address = .*/bind.address = $UL_NET.3/" "$dir/server.conf"
e2e_bg server-moved "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
  --socket "$dir/control.sock"
e2e_wait_for 20 grep -q "connected as 'alice'" "$E2E_DIR/server-moved.log" ||
  e2e_fail "the client never followed the name to $UL_NET.3: $(tail -3 "$E2E_DIR/n.log")"
grep -q "qeli-e2e-server now resolves to $UL_NET.3" "$E2E_DIR/n.log" || e2e_fail "n: not logged"
e2e_finish n server-moved
e2e_log "4: the client followed the server's name to its new address"

# --- 5. privileges ------------------------------------------------------------------
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
out=$(as_nobody "$QELI" client "$link" 2>&1) && e2e_fail "the client ran without privileges"
grep -q "qeli client needs CAP_NET_ADMIN to create the TUN device" <<<"$(echo "$out")" ||
  e2e_fail "client without CAP_NET_ADMIN: $out"
out=$(as_nobody "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" --socket "" 2>&1) &&
  e2e_fail "the server ran without privileges"
grep -q "qeli server needs CAP_NET_ADMIN to create the TUN devices" <<<"$(echo "$out")" || e2e_fail "server without CAP_NET_ADMIN: $out"
e2e_log "client_state ok"
