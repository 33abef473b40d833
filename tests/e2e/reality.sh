#!/usr/bin/env bash
# e2e: a `reality` profile (fake-tls behind the REALITY gate) with a real nginx as the
# cover site, between two network namespaces.
#
#   client ns ──(qeli port)──> qeli server ──bridge──> nginx (HTTPS, self-signed decoy.test)
#
#   * a client from `qeli add-client --link` gets a tunnel: ping, iperf3 up/down;
#   * curl and `openssl s_client` pointed at the qeli port get nginx's certificate and
#     page, byte for byte; headless Chromium renders the same page through it as from
#     nginx directly;
#   * hand-made hellos (tools/reality_hello): a valid token is answered by qeli; the same
#     hello again (a replay), an expired token, an unknown short id and the short id of a
#     disabled user are bridged to nginx — each counted; another user's own short id still
#     works (revoked alone);
#   * a flood of stalling strangers stays within the bridge pool (max_bridges) while the
#     real client reconnects; a half-closed stranger and a hello dribbled byte by byte
#     are bridged and counted;
#   * the server restarts: the client comes back, and a hello accepted before the restart
#     is still refused after it (the replay cache survives);
#   * valid tokens count against the per-source new-session limit; a target that is the
#     profile's own listener is refused by check-config;
#   * a target whose name does not resolve is named at start-up and in the log when a
#     stranger cannot be bridged.
# Usage: reality.sh QELI_BINARY REALITY_HELLO_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
HELLO=$(readlink -f "$2")
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_client_ns 2

ng="$E2E_DIR/nginx"
e2e_start_nginx nginx "$ng" 8080 8443
dir="$E2E_DIR/r"
e2e_server_conf "$dir" fake-tls "obf.tls.server_name = decoy.test
obf.tls.reality_proxy.enabled = true
obf.tls.reality_proxy.target = $UL_S
obf.tls.reality_proxy.target_port = 8443
obf.tls.reality_proxy.short_ids = 0123456789abcdef
obf.tls.reality_proxy.max_bridges = 16
obf.tls.reality_proxy.bridge_idle_timeout_secs = 20
obf.heartbeat.interval_ms = 5000"

link=$(e2e_add_user "$dir" alice alice-pw)
link_d=$(e2e_add_user "$dir" dave dave-pw)
case "$link" in *mode=fake-tls*rsid=0123456789abcdef*) ;; *) e2e_fail "not a reality link: $link" ;; esac
own_id() {  # add-client USER --own-short-id, prints the user's own short id
  echo "$2" | "$QELI" add-client "$1" --password-stdin --own-short-id -c "$dir/server.conf" \
    --identity-dir "$dir/identity" --link --host "$UL_S:$E2E_PORT" --no-qr |
    grep -o 'rsid=[0-9a-f]*' | cut -d= -f2
}
bob_id=$(own_id bob bob-pw)
carol_id=$(own_id carol carol-pw)
[ -n "$bob_id" ] && [ -n "$carol_id" ] && [ "$bob_id" != "$carol_id" ] || e2e_fail "own short ids"
key=$("$QELI" show-identity -c "$dir/server.conf" --identity-dir "$dir/identity" |
  grep -Eo '[0-9a-f]{64}' | head -1)

e2e_start_server server "$dir"
e2e_start_client alice "$NS_C" "$dir" "$link"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "reality: no tunnel"
e2e_measure reality "$cip"
row=$E2E_ROW

# The port is nginx to everyone else: same certificate, same page.
page=$(cat "$ng/www/index.html")
got=$(ip netns exec "$NS_C" curl -s --max-time 10 --cacert "$ng/decoy.crt" \
  --resolve "decoy.test:$E2E_PORT:$UL_S" "https://decoy.test:$E2E_PORT/")
[ "$got" = "$page" ] || e2e_fail "curl through the qeli port got '$got', not nginx's page"
fp() { echo | ip netns exec "$NS_C" openssl s_client -connect "$UL_S:$1" -servername decoy.test \
  2>/dev/null | openssl x509 -noout -fingerprint -sha256; }
want=$(openssl x509 -in "$ng/decoy.crt" -noout -fingerprint -sha256)
[ "$(fp "$E2E_PORT")" = "$want" ] || e2e_fail "openssl s_client through the qeli port: not nginx's certificate"
[ "$(fp 8443)" = "$want" ] || e2e_fail "nginx itself"

# A real browser: headless Chromium (its own ClientHello: X25519MLKEM768, ECH GREASE,
# ALPN h2) pointed at the qeli port renders the page it renders from nginx directly. The
# decoy certificate is trusted by its key (SPKI pin), the name mapped to the server.
command -v chromium >/dev/null || e2e_fail "chromium is not installed (scripts/bootstrap.sh installs it)"
spki=$(openssl x509 -in "$ng/decoy.crt" -pubkey -noout | openssl pkey -pubin -outform der |
  openssl dgst -sha256 -binary | base64)
chrome_dom() {  # PORT — the DOM Chromium renders for https://decoy.test:PORT/
  ip netns exec "$NS_C" timeout 60 chromium --headless=new --no-sandbox --disable-gpu \
    --no-first-run --user-data-dir="$E2E_DIR/chromium-$1" \
    --ignore-certificate-errors-spki-list="$spki" \
    --host-resolver-rules="MAP decoy.test $UL_S" \
    --dump-dom "https://decoy.test:$1/" 2>"$E2E_DIR/chromium-$1.log"
}
direct=$(chrome_dom 8443)
case "$direct" in *"decoy site $E2E_ID"*) ;; *) e2e_fail "chromium to nginx directly: '$direct'" ;; esac
via=$(chrome_dom "$E2E_PORT")
[ "$via" = "$direct" ] || e2e_fail "chromium through the qeli port rendered '$via', not '$direct'"

# send_hello HEX — sends a ClientHello record raw; prints the length of the first record
# of the answer (qeli's fake ServerHello carries an ML-KEM ciphertext: > 1000 bytes;
# nginx's real one < 300), or "closed".
send_hello() {
  ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" "$1" <<'PY'
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(bytes.fromhex(sys.argv[3]))
head = b''
while len(head) < 5:
    b = s.recv(5 - len(head))
    if not b:
        print('closed'); sys.exit(0)
    head += b
print(int.from_bytes(head[3:5], 'big'))
PY
}
answered_by_qeli() { local n; n=$(send_hello "$1"); [ "$n" != closed ] && [ "$n" -gt 1000 ]; }
bridged() { local n; n=$(send_hello "$1"); [ "$n" != closed ] && [ "$n" -lt 1000 ]; }
counter_of() { "$QELI" stats --json --socket "$dir/control.sock" | jq ".[0].$1"; }
counter_at_least() {
  e2e_wait_for 5 sh -c "[ \"\$('$QELI' stats --json --socket '$dir/control.sock' | jq '.[0].$1')\" -ge $2 ]" ||
    e2e_fail "counter $1 < $2: $("$QELI" stats --json --socket "$dir/control.sock" | jq -c '.[0]')"
}

h1=$("$HELLO" "$key" 0123456789abcdef 0 decoy.test)
answered_by_qeli "$h1" || e2e_fail "a valid token was not answered by qeli"
bridged "$h1" || e2e_fail "a replayed hello was not bridged"
counter_at_least reality_bridged_replay 1
bridged "$("$HELLO" "$key" 0123456789abcdef -300 decoy.test)" || e2e_fail "an expired token was not bridged"
counter_at_least reality_bridged_expired 1
bridged "$("$HELLO" "$key" deadbeef00000001 0 decoy.test)" || e2e_fail "a wrong short id was not bridged"
counter_at_least reality_bridged_unknown_short_id 1
answered_by_qeli "$("$HELLO" "$key" "$bob_id" 0 decoy.test)" || e2e_fail "bob's own short id"
"$QELI" disable-user bob --socket "$dir/control.sock" >/dev/null
bridged "$("$HELLO" "$key" "$bob_id" 0 decoy.test)" || e2e_fail "a revoked short id was not bridged"
counter_at_least reality_bridged_revoked_short_id 1
answered_by_qeli "$("$HELLO" "$key" "$carol_id" 0 decoy.test)" ||
  e2e_fail "carol's short id stopped working when bob's was revoked"
# A per-user short id admits its own user only: dave's credentials behind carol's id pass
# the token (the hello is carol's) and are refused at AUTH, logged; dave's client gives up.
mixed=${link_d/rsid=0123456789abcdef/rsid=$carol_id}
[ "$mixed" != "$link_d" ] || e2e_fail "could not put carol's short id in dave's link"
e2e_start_client dave "$NS_C2" "$dir" "$mixed"
e2e_wait_for 20 grep -q "rejected: REALITY short id of user 'carol' used by another (user 'dave')" \
  "$E2E_DIR/server.log" || e2e_fail "dave's login behind carol's short id was not refused"
e2e_wait_exit dave 30
[ "$E2E_RC" = 1 ] || e2e_fail "dave's client did not give up (exit $E2E_RC)"

# A half-closed stranger: its request reaches nginx, nginx's answer comes back, FIN both
# ways (counted as an orderly end).
eof_before=$(counter_of bridge_closed_eof)
ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" <<'PY' || e2e_fail "half-closed stranger"
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.sendall(b'GET / HTTP/1.1\r\nHost: decoy.test\r\n\r\n')
s.shutdown(socket.SHUT_WR)
data = b''
while True:
    b = s.recv(4096)
    if not b: break
    data += b
assert b'400' in data.split(b'\r\n')[0], data[:80]
PY
counter_at_least bridge_closed_eof $((eof_before + 1))
# A hello dribbled one byte per 100 ms: bridged once the peek budget (1.8 s) is spent —
# the rest of it then reaches nginx, whose ServerHello (< 1000 bytes) comes back.
dribble_before=$(counter_of reality_bridged_peek_timeout)
ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" "$h1" <<'PY' || e2e_fail "dribbled hello"
import socket, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
hello = bytes.fromhex(sys.argv[3])
for b in hello[:30]:
    s.send(bytes([b])); time.sleep(0.1)
s.sendall(hello[30:])
head = b''
while len(head) < 5:
    b = s.recv(5 - len(head))
    assert b, 'closed before an answer'
    head += b
n = int.from_bytes(head[3:5], 'big')
assert head[0] == 0x16 and 0 < n < 1000, (head, n)
PY
counter_at_least reality_bridged_peek_timeout $((dribble_before + 1))

# A flood of 60 strangers that stall mid-record: at most 16 bridges at once, the rest
# refused, and the real client still gets in (kicked, it reconnects).
ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" >"$E2E_DIR/flood.log" 2>&1 <<'PY' &
import socket, sys, time
conns = []
for i in range(60):
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    s.sendall(bytes.fromhex('160301020001'))  # a record that never completes
    conns.append(s)
time.sleep(12)
PY
flood=$!
E2E_PIDS+=("$flood")
counter_at_least bridge_refused_full 1
bridges=$(ip netns exec "$NS_S" ss -Htn state established "( dport = :8443 )" | wc -l)
[ "$bridges" -le 16 ] || e2e_fail "$bridges bridges to nginx, more than max_bridges = 16"
"$QELI" kick alice --socket "$dir/control.sock" >/dev/null
e2e_wait_for 15 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" ||
  e2e_fail "the real client did not get back in during the flood"
kill "$flood" 2>/dev/null || true

e2e_log "counters: $("$QELI" stats --json --socket "$dir/control.sock" | jq -c '.[0]')"
# Restart: the client comes back; the hello accepted before is still a replay.
e2e_finish server
e2e_start_server server-again "$dir"
e2e_wait_for 20 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" || e2e_fail "no traffic after restart"
bridged "$h1" || e2e_fail "after the restart, the replayed hello was answered"
counter_at_least reality_bridged_replay 1
# Valid tokens are new sessions: the per-source limit (perf.connection.new_session_rate_max,
# 10 per minute) holds for them as on any TCP profile — strangers, bridged, are not counted.
for _ in $(seq 12); do send_hello "$("$HELLO" "$key" 0123456789abcdef 0 decoy.test)" >/dev/null || true; done
counter_at_least new_session_rate_limited 1
e2e_finish alice server-again

# A target that is the profile's own listener would bridge strangers into itself.
sed "s/^obf.tls.reality_proxy.target = .*/obf.tls.reality_proxy.target = $UL_S/;
     s/^obf.tls.reality_proxy.target_port = .*/obf.tls.reality_proxy.target_port = $E2E_PORT/" \
  "$dir/server.conf" >"$dir/self-target.conf"
if "$QELI" check-config -c "$dir/self-target.conf" >"$E2E_DIR/self-target.log" 2>&1; then
  e2e_fail "check-config accepted a REALITY target that is the profile's own listener"
fi
grep -q "own listener" "$E2E_DIR/self-target.log" || e2e_fail "self target: $(cat "$E2E_DIR/self-target.log")"

# A cover site whose name does not resolve (a trial's typo): start-up says so, and a
# stranger that cannot be bridged leaves a log line, not only a counter.
sed -i 's/^obf.tls.reality_proxy.target = .*/obf.tls.reality_proxy.target = cover.invalid/' \
  "$dir/server.conf"
e2e_start_server server-unresolved "$dir"
grep -q "REALITY target cover.invalid does not resolve" "$E2E_DIR/server-unresolved.log" ||
  e2e_fail "no start-up warning for a target that does not resolve"
send_hello "$h1" >/dev/null 2>&1 || true
e2e_wait_for 10 grep -q "could not be bridged: cover.invalid:8443 is unreachable" \
  "$E2E_DIR/server-unresolved.log" || e2e_fail "no log line for a stranger that could not be bridged"
counter_at_least bridge_connect_failed 1
e2e_finish server-unresolved
e2e_measure_header
printf '%s\n' "$row"
e2e_log "reality ok"
