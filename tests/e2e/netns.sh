# tests/e2e/netns.sh — the one netns harness every e2e script sources.
#
#        netns $NS_C (client)                          netns $NS_S (server)
#   ┌──────────────────────────┐   veth pair   ┌──────────────────────────┐
#   │ $VETH_C  $UL_C/24        │<=============>│ $VETH_S  $UL_S/24        │
#   │ qeli client → TUN q0     │               │ qeli server → TUN (pool) │
#   └──────────────────────────┘               └──────────────────────────┘
#
#   e2e_add_client_ns K (K = 2..9) adds another client namespace, each on its own veth pair
#   and subnet, routed to $UL_S through the server's side of that pair:
#
#        netns $NS_C<K>                                netns $NS_S
#   ┌──────────────────────────┐   veth pair   ┌──────────────────────────┐
#   │ 172.(16+K).0.2/24        │<=============>│ 172.(16+K).0.1/24        │
#   │ default via 172.(16+K).0.1               │ (reaches $UL_S locally)  │
#   └──────────────────────────┘               └──────────────────────────┘
#
# Names carry this shell's PID so parallel runs never collide; everything is removed by
# the EXIT trap (processes by PID, then the namespaces). Only addresses inside these
# namespaces are ever used.
set -euo pipefail

E2E_ID=${E2E_ID:-$$}
NS_S="qe${E2E_ID}s"
NS_C="qe${E2E_ID}c"
VETH_S="qe${E2E_ID}s0"
VETH_C="qe${E2E_ID}c0"
UL_NET="10.$(( (E2E_ID >> 8) % 200 + 20 )).$(( E2E_ID % 250 ))"
UL_S="$UL_NET.1"
UL_C="$UL_NET.2"
E2E_DIR=$(mktemp -d /tmp/qeli-e2e.XXXXXX)
E2E_PIDS=()
E2E_EXTRA_NS=()

e2e_log() { printf '[e2e %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
e2e_fail() { printf '[e2e] FAIL: %s\n' "$*" >&2; e2e_dump_logs; exit 1; }

e2e_dump_logs() {
  for f in "$E2E_DIR"/*.log; do
    [ -f "$f" ] || continue
    echo "---- $(basename "$f") (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

e2e_cleanup() {
  local pid ns
  for pid in "${E2E_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${E2E_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  ip netns del "$NS_S" 2>/dev/null || true
  ip netns del "$NS_C" 2>/dev/null || true
  for ns in "${E2E_EXTRA_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  [ -n "${E2E_KEEP:-}" ] || rm -rf "$E2E_DIR"
}

e2e_setup() {
  trap e2e_cleanup EXIT
  ip netns add "$NS_S"
  ip netns add "$NS_C"
  ip link add "$VETH_S" type veth peer name "$VETH_C"
  ip link set "$VETH_S" netns "$NS_S"
  ip link set "$VETH_C" netns "$NS_C"
  ip -n "$NS_S" addr add "$UL_S/24" dev "$VETH_S"
  ip -n "$NS_C" addr add "$UL_C/24" dev "$VETH_C"
  ip -n "$NS_S" link set lo up
  ip -n "$NS_C" link set lo up
  ip -n "$NS_S" link set "$VETH_S" up
  ip -n "$NS_C" link set "$VETH_C" up
}

# e2e_add_client_ns K — another client namespace NS_C<K> with address UL_C<K> (see the
# header drawing). Removed by the EXIT trap like the others.
e2e_add_client_ns() {
  local k=$1
  local ns="qe${E2E_ID}c$k" vs="qe${E2E_ID}s$k" vc="qe${E2E_ID}c$k"
  local net="172.$((16 + k)).0"
  ip netns add "$ns"
  E2E_EXTRA_NS+=("$ns")
  ip link add "$vs" type veth peer name "${vc}p"
  ip link set "$vs" netns "$NS_S"
  ip link set "${vc}p" netns "$ns"
  ip -n "$NS_S" addr add "$net.1/24" dev "$vs"
  ip -n "$ns" addr add "$net.2/24" dev "${vc}p"
  ip -n "$ns" link set lo up
  ip -n "$NS_S" link set "$vs" up
  ip -n "$ns" link set "${vc}p" up
  ip -n "$ns" route add default via "$net.1"
  eval "NS_C$k=$ns UL_C$k=$net.2"
}

# e2e_add_wan_ns [MTU] — a "wan" namespace NS_W behind the server, the internet as seen
# from the tunnel (reached through the server's NAT):
#
#        netns $NS_S                                   netns $NS_W
#   ┌──────────────────────────┐   veth pair   ┌──────────────────────────┐
#   │ $WAN_IF  $WAN_NET.1/24   │<=============>│ $WAN_NET.2 = $WAN_IP /24 │
#   │ (MTU on this end: MTU)   │               │ (MTU 1500)               │
#   └──────────────────────────┘               └──────────────────────────┘
#
# With MTU < 1500 the server's end is the narrow link: a 1500-byte frame from the wan host
# is dropped by the veth without any ICMP (a path-MTU black hole that only MSS clamping
# avoids). Removed by the EXIT trap like the others.
e2e_add_wan_ns() {
  local mtu=${1:-1500}
  NS_W="qe${E2E_ID}w"
  WAN_IF="qe${E2E_ID}w0"
  WAN_NET="10.$(( E2E_ID % 200 + 20 )).250"
  WAN_IP="$WAN_NET.2"
  ip netns add "$NS_W"
  E2E_EXTRA_NS+=("$NS_W")
  WAN_PEER_IF="qe${E2E_ID}w1"
  ip link add "$WAN_IF" type veth peer name "$WAN_PEER_IF"
  ip link set "$WAN_IF" netns "$NS_S"
  ip link set "$WAN_PEER_IF" netns "$NS_W"
  ip -n "$NS_S" link set "$WAN_IF" mtu "$mtu"
  ip -n "$NS_S" addr add "$WAN_NET.1/24" dev "$WAN_IF"
  ip -n "$NS_W" addr add "$WAN_IP/24" dev "$WAN_PEER_IF"
  ip -n "$NS_S" link set "$WAN_IF" up
  ip -n "$NS_W" link set "$WAN_PEER_IF" up
  ip -n "$NS_W" link set lo up
}

# e2e_bg NAME NS CMD... — runs CMD in NS in the background, logging to $E2E_DIR/NAME.log.
e2e_bg() {
  local name=$1 ns=$2
  shift 2
  ip netns exec "$ns" "$@" >"$E2E_DIR/$name.log" 2>&1 &
  E2E_PIDS+=("$!")
  eval "E2E_PID_${name//-/_}=$!"
}

# e2e_wait_for TIMEOUT_S CMD... — retries CMD every 0.2 s until it succeeds.
e2e_wait_for() {
  local t=$1
  shift
  local end=$(( $(date +%s%N) / 1000000 + t * 1000 ))
  until "$@" >/dev/null 2>&1; do
    [ $(( $(date +%s%N) / 1000000 )) -lt "$end" ] || return 1
    sleep 0.2
  done
}

# e2e_stop NAME — SIGTERM a process started with e2e_bg and wait for it.
e2e_stop() {
  local var="E2E_PID_${1//-/_}"
  local pid=${!var:-}
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}
