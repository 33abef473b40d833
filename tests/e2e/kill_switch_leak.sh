#!/usr/bin/env bash
# e2e: the kill switch leaks nothing while the tunnel is down (qeli 0.7.16 §8, issue 7).
#
#   client ns ($UL_C, $V6_C) ──veth── server ns ($UL_S, $V6_S)
#   the client: full tunnel, kill_switch = true, dns = tunnel; default routes (IPv4 and
#   IPv6) through the server's side, resolv.conf naming an IPv4 and an IPv6 resolver.
#
#   1. connected: one kill-switch table, traffic through the tunnel (with `ipv6-inside`,
#      the server has pool.ipv6.cidr: IPv6 goes through the tunnel too, not blocked);
#   2. the server stops and its port is blocked (SYNs vanish, so the client keeps
#      retrying): a bounded capture of what the client sends on its physical veth, while
#      it pings, resolves names and fetches URLs over IPv4 and IPv6, holds no IP packet
#      that is not to the server (IPv6 neighbour discovery aside: allowed by design, it carries
#      no user data), and the kill switch's drop counter shows the attempts were made;
#   3. the server comes back: the client reconnects with the kill switch still on;
#   4. a clean stop removes the table.
# Usage: kill_switch_leak.sh QELI_BINARY [ipv6-inside]
set -euo pipefail
QELI=$(readlink -f "$1")
V6_INSIDE=${2:-}
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT

V6_NET="fd00:$(printf '%x' $((E2E_ID % 65535)))"
V6_S="$V6_NET::1"
V6_C="$V6_NET::2"
ip -n "$NS_S" addr add "$V6_S/64" dev "$VETH_S" nodad
ip -n "$NS_C" addr add "$V6_C/64" dev "$VETH_C" nodad
ip -n "$NS_C" route add default via "$UL_S"
ip -n "$NS_C" -6 route add default via "$V6_S"
mkdir -p "/etc/netns/$NS_C"
printf 'nameserver 192.0.2.53\nnameserver 2001:db8::53\noptions timeout:1 attempts:1\n' \
  >"/etc/netns/$NS_C/resolv.conf"
ip netns exec "$NS_C" ping -6 -c 1 -W 2 "$V6_S" >/dev/null || e2e_fail "no IPv6 on the underlay"

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "${V6_INSIDE:+pool.ipv6.cidr = fd00:9::/64}"
e2e_add_user "$dir" erin erin-pass >/dev/null
conf=$(e2e_client_conf "$dir" erin erin erin-pass "gateway = true
kill_switch = true
dns = tunnel
timeout = 3
reconnect_base_delay = 1
reconnect_max_delay = 2")
ks_tables() { ip netns exec "$NS_C" nft list tables | grep -c 'qeli_ks_vpn0' || true; }

# 1. Connected.
e2e_start_server server "$dir"
e2e_start_client erin "$NS_C" "$dir" -c "$conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no traffic through the tunnel"
if [ -n "$V6_INSIDE" ]; then
  e2e_wait_for 5 ip netns exec "$NS_C" ping -6 -c 1 -W 1 fd00:9::1 ||
    e2e_fail "no IPv6 through the tunnel"
fi
[ "$(ks_tables)" = 1 ] || e2e_fail "expected one kill-switch table, got $(ks_tables)"
e2e_log "1: connected with the kill switch${V6_INSIDE:+, IPv4 and IPv6 inside the tunnel}"

# 2. The server goes away and stays unreachable.
e2e_stop server
ip netns exec "$NS_S" nft -f - <<NFT
table inet qe_block {
  chain input {
    type filter hook input priority filter - 10; policy accept;
    tcp dport $E2E_PORT drop
  }
}
NFT
e2e_wait_for 10 sh -c "! ip -n '$NS_C' link show vpn0" || e2e_fail "the tunnel did not go down"
drops() {
  ip netns exec "$NS_C" nft list chain inet qeli_ks_vpn0 output | grep -Eo 'packets [0-9]+' |
    awk '{print $2}'
}
drops_before=$(drops)
e2e_bg capture "$NS_C" timeout 9 tcpdump -n -U -Q out -i "$VETH_C" -w "$E2E_DIR/leak.pcap" 'ip or ip6'
sleep 1  # tcpdump must be listening
in_c() { ip netns exec "$NS_C" "$@" >/dev/null 2>&1 || true; }
in_c ping -c 2 -i 0.2 -W 1 198.51.100.7
in_c ping -6 -c 2 -i 0.2 -W 1 2001:db8:1::7
in_c ping -6 -c 2 -i 0.2 -W 1 "$V6_S"
in_c timeout 5 getent ahosts example.com
in_c curl -sS --noproxy '*' --max-time 2 http://198.51.100.7/
in_c curl -sS --noproxy '*' --max-time 2 "http://[2001:db8:1::7]/"
in_c curl -sS --noproxy '*' --max-time 2 "http://[$V6_S]:$E2E_PORT/"
e2e_wait_exit capture 15
[ "$E2E_RC" != running ] || e2e_fail "the capture did not end"
leaks=$(tcpdump -n -r "$E2E_DIR/leak.pcap" \
  "not dst host $UL_S and not (icmp6 and ip6[40] >= 133 and ip6[40] <= 136)" 2>/dev/null)
to_server=$(tcpdump -n -r "$E2E_DIR/leak.pcap" "dst host $UL_S and tcp dst port $E2E_PORT" 2>/dev/null | wc -l)
drops_after=$(drops)
[ -z "$leaks" ] || e2e_fail "packets left the client with the tunnel down: $leaks"
[ "$to_server" -gt 0 ] || e2e_fail "the capture saw no reconnect attempt: was it running?"
[ "$drops_after" -ge $((drops_before + 10)) ] ||
  e2e_fail "the kill switch dropped only $((drops_after - drops_before)) packets: no traffic was tried?"
e2e_log "2: tunnel down: 0 leaked packets (IPv4+IPv6), $to_server SYNs to the server," \
  "$((drops_after - drops_before)) packets dropped by the kill switch"

# 3. The server is back: reconnect through the kill switch.
ip netns exec "$NS_S" nft delete table inet qe_block
e2e_start_server server "$dir"
e2e_wait_tunnel 20 "$NS_C" >/dev/null || e2e_fail "no reconnect with the kill switch on"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no traffic after the reconnect"
if [ -n "$V6_INSIDE" ]; then
  e2e_wait_for 5 ip netns exec "$NS_C" ping -6 -c 1 -W 1 fd00:9::1 ||
    e2e_fail "no IPv6 through the tunnel after the reconnect"
fi
[ "$(ks_tables)" = 1 ] || e2e_fail "after the reconnect: $(ks_tables) kill-switch tables"
e2e_log "3: reconnected with the kill switch on"

# 4. A clean stop lifts it.
e2e_finish erin server
[ "$(ks_tables)" = 0 ] || e2e_fail "kill-switch table left after a clean stop"
e2e_log "4: clean stop removed the kill switch"
