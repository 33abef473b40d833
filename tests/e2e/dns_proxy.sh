#!/usr/bin/env bash
# e2e: the server's DNS proxy (dns.enabled, docs/CONFIG.md §5.2) through a real tunnel.
#
#   client ns ──veth── server ns ──veth── wan ns: tools/dns_upstream.py on
#   (dig, getent)      qeli server +       $WAN_IP (answers) and $DEAD (a second address
#                      proxy on $TUN_NET.1 of the same host that logs and never answers)
#
#   dns.upstream = $DEAD, $WAN_IP — the first upstream is dead.
#   1. the client takes the pushed resolver (resolv.conf names $TUN_NET.1) and
#      `getent hosts www.e2e.test` resolves through the tunnel; the dead upstream got the
#      first question, timed out, and the proxy failed over (dns_upstream_timeouts,
#      dns_failovers in `qeli stats`); later questions skip it (the dead one sees no more
#      until its hold-down ends);
#   2. a second lookup of the same name is a cache hit: the upstream saw one query;
#      NXDOMAIN is cached too (RFC 2308: its SOA gives 60 s);
#   3. dns.blocklist: ads.blocked.test → 0.0.0.0, its AAAA → NOERROR without records,
#      and the upstream never hears of either;
#   4. TCP fallback: big.e2e.test TXT is truncated by the upstream over UDP; the proxy
#      fetches it over TCP, dig (UDP, then TCP on our TC) gets all ~3000 bytes;
#   5. a query over TCP to the proxy; and a bad dns.blocklist entry is refused by
#      check-config and by start-up with the same message.
# Usage: dns_proxy.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
trap 'rm -rf "/etc/netns/$NS_C"; e2e_cleanup' EXIT
e2e_add_wan_ns
DEAD=$WAN_NET.3
ip -n "$NS_W" addr add "$DEAD/24" dev "$WAN_PEER_IF"
# The client namespace's own resolv.conf (ip netns exec bind-mounts it over /etc's).
mkdir -p "/etc/netns/$NS_C"
printf 'nameserver 192.0.2.53\n' >"/etc/netns/$NS_C/resolv.conf"

up_log=$E2E_DIR/upstream.queries
e2e_dns_upstream "$up_log" --listen "$DEAD" --drop "$DEAD" --a www.e2e.test=192.0.2.10 \
  --a ads.blocked.test=192.0.2.66

dir=$E2E_DIR/srv
e2e_server_conf "$dir" fake-tls "dns.enabled = true
dns.upstream = $DEAD, $WAN_IP
dns.timeout_secs = 2
dns.blocklist = blocked.test"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_wait_for 5 grep -q "DNS proxy on $TUN_NET.1:53 (udp, tcp)" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not start its DNS proxy"
stat_of() {
  "$QELI" stats --json --socket "$dir/control.sock" | jq -r --arg k "$1" '.[0][$k] // 0'
}
queries_for() { grep -c " $1 " "$up_log" || true; }
dig_c() { ip netns exec "$NS_C" dig +time=4 +tries=1 @"$TUN_NET.1" "$@"; }

e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel"
e2e_wait_for 5 grep -q "nameserver $TUN_NET.1" "/etc/netns/$NS_C/resolv.conf" ||
  e2e_fail "the client did not take the pushed resolver: $(cat "/etc/netns/$NS_C/resolv.conf")"

# 1. Through the client's own resolver config; the dead first upstream costs one attempt.
got=$(ip netns exec "$NS_C" getent hosts www.e2e.test | awk '{print $1}')
[ "$got" = 192.0.2.10 ] || e2e_fail "getent hosts www.e2e.test gave '$got'"
[ "$(grep -c "^udp $DEAD .* www.e2e.test " "$up_log")" -ge 1 ] ||
  e2e_fail "the dead upstream was never asked: $(cat "$up_log")"
grep -q "^udp $WAN_IP $WAN_NET.1 www.e2e.test 1$" "$up_log" ||
  e2e_fail "the live upstream did not answer www.e2e.test from the server: $(cat "$up_log")"
[ "$(stat_of dns_upstream_timeouts)" -ge 1 ] && [ "$(stat_of dns_failovers)" -ge 1 ] ||
  e2e_fail "no timeout/failover counted: $("$QELI" stats --socket "$dir/control.sock")"
grep -q "DNS upstream $DEAD is not answering" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not log the dead upstream"
dead_before=$(grep -c "^udp $DEAD " "$up_log")
t0=$(date +%s%N)
[ "$(dig_c +short other.e2e.test)" = "" ] || true  # NXDOMAIN: no address
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$(grep -c "^udp $DEAD " "$up_log")" = "$dead_before" ] ||
  e2e_fail "the held-down upstream was asked again at once"
[ "$ms" -lt 900 ] || e2e_fail "a question after the failover took $ms ms"

# 2. Cache: positive and negative.
[ "$(dig_c +short www.e2e.test)" = 192.0.2.10 ] || e2e_fail "dig www.e2e.test"
live_www=$(grep -c "^udp $WAN_IP .* www.e2e.test 1$" "$up_log")
[ "$live_www" = 1 ] || e2e_fail "the upstream saw www.e2e.test $live_www times (cache miss)"
grep -q "status: NXDOMAIN" <<<"$(dig_c other.e2e.test)" || e2e_fail "no NXDOMAIN for other.e2e.test"
live_nx=$(grep -c "^udp $WAN_IP .* other.e2e.test " "$up_log")
[ "$live_nx" = 1 ] || e2e_fail "the upstream saw other.e2e.test $live_nx times (no negative cache)"
[ "$(stat_of dns_cache_hits)" -ge 2 ] || e2e_fail "cache hits not counted"

# 3. Blocklist.
[ "$(dig_c +short ads.blocked.test A)" = 0.0.0.0 ] || e2e_fail "blocked A is not 0.0.0.0"
out=$(dig_c ads.blocked.test AAAA)
grep -q "status: NOERROR" <<<"$out" && grep -q "ANSWER: 0" <<<"$out" ||
  e2e_fail "blocked AAAA is not an empty NOERROR: $out"
[ "$(dig_c +short x.ads.blocked.test A)" = 0.0.0.0 ] || e2e_fail "a subdomain is not blocked"
[ "$(queries_for ads.blocked.test)" = 0 ] || e2e_fail "a blocked name reached the upstream"
[ "$(stat_of dns_blocked)" = 3 ] || e2e_fail "dns_blocked = $(stat_of dns_blocked)"

# 4. TCP fallback for a truncated answer.
out=$(dig_c big.e2e.test TXT)
grep -q "status: NOERROR" <<<"$out" || e2e_fail "big.e2e.test: $out"
[ "$(echo "$out" | grep -o yyyyyyyyyy | wc -l)" -ge 250 ] || e2e_fail "big.e2e.test TXT is not whole"
[ "$(grep -c "^tcp $WAN_IP .* big.e2e.test 16" "$up_log")" = 1 ] ||
  e2e_fail "the proxy did not fetch the truncated answer over TCP: $(grep big "$up_log")"
[ "$(stat_of dns_tcp_fallbacks)" = 1 ] || e2e_fail "dns_tcp_fallbacks = $(stat_of dns_tcp_fallbacks)"
[ "$(stat_of dns_truncated)" -ge 1 ] || e2e_fail "the client's UDP answer was not truncated"

# 5. TCP to the proxy; a bad blocklist entry, refused the same way twice.
[ "$(dig_c +tcp +short www.e2e.test)" = 192.0.2.10 ] || e2e_fail "dig +tcp"
[ "$(stat_of dns_queries_tcp)" -ge 2 ] || e2e_fail "TCP queries not counted"
e2e_finish alice server
bad=$E2E_DIR/bad
mkdir -p "$bad"
sed 's/^dns.blocklist = .*/dns.blocklist = blocked.test, not a domain/' "$dir/server.conf" \
  >"$bad/server.conf"
cp "$dir/users.conf" "$bad/"
msg=$("$QELI" check-config "$bad/server.conf" 2>&1 || true)
grep -q "dns.blocklist: \`not a domain\` is not a domain name" <<<"$msg" ||
  e2e_fail "check-config did not refuse the bad blocklist: $msg"
rc=0
ip netns exec "$NS_S" "$QELI" server -c "$bad/server.conf" --identity-dir "$dir/identity" \
  --socket "$bad/control.sock" >"$E2E_DIR/bad-server.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || e2e_fail "the server started with a bad blocklist (exit $rc)"
grep -q "dns.blocklist: \`not a domain\` is not a domain name" "$E2E_DIR/bad-server.log" ||
  e2e_fail "start-up did not give check-config's message"
e2e_log "dns proxy: resolve, failover, cache, blocklist, TCP fallback, TCP — all good"
