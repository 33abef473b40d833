#!/usr/bin/env bash
# The TUN engine relay lab: TCP throughput through two TUNs relayed by the engine,
# next to a raw veth pair measured in the same run (root; bounded; cleans up).
#
#   qlab-a                                        qlab-b
#   iperf3 -c ──► qlab0 (10.77.0.1/24) ═══ tun_relay ═══ qlab1 (10.77.0.2/24) ──► iperf3 -s
#          └────► veth qv-a (10.78.0.1/24) ─────────────── qv-b (10.78.0.2/24) ───┘   (baseline)
#
# tun_relay runs in the root namespace, holds one TUN in each lab namespace, and moves
# packets with LinuxTun::read_batch/write_batch in one thread per direction:
#   pass  - super-packets kept whole, written back with their vnet header
#   split - userspace GSO split to MTU-sized packets, one write each
#   regro - split, then userspace GRO coalesce before writing
# Both paths use MTU 1420. Each measurement: iperf3 TCP, single stream and -P 4.
#
#   bench/tunio/relay_lab.sh [SECONDS]          (default 5 s per run)
# Env: RELAY=path to tun_relay (default build/release/bench/tunio/tun_relay)
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-5}
RELAY=${RELAY:-build/release/bench/tunio/tun_relay}
A=qlab-a
B=qlab-b
MTU=1420
[ "$(id -u)" -eq 0 ] || { echo "relay_lab: run as root" >&2; exit 1; }
[ -x "$RELAY" ] || { echo "relay_lab: build $RELAY first (cmake --build --preset release)" >&2; exit 1; }
command -v iperf3 >/dev/null && command -v jq >/dev/null || { echo "relay_lab: needs iperf3 and jq" >&2; exit 1; }

relay_pid=""
cleanup() {
  [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null && wait "$relay_pid" 2>/dev/null || true
  ip netns pids "$B" 2>/dev/null | xargs -r kill 2>/dev/null || true
  ip netns del "$A" 2>/dev/null || true
  ip netns del "$B" 2>/dev/null || true
}
trap cleanup EXIT
cleanup

ip netns add "$A"
ip netns add "$B"
ip -n "$A" link set lo up
ip -n "$B" link set lo up
ip link add qv-a netns "$A" type veth peer name qv-b netns "$B"
ip -n "$A" addr add 10.78.0.1/24 dev qv-a
ip -n "$B" addr add 10.78.0.2/24 dev qv-b
ip -n "$A" link set qv-a mtu "$MTU" up
ip -n "$B" link set qv-b mtu "$MTU" up
ip netns exec "$B" iperf3 -s -D -B 0.0.0.0 >/dev/null

# iperf3 client run -> "Gbit/s retransmits"
measure() {  # target, extra args
  local out
  out=$(timeout $((SECS + 20)) ip netns exec "$A" iperf3 -c "$1" -t "$SECS" -J ${2:-}) || {
    echo "0 -1"; return; }
  echo "$out" | jq -r '"\(.end.sum_received.bits_per_second / 1e9 * 100 | round / 100) \(.end.sum_sent.retransmits)"'
}

printf '| path | TCP 1 stream Gbit/s (retr) | TCP -P 4 Gbit/s (retr) |\n|---|---|---|\n'
row() {  # label target
  local one four
  one=$(measure "$2")
  four=$(measure "$2" "-P 4")
  printf '| %s | %s (%s) | %s (%s) |\n' "$1" ${one} ${four}
}
row "raw veth (baseline)" 10.78.0.2
for mode in pass split regro; do
  log=$(mktemp)
  "$RELAY" --ns-a "$A" --ns-b "$B" --mode "$mode" --mtu "$MTU" >"$log" 2>&1 &
  relay_pid=$!
  for _ in $(seq 50); do grep -q ready "$log" && break; sleep 0.1; done
  grep -q ready "$log" || { cat "$log" >&2; exit 1; }
  row "relay $mode" 10.77.0.2
  kill "$relay_pid"
  wait "$relay_pid" || true
  relay_pid=""
  sed 's/^/    /' "$log" | grep -E 'a->b|b->a' >&2 || true
  rm -f "$log"
done
row "raw veth (again)" 10.78.0.2
