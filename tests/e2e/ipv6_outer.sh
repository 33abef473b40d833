#!/usr/bin/env bash
# e2e: the outer path over IPv6. The underlay between the namespaces is IPv6-only (the
# IPv4 address netns.sh gave each veth end is removed, and a ping over IPv4 is shown to
# fail), so every tunnel that comes up here ran over IPv6:
#
#   client ns  fd00:77::2/64 ──veth── fd00:77::1/64  server ns   (no IPv4 on the veth)
#
#   a. TCP fake-tls bound to fd00:77::1; the client from a config file with
#      `server = [fd00:77::1]:PORT`: tunnel up, pings both ways, a 3 s iperf3 through it,
#      and `list-clients --json` shows the peer as [fd00:77::2]:PORT;
#   b. UDP fake-tls bound to ::, the client from the qeli:// link that
#      `add-client --link --host "[fd00:77::1]:PORT"` prints (…@[fd00:77::1]:PORT?…):
#      tunnel up, pings both ways, peer [fd00:77::2]:PORT;
#   c. extra listeners: bind.address = :: plus `listen = 10.88.0.1:PORT2` (the underlay
#      gets 10.88.0.1/24 and 10.88.0.2/24 for this case only): one client over IPv6 to
#      [fd00:77::1]:PORT and one over IPv4 to 10.88.0.1:PORT2 both get a tunnel and ping
#      the server; the :: listener is IPv6-only (IPV6_V6ONLY=1, like nginx's
#      `listen [::]:443`): a TCP connect to 10.88.0.1:PORT is refused and a client pointed
#      there gets no tunnel;
#   d. `qeli check-config` refuses `listen = example.com:443` (listeners take numeric
#      addresses only) and names the key `listen`;
#   e. full tunnel with the kill switch to the IPv6 server: the tunnel works, the kill
#      switch names the server in its IPv6 set, and nothing else outside the tunnel is
#      reachable in either family (fd00:77::3 and 10.88.0.1 beside the server); after a
#      clean stop both are reachable again;
#   f. the documented dual-stack UDP setup: bind.address = :: and listen = 0.0.0.0 on the
#      SAME port (two sockets per TUN queue); a client over IPv6 and one over IPv4 each
#      get a tunnel, and each session's replies come from the listener it dialed; a second
#      server with a copy of the profile (another tun.name) is refused before it touches
#      anything (SO_REUSEPORT would otherwise let it share the port unnoticed).
# Usage: ipv6_outer.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
[ -d /proc/sys/net/ipv6 ] || e2e_fail "this kernel has no IPv6"
e2e_setup

V6_S=fd00:77::1
V6_C=fd00:77::2
V4X_S=10.88.0.1  # case c's extra IPv4 listener
V4X_C=10.88.0.2
PORT=$E2E_PORT
PORT2=$((E2E_PORT + 1))

# The IPv6-only underlay.
ip netns exec "$NS_S" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
  "net.ipv6.conf.$VETH_S.disable_ipv6=0"
ip netns exec "$NS_C" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
  "net.ipv6.conf.$VETH_C.disable_ipv6=0"
ip -n "$NS_S" addr add "$V6_S/64" dev "$VETH_S" nodad
ip -n "$NS_C" addr add "$V6_C/64" dev "$VETH_C" nodad
ip -n "$NS_S" -4 addr flush dev "$VETH_S" scope global
ip -n "$NS_C" -4 addr flush dev "$VETH_C" scope global
v4_left="$(ip -n "$NS_S" -4 -o addr show dev "$VETH_S")$(ip -n "$NS_C" -4 -o addr show dev "$VETH_C")"
[ -z "$v4_left" ] || e2e_fail "IPv4 left on the underlay: $v4_left"
e2e_wait_for 5 ip netns exec "$NS_C" ping -6 -c 1 -W 1 "$V6_S" || e2e_fail "no IPv6 on the underlay"
if ip netns exec "$NS_C" ping -4 -c 1 -W 1 "$UL_S" >/dev/null 2>&1; then
  e2e_fail "the underlay still carries IPv4 ($UL_S answers)"
fi
e2e_log "underlay: IPv6 only ($V6_C → $V6_S)"

# ss_has NS FLAGS ERE — `ss FLAGS` in NS shows a line matching ERE (the output is captured
# first: no pipe into grep -q under pipefail).
ss_has() {
  local out
  out=$(ip netns exec "$1" ss "$2") || return 1
  grep -qE -- "$3" <<<"$out"
}

# start_server NAME DIR ERE... — e2e_start_server for listeners its `$UL_S:$E2E_PORT`
# pattern cannot name (ss brackets IPv6: "[fd00:77::1]:4433"; an IPv6-only :: shows as
# "[::]:4433", a dual-stack one as "*:4433"); waits until `ss -l` shows each ERE.
start_server() {
  local name=$1 dir=$2 flags=-ltn re
  shift 2
  if [ "${E2E_TRANSPORT:-tcp}" = udp ]; then flags=-lun; fi
  e2e_bg "$name" "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
    --socket "$dir/control.sock" --usage-db "$dir/usage.db"
  for re in "$@"; do
    e2e_wait_for 10 ss_has "$NS_S" "$flags" "$re" || e2e_fail "$name did not listen on /$re/"
  done
}

# peer_of DIR USER — USER's session peer address from `qeli list-clients --json` (.peer).
peer_of() {
  local out
  out=$("$QELI" list-clients --json --socket "$1/control.sock") || return 1
  jq -r --arg u "$2" '[.[] | select(.username == $u) | .peer] | first // "none"' <<<"$out"
}

# expect_peer DIR USER ADDR — USER's session comes from ADDR:<port> (ADDR literal).
expect_peer() {
  local peer
  peer=$(peer_of "$1" "$2") || e2e_fail "list-clients --json failed"
  case "$peer" in
    "$3:"[0-9]*) e2e_log "$2's peer: $peer" ;;
    *) e2e_fail "$2's peer is '$peer', want $3:PORT" ;;
  esac
}

# ---- a. TCP fake-tls on fd00:77::1, client from a config file (server = [v6]:port).
e2e_log "case a: TCP bound to $V6_S, client config server = [$V6_S]:$PORT"
dir="$E2E_DIR/a"
# lib.sh writes `bind.address = $UL_S`, `--host $UL_S:$E2E_PORT` and `server = $UL_S:...`:
# a one-call UL_S (bash keeps such assignments local to the function call) points them at
# the IPv6 server.
UL_S=$V6_S e2e_server_conf "$dir" fake-tls
link=$(UL_S="[$V6_S]" e2e_add_user "$dir" alice alice-pass)
case "$link" in
  *"@[$V6_S]:$PORT?"*) ;;
  *) e2e_fail "a: the TCP link does not carry [$V6_S]:$PORT: $link" ;;
esac
conf=$(UL_S="[$V6_S]" e2e_client_conf "$dir" ca alice alice-pass)
grep -qxF "server = [$V6_S]:$PORT" "$conf" || e2e_fail "a: $conf has no bracketed server"
start_server server-a "$dir" "\\[$V6_S\\]:$PORT "
e2e_start_client ca "$NS_C" "$dir" -c "$conf"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "a: no tunnel over IPv6 (TCP)"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "a: ping client → server through the tunnel"
e2e_ping "$NS_S" "$cip" || e2e_fail "a: ping server → client through the tunnel"
e2e_bg iperf-a "$NS_S" iperf3 -s -1 -B "$TUN_NET.1" -p 5201
e2e_wait_for 5 ss_has "$NS_S" -ltn ":5201 " || e2e_fail "a: iperf3 -s did not listen"
json=$(timeout 20 ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 3 \
  --connect-timeout 3000 -J) || e2e_fail "a: iperf3 through the tunnel failed"
mbit=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' <<<"$json")
[ "$mbit" -ge 1 ] || e2e_fail "a: iperf3 moved only $mbit Mbit/s"
e2e_stop iperf-a
e2e_log "a: $cip, iperf3 $mbit Mbit/s over IPv6"
expect_peer "$dir" alice "[$V6_C]"
e2e_finish ca server-a

# ---- b. UDP fake-tls on ::, client from the printed link with a bracketed host.
e2e_log "case b: UDP bound to ::, client from a qeli:// link to [$V6_S]:$PORT"
dir="$E2E_DIR/b"
E2E_TRANSPORT=udp UL_S=:: e2e_server_conf "$dir" fake-tls
link=$(E2E_TRANSPORT=udp UL_S="[$V6_S]" e2e_add_user "$dir" alice alice-pass)
case "$link" in
  *"@[$V6_S]:$PORT?"*) ;;
  *) e2e_fail "b: the link does not carry [$V6_S]:$PORT: $link" ;;
esac
case "$link" in *proto=udp*) ;; *) e2e_fail "b: link without proto=udp: $link" ;; esac
E2E_TRANSPORT=udp start_server server-b "$dir" "(\\[::\\]|\\*):$PORT "
e2e_start_client cb "$NS_C" "$dir" "$link"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "b: no tunnel over IPv6 (UDP)"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "b: ping client → server through the tunnel"
e2e_ping "$NS_S" "$cip" || e2e_fail "b: ping server → client through the tunnel"
expect_peer "$dir" alice "[$V6_C]"
e2e_log "b: $cip over UDP/IPv6"
e2e_finish cb server-b

# ---- c. bind.address = :: plus an IPv4 extra listener; the :: one is IPv6-only.
e2e_log "case c: :: port $PORT (IPv6 only) + listen = $V4X_S:$PORT2"
ip -n "$NS_S" addr add "$V4X_S/24" dev "$VETH_S"
ip -n "$NS_C" addr add "$V4X_C/24" dev "$VETH_C"
e2e_wait_for 5 ip netns exec "$NS_C" ping -4 -c 1 -W 1 "$V4X_S" || e2e_fail "c: no IPv4 on the underlay"
dir="$E2E_DIR/c"
UL_S=:: e2e_server_conf "$dir" fake-tls "listen = $V4X_S:$PORT2"
UL_S="[$V6_S]" e2e_add_user "$dir" alice alice-pass >/dev/null
UL_S="[$V6_S]" e2e_add_user "$dir" bob bob-pass >/dev/null
conf6=$(UL_S="[$V6_S]" e2e_client_conf "$dir" cc6 alice alice-pass)
conf4=$(UL_S=$V4X_S E2E_PORT=$PORT2 e2e_client_conf "$dir" cc4 bob bob-pass)
conf_wrong=$(UL_S=$V4X_S e2e_client_conf "$dir" ccw bob bob-pass "timeout = 3
reconnect_base_delay = 1
reconnect_max_delay = 2")
start_server server-c "$dir" "(\\[::\\]|\\*):$PORT " "${V4X_S//./\\.}:$PORT2 "

e2e_start_client cc6 "$NS_C" "$dir" -c "$conf6"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "c: no tunnel over IPv6 to [$V6_S]:$PORT"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "c: IPv6 client: ping through the tunnel"
expect_peer "$dir" alice "[$V6_C]"
e2e_finish cc6
e2e_log "c: IPv6 client ok ($cip)"

e2e_start_client cc4 "$NS_C" "$dir" -c "$conf4"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "c: no tunnel over IPv4 to $V4X_S:$PORT2"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "c: IPv4 client: ping through the tunnel"
expect_peer "$dir" bob "$V4X_C"
e2e_finish cc4
e2e_log "c: IPv4 client on the extra listener ok ($cip)"

# The :: listener takes no IPv4: a plain connect to 10.88.0.1:PORT is refused at once...
probe=$(ip netns exec "$NS_C" python3 - "$V4X_S" "$PORT" <<'PY'
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()
    print("connected")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print("error: %s" % e)
PY
)
[ "$probe" = refused ] || e2e_fail "c: TCP to $V4X_S:$PORT (the :: port): $probe, want refused"
# ...and a client pointed there gets no tunnel within 5 s.
e2e_start_client ccw "$NS_C" "$dir" -c "$conf_wrong"
if cip=$(e2e_wait_tunnel 5 "$NS_C"); then
  e2e_fail "c: a client reached the IPv6-only :: listener over IPv4 (tunnel $cip)"
fi
e2e_stop ccw
[ "$(grep -c "connected as 'bob'" "$E2E_DIR/server-c.log")" = 1 ] ||
  e2e_fail "c: bob connected more than once (the client on $V4X_S:$PORT got through?)"
e2e_log "c: the :: listener is IPv6-only ($V4X_S:$PORT refused)"
e2e_finish server-c

# ---- d. check-config refuses a host name in `listen`.
e2e_log "case d: check-config refuses listen = example.com:443"
dir="$E2E_DIR/d"
UL_S=$V6_S e2e_server_conf "$dir" fake-tls
printf 'listen = example.com:443\n' >>"$dir/server.conf"  # the profile is the last section
rc=0
# In the server namespace: should the check ever try to resolve the name, the question
# stays inside this test's namespaces.
out=$(ip netns exec "$NS_S" "$QELI" check-config "$dir/server.conf" 2>&1) || rc=$?
[ "$rc" != 0 ] || e2e_fail "d: check-config accepted listen = example.com:443: $out"
grep -qw listen <<<"$out" || e2e_fail "d: the refusal does not name the key listen: $out"
e2e_log "d: refused (exit $rc): $(head -n 1 <<<"$out")"

# ---- e. full tunnel + kill switch to an IPv6 server.
e2e_log "case e: full tunnel with the kill switch, server [$V6_S]:$PORT"
V6_OTHER=fd00:77::3
ip -n "$NS_S" addr add "$V6_OTHER/64" dev "$VETH_S" nodad
ip -n "$NS_C" -6 route add default via "$V6_S"
e2e_wait_for 5 ip netns exec "$NS_C" ping -6 -c 1 -W 1 "$V6_OTHER" || e2e_fail "e: no $V6_OTHER"
dir="$E2E_DIR/e"
UL_S=$V6_S e2e_server_conf "$dir" fake-tls
UL_S="[$V6_S]" e2e_add_user "$dir" erin erin-pass >/dev/null
conf=$(UL_S="[$V6_S]" e2e_client_conf "$dir" ce erin erin-pass "gateway = true
kill_switch = true")
start_server server-e "$dir" "\\[$V6_S\\]:$PORT "
e2e_start_client ce "$NS_C" "$dir" -c "$conf"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "e: no full tunnel to the IPv6 server"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "e: no traffic through the tunnel"
set6=$(ip netns exec "$NS_C" nft list set inet qeli_ks_vpn0 servers6) ||
  e2e_fail "e: no kill-switch table with a servers6 set"
grep -qF "$V6_S" <<<"$set6" || e2e_fail "e: the kill switch does not name $V6_S: $set6"
if ip netns exec "$NS_C" ping -6 -c 2 -W 1 "$V6_OTHER" >/dev/null 2>&1; then
  e2e_fail "e: $V6_OTHER (IPv6, outside the tunnel) answered in full tunnel"
fi
if ip netns exec "$NS_C" ping -4 -c 2 -W 1 "$V4X_S" >/dev/null 2>&1; then
  e2e_fail "e: $V4X_S (IPv4, outside the tunnel) answered in full tunnel"
fi
e2e_log "e: full tunnel over IPv6 ($cip); $V6_OTHER and $V4X_S unreachable outside it"
e2e_finish ce
e2e_wait_for 5 ip netns exec "$NS_C" ping -6 -c 1 -W 1 "$V6_OTHER" ||
  e2e_fail "e: $V6_OTHER still unreachable after the client stopped"
e2e_finish server-e

# ---- f. dual-stack UDP: :: and 0.0.0.0 on one port.
e2e_log "case f: UDP :: and listen = 0.0.0.0 on port $PORT"
ip -n "$NS_C" -6 route del default via "$V6_S" 2>/dev/null || true
dir="$E2E_DIR/f"
E2E_TRANSPORT=udp E2E_TUN_QUEUES=2 UL_S=:: e2e_server_conf "$dir" fake-tls "listen = 0.0.0.0:$PORT"
UL_S="[$V6_S]" e2e_add_user "$dir" alice alice-pass >/dev/null
UL_S="[$V6_S]" e2e_add_user "$dir" bob bob-pass >/dev/null
conf6=$(UL_S="[$V6_S]" e2e_client_conf "$dir" cf6 alice alice-pass)
conf4=$(UL_S=$V4X_S e2e_client_conf "$dir" cf4 bob bob-pass)
sed -i 's/^mode = fake-tls$/mode = fake-tls\nproto = udp/' "$conf6" "$conf4"
E2E_TRANSPORT=udp start_server server-f "$dir" "\\[::\\]:$PORT " "0\\.0\\.0\\.0:$PORT "
sed 's/^tun.name = .*/tun.name = qes9/' "$dir/server.conf" >"$dir/copy.conf"
rc=0
out=$(timeout 20 ip netns exec "$NS_S" "$QELI" server -c "$dir/copy.conf" \
  --identity-dir "$dir/identity" --socket "$dir/copy.sock" --usage-db "$dir/copy.db" 2>&1) ||
  rc=$?
[ "$rc" != 0 ] || e2e_fail "f: a second server on the same UDP port started: $out"
grep -q "another qeli server" <<<"$out" || e2e_fail "f: the second server's refusal: $out"
if ip -n "$NS_S" link show qes9 >/dev/null 2>&1; then e2e_fail "f: the copy left TUN qes9"; fi
e2e_start_client cf6 "$NS_C" "$dir" -c "$conf6"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "f: no UDP tunnel over IPv6 to [$V6_S]:$PORT"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "f: IPv6 client: ping through the tunnel"
expect_peer "$dir" alice "[$V6_C]"
e2e_finish cf6
e2e_start_client cf4 "$NS_C" "$dir" -c "$conf4"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "f: no UDP tunnel over IPv4 to $V4X_S:$PORT"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "f: IPv4 client: ping through the tunnel"
expect_peer "$dir" bob "$V4X_C"
e2e_finish cf4
grep -q "listening on udp \[::\]:$PORT, 0.0.0.0:$PORT" "$E2E_DIR/server-f.log" ||
  e2e_fail "f: the start-up line does not name both listeners"
e2e_finish server-f
e2e_log "f: one UDP port, both families"

e2e_log "PASS: ipv6_outer"
