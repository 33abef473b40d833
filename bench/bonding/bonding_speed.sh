#!/usr/bin/env bash
# Stream bonding, side by side in one run (docs/BENCHMARKS.md "Stream bonding"):
#   unthrottled  one stream vs max_streams=4 on the bare veth (does bonding cost speed?)
#   per-flow cap one stream vs 4 when every carrier connection is capped at CAP Mbit/s
#                (an htb class per connection on both ends, as a per-flow shaper)
# iperf3 -P 16 inside the tunnel (flows spread by their hash), up and down, ROUNDS interleaved rounds; medians.
# Usage: bench/bonding/bonding_speed.sh QELI_BINARY [ROUNDS=3] [SECONDS=5] [CAP=50]
set -euo pipefail
QELI=$(readlink -f "$1")
ROUNDS=${2:-3} SECS=${3:-5} CAP=${4:-50}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../tests/e2e/netns.sh"
source "$here/../../tests/e2e/lib.sh"
e2e_setup
results="$E2E_DIR/results"
: >"$results"

shape() {  # shape on|off: per-connection caps on the carrier connections present now
  local mode=$1
  for side in "$NS_C $VETH_C" "$NS_S $VETH_S"; do
    set -- $side
    tc -n "$1" qdisc del dev "$2" root 2>/dev/null || true
  done
  [ "$mode" = on ] || return 0
  for side in "$NS_C $VETH_C sport" "$NS_S $VETH_S dport"; do
    set -- $side
    tc -n "$1" qdisc replace dev "$2" root handle 1: htb default 99 r2q 1000
    tc -n "$1" class add dev "$2" parent 1: classid 1:99 htb rate 10gbit
    local n=0 port
    for port in $(ip netns exec "$NS_C" ss -Htn state established "( dport = :$E2E_PORT )" |
      awk '{print $3}' | sed 's/.*://'); do
      n=$((n + 1))
      tc -n "$1" class add dev "$2" parent 1: classid "1:$n" htb rate "${CAP}mbit"
      tc -n "$1" filter add dev "$2" parent 1: protocol ip prio 1 u32 match ip "$3" "$port" 0xffff \
        flowid "1:$n"
    done
  done
}

run_one() {  # run_one ROUND STREAMS SHAPE
  local round=$1 streams=$2 shaped=$3 dir="$E2E_DIR/srv-$1-$2-$3" link flag
  e2e_server_conf "$dir" fake-tls "obf.multipath.enabled = true
obf.multipath.max_streams = $streams" >/dev/null
  link=$(e2e_add_user "$dir" alice alice-pass)
  e2e_start_server server "$dir"
  e2e_start_client alice "$NS_C" "$dir" "$link"
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
  e2e_wait_for 15 sh -c "[ \$(ip netns exec $NS_C ss -Htn state established '( dport = :$E2E_PORT )' | wc -l) -eq $streams ]" ||
    e2e_fail "$streams streams did not come up"
  shape "$shaped"
  e2e_bg iperf "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
  e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '"
  for flag in up down; do
    ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$SECS" -P 16 \
      $([ $flag = down ] && echo -R) -J >"$E2E_DIR/r.json"
    echo "$shaped $streams $flag $(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/r.json")" >>"$results"
  done
  kill "$E2E_PID_iperf" 2>/dev/null || true
  e2e_finish alice server
  shape off
}

for round in $(seq "$ROUNDS"); do
  for shaped in off on; do
    for streams in 1 4; do run_one "$round" "$streams" "$shaped"; done
  done
done
echo "median Mbit/s over $ROUNDS rounds (iperf3 -P 16, ${SECS}s; per-flow cap ${CAP} Mbit/s)"
printf '%-22s %8s %8s %8s %8s\n' path "1 up" "4 up" "1 down" "4 down"
for shaped in off on; do
  row=()
  for key in "1 up" "4 up" "1 down" "4 down"; do
    set -- $key
    row+=("$(awk -v s="$shaped" -v n="$1" -v d="$2" '$1==s && $2==n && $3==d {print $4}' "$results" |
      sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')")
  done
  name=$([ "$shaped" = on ] && echo "capped per flow" || echo "unthrottled veth")
  printf '%-22s %8s %8s %8s %8s\n' "$name" "${row[@]}"
done
