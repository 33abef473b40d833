#!/usr/bin/env bash
# e2e: the server's own Prometheus endpoint ([metrics], docs/OPERATIONS.md "Metrics").
# A client connects and pings through the tunnel; /metrics, scraped with curl from the
# server's namespace (its own loopback), parses strictly (promtool check metrics, when
# Debian's prometheus package is installed, and tools/check_exposition.py always), says
# one live session, one successful handshake, and bytes that grew with the ping. Per-user
# series (per_user = true) show the user; other paths and methods are refused; a reload
# that changes `listen` says it needs a restart and keeps serving.
#
#   [ns client] qeli client ──tunnel── [ns server] qeli server ── 127.0.0.1:9477 /metrics
#                                                         curl ──┘ (inside the namespace)
#
# Usage: metrics.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
CHECK="$(dirname "$(readlink -f "$0")")/tools/check_exposition.py"
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "
[metrics]
enabled = true
listen = 127.0.0.1:9477
per_user = true
per_user_limit = 10"
link=$(e2e_add_user "$dir" alice alice-pass)
e2e_start_server server "$dir"
e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '127.0.0.1:9477 '" ||
  e2e_fail "the metrics endpoint does not listen"
grep -q "metrics: serving /metrics on 127.0.0.1:9477" "$E2E_DIR/server.log" ||
  e2e_fail "no start-up line for the metrics endpoint"

# scrape NAME — GET /metrics into $E2E_DIR/NAME.txt, checked strictly into NAME.series.
scrape() {
  local out="$E2E_DIR/$1"
  ip netns exec "$NS_S" curl -sS --max-time 5 -D "$out.headers" -o "$out.txt" \
    http://127.0.0.1:9477/metrics || e2e_fail "scrape $1 failed"
  grep -q " 200" <<<"$(head -1 "$out.headers")" || e2e_fail "scrape $1: $(head -1 "$out.headers")"
  grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$out.headers" ||
    e2e_fail "scrape $1: wrong Content-Type: $(grep -i content-type "$out.headers")"
  if command -v promtool >/dev/null; then
    # promtool parses with Prometheus's own parser and lints names (exit 3 on lint only).
    promtool check metrics <"$out.txt" >"$out.promtool" 2>&1 ||
      { cat "$out.promtool" >&2; e2e_fail "scrape $1: promtool check metrics refused it"; }
  else
    e2e_log "promtool not installed (Debian: prometheus): the strict parser alone"
  fi
  python3 "$CHECK" "$out.txt" >"$out.series" || e2e_fail "scrape $1 does not parse"
}
# value NAME SERIES — the value of one series ('qeli_sessions{profile="e2e"}'), labels
# sorted by name; "none" if absent.
value() {
  awk -v s="$2" '$1 == s { print $2; found = 1 } END { if (!found) print "none" }' \
    "$E2E_DIR/$1.series"
}

e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel address"
e2e_wait_for 5 sh -c "[ \"\$(\"$QELI\" list-clients --json --socket '$dir/control.sock' |
  jq length)\" = 1 ]" || e2e_fail "no session listed"
scrape before
rx0=$(value before 'qeli_bytes_total{direction="rx",profile="e2e"}')
tx0=$(value before 'qeli_bytes_total{direction="tx",profile="e2e"}')
[ "$rx0" != none ] && [ "$tx0" != none ] || e2e_fail "no qeli_bytes_total series"

e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping through the tunnel"
ip netns exec "$NS_C" ping -c 5 -i 0.2 -s 1000 -W 2 "$TUN_NET.1" >/dev/null ||
  e2e_fail "larger pings through the tunnel"
scrape after
[ "$(value after 'qeli_sessions{profile="e2e"}')" = 1 ] ||
  e2e_fail "qeli_sessions is $(value after 'qeli_sessions{profile="e2e"}'), not 1"
[ "$(value after 'qeli_handshakes_total{outcome="ok",profile="e2e"}')" = 1 ] ||
  e2e_fail "qeli_handshakes_total{outcome=ok} is not 1"
rx1=$(value after 'qeli_bytes_total{direction="rx",profile="e2e"}')
tx1=$(value after 'qeli_bytes_total{direction="tx",profile="e2e"}')
e2e_log "bytes rx $rx0 → $rx1, tx $tx0 → $tx1"
# 8 echo requests of 84..1028 bytes up, their replies down: at least 5 × 1028 each way.
[ "$rx1" -ge $((rx0 + 5 * 1028)) ] || e2e_fail "rx bytes grew by $((rx1 - rx0)) only"
[ "$tx1" -ge $((tx0 + 5 * 1028)) ] || e2e_fail "tx bytes grew by $((tx1 - tx0)) only"
pk=$(value after 'qeli_packets_total{direction="rx",profile="e2e"}')
[ "$pk" -ge 8 ] || e2e_fail "qeli_packets_total rx is $pk"
grep -q '^qeli_build_info{version="[^"]*"} 1$' "$E2E_DIR/after.series" || e2e_fail "no build info"
grep -q '^qeli_start_time_seconds ' "$E2E_DIR/after.series" || e2e_fail "no start time"
grep -q '^qeli_lockouts 0$' "$E2E_DIR/after.series" || e2e_fail "no lockout gauge"
# per_user = true: alice's series (usage totals may lag by their flush, so not compared).
[ "$(value after 'qeli_user_sessions{user="alice"}')" = 1 ] || e2e_fail "no qeli_user_sessions"
[ "$(value after 'qeli_user_bytes_total{direction="rx",user="alice"}')" != none ] ||
  e2e_fail "no qeli_user_bytes_total"
[ "$(value after 'qeli_metrics_users_omitted')" = 0 ] || e2e_fail "users omitted"

# Only GET/HEAD /metrics.
code() { ip netns exec "$NS_S" curl -s --max-time 5 -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code http://127.0.0.1:9477/)" = 404 ] || e2e_fail "/ is not 404"
[ "$(code -X POST -d x http://127.0.0.1:9477/metrics)" = 405 ] || e2e_fail "POST is not 405"
[ "$(code -I http://127.0.0.1:9477/metrics)" = 200 ] || e2e_fail "HEAD is not 200"

# A reload that moves `listen` keeps the endpoint where it was and says so.
sed -i 's/^listen = 127.0.0.1:9477$/listen = 127.0.0.1:9478/' "$dir/server.conf"
kill -HUP "$E2E_PID_server"
e2e_wait_for 5 grep -q "\[metrics\] enabled/listen changed: that needs a restart" \
  "$E2E_DIR/server.log" || e2e_fail "the reload did not say [metrics] needs a restart"
scrape reloaded

e2e_finish alice server
e2e_log "metrics ok"
