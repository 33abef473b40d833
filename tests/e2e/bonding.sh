#!/usr/bin/env bash
# e2e: TCP stream bonding (qeli 0.7.16 §3.8; issue 18). The server allows 4 streams
# (obf.multipath.*), the path limits every carrier TCP connection to a fixed rate (an
# htb class per connection on both veth ends, as a per-flow shaper would), and:
#   1. the client opens 3 more connections that JOIN its session (the server logs each,
#      list-clients shows 4 streams), on the same tunnel address;
#   2. parallel flows inside the tunnel, each way, are spread by bonding: more than one
#      carrier connection moves bulk data (the kernel's per-connection byte counts; the
#      speed ratio itself is a benchmark, docs/BENCHMARKS.md);
#   3. one stream's connection is killed mid-transfer (ss -K): the iperf3 run completes,
#      the session stays (no new AUTH) and the client opens the stream again; then the
#      first connection is killed: the same; a kick then still reaches the client;
#   4. a client without our extensions (QELI_DISABLE_EXTENSIONS=1, the 0.7.16 wire)
#      bonds too;
#   5. obfs with its WebSocket front and AWG junk bonds: every stream runs its own
#      obfs set-up, and the JOINed ones take the session's extensions too (iperf3 both
#      ways crosses the header-only keystream switch on each).
# Usage: bonding.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

CAP_MBIT=8  # per carrier connection on the outer path
# A per-flow shaper: htb, unlimited by default, one capped class per carrier connection
# (matched by the client's port: source on the client's veth, destination on the
# server's). This kernel has no fq/sfq, so flows are classified by u32 filters.
for side in "$NS_C $VETH_C" "$NS_S $VETH_S"; do
  set -- $side
  tc -n "$1" qdisc replace dev "$2" root handle 1: htb default 99 r2q 1000
  tc -n "$1" class add dev "$2" parent 1: classid 1:99 htb rate 10gbit
done
CAPPED=0
cap_carriers() {  # caps every carrier connection not capped yet
  local port
  for port in $(ip netns exec "$NS_C" ss -Htn state established "( dport = :$E2E_PORT )" |
    awk '{print $3}' | sed 's/.*://'); do
    grep -qx "$port" "$E2E_DIR/capped" 2>/dev/null && continue
    CAPPED=$((CAPPED + 1))
    echo "$port" >>"$E2E_DIR/capped"
    tc -n "$NS_C" class add dev "$VETH_C" parent 1: classid "1:$CAPPED" htb rate "${CAP_MBIT}mbit"
    tc -n "$NS_C" filter add dev "$VETH_C" parent 1: protocol ip prio 1 u32 \
      match ip sport "$port" 0xffff flowid "1:$CAPPED"
    tc -n "$NS_S" class add dev "$VETH_S" parent 1: classid "1:$CAPPED" htb rate "${CAP_MBIT}mbit"
    tc -n "$NS_S" filter add dev "$VETH_S" parent 1: protocol ip prio 1 u32 \
      match ip dport "$port" 0xffff flowid "1:$CAPPED"
  done
}

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "obf.multipath.enabled = true
obf.multipath.max_streams = 4"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
ip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "no tunnel address"
e2e_log "tunnel address $ip"

carriers() {  # established TCP connections from the client to the server's port
  ip netns exec "$NS_C" ss -Htn state established "( dport = :$E2E_PORT )" | wc -l
}
e2e_wait_for 15 sh -c "[ \$(grep -c 'joined .alice.' '$E2E_DIR/server.log') -ge 3 ]" ||
  e2e_fail "the server saw $(grep -c "joined 'alice'" "$E2E_DIR/server.log") JOINs, not 3"
e2e_wait_for 5 sh -c "[ \$(ip netns exec $NS_C ss -Htn state established '( dport = :$E2E_PORT )' | wc -l) -eq 4 ]" ||
  e2e_fail "the client holds $(carriers) connections to the server, not 4"
joined=$("$QELI" stats --json --socket "$dir/control.sock" | jq '.[0].streams_joined')
[ "$joined" = 3 ] || e2e_fail "qeli stats counts $joined joined streams, not 3"
[ "$(grep -c "joined 'alice'.*key proof" "$E2E_DIR/server.log")" -ge 3 ] ||
  e2e_fail "our client's JOINs did not prove the session's keys"
streams=$("$QELI" list-clients --json --socket "$dir/control.sock" | jq '.[0].streams')
[ "$streams" = 4 ] || e2e_fail "list-clients shows $streams streams, not 4"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping through the bonded session"
cap_carriers

# carrier_bytes FIELD — "port bytes" for each carrier connection, from the client's
# tcp_info (bytes_acked: what the client sent; bytes_received: what it got).
carrier_bytes() {
  ip netns exec "$NS_C" ss -Htin state established "( dport = :$E2E_PORT )" |
    awk -v f="$1:" '!/^[ \t]/ { n = split($3, a, ":"); port = a[n]; next }
      { v = 0; for (i = 1; i <= NF; i++) if (index($i, f) == 1) v = substr($i, length(f) + 1)
        print port, v }'
}

# 2. Parallel flows, both directions, over the capped path. What is asserted is that more
# than one carrier connection moved bulk data (from the kernel's own per-connection
# counters), not a rate: a rate is what a busy box (ASan, a neighbour test) takes away.
e2e_bg iperf "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
for dirn in up down; do
  flag="" field=bytes_acked
  [ "$dirn" = down ] && flag="-R" field=bytes_received
  carrier_bytes $field | sort >"$E2E_DIR/$dirn.before"
  ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 4 -P 8 $flag -J >"$E2E_DIR/$dirn.json" ||
    e2e_fail "iperf3 $dirn"
  carrier_bytes $field | sort >"$E2E_DIR/$dirn.after"
  mbit=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/$dirn.json")
  spread=$(join "$E2E_DIR/$dirn.before" "$E2E_DIR/$dirn.after" |
    awk '{ d = $3 - $2; printf "%s%d KiB", (NR > 1 ? ", " : ""), d / 1024 }')
  busy=$(join "$E2E_DIR/$dirn.before" "$E2E_DIR/$dirn.after" |
    awk '$3 - $2 >= 32768 { n++ } END { print n + 0 }')
  e2e_log "8 flows $dirn over 4 streams capped at $CAP_MBIT Mbit/s each: $mbit Mbit/s; per stream: $spread"
  [ "$busy" -ge 2 ] ||
    e2e_fail "$dirn: only $busy carrier connection(s) moved data ($spread): the flows were not spread"
done

# 3. Kill one JOINed stream mid-transfer: the run completes, the session stays.
auths_before=$(grep -c "connected as 'alice'" "$E2E_DIR/server.log")
ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 6 -P 4 -J >"$E2E_DIR/kill.json" &
iperf_pid=$!
E2E_PIDS+=("$iperf_pid")  # stopped by the EXIT trap if this script fails first
sleep 2
# A JOINed stream, never the one that authenticated (ss lists them in no fixed order; the
# first one's loss is the next scenario).
primary=$(grep "connected as 'alice'" "$E2E_DIR/server.log" | tail -1 | awk '{print $5}')
victim=$(ip netns exec "$NS_C" ss -Htn state established "( dport = :$E2E_PORT )" |
  awk '{print $3}' | grep -vxF "$primary" | head -1)
[ -n "$victim" ] || e2e_fail "no JOINed stream to kill"
e2e_log "killing the carrier from $victim"
ip netns exec "$NS_C" ss -K state established "( dport = :$E2E_PORT and src $victim )" >/dev/null ||
  e2e_fail "ss -K"
wait "$iperf_pid" || e2e_fail "iperf3 did not survive losing one stream"
mbit=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/kill.json")
e2e_log "with one stream killed mid-run: $mbit Mbit/s"
grep -q "ended: " "$E2E_DIR/alice.log" || e2e_fail "the client did not notice the lost stream"
e2e_wait_for 15 sh -c "[ \$(ip netns exec $NS_C ss -Htn state established '( dport = :$E2E_PORT )' | wc -l) -eq 4 ]" ||
  e2e_fail "the lost stream was not opened again ($(carriers) connections)"
auths_after=$(grep -c "connected as 'alice'" "$E2E_DIR/server.log")
[ "$auths_after" = "$auths_before" ] || e2e_fail "losing a stream cost a new AUTH"
[ "$(e2e_tunnel_ip "$NS_C")" = "$ip" ] || e2e_fail "the tunnel address changed"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping after the stream came back"

# The first connection (the one that authenticated) goes too: the JOINed ones carry the
# session, and the client restores the fourth by a JOIN (no AUTH either).
first=$(grep "connected as 'alice'" "$E2E_DIR/server.log" | tail -1 | awk '{print $5}')
e2e_log "killing the first carrier, from $first"
ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 5 -P 4 -J >"$E2E_DIR/kill0.json" &
iperf_pid=$!
E2E_PIDS+=("$iperf_pid")  # stopped by the EXIT trap if this script fails first
sleep 1
ip netns exec "$NS_C" ss -K state established "( dport = :$E2E_PORT and src $first )" >/dev/null ||
  e2e_fail "ss -K"
wait "$iperf_pid" || e2e_fail "iperf3 did not survive losing the first stream"
grep -q "first stream ended" "$E2E_DIR/server.log" || e2e_fail "the server ended the session"
e2e_wait_for 15 sh -c "[ \$(ip netns exec $NS_C ss -Htn state established '( dport = :$E2E_PORT )' | wc -l) -eq 4 ]" ||
  e2e_fail "the client did not restore 4 streams ($(carriers) connections)"
[ "$(grep -c "connected as 'alice'" "$E2E_DIR/server.log")" = "$auths_before" ] ||
  e2e_fail "losing the first stream cost a new AUTH"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping with the first stream gone"
# A kick now reaches the client on the JOINed streams: it learns why, as with one stream.
"$QELI" kick alice --socket "$dir/control.sock" >/dev/null || e2e_fail "kick"
e2e_wait_for 5 grep -q "session ended: the server ended the session: kicked by the operator" \
  "$E2E_DIR/alice.log" || e2e_fail "the bonded client did not hear the kick after its first stream went"
e2e_finish alice

# 4. The 0.7.16 wire: no extensions, same bonding.
joins_before=$(grep -c "joined 'alice'" "$E2E_DIR/server.log")
QELI_DISABLE_EXTENSIONS=1 e2e_start_client legacy "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "legacy client: no tunnel"
e2e_wait_for 15 sh -c "[ \$(grep -c 'joined .alice.' '$E2E_DIR/server.log') -ge $((joins_before + 3)) ]" ||
  e2e_fail "the client without extensions did not bond"
cap_carriers
[ "$(grep -c "joined 'alice'.*token only" "$E2E_DIR/server.log")" -ge 3 ] ||
  e2e_fail "the 0.7.16-wire client's JOINs were not admitted by token"
carrier_bytes bytes_acked | sort >"$E2E_DIR/legacy.before"
ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t 3 -P 8 -J >"$E2E_DIR/legacy.json" ||
  e2e_fail "iperf3 over the legacy bonded session"
carrier_bytes bytes_acked | sort >"$E2E_DIR/legacy.after"
mbit=$(jq '.end.sum_received.bits_per_second / 1e6 | floor' "$E2E_DIR/legacy.json")
busy=$(join "$E2E_DIR/legacy.before" "$E2E_DIR/legacy.after" |
  awk '$3 - $2 >= 32768 { n++ } END { print n + 0 }')
e2e_log "legacy client, 8 flows: $mbit Mbit/s over $busy busy streams"
[ "$busy" -ge 2 ] || e2e_fail "legacy: only $busy carrier connection(s) moved data: not spread"
e2e_finish legacy server

# 5. obfs + WebSocket + junk, our extensions on.
odir="$E2E_DIR/obfs"
E2E_PORT=$((E2E_PORT + 1))
e2e_server_conf "$odir" obfs "obf.obfs_key = bonding obfs key
obf.awg.enabled = true
obf.awg.jc = 2
obf.multipath.enabled = true
obf.multipath.max_streams = 3"
olink=$(e2e_add_user "$odir" alice alice-pass)
e2e_start_server oserver "$odir"
e2e_start_client oalice "$NS_C" "$odir" "$olink"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "obfs: no tunnel"
e2e_wait_for 15 sh -c "[ \$(grep -c 'joined .alice.' '$E2E_DIR/oserver.log') -ge 2 ]" ||
  e2e_fail "obfs: the client did not bond"
e2e_bg oiperf "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5202
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5202 '" || e2e_fail "iperf3 -s"
for flag in "" -R; do
  ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5202 -t 2 -P 6 $flag -J >"$E2E_DIR/obfs.json" ||
    e2e_fail "iperf3 $flag over bonded obfs"
done
streams=$("$QELI" list-clients --json --socket "$odir/control.sock" | jq '.[0].streams')
[ "$streams" = 3 ] || e2e_fail "obfs: list-clients shows $streams streams, not 3"
! grep -q "ended: " "$E2E_DIR/oalice.log" || e2e_fail "obfs: a bonded stream broke"
e2e_finish oalice oserver
e2e_log "bonding ok"
