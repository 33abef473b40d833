#!/usr/bin/env bash
# e2e: a `reality-tls` profile — real TLS 1.3 around the qeli flight — with a real nginx
# (TLS 1.3, h2, a two-certificate chain) as the target, between two network namespaces.
#
#   client ns ──TLS 1.3──> qeli server ─┬─ valid token: our terminator, mirroring nginx
#                                       └─ anyone else: bridged to nginx
#
#   * the server probes nginx at start-up; the shape it mirrors is logged and shown by
#     `qeli stats`;
#   * a client from `qeli add-client --link` gets a tunnel: ping, iperf3 up/down;
#   * the server's flight to a hello with a valid token is compared with nginx's own
#     answer to the same kind of hello, directly and through the bridge: suite, group,
#     ServerHello extension order, EncryptedExtensions (ALPN h2) and the certificate chain
#     byte for byte, CertificateVerify scheme, record count and record boundaries (±2
#     bytes: an ECDSA signature's DER length varies), tickets;
#   * curl (verifying the chain), `openssl s_client` and headless Chromium at the qeli
#     port see nginx; an expired token and an unknown short id are bridged (counted);
#   * with `handrolled = false` the target is not probed: the fallback shape answers
#     (a self-signed certificate) and the client still connects.
# Usage: reality_tls.sh QELI_BINARY REALITY_TLS_FLIGHT_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
FLIGHT=$(readlink -f "$2")
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

ng="$E2E_DIR/nginx"
e2e_start_nginx nginx "$ng" 8080 8443 chain
dir="$E2E_DIR/r"
e2e_server_conf "$dir" reality-tls "obf.tls.server_name = decoy.test
obf.tls.reality_proxy.enabled = true
obf.tls.reality_proxy.real_tls = true
obf.tls.reality_proxy.handrolled = true
obf.tls.reality_proxy.target = $UL_S
obf.tls.reality_proxy.target_port = 8443
obf.tls.reality_proxy.short_ids = 0123456789abcdef"

link=$(e2e_add_user "$dir" alice alice-pw)
for want in mode=reality-tls sni=decoy.test rsid=0123456789abcdef; do
  case "$link" in *"$want"*) ;; *) e2e_fail "the link lacks $want: $link" ;; esac
done
key=$("$QELI" show-identity -c "$dir/server.conf" --identity-dir "$dir/identity" |
  grep -Eo '[0-9a-f]{64}' | head -1)

e2e_start_server server "$dir"
e2e_wait_for 10 grep -q "reality-tls: mirroring" "$E2E_DIR/server.log" ||
  e2e_fail "the server did not log the probed shape: $(cat "$E2E_DIR/server.log")"
stats() { "$QELI" stats --json --socket "$dir/control.sock"; }
stats | jq -e '.[0].tls_target | contains("probe")' >/dev/null ||
  e2e_fail "qeli stats does not show the probed shape: $(stats)"
grep -q "reality-tls answers as" <<<"$("$QELI" stats --socket "$dir/control.sock")" ||
  e2e_fail "qeli stats (text) does not show the shape"

e2e_start_client alice "$NS_C" "$dir" "$link"
cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "reality-tls: no tunnel ($(tail -5 "$E2E_DIR/alice.log"))"
e2e_measure reality-tls "$cip"
row=$E2E_ROW

# The flights: ours (a valid token), the bridge's (no token) and nginx's own.
flight() { ip netns exec "$NS_C" "$FLIGHT" "$UL_S" "$@"; }
ours=$(flight "$E2E_PORT" decoy.test "$key" 0123456789abcdef 0) || e2e_fail "our flight: $ours"
bridged=$(flight "$E2E_PORT" decoy.test) || e2e_fail "the bridged flight: $bridged"
direct=$(flight 8443 decoy.test) || e2e_fail "nginx's flight: $direct"
compare() {  # NAME A B — the flights agree (record boundaries within ±2 bytes)
  python3 - "$1" "$2" "$3" <<'PY' || e2e_fail "$1"
import json, sys
name, a, b = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
exact = ["suite", "group", "server_hello_extensions", "change_cipher_spec",
         "encrypted_extensions", "certificate_sha256", "certificate_compression",
         "signature_scheme", "ticket_records", "unprompted_records"]
bad = [k for k in exact if a[k] != b[k]]
ra, rb = a["flight_records"], b["flight_records"]
if len(ra) != len(rb):
    bad.append("flight record count")
else:
    bad += ["flight record %d" % i for i, (x, y) in enumerate(zip(ra, rb))
            if abs(x[0] - y[0]) > 2 or x[1] != y[1]]
if abs(a["signature_size"] - b["signature_size"]) > 2:
    bad.append("signature_size")
if bad:
    print("%s differ in %s:\n  %s\n  %s" % (name, bad, a["describe"], b["describe"]))
    sys.exit(1)
PY
}
compare "bridged vs nginx" "$bridged" "$direct"
compare "ours vs nginx" "$ours" "$direct"
echo "$ours" | jq -e '.encrypted_extensions | test("6832")' >/dev/null ||
  e2e_fail "our EncryptedExtensions do not select h2: $ours"
[ "$(e2e_counter "$dir" reality_accepted)" -ge 2 ] || e2e_fail "reality_accepted: $(stats)"

# Strangers see nginx: curl verifying the whole chain, openssl s_client, Chromium.
page=$(cat "$ng/www/index.html")
got=$(ip netns exec "$NS_C" curl -s --http2 --max-time 10 --cacert "$ng/decoy-root.crt" \
  --resolve "decoy.test:$E2E_PORT:$UL_S" "https://decoy.test:$E2E_PORT/")
[ "$got" = "$page" ] || e2e_fail "curl through the qeli port got '$got', not nginx's page"
certs=$(echo | ip netns exec "$NS_C" openssl s_client -connect "$UL_S:$E2E_PORT" \
  -servername decoy.test -tls1_3 -showcerts 2>/dev/null | grep -c 'BEGIN CERTIFICATE' || true)
[ "$certs" = 2 ] || e2e_fail "openssl s_client through the qeli port saw $certs certificates, not nginx's 2"
command -v chromium >/dev/null || e2e_fail "chromium is not installed (scripts/bootstrap.sh installs it)"
spki=$(openssl x509 -in "$ng/leaf.crt" -pubkey -noout | openssl pkey -pubin -outform der |
  openssl dgst -sha256 -binary | base64)
via=$(ip netns exec "$NS_C" timeout 60 chromium --headless=new --no-sandbox --disable-gpu \
  --no-first-run --user-data-dir="$E2E_DIR/chromium" \
  --ignore-certificate-errors-spki-list="$spki" \
  --host-resolver-rules="MAP decoy.test $UL_S" \
  --dump-dom "https://decoy.test:$E2E_PORT/" 2>"$E2E_DIR/chromium.log")
case "$via" in *"decoy site $E2E_ID"*) ;; *) e2e_fail "chromium through the qeli port: '$via'" ;; esac

# Bad tokens are strangers: nginx answers them (through the bridge), counted.
flight "$E2E_PORT" decoy.test "$key" 0123456789abcdef -300 >/dev/null || e2e_fail "expired token"
flight "$E2E_PORT" decoy.test "$key" 00000000000000aa 0 >/dev/null || e2e_fail "unknown short id"
[ "$(e2e_counter "$dir" reality_bridged_expired)" -ge 1 ] || e2e_fail "expired: $(stats)"
[ "$(e2e_counter "$dir" reality_bridged_unknown_short_id)" -ge 1 ] || e2e_fail "short id: $(stats)"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "the tunnel broke during the probes"

# handrolled = false: no probe, the fallback shape (self-signed) answers; clients connect.
e2e_stop server
sed -i 's/^obf.tls.reality_proxy.handrolled = true/obf.tls.reality_proxy.handrolled = false/' \
  "$dir/server.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "handrolled = false refused"
e2e_start_server server2 "$dir"
e2e_wait_for 10 grep -q "reality-tls: answering as" "$E2E_DIR/server2.log" ||
  e2e_fail "handrolled = false: no shape logged"
stats | jq -e '.[0].tls_target | contains("fallback")' >/dev/null ||
  e2e_fail "handrolled = false: not the fallback shape: $(stats)"
e2e_wait_for 30 sh -c "[ \"\$('$QELI' list-clients --json --socket '$dir/control.sock' | jq length)\" -ge 1 ]" ||
  e2e_fail "the client did not reconnect to the handrolled = false server"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "handrolled = false: ping"
fallback=$(flight "$E2E_PORT" decoy.test "$key" 0123456789abcdef 0) || e2e_fail "fallback flight"
[ "$(echo "$fallback" | jq -r .certificate_sha256)" != "$(echo "$direct" | jq -r .certificate_sha256)" ] ||
  e2e_fail "handrolled = false still presents nginx's chain"

e2e_measure_header
echo "$row"
e2e_finish alice server2
