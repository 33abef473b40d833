#!/usr/bin/env bash
# tests/e2e/udp_pmtu.sh — UDP path-MTU probing and the server's MTU clamp (issue 6;
# reference qeli-0.7.16.md §3.5, §3.9).
#
#        netns $NS_C (client)                          netns $NS_S (server)
#   ┌──────────────────────────┐   veth, MTU   ┌──────────────────────────┐
#   │ $VETH_C (mtu 1280)       │<=====1280====>│ $VETH_S (mtu 1280)       │
#   │ qeli client, mtu = 0     │               │ qeli server, UDP         │
#   │  → vpn0 (probed MTU)     │               │  fake-tls, tun.mtu 1400  │
#   └──────────────────────────┘               └──────────────────────────┘
#
# The server pushes MTU 1400, which does not fit the path (1400 + 48 + UDP/IP 28 > 1280).
# The client (mtu = 0, mtu_probe on) probes after AUTH OK and must pick 1200 (1276-byte
# datagrams), size its TUN with it and report it. Then, with no IP fragment created or
# reassembled on either side: DF pings of 1200 bytes both ways, padded 1100-byte pings
# (the padding must stay within the client's MTU), iperf3 TCP up and down. Last, a DF
# ping of 1400 bytes from the server side toward the client must get "fragmentation
# needed, mtu 1200" back: the server honours the reported MTU; without DF (a 1400-byte
# ping, a 1300-byte UDP datagram) it arrives whole, fragmented by the server in userspace
# and reassembled by the client's kernel. Then the same with only
# the server's end narrow (a black hole: no EMSGSIZE, no ICMP — probes time out).
#
# QELI_E2E_PMTU_PROBE=false runs the same checks with probing off (the negative control:
# it must fail). The profile offers IPv6 inside: the probed 1200-byte TUN cannot carry it,
# so the client takes it back and the server stops listing its IPv6 address.
# Usage: udp_pmtu.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
PROBE=${QELI_E2E_PMTU_PROBE:-true}
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
E2E_PORT=4443
TUN_NET=10.79.0
E2E_TRANSPORT=udp
source "$(dirname "$0")/lib.sh"
e2e_setup
ip -n "$NS_S" link set "$VETH_S" mtu 1280
ip -n "$NS_C" link set "$VETH_C" mtu 1280

# IP fragments created or reassembled in namespace $1 so far.
fragments() {
  ip netns exec "$1" nstat -az IpFragCreates IpReasmReqds | awk '/^Ip/ {n += $2} END {print n + 0}'
}

dir="$E2E_DIR/pmtu"
e2e_server_conf "$dir" fake-tls $'obf.padding.enabled = true\nobf.padding.min_bytes = 32\nobf.padding.max_bytes = 256\npool.ipv6.cidr = fd00:79::/64'
e2e_add_user "$dir" alice "s3cret-pmtu" >/dev/null
conf=$(e2e_client_conf "$dir" client alice "s3cret-pmtu" $'proto = udp\nmtu = 0\nmtu_probe = '"$PROBE")
e2e_start_server server "$dir"
e2e_start_client client "$NS_C" "$dir" -c "$conf"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "no tunnel over the MTU-1280 path"
before_s=$(fragments "$NS_S")
before_c=$(fragments "$NS_C")

# 1. Traffic at the client's MTU and below, both ways; TCP both ways.
ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$TUN_NET.1" >/dev/null ||
  e2e_fail "1200-byte DF ping client→server"
ip netns exec "$NS_S" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$cip" >/dev/null ||
  e2e_fail "1200-byte DF ping server→client"
ip netns exec "$NS_S" ping -c 10 -i 0.1 -W 2 -s 1072 "$cip" >/dev/null ||
  e2e_fail "padded 1100-byte pings server→client"
e2e_bg iperf "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
up=$(ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$E2E_SECONDS" -J |
  jq '.end.sum_received.bits_per_second / 1e6 | floor') || e2e_fail "iperf3 up"
down=$(ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$E2E_SECONDS" -R -J |
  jq '.end.sum_received.bits_per_second / 1e6 | floor') || e2e_fail "iperf3 down"
e2e_stop iperf
[ "$up" -ge 1 ] || e2e_fail "TCP up moved only $up Mbit/s"
[ "$down" -ge 1 ] || e2e_fail "TCP down moved only $down Mbit/s"

# 2. Nothing was fragmented on the way.
after_s=$(fragments "$NS_S")
after_c=$(fragments "$NS_C")
[ "$after_s" = "$before_s" ] || e2e_fail "IP fragments on the server side: $before_s → $after_s"
[ "$after_c" = "$before_c" ] || e2e_fail "IP fragments on the client side: $before_c → $after_c"

# 3. The probe's choice: in the log, on the TUN, reported to the server.
grep -q "path MTU probe to .*: tunnel MTU 1200 (probed" "$E2E_DIR/client.log" ||
  e2e_fail "the client log does not show a probed MTU of 1200"
tun_mtu=$(ip -n "$NS_C" -o link show dev vpn0 | grep -Eo 'mtu [0-9]+' | cut -d' ' -f2)
[ "$tun_mtu" = 1200 ] || e2e_fail "client TUN MTU is $tun_mtu, not 1200"
# IPv6 inside was agreed in the handshake (the profile has an IPv6 plan), but a 1200-byte
# TUN cannot carry it: the client says so, and the server stops listing its address.
if [ "$PROBE" = true ]; then
  e2e_wait_for 5 sh -c "[ -z \"\$('$QELI' list-clients --json --socket '$dir/control.sock' |
    jq -r '.[0].tunnel_ip6 // empty')\" ]" ||
    e2e_fail "the server still lists an IPv6 address for a client whose TUN cannot carry it: $("$QELI" list-clients --json --socket "$dir/control.sock")"
  ip -n "$NS_C" -6 addr show dev vpn0 | grep -q 'fd00:79::' &&
    e2e_fail "an IPv6 address on a 1200-byte TUN"
fi
grep -q "reports MTU 1200 (profile 1400)" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not show the reported MTU"

# 4. Without DF the server fragments in userspace (0.7.16 §3.5): a 1400-byte ping
# server→client arrives as 1200-byte-or-smaller IPv4 fragments that the client's kernel
# reassembles (and answers: the reply is fragmented by the client's own kernel). Before
# the DF check of 5, whose ICMP teaches the server's kernel a path MTU of 1200 (it would
# then fragment these itself); the server's kernel must create no fragment here.
ip -n "$NS_S" route flush cache
frags_s=$(ip netns exec "$NS_S" nstat -az IpFragCreates | awk '/^Ip/ {print $2}')
reasm_before=$(ip netns exec "$NS_C" nstat -az IpReasmOKs | awk '/^Ip/ {print $2}')
out_nodf=$(ip netns exec "$NS_S" ping -c 3 -i 0.3 -W 2 -M dont -s 1372 "$cip" 2>&1 || true)
echo "$out_nodf" | grep -Eq '^1380 bytes from' ||
  e2e_fail "a 1400-byte non-DF ping server→client did not arrive whole: $out_nodf"
reasm_after=$(ip netns exec "$NS_C" nstat -az IpReasmOKs | awk '/^Ip/ {print $2}')
[ "$reasm_after" -gt "$reasm_before" ] ||
  e2e_fail "the client reassembled nothing ($reasm_before → $reasm_after)"
# A 1300-byte UDP datagram (no DF: IP_PMTUDISC_DONT) server→client arrives whole.
e2e_bg udprecv "$NS_C" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 5300))
s.settimeout(10)
data, _ = s.recvfrom(65535)
open(sys.argv[1], "w").write(str(len(data)))
' "$E2E_DIR/udp-received"
e2e_wait_for 5 ip netns exec "$NS_C" sh -c "ss -lun | grep -q ':5300 '" || e2e_fail "udp receiver"
ip netns exec "$NS_S" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 0)  # IP_MTU_DISCOVER = IP_PMTUDISC_DONT: no DF
s.sendto(bytes(1272), (sys.argv[1], 5300))
' "$cip"
e2e_wait_for 5 test -s "$E2E_DIR/udp-received" || e2e_fail "the 1300-byte UDP datagram never arrived"
[ "$(cat "$E2E_DIR/udp-received")" = 1272 ] ||
  e2e_fail "the UDP datagram arrived with $(cat "$E2E_DIR/udp-received") bytes, not 1272"
[ "$(ip netns exec "$NS_S" nstat -az IpFragCreates | awk '/^Ip/ {print $2}')" = "$frags_s" ] ||
  e2e_fail "the server's kernel fragmented the non-DF packets itself"

# 5. The server's clamp: a 1400-byte DF packet toward the client gets "frag needed".
out=$(ip netns exec "$NS_S" ping -c 2 -i 0.3 -W 2 -M do -s 1372 "$cip" 2>&1 || true)
echo "$out" | grep -Eq 'mtu ?= ?1200' ||
  e2e_fail "a 1400-byte DF ping server→client got no 'frag needed, mtu 1200': $out"

e2e_finish client
e2e_log "kernel-known path ok: client MTU $tun_mtu, TCP up $up Mbit/s, down $down Mbit/s, no IP fragments; $(echo "$out" | grep -Eo 'mtu ?= ?1200' | head -1); non-DF 1400-byte ping and 1300-byte UDP fragmented and reassembled"

# 6. A silent black hole: only the server's end stays narrow, so the client's kernel
# never learns the path MTU (a veth drops a larger frame without any ICMP). The probes
# go out in rounds (every rung at once, 300 ms per round): 1200 is heard in the first.
ip -n "$NS_C" link set "$VETH_C" mtu 1500
before_s=$(fragments "$NS_S")
before_c=$(fragments "$NS_C")
e2e_start_client client-bh "$NS_C" "$dir" -c "$conf"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "black hole: no tunnel"
line=$(grep "path MTU probe to" "$E2E_DIR/client-bh.log" || true)
grep -q "tunnel MTU 1200 (probed; .*, 0 sizes refused by the kernel" <<<"$line" ||
  e2e_fail "black hole: the client did not probe 1200 by timeouts: $line"
took=$(echo "$line" | grep -Eo '[0-9]+ ms' | cut -d' ' -f1)
[ "$took" -le 3000 ] || e2e_fail "black hole: probing took $took ms"
ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$TUN_NET.1" >/dev/null ||
  e2e_fail "black hole: 1200-byte DF ping client→server"
ip netns exec "$NS_S" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$cip" >/dev/null ||
  e2e_fail "black hole: 1200-byte DF ping server→client"
[ "$(fragments "$NS_S")" = "$before_s" ] || e2e_fail "black hole: IP fragments on the server side"
[ "$(fragments "$NS_C")" = "$before_c" ] || e2e_fail "black hole: IP fragments on the client side"
e2e_log "black-hole path ok: probed 1200 in $took ms"
e2e_finish client-bh

# 7. The same black hole with the QUIC shape (85 bytes of envelope and record overhead
# per datagram): the rung that fits 1280 is 1195, the sixth; probing one rung at a time
# (2 × 300 ms each) spent the whole 3 s budget first and fell back to 1400 — a tunnel
# that is up and moves nothing big (the trial). It must be found within the budget.
quic_conf=$(e2e_client_conf "$dir" client-quic alice "s3cret-pmtu"   $'proto = udp
quic = true
mtu = 0
mtu_probe = '"$PROBE")
e2e_start_client client-quic "$NS_C" "$dir" -c "$quic_conf"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "quic black hole: no tunnel"
line=$(grep "path MTU probe to" "$E2E_DIR/client-quic.log" || true)
grep -q "tunnel MTU 1195 (probed" <<<"$line" ||
  e2e_fail "quic black hole: the client did not probe 1195: $line"
took=$(echo "$line" | grep -Eo '[0-9]+ ms' | cut -d' ' -f1)
[ "$took" -le 3000 ] || e2e_fail "quic black hole: probing took $took ms"
ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 2 -M do -s 1167 "$TUN_NET.1" >/dev/null ||
  e2e_fail "quic black hole: 1195-byte DF ping client→server"
ip netns exec "$NS_S" ping -c 3 -i 0.2 -W 2 -M do -s 1167 "$cip" >/dev/null ||
  e2e_fail "quic black hole: 1195-byte DF ping server→client"
e2e_log "quic black-hole path ok: probed 1195 in $took ms"
e2e_finish client-quic

# 8. Nothing acknowledged at all (the server's probe answers dropped on the way back):
# the client must not trust the pushed 1400 but fall back to what fits 1280, and warn.
ip netns exec "$NS_S" nft -f - <<NFT
table inet qeli_e2e_noack {
  chain out { type filter hook output priority 0; udp sport $E2E_PORT udp length < 40 drop; }
}
NFT
e2e_start_client client-noack "$NS_C" "$dir" -c "$conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no-ack: no tunnel"
grep -q "tunnel MTU 1200 (fallback" "$E2E_DIR/client-noack.log" ||
  e2e_fail "no-ack: no safe fallback: $(grep 'path MTU probe' "$E2E_DIR/client-noack.log")"
grep -q "no probe was acknowledged" "$E2E_DIR/client-noack.log" || e2e_fail "no-ack: no warning"
ip netns exec "$NS_S" nft delete table inet qeli_e2e_noack
e2e_log "no-ack path ok: fell back to 1200 with a warning"

e2e_finish client-noack server
grep -Eq "disconnected: .*frag_needed=[1-9]" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not count its fragmentation-needed answers"
grep -Eq "disconnected: .*fragmented=[1-9]" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not count the packets it fragmented"
e2e_log "udp_pmtu ok"
