#!/usr/bin/env bash
# IPv6 against IPv4 inside one tunnel (docs/BENCHMARKS.md "IPv6 inside the tunnel"): one
# fake-tls session of a profile with pool.ipv6.cidr; iperf3 up and down to the server's
# tunnel IPv4 and IPv6 addresses, interleaved for ROUNDS rounds, so a setup difference
# between two lab systems cannot enter and a noisy box hits both families alike.
# Usage: bench/ipv6/same_session.sh QELI_BINARY [ROUNDS=5] [SECONDS=5] [tcp|udp]
set -euo pipefail
QELI=$(readlink -f "$1")
ROUNDS=${2:-5} SECS=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/e2e/netns.sh"
E2E_TRANSPORT=${4:-tcp}
source "$here/../../tests/e2e/lib.sh"
e2e_setup
POOL6_SERVER=fd00:77::1
dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "pool.ipv6.cidr = fd00:77::/64"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_wait_for 15 ip netns exec "$NS_C" ping -6 -c 1 -W 1 "$POOL6_SERVER" >/dev/null ||
  e2e_fail "no IPv6 inside the tunnel"
e2e_bg iperf-s "$NS_S" iperf3 -s -p 5201
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
rate() { ip netns exec "$NS_C" iperf3 "$@" -p 5201 -t "$SECS" -J |
  jq '.end.sum_received.bits_per_second / 1e6 | floor'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
up4=() up6=() down4=() down6=() rup=() rdown=()
for round in $(seq "$ROUNDS"); do
  u4=$(rate -4 -c "$TUN_NET.1") d4=$(rate -4 -c "$TUN_NET.1" -R)
  u6=$(rate -6 -c "$POOL6_SERVER") d6=$(rate -6 -c "$POOL6_SERVER" -R)
  printf 'round %d  IPv4 up %5d down %5d   IPv6 up %5d down %5d Mbit/s\n' "$round" "$u4" "$d4" "$u6" "$d6"
  up4+=("$u4") up6+=("$u6") down4+=("$d4") down6+=("$d6")
  rup+=("$((u6 * 100 / u4))") rdown+=("$((d6 * 100 / d4))")
done
m() { printf '%s\n' "$@" | median; }
printf 'median   IPv4 up %5d down %5d   IPv6 up %5d down %5d Mbit/s\n' \
  "$(m "${up4[@]}")" "$(m "${down4[@]}")" "$(m "${up6[@]}")" "$(m "${down6[@]}")"
printf 'IPv6/IPv4 per-round median: up %d %%, down %d %%\n' "$(m "${rup[@]}")" "$(m "${rdown[@]}")"
e2e_finish alice server
