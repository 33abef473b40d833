#!/usr/bin/env bash
# e2e: what the server lets a client send into its network (qeli 0.7.16 §9), with NAT to a
# "wan" namespace behind the server (see e2e_add_wan_ns in netns.sh):
#
#   client ns (dave, split tunnel to $WAN_NET/24) ── server ns (NAT) ── wan ns
#                                                                       $WAN_IP, $WAN_NET.3
#
#   1. allowed_networks: dave's own list ($WAN_IP/32) overrides his group's ($WAN_NET/24):
#      $WAN_IP answers through the tunnel, $WAN_NET.3 does not, and the server counts
#      the drops as drop_policy;
#   2. forged source: a second address on dave's TUN, used as the source of pings to
#      $WAN_IP, is dropped by the server (drop_bad_source) and nothing of it reaches the
#      wan host (an nft counter there, shown to count by one ping from the real address);
#   3. MSS clamping: the server's end of the wan link has MTU 1280 (the wan host's end
#      1500, so its full-size frames would vanish without an ICMP: a black hole); dave
#      fetches 2 MB over HTTP from the wan host, which only works because the server's
#      NAT table clamped dave's SYN to MSS 1240 (checked on the wire at the wan host).
#      Without the clamp the fetch stalls (tried by flushing the table's forward chain:
#      0 of 2 MB in 20 s).
# Usage: server_policy.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_wan_ns 1280
ip -n "$NS_W" addr add "$WAN_NET.3/24" dev "$WAN_PEER_IF"  # a second host behind the server
# One segment per packet from the wan host: a veth lets GSO packets past the narrow end's
# MTU, which would hide the black hole that step 3 relies on.
ip -n "$NS_W" link set "$WAN_PEER_IF" gso_max_segs 1

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
printf '\n[group:lim]\nallowed_networks = %s.0/24\n' "$WAN_NET" >>"$dir/server.conf"
e2e_add_user "$dir" dave dave-pass >/dev/null
printf 'group = lim\nallowed_networks = %s\n' "$WAN_IP" >>"$dir/users.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "server.conf with the ACL rejected"
conf=$(e2e_client_conf "$dir" dave dave dave-pass "include = $WAN_NET.0/24")
e2e_start_server server "$dir"
e2e_start_client dave "$NS_C" "$dir" -c "$conf"
ip_d=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "dave got no tunnel address"
e2e_log "dave $ip_d"
counter() { e2e_session_counter "$dir" dave "$1"; }

# 1. The destination ACL.
e2e_ping "$NS_C" "$WAN_IP" || e2e_fail "dave cannot reach $WAN_IP (allowed by his own list)"
before=$(counter drop_policy)
[ "$before" != none ] || e2e_fail "list-clients shows no drop_policy counter"
if ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 1 "$WAN_NET.3" >/dev/null 2>&1; then
  e2e_fail "dave reached $WAN_NET.3: the group's wider list was used"
fi
after=$(counter drop_policy)
[ "$after" -ge $((before + 3)) ] || e2e_fail "drop_policy $before → $after after 3 denied pings"
e2e_log "1: ACL ok ($WAN_IP reached, $WAN_NET.3 dropped; drop_policy $before → $after)"

# 2. A forged source inside the tunnel. The pings carry 999 bytes so the wan host can
# count exactly these (IP length 1027) apart from everything else.
ip netns exec "$NS_W" nft -f - <<NFT
table inet qe_probe {
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-request ip length 1027 counter
  }
}
NFT
wan_count() { ip netns exec "$NS_W" nft list table inet qe_probe | grep -Eo 'packets [0-9]+' | awk '{print $2}'; }
ip -n "$NS_C" addr add "$TUN_NET.200/32" dev vpn0
before=$(counter drop_bad_source)
if ip netns exec "$NS_C" ping -I "$TUN_NET.200" -s 999 -c 3 -i 0.2 -W 1 "$WAN_IP" >/dev/null 2>&1; then
  e2e_fail "a ping from the forged source $TUN_NET.200 was answered"
fi
after=$(counter drop_bad_source)
[ "$after" -ge $((before + 3)) ] || e2e_fail "drop_bad_source $before → $after after 3 forged pings"
[ "$(wan_count)" = 0 ] || e2e_fail "$(wan_count) forged packet(s) reached the wan host"
ip netns exec "$NS_C" ping -I "$ip_d" -s 999 -c 1 -W 2 "$WAN_IP" >/dev/null ||
  e2e_fail "the same ping from dave's real address was not answered"
[ "$(wan_count)" = 1 ] || e2e_fail "the wan counter saw $(wan_count) packets, expected 1"
ip -n "$NS_C" addr del "$TUN_NET.200/32" dev vpn0
e2e_log "2: forged source dropped (drop_bad_source $before → $after, 0 at the wan host)"

# 3. TCP through the tunnel and the 1280-byte link.
mkdir -p "$E2E_DIR/www"
head -c 2000000 /dev/urandom >"$E2E_DIR/www/blob"
e2e_bg www "$NS_W" python3 -m http.server 8080 --bind "$WAN_IP" --directory "$E2E_DIR/www"
e2e_wait_for 10 ip netns exec "$NS_W" sh -c "ss -ltn | grep -q '$WAN_IP:8080 '" || e2e_fail "http server"
e2e_bg syn "$NS_W" timeout 30 tcpdump -n -v -c 1 -i "$WAN_PEER_IF" \
  "tcp dst port 8080 and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn"
sleep 1  # tcpdump must be listening before the SYN
ip netns exec "$NS_C" curl -sS --noproxy '*' --max-time 20 -o "$E2E_DIR/got" "http://$WAN_IP:8080/blob" ||
  e2e_fail "the 2 MB fetch through the tunnel failed"
cmp -s "$E2E_DIR/got" "$E2E_DIR/www/blob" || e2e_fail "the fetched file differs"
e2e_wait_exit syn 5
grep -q 'mss 1240' "$E2E_DIR/syn.log" || e2e_fail "the SYN at the wan host was not clamped: $(cat "$E2E_DIR/syn.log")"
e2e_log "3: 2 MB over TCP through an MTU-1280 link (SYN clamped to mss 1240)"

e2e_finish dave server
e2e_log "server policy ok"
