#!/usr/bin/env bash
# e2e: host integration of a full-tunnel client with the kill switch and DNS, and a NAT
# server, in three namespaces:
#
#   client ns ──veth── server ns ──veth── wan ns ($WAN_IP, "the internet")
#
#   1. client connects (gateway = true, kill_switch = true, dns = tunnel): systemd-resolved
#      is absent, so its resolv.conf names the tunnel resolver; the wan host answers
#      through the tunnel (server NAT); exactly one kill-switch table exists on the
#      client, one NAT table on the server;
#   2. kill -9 of the client: the kill switch still holds (no route out, nothing leaks),
#      `qeli client --cleanup` restores resolv.conf byte for byte and removes the table;
#   3. a clean start + SIGTERM leaves the client as it was before;
#   4. kill -9 of the server and a restart: still exactly one qeli NAT table.
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
e2e_setup

PORT=4434
TUN_NET=10.78.0
dir=$E2E_DIR/hi
mkdir -p "$dir/identity" "$dir/state"
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT
e2e_add_wan_ns
# The client's underlay has a default route (so a full tunnel has something to replace).
ip -n "$NS_C" route add default via "$UL_S"

# The client namespace gets its own /etc/resolv.conf (ip netns exec bind-mounts it).
mkdir -p "/etc/netns/$NS_C"
printf '# the host resolver\nnameserver 192.0.2.53\noptions edns0\n' >"/etc/netns/$NS_C/resolv.conf"
cp "/etc/netns/$NS_C/resolv.conf" "$dir/resolv.orig"

cat >"$dir/server.conf" <<CONF
[auth]
users_file = users.conf
identity_dir = identity
[profile:hi]
bind.address = $UL_S
bind.port = $PORT
tun.name = qehi0
tun.address = $TUN_NET.1
pool.cidr = $TUN_NET.0/24
routing.nat.enabled = true
routing.nat.interface = $WAN_IF
dns.push_servers = $TUN_NET.1
obf.mode = fake-tls
CONF
: >"$dir/users.conf"
echo "pw-hi" | "$QELI" add-client carol --password-stdin -c "$dir/server.conf" >/dev/null
# The identity dir comes from the config (auth.identity_dir, relative to it) for every
# command; show-identity creates the key there (as the server would at its start).
key=$("$QELI" show-identity -c "$dir/server.conf" | grep -Eo '[0-9a-f]{64}' | head -1)
[ -n "$key" ] || e2e_fail "no server key"
cat >"$dir/client.conf" <<CONF
[qeli]
server = $UL_S:$PORT
user = carol
pass = pw-hi
key = $key
mode = fake-tls
dev = vpnhi
gateway = true
kill_switch = true
dns = tunnel
reconnect_base_delay = 1
CONF
"$QELI" check-config --client "$dir/client.conf" >/dev/null || e2e_fail "client.conf rejected"

start_server() { e2e_bg server "$NS_S" "$QELI" server -c "$dir/server.conf" --socket ""; }
start_client() { e2e_bg client "$NS_C" ${E2E_WRAP:-} "$QELI" client -c "$dir/client.conf" --state-dir "$dir/state"; }
nat_tables() { ip netns exec "$NS_S" nft list tables | grep -c 'qeli_nat_' || true; }
ks_tables() { ip netns exec "$NS_C" nft list tables | grep -c 'qeli_ks_vpnhi' || true; }
resolv_now() { ip netns exec "$NS_C" cat /etc/resolv.conf; }

start_server
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':$PORT '" || e2e_fail "server did not listen"
[ "$(nat_tables)" = 1 ] || e2e_fail "expected one NAT table, got $(nat_tables)"

# 1. connected, full tunnel: DNS, NAT to the wan host, one kill-switch table.
start_client
e2e_wait_for 15 ip netns exec "$NS_C" ping -c 1 -W 1 "$WAN_IP" || e2e_fail "wan host unreachable through the tunnel"
grep -q "nameserver $TUN_NET.1" <<<"$(resolv_now)" || e2e_fail "resolv.conf does not name the tunnel resolver: $(resolv_now)"
# No systemd-resolved here: the client must say it took the resolv.conf path, and why.
grep -q "DNS: systemd-resolved is not running: resolv.conf takeover from the server's push" \
  "$E2E_DIR/client.log" || e2e_fail "the client did not report the resolv.conf DNS path"
[ "$(ks_tables)" = 1 ] || e2e_fail "expected one kill-switch table"
grep -q vpnhi <<<"$(ip netns exec "$NS_C" ip route get "$WAN_IP")" || e2e_fail "wan traffic does not use the tunnel"
e2e_log "1: full tunnel, DNS and NAT ok"

# 2. kill -9: the host stays locked (no leak), --cleanup restores it.
kill -KILL "$E2E_PID_client"
sleep 0.5
[ "$(ks_tables)" = 1 ] || e2e_fail "kill switch gone after kill -9"
if ip netns exec "$NS_C" ping -c 1 -W 1 "$WAN_IP" >/dev/null 2>&1; then e2e_fail "traffic leaked with the tunnel down"; fi
ip netns exec "$NS_C" ping -c 1 -W 2 "$UL_S" >/dev/null || e2e_fail "the server must stay reachable under the kill switch"
ip netns exec "$NS_C" "$QELI" client -c "$dir/client.conf" --state-dir "$dir/state" --cleanup >/dev/null 2>&1 ||
  e2e_fail "--cleanup failed"
[ "$(ks_tables)" = 0 ] || e2e_fail "--cleanup left the kill-switch table"
cmp -s <(resolv_now) "$dir/resolv.orig" || e2e_fail "resolv.conf not restored by --cleanup: $(resolv_now)"
e2e_log "2: kill -9 kept the kill switch; --cleanup restored the host"

# 3. clean start and SIGTERM leave nothing behind.
start_client
e2e_wait_for 15 ip netns exec "$NS_C" ping -c 1 -W 1 "$WAN_IP" || e2e_fail "no tunnel on restart"
e2e_stop client
[ "$(ks_tables)" = 0 ] || e2e_fail "kill switch left after a clean stop"
cmp -s <(resolv_now) "$dir/resolv.orig" || e2e_fail "resolv.conf not restored after SIGTERM"
grep -q "0.0.0.0/1\|128.0.0.0/1" <<<"$(ip netns exec "$NS_C" ip route)" && e2e_fail "full-tunnel routes left"
e2e_log "3: clean stop restored the host"

# 4. kill -9 of the server, restart: exactly one NAT table.
kill -KILL "$E2E_PID_server"
sleep 0.5
start_server
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':$PORT '" || e2e_fail "server restart"
[ "$(nat_tables)" = 1 ] || e2e_fail "after kill -9 + restart: $(nat_tables) NAT tables"
e2e_stop server
[ "$(nat_tables)" = 0 ] || e2e_fail "NAT table left after a clean server stop"
e2e_log "4: one NAT table across a server crash; none after a clean stop"
echo "host integration: all checks passed"
