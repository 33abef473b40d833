#!/usr/bin/env bash
# e2e: UDP roaming (issue 18, docs/PROTOCOL.md §20). The client's address changes three
# times during an iperf3 run inside the tunnel (its route to the server takes another
# source address each time, as after a NAT rebinding or a move to another network), and:
#   1. the session follows it with no new handshake (one "connected", sessions_started
#      1, udp_roams ≥ 3 in `qeli stats`, list-clients shows the roams and the current
#      address), and the TCP flow inside completes;
#   2. a datagram of the client's captured and sent again from a new address (a replay),
#      and the same with a flipped byte (a forgery), move nothing: udp_roams_refused
#      counts them and the session keeps answering at the client's real address;
#   3. the same roam with the obfs seal and the QUIC shape around the records, on a
#      server with two workers (a new address may hash to the other worker's socket);
#   4. with roaming.enabled = false the server does not follow (the 0.7.16 behaviour):
#      after a move the tunnel is silent and nothing is counted as a roam.
# Usage: roaming.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
E2E_TRANSPORT=udp
E2E_TUN_QUEUES=2
source "$(dirname "$0")/lib.sh"
e2e_setup

# Addresses the client moves through, on its veth: the route to the server takes the
# new one as its source and the one before is removed at once (what the server would
# still send there is lost: only a server that followed reaches the client).
ip netns exec "$NS_C" sysctl -qw net.ipv4.conf.all.promote_secondaries=1
ip -n "$NS_C" addr add "$UL_NET.9/24" dev "$VETH_C"  # the replayer's
CUR=""
move_to() {
  ip -n "$NS_C" addr add "$UL_NET.$1/24" dev "$VETH_C"
  ip -n "$NS_C" route replace "$UL_S/32" dev "$VETH_C" src "$UL_NET.$1"
  [ -z "$CUR" ] || ip -n "$NS_C" addr del "$UL_NET.$CUR/24" dev "$VETH_C"
  CUR=$1
}

run_case() {
  local mode=$1 extra=$2 first=$3 counter_at=$4 dir="$E2E_DIR/srv-$1"
  e2e_log "case $mode"
  move_to "$first"
  e2e_server_conf "$dir" "$mode" "$extra"
  local link
  link=$(e2e_add_user "$dir" alice alice-pass)
  e2e_start_server "server-$mode" "$dir"
  e2e_start_client "c-$mode" "$NS_C" "$dir" "$link"
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "$mode: no tunnel"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: no traffic"
  local slog="$E2E_DIR/server-$mode.log"

  e2e_bg "iperf-s-$mode" "$NS_S" iperf3 -s -1 -B "$TUN_NET.1" -p 5201
  e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
  e2e_bg "iperf-c-$mode" "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 12 -b 200M --connect-timeout 5000
  for k in $((first + 1)) $((first + 2)) $((first + 3)); do
    sleep 3
    move_to "$k"
    e2e_log "$mode: client now sends from $UL_NET.$k"
  done
  e2e_wait_exit "iperf-c-$mode" 40
  [ "$E2E_RC" = 0 ] || e2e_fail "$mode: the iperf3 run across the moves failed ($E2E_RC)"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: no traffic after the moves"
  [ "$(grep -c "connected as 'alice'" "$slog")" = 1 ] ||
    e2e_fail "$mode: the client handshook again instead of roaming"
  [ "$(e2e_counter "$dir" sessions_started)" = 1 ] || e2e_fail "$mode: sessions_started != 1"
  local roams
  roams=$(e2e_counter "$dir" udp_roams)
  [ "$roams" -ge 3 ] || e2e_fail "$mode: udp_roams = $roams, want ≥ 3"
  grep -q "'alice' .* roamed .*$UL_NET.$((first + 3)):.*no new handshake" "$slog" ||
    e2e_fail "$mode: the server did not log the last move"
  e2e_log "$mode: $roams roams, one handshake, iperf3 ok"
  # Two workers: move on until a new address hashes to the other worker's socket (the
  # session is handed over), at most 12 more moves (2^-12 to miss with a fair hash).
  local k=$((first + 3))
  until grep -q "roamed .*worker [01] → [01]" "$slog"; do
    k=$((k + 1))
    [ "$k" -le $((first + 15)) ] || e2e_fail "$mode: no move crossed workers"
    move_to "$k"
    e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: no traffic after the move to .$k"
  done
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: no traffic after a hand-over between workers"
  e2e_log "$mode: $(grep -c 'roamed .*worker' "$slog") hand-over(s) between workers"
  roams=$(e2e_counter "$dir" udp_roams)
  local listed
  listed=$("$QELI" list-clients --json --socket "$dir/control.sock" | jq -r '.[0] | "\(.roams) \(.peer)"')
  case "$listed" in
    "$roams $UL_NET.$k:"*) ;;
    *) e2e_fail "$mode: list-clients says '$listed', want $roams roams at $UL_NET.$k" ;;
  esac

  # 2. A replay and a forgery from another address move nothing.
  local refused0
  refused0=$(e2e_counter "$dir" udp_roams_refused)
  e2e_bg "pinger-$mode" "$NS_C" ping -c 40 -i 0.1 "$TUN_NET.1"
  out=$(ip netns exec "$NS_C" python3 "$(dirname "$0")/tools/udp_replay.py" "$VETH_C" "$UL_S" \
    "$E2E_PORT" "$UL_NET.9" "$counter_at") || e2e_fail "$mode: udp_replay.py: $out"
  e2e_wait_for 5 sh -c "[ \$('$QELI' stats --json --socket '$dir/control.sock' | jq '.[0].udp_roams_refused') -ge $((refused0 + 2)) ]" ||
    e2e_fail "$mode: refused roams $(e2e_counter "$dir" udp_roams_refused), want $((refused0 + 2))"
  [ "$(e2e_counter "$dir" udp_roams)" = "$roams" ] || e2e_fail "$mode: a replay or forgery moved the session"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: the session stopped answering after the forgery"
  e2e_log "$mode: replay and forgery refused"

  e2e_finish "c-$mode" "server-$mode"
}

run_case fake-tls "roaming.enabled = true" 20 17
run_case obfs "obf.obfs_key = $(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
obf.quic.enabled = true" 60 39

e2e_log "case roaming off"
dir="$E2E_DIR/srv-off"
e2e_server_conf "$dir" fake-tls "roaming.enabled = false"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server-off "$dir"
e2e_start_client c-off "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "off: no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "off: no traffic"
move_to $((CUR + 1))
if ip netns exec "$NS_C" ping -c 3 -i 0.3 -W 1 "$TUN_NET.1" >/dev/null 2>&1; then
  e2e_fail "off: the server followed the client although roaming.enabled = false"
fi
[ "$(e2e_counter "$dir" udp_roams)" = 0 ] || e2e_fail "off: a roam was counted"
e2e_finish c-off server-off
e2e_log "PASS"
