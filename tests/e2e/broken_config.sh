#!/usr/bin/env bash
# e2e: a broken config is refused with a message that names its file, line, section and
# key — by `qeli check-config` and by `qeli server` / `qeli client` themselves, which must
# exit non-zero without creating anything (they run inside a namespace, bounded by
# `timeout`, so a wrongly started daemon could not touch the host and would fail the test).
# Usage: broken_config.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

good="$E2E_DIR/good"
e2e_server_conf "$good" fake-tls

# expect_refused KIND FILE SECTION KEY — KIND server|client; FILE holds exactly one line
# with "KEY =" (possibly in a users file), and both commands must name FILE:LINE [SECTION] KEY.
expect_refused() {
  local kind=$1 conf=$2 section=$3 key=$4 bad=${5:-$2}
  local line
  line=$(grep -n "^$key *=" "$bad" | head -1 | cut -d: -f1)
  [ -n "$line" ] || e2e_fail "test bug: $key not in $bad"
  local want="$bad:$line: error: [$section] $key:"
  local check=(check-config "$conf") run=(server -c "$conf" --identity-dir "$good/identity")
  if [ "$kind" = client ]; then
    check=(check-config --client "$conf")
    run=(client -c "$conf" --known-hosts "$E2E_DIR/kh" --device-id-file "$E2E_DIR/id")
  fi
  local out rc
  for cmd in check run; do
    local -n argv=$cmd
    rc=0
    out=$(timeout 10 ip netns exec "$NS_S" "$QELI" "${argv[@]}" 2>&1) || rc=$?
    [ "$rc" -ne 0 ] || e2e_fail "qeli ${argv[0]} accepted a broken $key"
    [ "$rc" -ne 124 ] || e2e_fail "qeli ${argv[0]} started with a broken $key"
    grep -qF "$want" <<<"$out" || e2e_fail "qeli ${argv[0]} did not say '$want':
$out"
  done
  e2e_log "refused: $want"
}

# break_server NAME SED — a copy of the good server config with SED applied.
break_server() {
  local d="$E2E_DIR/$1"
  mkdir -p "$d"
  sed -e "$2" "$good/server.conf" >"$d/server.conf"
  cp "$good/users.conf" "$d/users.conf"
  echo "$d/server.conf"
}

f=$(break_server mtu-word 's/^tun.mtu = .*/tun.mtu = large/')
expect_refused server "$f" profile:e2e tun.mtu
f=$(break_server port-range 's/^bind.port = .*/bind.port = 70000/')
expect_refused server "$f" profile:e2e bind.port
f=$(break_server pool 's|^pool.cidr = .*|pool.cidr = 10.77.0.0/33|')
expect_refused server "$f" profile:e2e pool.cidr
f=$(break_server auth 's/^users_file = .*/users_file = users.conf\nbrute_force.max_attempts = many/')
expect_refused server "$f" auth brute_force.max_attempts
f=$(break_server heartbeat '/^obf.mode/a obf.heartbeat.interval_ms = -5')
expect_refused server "$f" profile:e2e obf.heartbeat.interval_ms

# An error in the users file names the users file.
f=$(break_server users 's/^x//')
echo pw | "$QELI" add-client bob --password-stdin -c "$f" --identity-dir "$good/identity" >/dev/null
echo "static_ip = banana" >>"$(dirname "$f")/users.conf"
expect_refused server "$f" user:bob static_ip "$(dirname "$f")/users.conf"

# The client's config.
c="$E2E_DIR/client.conf"
printf '[qeli]\nserver = %s:%s\nuser = a\npass = b\nmtu = 12\n' "$UL_S" "$E2E_PORT" >"$c"
expect_refused client "$c" qeli mtu
printf '[qeli]\nserver = %s:%s\nuser = a\npass = b\nreconnect_retries = often\n' "$UL_S" \
  "$E2E_PORT" >"$c"
expect_refused client "$c" qeli reconnect_retries

# Nothing was created by the refused daemons.
ip -n "$NS_S" link show qes0 >/dev/null 2>&1 && e2e_fail "a refused server created its TUN"
ip -n "$NS_S" link show vpn0 >/dev/null 2>&1 && e2e_fail "a refused client created its TUN"
e2e_finish
e2e_log "broken config ok"
