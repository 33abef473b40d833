#!/usr/bin/env bash
# e2e: per-user limits (docs/CONFIG.md §6, docs/OPERATIONS.md "Limits and usage").
#   1. alice has bandwidth.limit_mbps = 5: iperf3 through the tunnel stays at or below
#      ~10 % over it, upload and download;
#   2. two sessions of alice (two devices) share those 5 Mbit/s;
#   3. `qeli set-bandwidth alice 20` raises it live, for the sessions already up;
#   4. bob has data_limit_gb = 0.1: a download ends his session near 100 MB, the client is
#      told why and stops; the total survives a server restart (SQLite), a new login is
#      refused, and `qeli usage --reset bob` lets him in again.
# Upper bounds are the assertions; lower bounds are loose so a slow ASan build passes.
# Usage: bandwidth_quota.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

dir="$E2E_DIR/bw"
e2e_server_conf "$dir" fake-tls
link_a=$(e2e_add_user "$dir" alice alice-pass)
printf 'bandwidth.limit_mbps = 5\n' >>"$dir/users.conf"
link_b=$(e2e_add_user "$dir" bob bob-pass)
printf 'data_limit_gb = 0.1\n' >>"$dir/users.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "config with limits rejected"
e2e_start_server server "$dir"
sock="$dir/control.sock"

e2e_bg iperf-s "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
e2e_bg iperf-s2 "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5202
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5202 '" || e2e_fail "iperf3 -s"

# mbit NS ARGS... — Mbit/s received in an iperf3 run (first 2 s omitted: slow start and
# the bucket's initial burst), as a decimal.
# A paced user's previous test may still be closing when the next starts (iperf3 -s then
# answers "the server is busy"): try again, up to three times.
mbit() {
  local ns=$1 out try
  shift
  for try in 1 2 3; do
    out=$(ip netns exec "$ns" iperf3 -c "$TUN_NET.1" -O 2 -J "$@" || true)
    if jq -e '.end.sum_received.bits_per_second' >/dev/null 2>&1 <<<"$out"; then
      jq '.end.sum_received.bits_per_second / 1e6 * 100 | floor / 100' <<<"$out"
      return 0
    fi
    echo "iperf3 attempt $try: $(jq -r '.error // "no result"' <<<"$out" 2>/dev/null)" >&2
    sleep 2
  done
  return 1
}
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
# The upper bounds leave 40 % over the limit: on a busy box a descheduled sender refills the
# bucket and its burst lands inside the 4 s window (6.04 Mbit/s seen once against 5). An
# unlimited session would move hundreds of Mbit/s, so the check still proves the limit.

# 1. One session: 5 Mbit/s each way.
e2e_start_client alice "$NS_C" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel address"
up=$(mbit "$NS_C" -p 5201 -t 6) || e2e_fail "iperf3 up"
down=$(mbit "$NS_C" -p 5201 -t 6 -R) || e2e_fail "iperf3 down"
e2e_log "alice at 5 Mbit/s: up $up, down $down Mbit/s"
within "$up" 2 7 || e2e_fail "upload $up Mbit/s is not within 2..7 (limit 5)"
within "$down" 2 7 || e2e_fail "download $down Mbit/s is not within 2..7 (limit 5)"

# 2. A second device of alice: both sessions together stay within the limit.
e2e_start_client alice2 "$NS_C2" "$dir" "$link_a"
e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "alice's second device got no address"
[ "$(e2e_sessions "$dir" | grep -c '^alice ')" = 2 ] || e2e_fail "expected two alice sessions"
ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -O 2 -t 6 -R -J >"$E2E_DIR/a1.json" &
p1=$!
ip netns exec "$NS_C2" iperf3 -c "$TUN_NET.1" -p 5202 -O 2 -t 6 -R -J >"$E2E_DIR/a2.json" &
p2=$!
wait "$p1" || e2e_fail "iperf3 of device 1"
wait "$p2" || e2e_fail "iperf3 of device 2"
sum=$(jq -s '(.[0].end.sum_received.bits_per_second + .[1].end.sum_received.bits_per_second)
             / 1e6 * 100 | floor / 100' "$E2E_DIR/a1.json" "$E2E_DIR/a2.json")
e2e_log "alice, two devices at once: $sum Mbit/s together"
within "$sum" 2 7 || e2e_fail "two sessions moved $sum Mbit/s together (limit 5, shared)"
e2e_stop alice2

# 3. set-bandwidth applies to the live session.
grep -q "20 Mbit/s" <<<"$("$QELI" set-bandwidth alice 20 --socket "$sock")" || e2e_fail "set-bandwidth"
"$QELI" usage --json --socket "$sock" |
  jq -e '.[] | select(.username == "alice") | .limit_mbps == 20 and .limit_live' >/dev/null ||
  e2e_fail "usage does not show the live limit"
# list-clients shows it as 0.7.16 did: a BW LIMIT column ("20 Mbps") and the JSON field.
"$QELI" list-clients --json --socket "$sock" |
  jq -e '.[] | select(.username == "alice") | .bandwidth_limit_mbps == 20' >/dev/null ||
  e2e_fail "list-clients --json does not show alice's limit"
grep -Eq '^alice .* 20 Mbps ' <<<"$("$QELI" list-clients --socket "$sock")" ||
  e2e_fail "list-clients text: $("$QELI" list-clients --socket "$sock")"
raised=$(mbit "$NS_C" -p 5201 -t 5 -R) || e2e_fail "iperf3 after set-bandwidth"
e2e_log "alice after set-bandwidth 20: $raised Mbit/s"
within "$raised" 7 22 || e2e_fail "after set-bandwidth 20 alice moved $raised Mbit/s"
"$QELI" set-bandwidth nobody 1 --socket "$sock" 2>/dev/null && e2e_fail "set-bandwidth nobody"
e2e_stop alice

# 4. bob's 100 MB quota.
e2e_start_client bob "$NS_C" "$dir" "$link_b"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "bob got no tunnel address"
# The download stalls once the session ends (the client is gone): wait for the client.
ip netns exec "$NS_C" timeout 60 iperf3 -c "$TUN_NET.1" -p 5201 -R -n 300M >/dev/null 2>&1 &
iperf_pid=$!
e2e_wait_exit bob 50
kill "$iperf_pid" 2>/dev/null || true
wait "$iperf_pid" 2>/dev/null || true
[ "$E2E_RC" = 1 ] || e2e_fail "bob's client did not stop on the quota (exit $E2E_RC)"
grep -q "used up its data quota" "$E2E_DIR/bob.log" || e2e_fail "bob was not told why"
grep -q "'bob' .*disconnected: the user's data quota is used up" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not say why bob's session ended"
used=$("$QELI" usage --json --socket "$sock" | jq '.[] | select(.username == "bob") | .down_bytes')
e2e_log "bob's session ended at $used bytes (quota 100000000)"
# One batch is at most 64 packets of up to 64 KiB.
within "$used" 100000000 104194304 || e2e_fail "bob downloaded $used bytes against a 100 MB quota"

# The total survives a restart; bob is refused until the operator resets it.
e2e_stop iperf-s
e2e_stop iperf-s2
e2e_finish server
e2e_start_server server2 "$dir"
after=$("$QELI" usage --json --socket "$sock" | jq '.[] | select(.username == "bob") | .down_bytes')
[ "$after" = "$used" ] || e2e_fail "after a restart bob's total is $after, was $used"
e2e_start_client bob2 "$NS_C" "$dir" "$link_b"
e2e_wait_for 10 grep -q "data quota used up" "$E2E_DIR/server2.log" ||
  e2e_fail "bob was not refused after the restart"
e2e_stop bob2
grep -q "reset" <<<"$("$QELI" usage --reset bob --socket "$sock")" || e2e_fail "usage --reset"
"$QELI" usage --json --socket "$sock" |
  jq -e '.[] | select(.username == "bob") | .down_bytes == 0' >/dev/null || e2e_fail "not reset"
e2e_start_client bob3 "$NS_C" "$dir" "$link_b"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "bob not let in after usage --reset"
e2e_finish bob3 server2
e2e_log "bandwidth and quota ok"
