#!/usr/bin/env bash
# e2e: DNS in a split tunnel goes through the tunnel when the client's resolver config
# says so (issue 13: the queries were seen leaving directly).
#
#   client ns (split tunnel, dns_servers = $WAN_IP, default route via the server's
#   underlay side) ── server ns (NAT) ── wan ns: tools/dns_upstream.py on $WAN_IP
#
# The resolver is outside every route the server pushes: without a route of its own
# through the tunnel, the host asks it over the underlay. Checked: the name resolves
# (through resolv.conf, as any program would), the upstream saw the query from the
# server's NAT address, and an nft counter on the client's physical interface saw no
# DNS packet at all.
# Usage: dns_split.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT
e2e_add_wan_ns
ip -n "$NS_C" route add default via "$UL_S"
mkdir -p "/etc/netns/$NS_C"
printf 'nameserver 192.0.2.53\noptions timeout:2 attempts:1\n' >"/etc/netns/$NS_C/resolv.conf"

up_log=$E2E_DIR/upstream.queries
e2e_dns_upstream "$up_log" --a www.e2e.test=192.0.2.10

dir=$E2E_DIR/srv
e2e_server_conf "$dir" fake-tls "routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
e2e_add_user "$dir" alice alice-pass >/dev/null
conf=$(e2e_client_conf "$dir" alice alice alice-pass "dns = tunnel
dns_servers = $WAN_IP")
ip netns exec "$NS_C" nft -f - <<NFT
table inet qe_dns_leak {
  counter leaked { }
  chain out {
    type filter hook output priority 0; policy accept;
    oifname "$VETH_C" udp dport 53 counter name leaked
    oifname "$VETH_C" tcp dport 53 counter name leaked
  }
}
NFT
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" -c "$conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_wait_for 5 grep -q "nameserver $WAN_IP" "/etc/netns/$NS_C/resolv.conf" ||
  e2e_fail "the client did not set its resolver: $(cat "/etc/netns/$NS_C/resolv.conf")"
grep -q "dev vpn0" <<<"$(ip -n "$NS_C" route get "$WAN_IP")" ||
  e2e_fail "the resolver is not routed through the tunnel: $(ip -n "$NS_C" route get "$WAN_IP")"
grep -q "dev $VETH_C" <<<"$(ip -n "$NS_C" route get 192.0.2.99)" || e2e_fail "not a split tunnel"
got=$(ip netns exec "$NS_C" getent hosts www.e2e.test | awk '{print $1}') || true
[ "$got" = 192.0.2.10 ] || e2e_fail "www.e2e.test did not resolve through the tunnel ('$got')"
grep -q " $WAN_NET.1 www.e2e.test " "$up_log" ||
  e2e_fail "the upstream did not see the query from the server's NAT address: $(cat "$up_log")"
leaked=$(ip netns exec "$NS_C" nft -j list counter inet qe_dns_leak leaked |
  jq '.nftables[] | select(.counter) | .counter.packets')
[ "$leaked" = 0 ] || e2e_fail "$leaked DNS packet(s) left on the physical interface"
e2e_finish alice server
e2e_log "dns_split ok: resolved through the tunnel, 0 DNS packets on $VETH_C"
