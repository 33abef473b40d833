#!/usr/bin/env bash
# Roaming: how long traffic stalls when the client's address changes (docs/BENCHMARKS.md
# "UDP roaming", "TCP resume after a move"). Over UDP the server follows the session to
# the new address; over TCP the client sees its address go (rtnetlink) and resumes the
# session on a new connection (docs/PROTOCOL.md §22). A ping every INTERVAL ms runs through the tunnel; after
# 1 s the client's route to the server takes a new source address and the old address is
# removed at once (a move to another network: what is sent to the old address is lost
# until the server follows); the stall is the longest run of unanswered pings times the
# interval. MOVES moves per mode, median and maximum; a ping run without
# a move is the baseline (its losses are the box's, not the roam's).
# Usage: bench/roaming/roam_stall.sh QELI_BINARY [MOVES=5] [INTERVAL_MS=2] [udp|tcp]
set -euo pipefail
QELI=$(readlink -f "$1")
MOVES=${2:-5} IV=${3:-2} CARRIER=${4:-udp}
case "$CARRIER" in
  udp) roam_counter=udp_roams ;;
  tcp) roam_counter=tcp_resumes ;;
  *) echo "carrier: udp or tcp" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/e2e/netns.sh"
E2E_TRANSPORT=$CARRIER
E2E_TUN_QUEUES=2
source "$here/../../tests/e2e/lib.sh"
e2e_setup
ip netns exec "$NS_C" sysctl -qw net.ipv4.conf.all.promote_secondaries=1
route_src() { ip -n "$NS_C" route replace "$UL_S/32" dev "$VETH_C" src "$UL_NET.$1"; }
count=$((2000 / IV))

# Longest run of missing sequence numbers in a `ping` output of COUNT pings.
longest_gap() {
  awk -v n="$1" '/icmp_seq=/ { sub(/.*icmp_seq=/, ""); split($0, a, " "); got[a[1]] = 1 }
    END { best = 0; run = 0
      for (i = 1; i <= n; i++) { if (got[i]) run = 0; else if (++run > best) best = run }
      print best }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for mode in fake-tls obfs; do
  dir="$E2E_DIR/srv-$mode"
  extra=""
  [ "$mode" = obfs ] && extra="obf.obfs_key = $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  [ "$mode" = obfs ] && [ "$CARRIER" = udp ] && extra="$extra
obf.quic.enabled = true"
  first=$([ "$mode" = obfs ] && echo 100 || echo 10)
  ip -n "$NS_C" addr add "$UL_NET.$first/24" dev "$VETH_C"
  route_src "$first"
  e2e_server_conf "$dir" "$mode" "$extra"
  link=$(e2e_add_user "$dir" alice alice-pass)
  e2e_start_server "server-$mode" "$dir"
  e2e_start_client "c-$mode" "$NS_C" "$dir" "$link"
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "$mode: no tunnel"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: no traffic"
  base=$(ip netns exec "$NS_C" ping -i "0.00$IV" -c "$count" -W 1 "$TUN_NET.1" | longest_gap "$count")
  gaps=()
  prev=$first
  for k in $(seq $((first + 1)) $((first + MOVES))); do
    ip -n "$NS_C" addr add "$UL_NET.$k/24" dev "$VETH_C"
    ip netns exec "$NS_C" ping -i "0.00$IV" -c "$count" -W 1 "$TUN_NET.1" >"$E2E_DIR/ping.out" &
    pid=$!
    sleep 1
    route_src "$k"
    ip -n "$NS_C" addr del "$UL_NET.$prev/24" dev "$VETH_C"
    prev=$k
    wait "$pid" || true
    gaps+=("$(longest_gap "$count" <"$E2E_DIR/ping.out")")
  done
  roams=$(e2e_counter "$dir" "$roam_counter")
  starts=$(e2e_counter "$dir" sessions_started)
  med=$(printf '%s\n' "${gaps[@]}" | median)
  max=$(printf '%s\n' "${gaps[@]}" | sort -n | tail -1)
  printf '%s %-9s moves %d  roams %d  handshakes %d  stall median %d ms  max %d ms  (baseline %d ms; pings every %d ms; gaps: %s)\n' \
    "$CARRIER" "$mode" "$MOVES" "$roams" "$starts" $((med * IV)) $((max * IV)) $((base * IV)) "$IV" "${gaps[*]}"
  e2e_finish "c-$mode" "server-$mode"
done
