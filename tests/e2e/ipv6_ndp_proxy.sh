#!/usr/bin/env bash
# e2e: routing.ipv6.ndp_proxy — a routed IPv6 pool inside the uplink's on-link prefix (a
# VPS's /64), reached by the upstream router through Neighbor Discovery, with no route.
#
#   client ns ──veth (IPv4)── server ns ──$WAN_IF 2001:db8:f::1/64 ── far ns (the router)
#   (vpn0: 10.9.0.N,           qes0: 10.9.0.1                          $WAN_PEER_IF
#          2001:db8:f::1:N)          2001:db8:f::1:1/112               2001:db8:f::2/64, no
#                                                                      route to the pool
#
#   a. ndp_proxy = required, routing.ipv6.mode = route, inbound = open, pool.ipv6.cidr =
#      2001:db8:f::1:0/112: the server turns proxy_ndp on for $WAN_IF (only there); while
#      the client is connected the server's proxy table holds exactly its address and the
#      far host pings it (solicited on-link, answered by the server); the client gone,
#      the entry is gone and the far host's pings go unanswered; the server stopped,
#      proxy_ndp is back to 0.
#   b. a stale entry in the pool (a server that died) is removed at start.
#   c. a pool outside every on-link prefix (fd00:9::/112): `required` refuses to start with
#      the reason; `auto` starts and says it is not proxying.
#   d. check-config refuses ndp_proxy with nat66.
# Usage: ipv6_ndp_proxy.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
TUN_NET=10.9.0
source "$(dirname "$0")/lib.sh"
[ -d /proc/sys/net/ipv6 ] || e2e_fail "this kernel has no IPv6"
e2e_setup
e2e_add_wan_ns

POOL6=2001:db8:f::1:0/112
SRV_FAR6=2001:db8:f::1
FAR6=2001:db8:f::2
v6_of() { printf '2001:db8:f::1:%x' "${1##*.}"; }
proxy_ndp() { ip netns exec "$NS_S" sysctl -n "net.ipv6.conf.$1.proxy_ndp"; }
proxies() { ip -n "$NS_S" -6 neigh show proxy | awk '{print $1, $3}' | sort; }
far_ping() { ip netns exec "$NS_W" ping -6 -c 2 -i 0.3 -W 2 "$1" >/dev/null 2>&1; }

for ns in "$NS_S" "$NS_C" "$NS_W"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
ip netns exec "$NS_S" sysctl -qw "net.ipv6.conf.$WAN_IF.disable_ipv6=0"
ip netns exec "$NS_W" sysctl -qw "net.ipv6.conf.$WAN_PEER_IF.disable_ipv6=0"
ip -n "$NS_S" addr add "$SRV_FAR6/64" dev "$WAN_IF" nodad
ip -n "$NS_W" addr add "$FAR6/64" dev "$WAN_PEER_IF" nodad
e2e_wait_for 10 ip netns exec "$NS_S" ping -6 -c 1 -W 1 "$FAR6" || e2e_fail "no IPv6 between the server and the far host"
[ "$(proxy_ndp "$WAN_IF")" = 0 ] || e2e_fail "proxy_ndp is on before the server starts"

# ---- a.
dir="$E2E_DIR/a"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = $POOL6
routing.ipv6.mode = route
routing.ipv6.inbound = open
routing.ipv6.ndp_proxy = required"
e2e_add_user "$dir" erin erin-pass >/dev/null
conf=$(e2e_client_conf "$dir" erin erin erin-pass "gateway = true
dns = off
reconnect_base_delay = 1")
# b. an entry a dead server left in the pool, and one outside it that is not ours.
ip -n "$NS_S" -6 neigh add proxy 2001:db8:f::1:77 dev "$WAN_IF"
ip -n "$NS_S" -6 neigh add proxy 2001:db8:f::99 dev "$WAN_IF"
e2e_start_server server "$dir"
e2e_wait_for 10 grep -q "NDP proxy on $WAN_IF" "$E2E_DIR/server.log" || e2e_fail "a: no NDP proxy line in the log"
grep -q "removed 1 stale entries" "$E2E_DIR/server.log" || e2e_fail "b: the stale entry was not reported removed"
[ "$(proxy_ndp "$WAN_IF")" = 1 ] || e2e_fail "a: proxy_ndp is not on for $WAN_IF"
[ "$(proxy_ndp "$VETH_S")" = 0 ] || e2e_fail "a: proxy_ndp turned on for the client-side veth too"
[ "$(proxies)" = "2001:db8:f::99 $WAN_IF" ] || e2e_fail "b: proxy table after start: $(proxies)"
e2e_start_client erin "$NS_C" "$dir" -c "$conf"
cip=$(e2e_wait_tunnel 20 "$NS_C") || e2e_fail "a: the client got no tunnel"
cip6=$(v6_of "$cip")
e2e_wait_for 10 sh -c "ip -n '$NS_S' -6 neigh show proxy | grep -q '^$cip6 '" ||
  e2e_fail "a: no proxy entry for $cip6: $(proxies)"
[ "$(proxies)" = "$(printf '%s\n' "2001:db8:f::99 $WAN_IF" "$cip6 $WAN_IF" | sort)" ] ||
  e2e_fail "a: proxy table with the client: $(proxies)"
! ip -n "$NS_W" -6 route show | grep -q "1:0/112" || e2e_fail "a: the far host has a route to the pool"
e2e_wait_for 20 far_ping "$cip6" || e2e_fail "a: the far host cannot reach $cip6 on-link"
e2e_log "a: the far host reaches $cip6 through the server's NDP proxy on $WAN_IF"
e2e_finish erin
e2e_wait_for 10 sh -c "! ip -n '$NS_S' -6 neigh show proxy | grep -q '^$cip6 '" ||
  e2e_fail "a: the entry for $cip6 outlived the session: $(proxies)"
ip -n "$NS_W" -6 neigh flush dev "$WAN_PEER_IF"
! far_ping "$cip6" || e2e_fail "a: the far host still reaches $cip6 with the client gone"
e2e_finish server
[ "$(proxy_ndp "$WAN_IF")" = 0 ] || e2e_fail "a: proxy_ndp not put back at stop"
[ "$(proxies)" = "2001:db8:f::99 $WAN_IF" ] || e2e_fail "a: proxy table after stop: $(proxies)"

# ---- c. a pool no interface holds on-link.
dir="$E2E_DIR/c"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = fd00:9::/112
routing.ipv6.mode = route
routing.ipv6.ndp_proxy = required"
if timeout 20 ip netns exec "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
  --socket "$dir/control.sock" --usage-db "$dir/usage.db" >"$E2E_DIR/c-required.log" 2>&1; then
  e2e_fail "c: ndp_proxy = required started without an on-link prefix"
fi
grep -q "ndp_proxy = required: no interface has an on-link IPv6 prefix that holds pool.ipv6.cidr fd00:9::/112" \
  "$E2E_DIR/c-required.log" || e2e_fail "c: $(tail -3 "$E2E_DIR/c-required.log")"
sed -i 's/^routing.ipv6.ndp_proxy = required/routing.ipv6.ndp_proxy = auto/' "$dir/server.conf"
e2e_start_server server-auto "$dir"
e2e_wait_for 10 grep -q "ndp_proxy = auto: no interface has an on-link IPv6 prefix" "$E2E_DIR/server-auto.log" ||
  e2e_fail "c: auto did not say it is not proxying"
[ "$(proxy_ndp "$WAN_IF")" = 0 ] || e2e_fail "c: auto turned proxy_ndp on without an on-link prefix"
e2e_finish server-auto

# ---- d.
sed -i 's/^routing.ipv6.mode = route/routing.ipv6.mode = nat66/' "$dir/server.conf"
if "$QELI" check-config -c "$dir/server.conf" >"$E2E_DIR/d.log" 2>&1; then e2e_fail "d: check-config accepted ndp_proxy with nat66"; fi
grep -q "routing.ipv6.ndp_proxy.*use routing.ipv6.mode = route" "$E2E_DIR/d.log" || e2e_fail "d: $(cat "$E2E_DIR/d.log")"
e2e_log "ipv6_ndp_proxy ok"
