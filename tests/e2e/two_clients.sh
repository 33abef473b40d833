#!/usr/bin/env bash
# e2e: two clients at once, from two namespaces (two source addresses, two users), are
# both served: each gets its own tunnel address, both ping the server and are pinged by
# it, and both carry TCP at the same time. Usage: two_clients.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link_a=$(e2e_add_user "$dir" alice alice-pass)
link_b=$(e2e_add_user "$dir" bob bob-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link_a"
e2e_start_client bob "$NS_C2" "$dir" "$link_b"
ip_a=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "alice got no tunnel address"
ip_b=$(e2e_wait_tunnel 15 "$NS_C2") || e2e_fail "bob got no tunnel address"
e2e_log "alice $ip_a, bob $ip_b"
[ "$ip_a" != "$ip_b" ] || e2e_fail "both clients got $ip_a"

e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "alice → server"
e2e_ping "$NS_C2" "$TUN_NET.1" || e2e_fail "bob → server"
e2e_ping "$NS_S" "$ip_a" || e2e_fail "server → alice"
e2e_ping "$NS_S" "$ip_b" || e2e_fail "server → bob"

# Both at once: one iperf3 server per client, both streams run concurrently.
e2e_bg iperf-a "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
e2e_bg iperf-b "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5202
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5202 '" || e2e_fail "iperf3 -s"
ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 3 -J >"$E2E_DIR/a.json" &
pa=$!
ip netns exec "$NS_C2" iperf3 -c "$TUN_NET.1" -p 5202 -t 3 -R -J >"$E2E_DIR/b.json" &
pb=$!
wait "$pa" || e2e_fail "alice iperf3"
wait "$pb" || e2e_fail "bob iperf3"
mbit_a=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/a.json")
mbit_b=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/b.json")
e2e_log "concurrent: alice up $mbit_a Mbit/s, bob down $mbit_b Mbit/s"
[ "$mbit_a" -ge 1 ] || e2e_fail "alice carried only $mbit_a Mbit/s"
[ "$mbit_b" -ge 1 ] || e2e_fail "bob carried only $mbit_b Mbit/s"

# The server lists exactly these two sessions, and logged each once.
sessions=$(e2e_sessions "$dir")
[ "$sessions" = "$(printf 'alice %s\nbob %s' "$ip_a" "$ip_b")" ] ||
  e2e_fail "list-clients shows: $sessions"
grep -q "connected as 'alice'" "$E2E_DIR/server.log" || e2e_fail "no session line for alice"
grep -q "connected as 'bob'" "$E2E_DIR/server.log" || e2e_fail "no session line for bob"
e2e_finish alice bob server
e2e_log "two clients ok"
