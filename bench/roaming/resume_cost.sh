#!/usr/bin/env bash
# What being resumable costs a TCP session's throughput (docs/BENCHMARKS.md "TCP session
# resume"): iperf3 up and down through a fake-tls tunnel whose server offers resume (the
# default) beside one that does not (roaming.max_orphaned = 0), ROUNDS rounds interleaved
# so a noisy box hits both alike. Prints one line per run and the medians.
# Usage: bench/roaming/resume_cost.sh QELI_BINARY [ROUNDS=3] [SECONDS=5]
set -euo pipefail
QELI=$(readlink -f "$1")
ROUNDS=${2:-3} SECS=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/e2e/netns.sh"
source "$here/../../tests/e2e/lib.sh"
e2e_setup
# Not bound to the tunnel address: each round starts a new server (and TUN).
e2e_bg iperf-s "$NS_S" iperf3 -s -p 5201
rate() { ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$SECS" "$@" -J |
  jq '.end.sum_received.bits_per_second / 1e6 | floor'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
declare -A ups downs
for round in $(seq "$ROUNDS"); do
  for v in resume no-resume; do
    dir="$E2E_DIR/srv-$v-$round"
    extra=""
    [ "$v" = no-resume ] && extra="roaming.max_orphaned = 0"
    e2e_server_conf "$dir" fake-tls "$extra"
    link=$(e2e_add_user "$dir" alice alice-pass)
    e2e_start_server "server-$v-$round" "$dir"
    e2e_start_client "alice-$v-$round" "$NS_C" "$dir" "$link"
    e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "$v: no tunnel"
    up=$(rate)
    down=$(rate -R)
    printf '%-9s round %d  up %5d  down %5d Mbit/s\n' "$v" "$round" "$up" "$down"
    ups[$v]="${ups[$v]:-} $up"
    downs[$v]="${downs[$v]:-} $down"
    e2e_finish "alice-$v-$round" "server-$v-$round"
  done
done
for v in resume no-resume; do
  printf '%-9s median  up %5d  down %5d Mbit/s\n' "$v" \
    "$(tr ' ' '\n' <<<"${ups[$v]}" | grep . | median)" "$(tr ' ' '\n' <<<"${downs[$v]}" | grep . | median)"
done
