#!/usr/bin/env bash
# e2e: TCP session resume (issue 18, docs/PROTOCOL.md §22). During an iperf3 run inside
# the tunnel the client's carrier connection is destroyed (`ss -K`, as a middlebox reset
# or a path change would end it), and:
#   a. the client resumes the session on a new connection: no new AUTH (one "connected"
#      in the server's log, sessions_started 1, tcp_resumes 1), the same tunnel address,
#      and the TCP flow inside completes;
#   b. the same while the server never hears of it (the client's RST is dropped): the
#      resume supersedes the stream the server still holds;
#   c. the server was killed and restarted: the resume is refused (the new process has no
#      such session) and the client reconnects with a new AUTH at once (no wait for the
#      grace period);
#   d. roaming.grace_secs = 2 and no new connection gets through: the server ends the session
#      ("not resumed within 2 s", tcp_resume_expired 1); the client reconnects;
#   e. a 0.7.16-style client (QELI_DISABLE_EXTENSIONS=1) reconnects with a new AUTH;
#   f. roaming.max_orphaned = 0: no resume is offered.
#   g. the client moves to another network during an iperf3 run (its address is replaced,
#      as on a Wi-Fi → LTE switch; nothing resets the old connection): the client sees
#      the move at once and resumes from the new address — well before its liveness
#      deadline (30 s) — and the TCP flow inside completes.
#   h. the same move in a full tunnel whose route to the server (the pin outside the
#      tunnel) goes with the old network: no resume can get out, so the client starts a
#      new session at once (a new AUTH, its routes set up through the new network) instead
#      of dialling into its own tunnel until the grace period ends.
# Usage: tcp_resume.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

# kill_carrier — destroys the client's TCP connections to the server's port.
kill_carrier() {
  ip netns exec "$NS_C" ss -K -tn dst "$UL_S" dport = ":$E2E_PORT" >/dev/null
}
# connects DIR — how many sessions the server started (AUTH admitted).
connects() { e2e_counter "$1" sessions_started; }
# wait_resumes DIR N — tcp_resumes reaches N.
wait_resumes() {
  e2e_wait_for 15 sh -c "[ \"\$('$QELI' stats --json --socket '$1/control.sock' | jq -r '.[0].tcp_resumes // 0')\" -ge $2 ]"
}
# iperf_start NAME — iperf3 through the tunnel for 10 s (a delivery check, not a benchmark).
iperf_start() {
  e2e_bg "iperf-s-$1" "$NS_S" iperf3 -s -1 -B "$TUN_NET.1" -p 5201
  e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
  e2e_bg "iperf-c-$1" "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 10 -b 100M --connect-timeout 5000
  sleep 3
}
# kill_expect_auth CASE — once a tunnel is up, destroys the carrier and expects a new AUTH
# (sessions_started grows), not a resume (tcp_resumes stays 0).
kill_expect_auth() {
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "$1: no tunnel"
  local before
  before=$(connects "$dir")
  kill_carrier
  e2e_wait_for 30 sh -c "[ \"\$('$QELI' stats --json --socket '$dir/control.sock' | jq -r '.[0].sessions_started')\" -gt $before ]" ||
    e2e_fail "$1: the client did not reconnect"
  [ "$(e2e_counter "$dir" tcp_resumes)" = 0 ] || e2e_fail "$1: the session resumed"
}
iperf_done() {
  e2e_wait_exit "iperf-c-$1" 40
  [ "$E2E_RC" = 0 ] || e2e_fail "$1: the iperf3 run across the resume failed ($E2E_RC)"
}

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "roaming.grace_secs = 15"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
ip1=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "no tunnel"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no traffic"

# ---- a. The client sees its connection go: it resumes.
e2e_log "case a: the carrier connection is destroyed during an iperf3 run"
iperf_start a
kill_carrier
wait_resumes "$dir" 1 || e2e_fail "a: no resume counted: $(tail -5 "$E2E_DIR/server.log")"
iperf_done a
[ "$(connects "$dir")" = 1 ] || e2e_fail "a: a new AUTH happened ($(connects "$dir") sessions started)"
[ "$(e2e_tunnel_ip "$NS_C")" = "$ip1" ] || e2e_fail "a: the tunnel address changed"
grep -q "resumed 'alice'" "$E2E_DIR/server.log" || e2e_fail "a: no resume in the server's log"
grep -q "resumed the session on a new connection" "$E2E_DIR/alice.log" ||
  e2e_fail "a: no resume in the client's log"
e2e_log "a: resumed without AUTH (sessions_started 1), $ip1 kept, the iperf3 run completed"

# ---- b. The server still holds the old connection (the client's RST never arrives).
e2e_log "case b: the same, and the server never hears the old connection end"
ip netns exec "$NS_C" nft -f - <<NFT
table inet qe_rst {
  chain out {
    type filter hook output priority filter; policy accept;
    ip daddr $UL_S tcp dport $E2E_PORT tcp flags & rst == rst drop
  }
}
NFT
iperf_start b
kill_carrier
wait_resumes "$dir" 2 || e2e_fail "b: no resume: $(tail -5 "$E2E_DIR/server.log")"
iperf_done b
ip netns exec "$NS_C" nft delete table inet qe_rst
[ "$(connects "$dir")" = 1 ] || e2e_fail "b: a new AUTH happened"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "b: no traffic after the resume"
e2e_log "b: the resume superseded the stream the server still held; no AUTH"

# ---- c. The server restarted: the resume is refused, a new AUTH follows at once.
e2e_log "case c: the server is killed (no goodbye) and restarted; the resume is refused"
kill -KILL "$E2E_PID_server"
e2e_wait_for 10 sh -c "! kill -0 $E2E_PID_server 2>/dev/null" || e2e_fail "c: the server did not die"
e2e_start_server server "$dir"
start=$(date +%s)
e2e_wait_for 20 e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "c: no tunnel after the restart"
took=$(($(date +%s) - start))
grep -q "the server no longer has the session" "$E2E_DIR/alice.log" ||
  e2e_fail "c: the client did not see its resume refused"
[ "$took" -lt 14 ] || e2e_fail "c: the client took $took s: it waited out the grace period"
e2e_log "c: reconnected with a new AUTH after $took s"

# ---- d. The grace period runs out (the old connection's end reaches the server, new
# connections do not get through).
e2e_log "case d: roaming.grace_secs = 2, no new connection gets through"
e2e_finish alice server
sed -i 's/^roaming.grace_secs = 15$/roaming.grace_secs = 2/' "$dir/server.conf"
e2e_start_server server-d "$dir"
e2e_start_client alice-d "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "d: no tunnel"
ip netns exec "$NS_C" nft -f - <<NFT
table inet qe_down {
  chain out {
    type filter hook output priority filter; policy accept;
    ip daddr $UL_S tcp dport $E2E_PORT tcp flags & (syn | ack) == syn drop
  }
}
NFT
kill_carrier
e2e_wait_for 10 grep -q "not resumed within 2 s" "$E2E_DIR/server-d.log" ||
  e2e_fail "d: the server did not end the session after its grace"
[ "$(e2e_counter "$dir" tcp_resume_expired)" = 1 ] || e2e_fail "d: tcp_resume_expired not counted"
ip netns exec "$NS_C" nft delete table inet qe_down
e2e_wait_for 30 e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "d: the client did not reconnect"
[ "$(connects "$dir")" = 2 ] || e2e_fail "d: expected a second AUTH, got $(connects "$dir")"
e2e_log "d: ended after its grace; the client came back with a new AUTH"

# ---- e. A 0.7.16-style client does not resume.
e2e_log "case e: QELI_DISABLE_EXTENSIONS=1"
e2e_finish alice-d
QELI_DISABLE_EXTENSIONS=1 e2e_start_client alice-e "$NS_C" "$dir" "$link"
kill_expect_auth e
e2e_log "e: reconnected with a new AUTH, nothing resumed"

e2e_finish alice-e server-d

# ---- f. roaming.max_orphaned = 0: the server offers no resume.
e2e_log "case f: roaming.max_orphaned = 0"
echo "roaming.max_orphaned = 0" >>"$dir/server.conf"
e2e_start_server server-f "$dir"
e2e_start_client alice-f "$NS_C" "$dir" "$link"
kill_expect_auth f
e2e_log "f: no resume offered; a new AUTH"

e2e_finish alice-f server-f

# ---- g. The client moves to another network: no reset, only its address changes.
e2e_log "case g: the client's address is replaced during an iperf3 run"
sed -i -e '/^roaming.max_orphaned = 0$/d' -e 's/^roaming.grace_secs = 2$/roaming.grace_secs = 15/' "$dir/server.conf"
e2e_start_server server-g "$dir"
ip netns exec "$NS_C" sysctl -qw net.ipv4.conf.all.promote_secondaries=1
e2e_start_client alice-g "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "g: no tunnel"
iperf_start g
ip -n "$NS_C" addr add "$UL_NET.3/24" dev "$VETH_C"
ip -n "$NS_C" route replace "$UL_S/32" dev "$VETH_C" src "$UL_NET.3"
moved=$(date +%s%N)
ip -n "$NS_C" addr del "$UL_C/24" dev "$VETH_C"
# The move is seen on the kernel's address change (milliseconds), not at the liveness
# deadline (30 s): 12 s leaves a slow (sanitizer) build on a busy box room; the log line
# below says which way the client noticed.
e2e_wait_for 12 sh -c "[ \"\$('$QELI' stats --json --socket '$dir/control.sock' | jq -r '.[0].tcp_resumes // 0')\" -ge 1 ]" ||
  e2e_fail "g: no resume within 12 s of the move: $(tail -5 "$E2E_DIR/alice-g.log")"
took=$(( ($(date +%s%N) - moved) / 1000000 ))
grep -q "the network changed: $UL_C is no longer on this host" "$E2E_DIR/alice-g.log" ||
  e2e_fail "g: the client did not log the move"
iperf_done g
[ "$(connects "$dir")" = 1 ] || e2e_fail "g: a new AUTH happened"
e2e_log "g: resumed from $UL_NET.3 within ${took} ms of the move (no new AUTH), the iperf3 run completed"

e2e_finish alice-g

# ---- h. A full tunnel: the pin to the server leaves with the old network.
e2e_log "case h: full tunnel, the client's address and its route to the server go"
ip -n "$NS_C" addr flush dev "$VETH_C"
ip -n "$NS_C" addr add "$UL_C/24" dev "$VETH_C"
conf_h=$(e2e_client_conf "$dir" alice-h alice alice-pass "gateway = true
dns = off
reconnect_base_delay = 1")
e2e_start_client alice-h "$NS_C" "$dir" -c "$conf_h"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "h: no tunnel"
e2e_wait_for 10 sh -c "ip -n '$NS_C' route show '$UL_S/32' | grep -q ." ||
  e2e_fail "h: the full tunnel did not pin the server: $(ip -n "$NS_C" route)"
before=$(connects "$dir")
# The new network: 10.198.7.0/24 with its gateway (the server's second address); the old
# one's pin to the server goes first (an interface that went away takes its routes), then
# its address — after which only the tunnel's half-default routes cover the server.
ip -n "$NS_S" addr add 10.198.7.1/24 dev "$VETH_S"
ip -n "$NS_C" addr add 10.198.7.2/24 dev "$VETH_C"
ip -n "$NS_C" route add default via 10.198.7.1 dev "$VETH_C"
ip -n "$NS_C" route del "$UL_S/32"
ip -n "$NS_C" addr del "$UL_C/24" dev "$VETH_C"
# Within the liveness deadline (30 s) and the grace period (15 s) a resume would wait out.
e2e_wait_for 14 sh -c "[ \"\$('$QELI' stats --json --socket '$dir/control.sock' | jq -r '.[0].sessions_started')\" -gt $before ]" ||
  e2e_fail "h: no new session within 14 s of the move: $(tail -5 "$E2E_DIR/alice-h.log")"
grep -q "the route to the server left with the old network: reconnecting" "$E2E_DIR/alice-h.log" ||
  e2e_fail "h: the client did not say why it reconnected: $(grep -i 'network' "$E2E_DIR/alice-h.log")"
e2e_wait_for 15 e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "h: no traffic after the new session"
e2e_log "h: a new session from 10.198.7.2 (no resume into the tunnel), traffic flows"

e2e_finish alice-h server-g
e2e_log "PASS: tcp_resume"
