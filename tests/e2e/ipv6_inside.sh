#!/usr/bin/env bash
# e2e: IPv6 inside the tunnel (a negotiated extension; the outer path stays IPv4 here).
# Four namespaces (netns.sh, plus e2e_add_wan_ns as the "far" host and e2e_add_client_ns 2):
#
#   client ns  ──veth (IPv4)── server ns ──veth── far ns (NS_W)
#   (vpn0: 10.9.0.N,           qes0: 10.9.0.1      $WAN_IF 2001:db8:f::1/64
#          fd00:9::N/64)             fd00:9::1/64  $WAN_PEER_IF 2001:db8:f::2/64 (iperf3 -s)
#   client ns 2 ──veth── server ns   (IPv4 172.18.0.0/24 and IPv6 fd00:c2::/64 underlay; its
#                                     own IPv6 default route goes to the far host outside
#                                     any tunnel, through the server ns)
#
# The profile has pool.cidr = 10.9.0.0/24 beside pool.ipv6.cidr = fd00:9::/64 and NAT out
# of $WAN_IF; the server, not this script, turns IPv6 forwarding on. The far host counts
# the echo requests it gets per source (an nft counter: no tcpdump).
#
#   a. TCP (fake-tls), full tunnel, NAT66: the server's TUN has fd00:9::1/64, the client
#      given 10.9.0.N has fd00:9::N/64 on vpn0 (list-clients: tunnel_ip6) and ::/1 +
#      8000::/1 through it; ping6 both ways in the tunnel and to the far host (which sees
#      the server's 2001:db8:f::1, never the pool); iperf3 -6 to the far host up and down
#      (-R) carries data; the session took the GSO super-packet extension and dropped no
#      super-packet (drop_bad_gso 0);
#   b. the same over UDP (fake-tls), routing.ipv6.mode left at its default (nat66);
#   c. a client with QELI_DISABLE_EXTENSIONS=1 (the 0.7.16 wire), full tunnel, in client
#      ns 2: IPv4 works, no fd00:9:: (nor any global IPv6) address on its TUN and no
#      tunnel_ip6 in list-clients, ::/1 and 8000::/1 unreachable, and the far host —
#      reachable from that namespace before and after, outside the tunnel — is not
#      reachable over IPv6 while it runs;
#   d. source check: b's client adds fd00:9::99/128 to vpn0; a ping6 from it to fd00:9::1
#      gets no answer, the server counts drop_bad_source and nothing from it enters the
#      server's stack (an nft counter in prerouting), while a ping6 from fd00:9::N does;
#   e. routing.ipv6.mode = route (TCP, forwarding reset to 0 first: the server turns it on
#      again): the far host, with a route to fd00:9::/64 via 2001:db8:f::1, pings the
#      client's fd00:9::N, and sees the client's own address as the source of its pings
#      and of an iperf3 connection (no masquerade);
#   f. split tunnel (gateway = false) in client ns 2: fd00:9::M/64 on vpn0 and the pool's
#      /64 through it, but no ::/1 or 8000::/1 (neither through the TUN nor unreachable);
#      ping6 fd00:9::1 works; `include = <far host>`: that /128 goes through the TUN (the
#      far host sees the pool address), a neighbour of it does not; the profile's
#      `route = 2001:db8:e::/48 metric=70` (pushed as x_routes6) goes through vpn0;
#   g. `ipv6 = false`, full tunnel, `exclude = 2001:db8:f::/64`: no IPv6 on vpn0, IPv6
#      unreachable except the excluded network, reached outside the tunnel;
#   h. dns.enabled + dns.listen_ipv6 = auto (the upstream: tools/dns_upstream.py on the
#      far host's IPv4 address), split tunnel with `dns` at its default: the proxy listens
#      on [fd00:9::1]:53 too, the client's resolv.conf names 10.9.0.1 and fd00:9::1 (the
#      pushed x_dns6) and routes fd00:9::1/128 through vpn0; dig @fd00:9::1 over UDP and
#      TCP from the client is answered; the far host (routed to the pool) asking the same
#      address gets nothing (dns_refused_source); an address outside the pool is refused
#      by check-config and start-up with the same message.
# Usage: ipv6_inside.sh QELI_BINARY   (E2E_SECONDS per iperf3 run, default 3)
set -euo pipefail
QELI=$(readlink -f "$1")
SECS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
TUN_NET=10.9.0
source "$(dirname "$0")/lib.sh"
[ -d /proc/sys/net/ipv6 ] || e2e_fail "this kernel has no IPv6"
e2e_setup
e2e_add_wan_ns
e2e_add_client_ns 2

POOL6=fd00:9::/64
SRV6=fd00:9::1         # the server's tunnel address (offset 1, as tun.address = 10.9.0.1)
SRV_FAR6=2001:db8:f::1 # the server's end toward the far host
FAR6=2001:db8:f::2     # the far host
C2_S6=fd00:c2::1       # client ns 2's IPv6 underlay (server end / client end)
C2_C6=fd00:c2::2
FORGED6=fd00:9::99
VETH_S2="qe${E2E_ID}s2"   # e2e_add_client_ns 2's veth ends
VETH_C2="qe${E2E_ID}c2p"

# ---- helpers
# ss_has NS FLAGS ERE — `ss FLAGS` in NS shows a line matching ERE.
ss_has() {
  local out
  out=$(ip netns exec "$1" ss "$2") || return 1
  grep -qE -- "$3" <<<"$out"
}

# v6_of IPV4 — the pool's IPv6 address at the same host offset: 10.9.0.N → fd00:9::<N hex>.
v6_of() { printf 'fd00:9::%x' "${1##*.}"; }

# has_v6 NS DEV ADDR — ADDR/64 is on DEV in NS and no longer tentative (DAD done).
has_v6() {
  local out
  out=$(ip -n "$1" -6 -o addr show dev "$2" 2>/dev/null) || return 1
  grep -qF "inet6 $3/64 " <<<"$out" || return 1
  ! grep -qE "inet6 $3/64 .*tentative" <<<"$out"
}

# ping6_ok NS DST [SRC] — three quick IPv6 pings (from SRC if given) must all answer.
ping6_ok() {
  local src=()
  [ -z "${3:-}" ] || src=(-I "$3")
  ip netns exec "$1" ping -6 -c 3 -i 0.2 -W 2 "${src[@]}" "$2" >/dev/null 2>&1
}

# ping6_fails NS DST [SRC] — no IPv6 ping answers.
ping6_fails() {
  local src=()
  [ -z "${3:-}" ] || src=(-I "$3")
  ! ip netns exec "$1" ping -6 -c 3 -i 0.2 -W 1 "${src[@]}" "$2" >/dev/null 2>&1
}

# fwd6 — the server namespace's net.ipv6.conf.all.forwarding.
fwd6() { ip netns exec "$NS_S" sysctl -n net.ipv6.conf.all.forwarding; }

# routes6 NS — `ip -6 route show` in NS (all of the main table).
routes6() { ip -n "$1" -6 route show; }

# nft_count NS TABLE COUNTER — packets of a named nft counter.
nft_count() {
  local out
  out=$(ip netns exec "$1" nft -j list counter inet "$2" "$3") || return 1
  jq '[.nftables[] | .counter? // empty | .packets] | first' <<<"$out"
}
# counter_table NS TABLE HOOK PRIORITY NAME1 MATCH1 NAME2 MATCH2: two named nft counters
# on one hook (what reached a namespace, without a capture).
counter_table() {
  ip netns exec "$1" nft -f - <<NFT
table inet $2 {
  counter $5 { }
  counter $7 { }
  chain c {
    type filter hook $3 priority $4; policy accept;
    $6 counter name $5
    $8 counter name $7
  }
}
NFT
}
far_count() { nft_count "$NS_W" qe_far "$1"; }

# far_iperf LABEL NS SRC DIRECTIONS — an iperf3 server on the far host and `iperf3 -6` from
# NS for $SECS s in each direction (up, down = -R); each must move ≥ 1 Mbit/s (a delivery
# check, not a benchmark) and every connection the far host accepted must come from SRC.
# Sets IPERF_NOTE ("up 412 Mbit/s down 380 Mbit/s").
far_iperf() {
  local label=$1 ns=$2 want=$3 dirs=$4 d json mbit log="$E2E_DIR/iperf-$1.log" others
  IPERF_NOTE=""
  e2e_bg "iperf-$label" "$NS_W" iperf3 -s -B "$FAR6" -p 5201 --forceflush
  e2e_wait_for 10 ss_has "$NS_W" -ltn "\\[$FAR6\\]:5201 " || e2e_fail "$label: iperf3 -s did not listen on the far host"
  for d in $dirs; do
    local rev=()
    [ "$d" = down ] && rev=(-R)
    json=$(timeout $((SECS + 25)) ip netns exec "$ns" iperf3 -6 -c "$FAR6" -p 5201 -t "$SECS" \
      "${rev[@]}" --connect-timeout 5000 -J) ||
      e2e_fail "$label: iperf3 -6 $d to $FAR6 through the tunnel failed: $(jq -r '.error // empty' <<<"$json" 2>/dev/null)"
    mbit=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' <<<"$json")
    [ "$mbit" -ge 1 ] || e2e_fail "$label: iperf3 -6 $d moved only $mbit Mbit/s"
    IPERF_NOTE+="$d $mbit Mbit/s "
  done
  e2e_stop "iperf-$label"
  grep -q "Accepted connection from $want, port" "$log" ||
    e2e_fail "$label: the far host saw no connection from $want: $(grep Accepted "$log" || true)"
  others=$(awk -v w="$want," '/Accepted connection from/ && $4 != w' "$log")
  [ -z "$others" ] || e2e_fail "$label: the far host saw other sources than $want: $others"
}

# v6_client_checks LABEL NS DIR USER — the checks of cases a and b for USER's full-tunnel
# client with IPv6 in NS, server files in DIR (sets CIP, CIP6).
v6_client_checks() {
  local label=$1 ns=$2 dir=$3 user=$4 routes before after ip6
  CIP=$(e2e_wait_tunnel 20 "$ns") || e2e_fail "$label: the client got no tunnel"
  CIP6=$(v6_of "$CIP")
  e2e_wait_for 15 has_v6 "$ns" vpn0 "$CIP6" ||
    e2e_fail "$label: no $CIP6/64 on the client's vpn0 (client $CIP): $(ip -n "$ns" -6 addr show dev vpn0 2>&1)"
  routes=$(routes6 "$ns")
  grep -qE "^::/1 .*dev vpn0" <<<"$routes" || e2e_fail "$label: no ::/1 through vpn0: $routes"
  grep -qE "^8000::/1 .*dev vpn0" <<<"$routes" || e2e_fail "$label: no 8000::/1 through vpn0: $routes"
  if grep -q "^unreachable" <<<"$routes"; then e2e_fail "$label: unreachable IPv6 routes with IPv6 on: $routes"; fi
  ip6=$(e2e_session_counter "$dir" "$user" tunnel_ip6)
  [ "$ip6" = "$CIP6" ] || e2e_fail "$label: list-clients shows $user's tunnel_ip6 as '$ip6', want $CIP6"
  e2e_log "$label: $CIP and $CIP6/64 on vpn0, ::/1 and 8000::/1 through it"

  e2e_ping "$ns" "$TUN_NET.1" || e2e_fail "$label: IPv4 ping to $TUN_NET.1"
  ping6_ok "$ns" "$SRV6" || e2e_fail "$label: ping6 client → server ($SRV6)"
  ping6_ok "$NS_S" "$CIP6" || e2e_fail "$label: ping6 server → client ($CIP6)"
  before=$(far_count masq)
  ping6_ok "$ns" "$FAR6" || e2e_fail "$label: ping6 to the far host $FAR6 (NAT66)"
  after=$(far_count masq)
  [ "$after" -ge $((before + 3)) ] ||
    e2e_fail "$label: the far host counted $before → $after echo requests from $SRV_FAR6 (masquerade)"
  [ "$(far_count pool)" = 0 ] || e2e_fail "$label: the far host saw the pool's addresses (no masquerade?)"
  e2e_log "$label: ping6 $SRV6, $CIP6 from the server, $FAR6 (seen from $SRV_FAR6)"
  far_iperf "$label" "$ns" "$SRV_FAR6" "up down"
  e2e_log "$label: iperf3 -6 to $FAR6: $IPERF_NOTE(from $SRV_FAR6)"
}

# ---- topology
for ns in "$NS_S" "$NS_C" "$NS_C2" "$NS_W"; do
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0
done
ip netns exec "$NS_S" sysctl -qw "net.ipv6.conf.$WAN_IF.disable_ipv6=0" "net.ipv6.conf.$VETH_S2.disable_ipv6=0"
ip netns exec "$NS_W" sysctl -qw "net.ipv6.conf.$WAN_PEER_IF.disable_ipv6=0"
ip netns exec "$NS_C2" sysctl -qw "net.ipv6.conf.$VETH_C2.disable_ipv6=0"
ip -n "$NS_S" addr add "$SRV_FAR6/64" dev "$WAN_IF" nodad
ip -n "$NS_W" addr add "$FAR6/64" dev "$WAN_PEER_IF" nodad
ip -n "$NS_S" addr add "$C2_S6/64" dev "$VETH_S2" nodad
ip -n "$NS_C2" addr add "$C2_C6/64" dev "$VETH_C2" nodad
ip -n "$NS_C2" -6 route add default via "$C2_S6"
ip -n "$NS_W" -6 route add fd00:c2::/64 via "$SRV_FAR6"  # client ns 2, outside any tunnel
e2e_wait_for 10 ip netns exec "$NS_S" ping -6 -c 1 -W 1 "$FAR6" || e2e_fail "no IPv6 between the server and the far host"
e2e_wait_for 10 ip netns exec "$NS_C2" ping -6 -c 1 -W 1 "$C2_S6" || e2e_fail "no IPv6 between client ns 2 and the server"
counter_table "$NS_W" qe_far input filter masq "ip6 saddr $SRV_FAR6 icmpv6 type echo-request" \
  pool "ip6 saddr $POOL6 icmpv6 type echo-request"
fwd_before=$(fwd6)
e2e_log "topology up: far host $FAR6 behind the server's $SRV_FAR6; server ns IPv6 forwarding $fwd_before"

# ---- a. TCP carrier, full tunnel, NAT66.
e2e_log "case a: TCP (fake-tls), full tunnel, pool.ipv6.cidr = $POOL6, NAT66 out of $WAN_IF"
dir="$E2E_DIR/tcp"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = $POOL6
routing.ipv6.mode = nat66
routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
e2e_add_user "$dir" alice alice-pass >/dev/null
conf=$(e2e_client_conf "$dir" alice alice alice-pass "gateway = true
dns = off
reconnect_base_delay = 1")
e2e_start_server server-tcp "$dir"
e2e_wait_for 5 has_v6 "$NS_S" qes0 "$SRV6" ||
  e2e_fail "a: the server's TUN has no $SRV6/64: $(ip -n "$NS_S" -6 addr show dev qes0 2>&1)"
[ "$(fwd6)" = 1 ] || e2e_fail "a: the server did not turn IPv6 forwarding on (all.forwarding $(fwd6))"
e2e_log "a: server TUN qes0 has $SRV6/64; IPv6 forwarding $fwd_before → 1 (by the server)"
e2e_start_client alice "$NS_C" "$dir" -c "$conf"
v6_client_checks a "$NS_C" "$dir" alice
gso=$(e2e_session_counter "$dir" alice gso)
[ "$gso" = true ] || e2e_fail "a: the TCP session did not take the GSO super-packet extension (gso $gso)"
bad_gso=$(e2e_session_counter "$dir" alice drop_bad_gso)
[ "$bad_gso" = 0 ] || e2e_fail "a: drop_bad_gso $bad_gso after IPv6 bulk over TCP"
e2e_log "a: GSO super-packets on, drop_bad_gso 0 after the IPv6 runs"
e2e_finish alice server-tcp

# ---- b. UDP carrier, routing.ipv6.mode at its default (nat66).
e2e_log "case b: UDP (fake-tls), full tunnel, routing.ipv6.mode left at its default"
dir="$E2E_DIR/udp"
E2E_TRANSPORT=udp e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = $POOL6
routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
E2E_TRANSPORT=udp e2e_add_user "$dir" bob bob-pass >/dev/null
E2E_TRANSPORT=udp e2e_add_user "$dir" carol carol-pass >/dev/null
conf_b=$(e2e_client_conf "$dir" bob bob bob-pass "proto = udp
gateway = true
dns = off
reconnect_base_delay = 1")
conf_c=$(e2e_client_conf "$dir" carol carol carol-pass "proto = udp
gateway = true
dns = off
reconnect_base_delay = 1")
E2E_TRANSPORT=udp e2e_start_server server-udp "$dir"
e2e_wait_for 5 has_v6 "$NS_S" qes0 "$SRV6" || e2e_fail "b: the server's TUN has no $SRV6/64"
e2e_start_client bob "$NS_C" "$dir" -c "$conf_b"
v6_client_checks b "$NS_C" "$dir" bob
cip6_b=$CIP6

# ---- c. A client without extensions (the 0.7.16 wire): IPv4 only, IPv6 unreachable.
e2e_log "case c: QELI_DISABLE_EXTENSIONS=1, full tunnel, in client ns 2"
ping6_ok "$NS_C2" "$FAR6" || e2e_fail "c: the far host is not reachable from client ns 2 before the client (outside the tunnel)"
QELI_DISABLE_EXTENSIONS=1 e2e_start_client carol "$NS_C2" "$dir" -c "$conf_c"
cip_c=$(e2e_wait_tunnel 20 "$NS_C2") || e2e_fail "c: the extensions-off client got no tunnel"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "c: IPv4 ping to $TUN_NET.1 from the extensions-off client"
addrs=$(ip -n "$NS_C2" -6 addr show dev vpn0 2>&1 || true)
if grep -q "inet6 fd00:9:" <<<"$addrs"; then e2e_fail "c: the extensions-off client has a pool IPv6 address: $addrs"; fi
if grep -q "scope global" <<<"$addrs"; then e2e_fail "c: the extensions-off client's TUN has a global IPv6 address: $addrs"; fi
routes=$(routes6 "$NS_C2")
grep -q "^unreachable ::/1 " <<<"$routes" || e2e_fail "c: no unreachable ::/1 in full tunnel: $routes"
grep -q "^unreachable 8000::/1 " <<<"$routes" || e2e_fail "c: no unreachable 8000::/1 in full tunnel: $routes"
if grep -qE "^(::|8000::)/1 .*dev vpn0" <<<"$routes"; then e2e_fail "c: IPv6 routed into a tunnel without IPv6: $routes"; fi
ip6=$(e2e_session_counter "$dir" carol tunnel_ip6)
[ -z "$ip6" ] || e2e_fail "c: list-clients gives the extensions-off session an IPv6 address: $ip6"
ping6_fails "$NS_C2" "$FAR6" || e2e_fail "c: $FAR6 answered IPv6 from the extensions-off client in full tunnel"
if ip -n "$NS_C2" -6 route get "$FAR6" >/dev/null 2>&1; then
  e2e_fail "c: $FAR6 has a route: $(ip -n "$NS_C2" -6 route get "$FAR6")"
fi
e2e_log "c: $cip_c, IPv4 only (no IPv6 on vpn0), ::/1 and 8000::/1 unreachable, $FAR6 unreachable"
e2e_finish carol
e2e_wait_for 5 ping6_ok "$NS_C2" "$FAR6" || e2e_fail "c: $FAR6 still unreachable after the client stopped"
e2e_log "c: $FAR6 reachable again once the client stopped"

# ---- d. The server's source check for IPv6 (bob, from case b, still connected).
e2e_log "case d: a ping6 from $FORGED6 (not bob's address) into the tunnel"
counter_table "$NS_S" qe_probe prerouting raw forged "ip6 saddr $FORGED6" \
  real "ip6 saddr $cip6_b icmpv6 type echo-request"
ip -n "$NS_C" -6 addr add "$FORGED6/128" dev vpn0 nodad
before=$(e2e_session_counter "$dir" bob drop_bad_source)
[ "$before" != none ] || e2e_fail "d: list-clients shows no drop_bad_source for bob"
ping6_fails "$NS_C" "$SRV6" "$FORGED6" || e2e_fail "d: a ping6 from the forged source $FORGED6 was answered"
after=$(e2e_session_counter "$dir" bob drop_bad_source)
[ "$after" -ge $((before + 3)) ] ||
  e2e_fail "d: drop_bad_source $before → $after after 3 forged pings (did the server count them elsewhere, e.g. drop_ipv6 $(e2e_session_counter "$dir" bob drop_ipv6)?)"
forged=$(nft_count "$NS_S" qe_probe forged)
[ "$forged" = 0 ] || e2e_fail "d: $forged packet(s) from $FORGED6 reached the server's stack"
ping6_ok "$NS_C" "$SRV6" "$cip6_b" || e2e_fail "d: a ping6 from bob's own $cip6_b was not answered"
real=$(nft_count "$NS_S" qe_probe real)
[ "$real" -ge 3 ] || e2e_fail "d: the server's probe counted $real echo requests from $cip6_b (want ≥ 3)"
ip -n "$NS_C" -6 addr del "$FORGED6/128" dev vpn0
ip netns exec "$NS_S" nft delete table inet qe_probe
e2e_log "d: forged source dropped (drop_bad_source $before → $after, 0 in the server's stack); $cip6_b answered"
e2e_finish bob server-udp

# ---- e. routing.ipv6.mode = route: no masquerade, the far host routes to the pool.
e2e_log "case e: routing.ipv6.mode = route (TCP), the far host routes $POOL6 via $SRV_FAR6"
# Forwarding stays on after the NAT66 servers; back to 0 so that this server is seen to
# turn it on for route mode too (nothing here turns it on).
ip netns exec "$NS_S" sysctl -qw net.ipv6.conf.all.forwarding=0
ip -n "$NS_W" -6 route add "$POOL6" via "$SRV_FAR6"
dir="$E2E_DIR/route"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = $POOL6
routing.ipv6.mode = route
route = 2001:db8:e::/48 metric=70
routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
e2e_add_user "$dir" erin erin-pass >/dev/null
e2e_add_user "$dir" fred fred-pass >/dev/null
conf_e=$(e2e_client_conf "$dir" erin erin erin-pass "gateway = true
dns = off
reconnect_base_delay = 1")
conf_f=$(e2e_client_conf "$dir" fred fred fred-pass "dns = off
include = $FAR6
reconnect_base_delay = 1")
e2e_start_server server-route "$dir"
e2e_wait_for 5 has_v6 "$NS_S" qes0 "$SRV6" || e2e_fail "e: the server's TUN has no $SRV6/64"
[ "$(fwd6)" = 1 ] || e2e_fail "e: the route-mode server did not turn IPv6 forwarding on"
e2e_start_client erin "$NS_C" "$dir" -c "$conf_e"
cip_e=$(e2e_wait_tunnel 20 "$NS_C") || e2e_fail "e: the client got no tunnel"
cip6_e=$(v6_of "$cip_e")
e2e_wait_for 15 has_v6 "$NS_C" vpn0 "$cip6_e" || e2e_fail "e: no $cip6_e/64 on the client's vpn0"
masq_before=$(far_count masq)
pool_before=$(far_count pool)
ping6_ok "$NS_C" "$FAR6" || e2e_fail "e: ping6 client → far host $FAR6"
[ "$(far_count pool)" -ge $((pool_before + 3)) ] ||
  e2e_fail "e: the far host counted $pool_before → $(far_count pool) echo requests from the pool"
[ "$(far_count masq)" = "$masq_before" ] || e2e_fail "e: echo requests still masqueraded to $SRV_FAR6"
far_iperf e "$NS_C" "$cip6_e" up
e2e_log "e: the far host sees $cip6_e as the source (pings, iperf3 up $IPERF_NOTE)"
# routing.ipv6.inbound = stateful (the default): the client's real address takes no new
# connection from outside; `open` forwards them.
! ping6_ok "$NS_W" "$cip6_e" || e2e_fail "e: the far host reached $cip6_e with inbound = stateful"
e2e_stop server-route
echo "routing.ipv6.inbound = open" >>"$dir/server.conf"
e2e_start_server server-route "$dir"
e2e_wait_for 20 ping6_ok "$NS_W" "$cip6_e" ||
  e2e_fail "e: the far host cannot ping the client's $cip6_e with routing.ipv6.inbound = open"
e2e_log "e: the far host reaches the client's $cip6_e only with routing.ipv6.inbound = open"

# ---- f. Split tunnel: only the pool's /64 goes through the TUN.
e2e_log "case f: split tunnel (gateway = false) in client ns 2"
e2e_start_client fred "$NS_C2" "$dir" -c "$conf_f"
cip_f=$(e2e_wait_tunnel 20 "$NS_C2") || e2e_fail "f: the split-tunnel client got no tunnel"
cip6_f=$(v6_of "$cip_f")
e2e_wait_for 15 has_v6 "$NS_C2" vpn0 "$cip6_f" || e2e_fail "f: no $cip6_f/64 on the client's vpn0"
routes=$(routes6 "$NS_C2")
grep -qE "^fd00:9::/64 .*dev vpn0" <<<"$routes" || e2e_fail "f: no $POOL6 through vpn0: $routes"
if grep -qE "^(unreachable )?(::|8000::)/1 " <<<"$routes"; then e2e_fail "f: half-default IPv6 routes in a split tunnel: $routes"; fi
ping6_ok "$NS_C2" "$SRV6" || e2e_fail "f: ping6 $SRV6 from the split-tunnel client"
# The profile's IPv6 route line, pushed as x_routes6: through vpn0 with its metric.
grep -qE "^2001:db8:e::/48 .*dev vpn0 .*metric 70" <<<"$routes" ||
  e2e_fail "f: the pushed IPv6 route 2001:db8:e::/48 (metric 70) is not through vpn0: $routes"
# `include = $FAR6`: that host (only) goes through the tunnel; the far host sees the
# pool address (the route-mode server of case e).
route_far=$(ip -n "$NS_C2" -6 route get "$FAR6" 2>&1 || true)
grep -q "dev vpn0" <<<"$route_far" || e2e_fail "f: the included $FAR6 does not go through vpn0: $route_far"
route_other=$(ip -n "$NS_C2" -6 route get 2001:db8:f::3 2>&1 || true)
if grep -q "dev vpn0" <<<"$route_other"; then e2e_fail "f: 2001:db8:f::3 (not included) goes through the tunnel: $route_other"; fi
pool_before=$(far_count pool)
ping6_ok "$NS_C2" "$FAR6" || e2e_fail "f: ping6 to the included $FAR6 through the tunnel"
[ "$(far_count pool)" -ge $((pool_before + 3)) ] ||
  e2e_fail "f: the far host did not see the pings to the included $FAR6 come from the pool"
e2e_log "f: $cip6_f/64 on vpn0, $POOL6 and the included $FAR6 through it (seen from the pool); others outside"
e2e_finish fred

# ---- g. A client that declines IPv6 inside (`ipv6 = false`): IPv4 only, as with 0.7.16.
e2e_log "case g: ipv6 = false in client ns 2, full tunnel"
conf_g=$(e2e_client_conf "$dir" fred fred fred-pass "gateway = true
ipv6 = false
exclude = 2001:db8:f::/64
dns = off
reconnect_base_delay = 1")
e2e_start_client fred-g "$NS_C2" "$dir" -c "$conf_g"
cip_g=$(e2e_wait_tunnel 20 "$NS_C2") || e2e_fail "g: the client got no tunnel"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "g: IPv4 ping to $TUN_NET.1"
addrs=$(ip -n "$NS_C2" -6 addr show dev vpn0 2>&1 || true)
if grep -q "inet6" <<<"$addrs"; then e2e_fail "g: IPv6 on vpn0 with ipv6 = false: $addrs"; fi
grep -qE "^unreachable ::/1" <<<"$(routes6 "$NS_C2")" || e2e_fail "g: IPv6 not made unreachable"
# `exclude = 2001:db8:f::/64`: the far host stays reachable outside the tunnel (through the
# client's own IPv6 path), more specific than the unreachable halves; anything else is not.
ping6_ok "$NS_C2" "$FAR6" || e2e_fail "g: the excluded $FAR6 is not reachable outside the tunnel"
ping6_fails "$NS_C2" 2001:db8:e::1 || e2e_fail "g: IPv6 outside the excluded network leaked"
e2e_log "g: $cip_g, no IPv6 on vpn0, ::/1 unreachable but the excluded 2001:db8:f::/64 reachable outside"

e2e_finish fred-g erin server-route

# ---- h. The DNS proxy on the server's tunnel IPv6 address, pushed as x_dns6.
e2e_log "case h: dns.enabled + dns.listen_ipv6 = auto, split tunnel, dns at its default"
# The client namespace's own resolv.conf (ip netns exec bind-mounts it over /etc's).
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT
mkdir -p "/etc/netns/$NS_C"
printf 'nameserver 192.0.2.53\n' >"/etc/netns/$NS_C/resolv.conf"
up_log=$E2E_DIR/upstream.queries
e2e_dns_upstream "$up_log" --a www.e2e.test=192.0.2.10
dir="$E2E_DIR/dns6"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = $POOL6
dns.enabled = true
dns.listen_ipv6 = auto
dns.upstream = $WAN_IP"
e2e_add_user "$dir" gina gina-pass >/dev/null
conf_h=$(e2e_client_conf "$dir" gina gina gina-pass "reconnect_base_delay = 1")
e2e_start_server server-dns6 "$dir"
e2e_wait_for 5 grep -qF "DNS proxy on $TUN_NET.1:53 and [$SRV6]:53 (udp, tcp)" "$E2E_DIR/server-dns6.log" ||
  e2e_fail "h: the server did not start its DNS proxy on [$SRV6]:53: $(grep -i dns "$E2E_DIR/server-dns6.log")"
ss_has "$NS_S" -lun "\[$SRV6\]:53 " && ss_has "$NS_S" -ltn "\[$SRV6\]:53 " ||
  e2e_fail "h: no UDP and TCP socket on [$SRV6]:53: $(ip netns exec "$NS_S" ss -ltun)"
e2e_start_client gina "$NS_C" "$dir" -c "$conf_h"
cip_h=$(e2e_wait_tunnel 20 "$NS_C") || e2e_fail "h: the client got no tunnel"
e2e_wait_for 15 has_v6 "$NS_C" vpn0 "$(v6_of "$cip_h")" || e2e_fail "h: no IPv6 on the client's vpn0"
e2e_wait_for 5 grep -qx "nameserver $SRV6" "/etc/netns/$NS_C/resolv.conf" ||
  e2e_fail "h: the client's resolv.conf lacks the pushed IPv6 resolver: $(cat "/etc/netns/$NS_C/resolv.conf")"
grep -qx "nameserver $TUN_NET.1" "/etc/netns/$NS_C/resolv.conf" ||
  e2e_fail "h: the client's resolv.conf lacks the IPv4 resolver: $(cat "/etc/netns/$NS_C/resolv.conf")"
route=$(ip -n "$NS_C" -6 route show "$SRV6/128")
grep -q "dev vpn0" <<<"$route" || e2e_fail "h: no $SRV6/128 through vpn0 in the split tunnel: $(routes6 "$NS_C")"
stat_of() {
  "$QELI" stats --json --socket "$dir/control.sock" | jq -r --arg k "$1" '.[0][$k] // 0'
}
dig6() { ip netns exec "$1" dig +time=3 +tries=1 @"$SRV6" "${@:2}"; }
[ "$(dig6 "$NS_C" +short www.e2e.test)" = 192.0.2.10 ] || e2e_fail "h: dig @$SRV6 over UDP from the client"
[ "$(dig6 "$NS_C" +tcp +short www.e2e.test)" = 192.0.2.10 ] || e2e_fail "h: dig +tcp @$SRV6 from the client"
[ "$(stat_of dns_queries_udp)" -ge 1 ] && [ "$(stat_of dns_queries_tcp)" -ge 1 ] ||
  e2e_fail "h: queries not counted: $("$QELI" stats --socket "$dir/control.sock")"
[ "$(grep -c " www.e2e.test 1$" "$up_log")" = 1 ] || e2e_fail "h: the upstream saw: $(cat "$up_log")"
e2e_log "h: resolv.conf names $TUN_NET.1 and $SRV6 ($SRV6/128 via vpn0); dig @$SRV6 answered over UDP and TCP"
# A source outside the pool (the far host, routed to it) is dropped and counted.
ip -n "$NS_W" -6 route replace "$POOL6" via "$SRV_FAR6"
refused=$(stat_of dns_refused_source)
out=$(dig6 "$NS_W" +short www.e2e.test || true)
if grep -q 192.0.2.10 <<<"$out"; then e2e_fail "h: the far host $FAR6 got an answer from [$SRV6]:53"; fi
[ "$(stat_of dns_refused_source)" -gt "$refused" ] ||
  e2e_fail "h: dns_refused_source $refused → $(stat_of dns_refused_source) after a query from $FAR6"
e2e_log "h: a query from $FAR6 to [$SRV6]:53 dropped (dns_refused_source)"
e2e_finish gina server-dns6
e2e_stop upstream
# An address outside the IPv6 pool: the same message from check-config and start-up.
bad=$E2E_DIR/bad-dns6
mkdir -p "$bad"
sed 's/^dns.listen_ipv6 = .*/dns.listen_ipv6 = fd00:8::1/' "$dir/server.conf" >"$bad/server.conf"
cp "$dir/users.conf" "$bad/"
want="[profile:e2e] dns.listen_ipv6: fd00:8::1 is outside pool.ipv6.cidr $POOL6"
msg=$("$QELI" check-config "$bad/server.conf" 2>&1 || true)
grep -qF "$want" <<<"$msg" || e2e_fail "h: check-config did not refuse dns.listen_ipv6 outside the pool: $msg"
rc=0
ip netns exec "$NS_S" "$QELI" server -c "$bad/server.conf" --identity-dir "$dir/identity" \
  --socket "$bad/control.sock" >"$E2E_DIR/bad-dns6-server.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || e2e_fail "h: the server started with dns.listen_ipv6 outside the pool (exit $rc)"
grep -qF "$want" "$E2E_DIR/bad-dns6-server.log" || e2e_fail "h: start-up did not give check-config's message"
e2e_log "h: dns.listen_ipv6 outside $POOL6 refused by check-config and start-up"

e2e_log "PASS: ipv6_inside"
