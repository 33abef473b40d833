#!/usr/bin/env bash
# e2e: networks behind a client (`client_subnet`, OpenVPN's iroute; qeli 0.7.16 §5.6),
# both families — a branch office whose LAN the server reaches through the tunnel:
#
#   lan ns (NS_L)  ──veth──  client ns (alice, forwarding)  ──veth──  server ns
#   192.168.77.2/24          192.168.77.1/24, 2001:db8:77::1/64       qes0 10.77.0.1,
#   2001:db8:77::2/64                                                 fd00:77::1/64
#   (default via the client)
#
#   1. alice (`client_subnet = 192.168.77.0/24, 2001:db8:77::/48`) connects: the server
#      routes both networks into its TUN (`dev qes0 proto 113`, list in show-routes);
#      the server pings the LAN host over IPv4 and IPv6 and gets answers, whose sources
#      (the LAN host, inside alice's subnets) pass the server's source check;
#   2. mallory claims 192.168.77.0/24 too, from client ns 2: the first claimant keeps it
#      (the server logs the skipped network), pings still reach alice's LAN, and mallory's
#      packets from an address in it are dropped (drop_bad_source), as are its pings into
#      it (client_to_client is off: drop_policy);
#   3. a source outside alice's networks (192.168.78.1 on the LAN host) is dropped by the
#      server (drop_bad_source grows, no answer);
#   4. alice disconnects: both routes leave the server's table; the LAN is unreachable.
# Usage: client_subnet.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
[ -d /proc/sys/net/ipv6 ] || e2e_fail "this kernel has no IPv6"
e2e_setup
e2e_add_client_ns 2

# The LAN behind alice.
NS_L="qe${E2E_ID}l"
ip netns add "$NS_L"
E2E_EXTRA_NS+=("$NS_L")
ip link add "qe${E2E_ID}l0" type veth peer name "qe${E2E_ID}l1"
ip link set "qe${E2E_ID}l0" netns "$NS_C"
ip link set "qe${E2E_ID}l1" netns "$NS_L"
ip -n "$NS_C" addr add 192.168.77.1/24 dev "qe${E2E_ID}l0"
ip -n "$NS_C" addr add 2001:db8:77::1/64 dev "qe${E2E_ID}l0" nodad
ip -n "$NS_L" addr add 192.168.77.2/24 dev "qe${E2E_ID}l1"
ip -n "$NS_L" addr add 192.168.78.1/32 dev "qe${E2E_ID}l1"
ip -n "$NS_L" addr add 2001:db8:77::2/64 dev "qe${E2E_ID}l1" nodad
ip -n "$NS_C" link set "qe${E2E_ID}l0" up
ip -n "$NS_L" link set "qe${E2E_ID}l1" up
ip -n "$NS_L" link set lo up
ip -n "$NS_L" route add default via 192.168.77.1
ip -n "$NS_L" -6 route add default via 2001:db8:77::1
ip netns exec "$NS_C" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = fd00:77::/64"
e2e_add_user "$dir" alice alice-pass >/dev/null
printf 'client_subnet = 192.168.77.0/24\nclient_subnet = 2001:db8:77::/48\n' >>"$dir/users.conf"
e2e_add_user "$dir" mallory mallory-pass >/dev/null
printf 'client_subnet = 192.168.77.0/24\n' >>"$dir/users.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "server.conf with client_subnet rejected"
routes=$("$QELI" show-routes alice -c "$dir/server.conf")
grep -qF "client_subnet): 192.168.77.0/24,2001:db8:77::/48" <<<"$routes" ||
  e2e_fail "show-routes does not list both networks: $routes"

srv_route() { ip -n "$NS_S" "$1" route show "$2"; }
lan_ping() { ip netns exec "$NS_S" ping "$1" -c 3 -i 0.2 -W 2 "$2" >/dev/null 2>&1; }

e2e_start_server server "$dir"
[ -z "$(srv_route -4 192.168.77.0/24)" ] || e2e_fail "a route to alice's LAN before she connected"
lan_ping -4 192.168.77.2 && e2e_fail "the LAN answered before alice connected"

# 1. alice connects.
conf_a=$(e2e_client_conf "$dir" alice alice alice-pass)
e2e_start_client alice "$NS_C" "$dir" -c "$conf_a"
ip_a=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "alice got no tunnel address"
e2e_wait_for 10 sh -c "ip -n '$NS_S' -6 route show 2001:db8:77::/48 | grep -q qes0" ||
  e2e_fail "no IPv6 route to alice's LAN: $(srv_route -6 2001:db8:77::/48)"
r4=$(srv_route -4 192.168.77.0/24)
grep -q 'dev qes0 proto 113' <<<"$r4" || e2e_fail "route to alice's LAN: '$r4'"
lan_ping -4 192.168.77.2 || e2e_fail "the server cannot reach 192.168.77.2 behind alice"
e2e_wait_for 10 ip netns exec "$NS_C" sh -c "ip -6 addr show dev vpn0 | grep -q 'fd00:77::'" ||
  e2e_fail "alice has no IPv6 address in the tunnel"
lan_ping -6 2001:db8:77::2 || e2e_fail "the server cannot reach 2001:db8:77::2 behind alice"
e2e_log "1: alice $ip_a; her LAN answers the server over IPv4 and IPv6 (routes on qes0)"

# 2. mallory claims the same network.
conf_m=$(e2e_client_conf "$dir" mallory mallory mallory-pass "include = 192.168.77.0/24")
e2e_start_client mallory "$NS_C2" "$dir" -c "$conf_m"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "mallory got no tunnel address"
e2e_wait_for 10 grep -q "of user mallory already route to another session" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not log mallory's skipped network"
lan_ping -4 192.168.77.2 || e2e_fail "after mallory's claim the LAN is not alice's any more"
# Nor may mallory send as alice's LAN.
ip -n "$NS_C2" addr add 192.168.77.50/32 dev vpn0
before=$(e2e_session_counter "$dir" mallory drop_bad_source)
if ip netns exec "$NS_C2" ping -I 192.168.77.50 -c 3 -i 0.2 -W 1 "$TUN_NET.1" >/dev/null 2>&1; then
  e2e_fail "mallory sent as alice's LAN (192.168.77.50) and was answered"
fi
after=$(e2e_session_counter "$dir" mallory drop_bad_source)
[ "$after" -ge $((before + 3)) ] || e2e_fail "mallory's drop_bad_source $before → $after"
# client_to_client is off (the default): mallory cannot reach into alice's LAN either.
before=$(e2e_session_counter "$dir" mallory drop_policy)
if ip netns exec "$NS_C2" ping -c 3 -i 0.2 -W 1 192.168.77.2 >/dev/null 2>&1; then
  e2e_fail "mallory reached alice's LAN with client_to_client off"
fi
after=$(e2e_session_counter "$dir" mallory drop_policy)
[ "$after" -ge $((before + 3)) ] || e2e_fail "mallory's drop_policy $before → $after"
e2e_log "2: mallory's claim of 192.168.77.0/24 skipped: the LAN stays alice's, mallory may not send from it nor into it"

# 3. A source outside alice's networks.
before=$(e2e_session_counter "$dir" alice drop_bad_source)
if ip netns exec "$NS_L" ping -I 192.168.78.1 -c 3 -i 0.2 -W 1 "$TUN_NET.1" >/dev/null 2>&1; then
  e2e_fail "a ping from 192.168.78.1 (outside alice's networks) was answered"
fi
after=$(e2e_session_counter "$dir" alice drop_bad_source)
[ "$after" -ge $((before + 3)) ] || e2e_fail "drop_bad_source $before → $after after 3 foreign pings"
ip netns exec "$NS_L" ping -c 1 -W 2 "$TUN_NET.1" >/dev/null ||
  e2e_fail "the LAN host's own address cannot reach the server"
e2e_log "3: a source outside the networks dropped (drop_bad_source $before → $after)"

# 4. alice leaves.
kill -TERM "$E2E_PID_alice"
e2e_wait_exit alice 10
[ "$E2E_RC" = 0 ] || e2e_fail "alice did not exit cleanly (exit $E2E_RC)"
e2e_wait_for 10 sh -c "[ -z \"\$(ip -n '$NS_S' -4 route show 192.168.77.0/24)\" ]" ||
  e2e_fail "the route to alice's LAN outlived her session: $(srv_route -4 192.168.77.0/24)"
[ -z "$(srv_route -6 2001:db8:77::/48)" ] || e2e_fail "the IPv6 route outlived alice's session"
lan_ping -4 192.168.77.2 && e2e_fail "the LAN answered after alice left"
e2e_log "4: alice gone, both routes gone"

e2e_finish mallory server
e2e_log "PASS"
