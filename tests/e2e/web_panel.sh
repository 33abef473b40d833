#!/usr/bin/env bash
# e2e: the web panel ([web], docs/OPERATIONS.md "Web panel") as an admin and an attacker
# meet it, with curl from the server's namespace:
#   * `qeli set-web-password` writes [web]; `qeli server` starts `qeli panel` as a child
#     that holds no capability (CapEff/CapPrm/CapBnd all zero, NoNewPrivs) and exits within
#     2 s of SIGTERM even with a request half sent (the server starts it again);
#   * unauthenticated pages redirect to /login, the API answers problem+json 401; a wrong
#     password is 401; the right one sets an HttpOnly, SameSite=Strict cookie (Max-Age =
#     session_ttl_secs) — every answer carries the CSP and the other security headers;
#   * a live session of alice is on the sessions page; a free-text note with markup is
#     shown as text; POSTs without the CSRF token, or from a foreign Origin, change
#     nothing; with it, "disable" ends alice's session and the server lists her disabled;
#     the JSON API enables her again (X-CSRF-Token);
#   * the raw config editor validates like check-config, refuses a hook, a broken file and a
#     stale base without touching the file, saves (history with the old file) and reloads;
#   * an API token (state_db) made on the tokens page: shown once, stored hashed; Bearer
#     requests need no cookie or CSRF token and get only their scopes; /metrics parses;
#     a revoked token is refused; the audit log (state_db) holds every admin action with
#     its target and result, refused ones and logins too, and no password;
#   * admins with roles (state_db): a read-only admin made by the owner sees but cannot
#     change anything or read the config; promoted (its cookie ends) it can act, still not
#     on the config; removed, its cookie is refused;
#   * logout ends the cookie, also across a restart (state_db); a server restart keeps a
#     cookie that was not logged out (persist_session_key);
#     a new password (set-web-password + reload) ends it;
#   * brute_force.max_attempts wrong passwords lock the login out, even the right one;
#   * tls = true with a certificate: HTTPS with HSTS and a Secure cookie, no plain HTTP;
#   * `qeli set-web-totp` (totp_secret): the login needs a current one-time code, each
#     code once; the panel's editor cannot remove the secret; --disable does;
#   * check-config refuses insecure_no_auth, a missing password_hash and update_check;
#   * every answer of the JSON API and /metrics (each operation at least once) matches
#     docs/openapi.yaml (tools/check_openapi.py: status, media type, JSON Schema).
# Usage: web_panel.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link=$(e2e_add_user "$dir" alice alice-pass)
printf 'metadata.note = <script>alert(1)</script> & "x"\n' >>"$dir/users.conf"
echo 'panel-pass-1' | "$QELI" set-web-password -c "$dir/server.conf" --socket "$dir/none.sock" \
  --username boss --password-stdin >"$E2E_DIR/setpw.out" || e2e_fail "set-web-password failed"
grep -q '^password_hash = \$argon2id\$' "$dir/server.conf" || e2e_fail "no password_hash written"
sed -i '/^\[web\]/a session_ttl_secs = 600\nbrute_force.max_attempts = 3' "$dir/server.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "check-config refused [web]"

PANEL=http://127.0.0.1:8080
start_server() {
  e2e_start_server "$1" "$dir"
  e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '127.0.0.1:8080 '" ||
    e2e_fail "the panel does not listen"
  # A listening socket's Send-Q is its backlog: ours, not httplib's compiled-in 5.
  local backlog
  backlog=$(ip netns exec "$NS_S" ss -ltnH 'sport = :8080' | awk '{print $3; exit}')
  [ "$backlog" = 128 ] || e2e_fail "the panel's listen backlog is '$backlog', want 128"
}
# req NAME CURL_ARGS... — one request in the server's namespace; NAME.h headers, NAME.b
# body; prints the status code. Answers of the JSON API and /metrics are also listed in
# api.exchanges, which tools/check_openapi.py checks against docs/openapi.yaml at the end.
req() {
  local name=$1 out rc=0
  shift
  out=$(ip netns exec "$NS_S" curl -sS --max-time 10 -D "$E2E_DIR/$name.h" -o "$E2E_DIR/$name.b" \
    -w '%{http_code}\t%{method}\t%{url_effective}\t%{content_type}' "$@") || rc=$?
  case "$out" in
    *$'\t'*/api/v1/* | *$'\t'*/metrics$'\t'*) printf '%s\t%s\n' "$name" "$out" >>"$E2E_DIR/api.exchanges" ;;
  esac
  printf '%s' "${out%%$'\t'*}"
  return $rc
}
expect() {  # expect CODE NAME CURL_ARGS...
  local want=$1 name=$2 got
  shift 2
  got=$(req "$name" "$@") || true
  [ "$got" = "$want" ] ||
    e2e_fail "$name: HTTP $got, expected $want: $(sed 's/<[^>]*>/ /g' "$E2E_DIR/$name.b" | tr -s ' \n' ' ' | head -c 400)"
}
header() { grep -i "^$2:" "$E2E_DIR/$1.h" | head -1 | tr -d '\r'; }
csrf_of() { grep -o 'name="csrf" value="[0-9a-f]*"' "$E2E_DIR/$1.b" | head -1 | sed 's/.*value="//; s/"//'; }

start_server server
grep -q "panel: started (pid" "$E2E_DIR/server.log" || e2e_fail "no panel start logged"
panel_pid=$(ip netns exec "$NS_S" ss -ltnp | grep '127.0.0.1:8080 ' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
[ -n "$panel_pid" ] && [ "$panel_pid" != "$E2E_PID_server" ] ||
  e2e_fail "the panel's listener belongs to pid '$panel_pid', not a child of its own"
for f in CapEff CapPrm CapBnd CapAmb; do
  v=$(awk -v f="$f:" '$1 == f {print $2}' "/proc/$panel_pid/status")
  [ "$v" = 0000000000000000 ] || e2e_fail "panel $f = $v (should hold no capability)"
done
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$panel_pid/status" || e2e_fail "panel without NoNewPrivs"
# Stopping waits for nothing: a request head half sent holds a worker (its head may take
# 10 s), yet the panel exits within 2 s of SIGTERM (it waited out its 5 s read timeout
# before); the server then starts a new one.
ip netns exec "$NS_S" bash -c 'exec 7<>/dev/tcp/127.0.0.1/8080 &&
  printf "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" >&7 && sleep 15' &
half=$!
sleep 0.5
t0=$(date +%s%N)
kill -TERM "$panel_pid"
e2e_wait_for 10 sh -c "! kill -0 $panel_pid" || e2e_fail "the panel did not exit on SIGTERM"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -lt 2000 ] || e2e_fail "the panel took $ms ms to exit on SIGTERM"
kill "$half" 2>/dev/null || true
e2e_wait_for 10 sh -c "ip netns exec $NS_S ss -ltnp | grep '127.0.0.1:8080 ' | grep -qv 'pid=$panel_pid,'" ||
  e2e_fail "the server did not start the panel again"

# Unauthenticated.
expect 303 anon "$PANEL/"
[ "$(header anon location)" = "Location: /login" ] || e2e_fail "/ redirects to $(header anon location)"
expect 401 anon_api "$PANEL/api/v1/sessions"
header anon_api content-type | grep -q 'application/problem+json' || e2e_fail "API 401 is not problem+json"
expect 200 login_page "$PANEL/login"
for h in "content-security-policy: default-src 'none'" "x-frame-options: DENY" \
         "x-content-type-options: nosniff" "cache-control: no-store" "referrer-policy: same-origin"; do
  grep -qi "^$h" "$E2E_DIR/login_page.h" || e2e_fail "missing header $h"
done
expect 403 anon_post -X POST -d 'user=alice' "$PANEL/users/disable"

# Log in.
expect 401 bad_login -d 'username=boss&password=wrong' "$PANEL/login"
jar="$E2E_DIR/cookies"
expect 303 login -c "$jar" -d 'username=boss&password=panel-pass-1' "$PANEL/login"
cookie=$(header login set-cookie)
for a in "qeli_session=v2." "HttpOnly" "SameSite=Strict" "Max-Age=600" "Path=/"; do
  grep -q "$a" <<<"$cookie" || e2e_fail "cookie lacks $a: $cookie"
done
! grep -q Secure <<<"$cookie" || e2e_fail "Secure cookie over plain HTTP: $cookie"

# A live session on the pages; markup in a note is text.
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel"
# Each session's user links to the session's own page.
alice_row='/sessions/view?profile=e2e&amp;id=[0-9]*">alice</a></td>'
e2e_wait_for 10 sh -c "ip netns exec $NS_S curl -s -b '$jar' $PANEL/sessions | grep -q '$alice_row'" ||
  e2e_fail "alice's session is not on the sessions page"
expect 200 dash -b "$jar" "$PANEL/"
grep -q "$alice_row" "$E2E_DIR/dash.b" || e2e_fail "alice not on the dashboard"
session_page=$(grep -o '/sessions/view?profile=e2e&amp;id=[0-9]*' "$E2E_DIR/dash.b" | head -1 | sed 's/&amp;/\&/')
expect 200 session -b "$jar" "$PANEL$session_page"
grep -q '<h1>Session [0-9]* of alice</h1>' "$E2E_DIR/session.b" &&
  grep -q '<code>drop_policy</code>' "$E2E_DIR/session.b" ||
  e2e_fail "alice's session page lacks its title or its drop reasons"
grep -q '<td>e2e</td>' "$E2E_DIR/dash.b" || e2e_fail "profile e2e not on the dashboard"
grep -q '<svg class="chart"' "$E2E_DIR/dash.b" || e2e_fail "no traffic chart on the dashboard"
# The pages in Russian for a browser that prefers it (the dashboard's nav word "Обзор"),
# in English again with the qeli_lang=en cookie the header's switch sets.
expect 200 dash_ru -b "$jar" -H 'Accept-Language: ru-RU,ru;q=0.9,en;q=0.8' "$PANEL/"
grep -q '<html lang="ru">' "$E2E_DIR/dash_ru.b" && grep -q '>Обзор</a>' "$E2E_DIR/dash_ru.b" ||
  e2e_fail "Accept-Language: ru did not give the Russian dashboard"
session=$(grep qeli_session "$jar" | awk '{print $NF}')
expect 200 dash_en -H "Cookie: qeli_session=$session; qeli_lang=en" -H 'Accept-Language: ru' "$PANEL/"
grep -q '<html lang="en">' "$E2E_DIR/dash_en.b" && grep -q '>Dashboard</a>' "$E2E_DIR/dash_en.b" ||
  e2e_fail "the qeli_lang=en cookie did not give the English dashboard"
expect 200 users -b "$jar" "$PANEL/users"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;' "$E2E_DIR/users.b" ||
  e2e_fail "the note is not escaped on the users page"
! grep -q '<script>' "$E2E_DIR/users.b" || e2e_fail "raw <script> on the users page"
csrf=$(csrf_of users)
[ ${#csrf} = 64 ] || e2e_fail "no CSRF token in the page"

# State changes: refused without the token and from another origin.
expect 403 no_csrf -b "$jar" -d 'user=alice' "$PANEL/users/disable"
# A wrong token: its first digit changed to another (a substitution such as ${csrf/a/b}
# changes nothing in a token without an 'a', one in 60).
bad_digit=a
[ "${csrf:0:1}" != a ] || bad_digit=b
expect 403 bad_csrf -b "$jar" -d "user=alice&csrf=$bad_digit${csrf:1}" "$PANEL/users/disable"
expect 403 evil_origin -b "$jar" -H 'Origin: https://evil.example' -d "user=alice&csrf=$csrf" \
  "$PANEL/users/disable"
[ "$(e2e_sessions "$dir" | wc -l)" = 1 ] || e2e_fail "a refused POST changed something"
# With it: alice is disabled and her session ends.
expect 303 disable -b "$jar" -H "Origin: $PANEL" -d "user=alice&csrf=$csrf" "$PANEL/users/disable"
e2e_wait_for 10 sh -c "[ -z \"\$(\"$QELI\" list-clients --json --socket '$dir/control.sock' | jq -r '.[].username')\" ]" ||
  e2e_fail "alice's session did not end after disable"
# The client was told why (our close extension) and does not retry.
e2e_wait_exit alice 10
[ "$E2E_RC" != running ] || e2e_fail "alice keeps running after her user was disabled"
grep -q "the server disabled user 'alice'" "$E2E_DIR/alice.log" || e2e_fail "alice was not told why"
expect 200 users_off -b "$jar" "$PANEL/users"
grep -q '>alice</a></td><td></td><td>disabled</td>' "$E2E_DIR/users_off.b" ||
  e2e_fail "alice is not listed disabled on the users page"
# The JSON API: the token from /api/v1/session, enable alice again.
expect 200 api_session -b "$jar" "$PANEL/api/v1/session"
api_csrf=$(jq -r .csrf_token "$E2E_DIR/api_session.b")
expect 403 api_no_csrf -b "$jar" -H 'Content-Type: application/json' -d '{"user":"alice"}' \
  "$PANEL/api/v1/users/enable"
expect 200 api_enable -b "$jar" -H "X-CSRF-Token: $api_csrf" -H 'Content-Type: application/json' \
  -d '{"user":"alice"}' "$PANEL/api/v1/users/enable"
jq -e '.was_disabled == true' "$E2E_DIR/api_enable.b" >/dev/null ||
  e2e_fail "enable did not report alice was disabled: $(cat "$E2E_DIR/api_enable.b")"
expect 200 api_events -b "$jar" "$PANEL/api/v1/events"
jq -e '[.events[].type] | index("user.disabled") != null and index("user.enabled") != null' \
  "$E2E_DIR/api_events.b" >/dev/null || e2e_fail "events lack user.disabled/enabled"
# The rest of the API once each, successes and refusals (their shapes are checked against
# docs/openapi.yaml at the end).
api() {  # api CODE NAME METHOD PATH [JSON_BODY]
  local want=$1 name=$2 method=$3 path=$4
  if [ "$method" = POST ]; then
    expect "$want" "$name" -b "$jar" -H "X-CSRF-Token: $api_csrf" \
      -H 'Content-Type: application/json' -d "$5" "$PANEL/api/v1$path"
  else
    expect "$want" "$name" -b "$jar" "$PANEL/api/v1$path"
  fi
}
api 200 a_status GET /status
jq -e '.profiles[0].profile == "e2e" and .profiles[0].mode == "fake-tls"' "$E2E_DIR/a_status.b" \
  >/dev/null || e2e_fail "status: $(head -c 300 "$E2E_DIR/a_status.b")"
# alice back on line, so the sessions answer carries a real session.
e2e_start_client alice2 "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel after enable"
api 200 a_sessions GET /sessions
jq -e '.clients | length == 1 and .[0].username == "alice" and .[0].aead != ""' \
  "$E2E_DIR/a_sessions.b" >/dev/null || e2e_fail "sessions: $(head -c 300 "$E2E_DIR/a_sessions.b")"
api 200 a_users GET /users
jq -e '[.users[] | select(.name == "alice")] | length == 1' "$E2E_DIR/a_users.b" >/dev/null ||
  e2e_fail "alice not in GET users"
api 200 a_usage GET /usage
api 200 a_blocked GET /blocked
api 200 a_host GET /host
api 200 a_traffic GET '/traffic?hours=48'
api 200 a_traffic_user GET '/traffic?hours=48&user=alice'
api 404 a_traffic_nobody GET '/traffic?user=nobody'
api 400 a_traffic_bad GET '/traffic?user=a%20b'
api 200 a_logs GET '/logs?level=info&limit=1000'
jq -e '[.lines[].text | select(startswith("panel: started (pid"))] | length >= 1' "$E2E_DIR/a_logs.b" >/dev/null ||
  e2e_fail "the server's log lines lack the panel's start: $(head -c 400 "$E2E_DIR/a_logs.b")"
api 400 a_logs_bad GET '/logs?level=loud'
expect 200 logs_page -b "$jar" "$PANEL/logs?level=warn"
! grep -q 'panel: started (pid' "$E2E_DIR/logs_page.b" || e2e_fail "an info line on the warn-level logs page"
expect 200 logs_page_info -b "$jar" "$PANEL/logs"
grep -q 'panel: started (pid' "$E2E_DIR/logs_page_info.b" || e2e_fail "the server's lines are not on the logs page"
api 400 a_traffic_bad GET '/traffic?hours=0'
jq -e '.cpus >= 1 and .memory_total_bytes > 0 and (.load | length) == 3' "$E2E_DIR/a_host.b" \
  >/dev/null || e2e_fail "host: $(cat "$E2E_DIR/a_host.b")"
grep -q '<h2>Host</h2>' "$E2E_DIR/dash.b" || e2e_fail "no host figures on the dashboard"
api 200 a_webhooks GET '/webhooks?limit=5'
jq -e '.enabled == false and .deliveries == []' "$E2E_DIR/a_webhooks.b" >/dev/null ||
  e2e_fail "webhooks: $(cat "$E2E_DIR/a_webhooks.b")"
expect 200 webhooks_page -b "$jar" "$PANEL/webhooks"
grep -q 'Webhooks are off' "$E2E_DIR/webhooks_page.b" || e2e_fail "the webhooks page does not say they are off"
api 200 a_config GET /config
api 200 a_validate POST /config/validate "$(jq -n --rawfile t "$dir/server.conf" '{text: $t}')"
jq -e '.valid == true' "$E2E_DIR/a_validate.b" >/dev/null || e2e_fail "the config does not validate"
api 200 a_validate_bad POST /config/validate '{"text":"[profile:x]\nbind.port = 99999\n"}'
jq -e '.valid == false and (.findings | length) > 0' "$E2E_DIR/a_validate_bad.b" >/dev/null ||
  e2e_fail "a broken config validated: $(head -c 300 "$E2E_DIR/a_validate_bad.b")"
api 409 a_save_stale POST /config "$(jq -n --rawfile t "$dir/server.conf" '{text: $t, base_sha256: ("0" * 64)}')"
api 400 a_not_json POST /sessions/kick 'user=alice'
api 200 a_kick POST /sessions/kick '{"user":"alice"}'
jq -e '.kicked == 1' "$E2E_DIR/a_kick.b" >/dev/null || e2e_fail "kick: $(cat "$E2E_DIR/a_kick.b")"
api 404 a_kick_nobody POST /sessions/kick '{"user":"nobody"}'
api 200 a_disable POST /users/disable '{"user":"alice"}'
api 200 a_enable POST /users/enable '{"user":"alice"}'
api 200 a_add POST /users '{"user":"carol","profiles":["e2e"],"max_sessions":2}'
api 409 a_add_again POST /users '{"user":"carol"}'
api 422 a_add_bad POST /users '{"user":"no spaces"}'
# edit-user: carol's limits, set through the API, are what GET /users shows after the
# reload; a value start-up would refuse (an address outside the pool $TUN_NET.0/24, a
# route with a /33) is 422 with the loader's words, and users.conf stays byte for byte.
expire=$(($(date +%s) + 30 * 86400))
api 200 a_edit POST /users/edit \
  "{\"user\":\"carol\",\"max_sessions\":5,\"bandwidth_limit_mbps\":12.5,\"expire_at\":$expire}"
jq -e '.reloaded == true and .username == "carol"' "$E2E_DIR/a_edit.b" >/dev/null ||
  e2e_fail "edit: $(cat "$E2E_DIR/a_edit.b")"
api 200 a_users_edited GET /users
jq -e --argjson exp "$expire" '[.users[] | select(.name == "carol")][0]
  | .max_sessions == 5 and .bandwidth_limit_mbps == 12.5 and .expire_at == $exp' \
  "$E2E_DIR/a_users_edited.b" >/dev/null ||
  e2e_fail "carol after the edit: $(jq -c '.users[] | select(.name == "carol")' "$E2E_DIR/a_users_edited.b")"
users_sum=$(sha256sum <"$dir/users.conf")
outside=10.250.250.5
case "$TUN_NET" in 10.250.250) outside=10.251.250.5 ;; esac
api 422 a_edit_bad_ip POST /users/edit "{\"user\":\"carol\",\"static_ip\":\"$outside\"}"
grep -q "is not a free host of any of the user's pools" "$E2E_DIR/a_edit_bad_ip.b" ||
  e2e_fail "static_ip refusal: $(cat "$E2E_DIR/a_edit_bad_ip.b")"
api 422 a_edit_bad_route POST /users/edit '{"user":"carol","routes":["10.0.0.0/33"]}'
api 400 a_edit_typo POST /users/edit '{"user":"carol","max_session":9}'
[ "$(sha256sum <"$dir/users.conf")" = "$users_sum" ] || e2e_fail "a refused edit changed users.conf"
grep -q '^max_sessions = 5$' "$dir/users.conf" || e2e_fail "users.conf lacks carol's max_sessions"
# The edit form: the current values filled in, a refusal shown on it.
expect 200 edit_page -b "$jar" "$PANEL/users/edit?user=carol"
grep -q 'name="max_sessions" type="number" value="5"' "$E2E_DIR/edit_page.b" ||
  e2e_fail "the edit form does not show max_sessions 5"
ecsrf=$(csrf_of edit_page)
expect 422 edit_refused -b "$jar" -H "Origin: $PANEL" \
  -d "csrf=$ecsrf&user=carol&static_ip=$outside&max_sessions=5&enabled=1" "$PANEL/users/edit"
grep -q 'Not saved: .*is not a free host' "$E2E_DIR/edit_refused.b" ||
  e2e_fail "the form does not show the refusal"
[ "$(sha256sum <"$dir/users.conf")" = "$users_sum" ] || e2e_fail "a refused form changed users.conf"
api 200 a_device POST /devices "{\"user\":\"carol\",\"name\":\"phone\",\"host\":\"$UL_S:$E2E_PORT\"}"
jq -e '.link | startswith("qeli://")' "$E2E_DIR/a_device.b" >/dev/null || e2e_fail "no device link"
dev_id=$(jq -r .id "$E2E_DIR/a_device.b")
api 200 a_revoke POST /devices/revoke "{\"user\":\"carol\",\"id\":\"$dev_id\"}"
api 404 a_revoke_again POST /devices/revoke "{\"user\":\"carol\",\"id\":\"$dev_id\"}"
api 200 a_remove POST /users/remove '{"user":"carol"}'
api 404 a_remove_again POST /users/remove '{"user":"carol"}'
api 404 a_unknown GET /no-such-route

# API tokens (state_db = panel.db beside the config): made on the tokens page from the
# admin's session, shown once, kept as a SHA-256 only; a Bearer token needs no cookie and
# no CSRF token, and gets only what its scopes allow; /metrics parses strictly.
expect 200 tokens_page -b "$jar" "$PANEL/tokens"
tcsrf=$(csrf_of tokens_page)
expect 200 token_made -b "$jar" -H "Origin: $PANEL" \
  -d "csrf=$tcsrf&name=prom&scope=read&scope=metrics&days=30" "$PANEL/tokens/create"
token=$(grep -o 'qeli_pat_[0-9A-Za-z]*' "$E2E_DIR/token_made.b" | head -1)
[ "${#token}" = 58 ] || e2e_fail "no API token on the page: $(head -c 300 "$E2E_DIR/token_made.b")"
[ "$(stat -c %a "$dir/panel.db")" = 600 ] || e2e_fail "state_db is not 0600"
! grep -qaF "$token" "$dir"/panel.db* || e2e_fail "the token itself is in the state_db"
expect 200 tok_sessions -H "Authorization: Bearer $token" "$PANEL/api/v1/sessions"
jq -e '.clients | length >= 0' "$E2E_DIR/tok_sessions.b" >/dev/null || e2e_fail "token API answer"
expect 403 tok_kick -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d '{"user":"alice"}' "$PANEL/api/v1/sessions/kick"
grep -q 'lacks the scope sessions:kick' "$E2E_DIR/tok_kick.b" || e2e_fail "scope refusal: $(cat "$E2E_DIR/tok_kick.b")"
# The token with its last character changed (to one it is not: a fixed 'x' would leave
# one token in 62 unchanged and this check would pass it).
bogus_last=x
[ "${token: -1}" != x ] || bogus_last=y
expect 401 tok_bogus -H "Authorization: Bearer ${token%?}$bogus_last" "$PANEL/api/v1/sessions"
expect 200 tok_metrics -H "Authorization: Bearer $token" "$PANEL/metrics"
python3 "$(dirname "$(readlink -f "$0")")/tools/check_exposition.py" "$E2E_DIR/tok_metrics.b" \
  >"$E2E_DIR/tok_metrics.parsed" || e2e_fail "the panel's /metrics does not parse"
grep -q '^qeli_build_info' "$E2E_DIR/tok_metrics.parsed" || e2e_fail "no qeli_build_info on the panel's /metrics"
expect 401 anon_metrics "$PANEL/metrics"
expect 200 tokens_list -b "$jar" "$PANEL/tokens"
tid=$(grep -o 'name="id" value="[0-9a-f]*"' "$E2E_DIR/tokens_list.b" | head -1 | sed 's/.*value="//; s/"//')
grep -q '127.0.0.1' "$E2E_DIR/tokens_list.b" || e2e_fail "the token's last use is not shown"
expect 303 token_revoke -b "$jar" -H "Origin: $PANEL" -d "csrf=$tcsrf&id=$tid" "$PANEL/tokens/revoke"
expect 401 tok_revoked -H "Authorization: Bearer $token" "$PANEL/api/v1/sessions"

# The audit log (same state_db): the disable above with its target, the refused POSTs,
# the logins with the name tried, the token's revoke — and never the password.
expect 200 audit -b "$jar" "$PANEL/api/v1/audit?limit=1000"
jq -e '[.entries[] | select(.action == "/users/disable" and .target == "user=alice" and .status == 303 and .actor == "panel:boss")] | length == 1' \
  "$E2E_DIR/audit.b" >/dev/null || e2e_fail "the disable is not in the audit log: $(head -c 600 "$E2E_DIR/audit.b")"
jq -e '[.entries[] | select(.action == "/users/disable" and .status == 403)] | length >= 2' \
  "$E2E_DIR/audit.b" >/dev/null || e2e_fail "the refused POSTs are not in the audit log"
jq -e '[.entries[] | select(.action == "login" and .actor == "boss" and .status == 401)] | length >= 1' \
  "$E2E_DIR/audit.b" >/dev/null || e2e_fail "the failed login is not in the audit log"
jq -e '[.entries[] | select(.action == "/tokens/revoke")] | length == 1' "$E2E_DIR/audit.b" >/dev/null ||
  e2e_fail "the token revoke is not in the audit log"
! grep -qa 'panel-pass-1' "$dir"/panel.db* || e2e_fail "the admin's password is in the state_db"
expect 200 audit_page -b "$jar" "$PANEL/audit"

# Admins with roles (the same state_db): the owner makes a read-only admin (its password
# shown once, kept as an Argon2id hash); it sees the pages but not the config and changes
# nothing; promoted to admin (which ends its cookie) it reaches the server's user and
# session operations, still not the config; every refusal is in the audit log.
expect 200 admins_page -b "$jar" "$PANEL/admins"
acsrf=$(csrf_of admins_page)
expect 200 admin_made -b "$jar" -H "Origin: $PANEL" -d "csrf=$acsrf&name=watcher&role=read-only" \
  "$PANEL/admins/create"
wpass=$(sed -n 's/.*<textarea id="password" readonly rows="1">\([^<]*\)<.*/\1/p' "$E2E_DIR/admin_made.b")
[ ${#wpass} = 24 ] || e2e_fail "no admin password on the page: $(head -c 300 "$E2E_DIR/admin_made.b")"
! grep -qaF -- "$wpass" "$dir"/panel.db* || e2e_fail "the new admin's password is in the state_db"
wjar="$E2E_DIR/cookies_watcher"
w_login() {
  expect 303 "$1" -c "$wjar" --data-urlencode username=watcher --data-urlencode "password=$wpass" \
    "$PANEL/login"
  expect 200 "$1_session" -b "$wjar" "$PANEL/api/v1/session"
  wcsrf=$(jq -r .csrf_token "$E2E_DIR/$1_session.b")
}
w_post() {  # w_post CODE NAME PATH JSON
  expect "$1" "$2" -b "$wjar" -H "X-CSRF-Token: $wcsrf" -H 'Content-Type: application/json' \
    -d "$4" "$PANEL/api/v1$3"
}
w_login w_login
[ "$(jq -r .role "$E2E_DIR/w_login_session.b")" = read-only ] ||
  e2e_fail "watcher's session: $(cat "$E2E_DIR/w_login_session.b")"
expect 200 w_dash -b "$wjar" "$PANEL/"
expect 200 w_users -b "$wjar" "$PANEL/api/v1/users"
expect 403 w_config_page -b "$wjar" "$PANEL/config"
expect 403 w_config -b "$wjar" "$PANEL/api/v1/config"
expect 403 w_logs -b "$wjar" "$PANEL/logs"
w_post 403 w_kick /sessions/kick '{"user":"nobody"}'
grep -q 'the role read-only cannot do this' "$E2E_DIR/w_kick.b" || e2e_fail "role refusal: $(cat "$E2E_DIR/w_kick.b")"
expect 303 admin_role -b "$jar" -H "Origin: $PANEL" -d "csrf=$acsrf&name=watcher&role=admin" \
  "$PANEL/admins/role"
expect 401 w_after_role -b "$wjar" "$PANEL/api/v1/session"
w_login w_login2
[ "$(jq -r .role "$E2E_DIR/w_login2_session.b")" = admin ] || e2e_fail "watcher was not promoted"
w_post 404 w_kick2 /sessions/kick '{"user":"nobody"}'  # past the role check, to the server
w_post 403 w_save /config "$(jq -n '{text: "", base_sha256: ("0" * 64)}')"
expect 200 audit2 -b "$jar" "$PANEL/api/v1/audit?limit=1000"
jq -e '[.entries[] | select(.actor == "panel:watcher" and .status == 403)] | length == 2' \
  "$E2E_DIR/audit2.b" >/dev/null || e2e_fail "the role refusals are not in the audit log"
jq -e '[.entries[] | select(.action == "/admins/create" and .actor == "panel:boss" and .status == 200)] | length == 1' \
  "$E2E_DIR/audit2.b" >/dev/null || e2e_fail "the admin's creation is not in the audit log"
expect 303 admin_remove -b "$jar" -H "Origin: $PANEL" -d "csrf=$acsrf&name=watcher" "$PANEL/admins/remove"
expect 401 w_removed -b "$wjar" "$PANEL/api/v1/session"

# Logout ends the cookie.
old_cookie=$(grep qeli_session "$jar" | awk '{print $NF}')
expect 303 logout -b "$jar" -d "csrf=$csrf" "$PANEL/logout"
expect 303 after_logout -b "qeli_session=$old_cookie" "$PANEL/"

# A restart keeps a session (persist_session_key = true by default).
expect 303 login2 -c "$jar" -d 'username=boss&password=panel-pass-1' "$PANEL/login"
[ -s "$dir/identity/web-session.key" ] || e2e_fail "no persisted session key"
e2e_finish server
start_server server2
expect 200 after_restart -b "$jar" "$PANEL/"
# ... but not a logged-out one: the logout is kept in the state_db.
expect 303 logged_out_after_restart -b "qeli_session=$old_cookie" "$PANEL/"
# A new password (and the reload it asks for) ends it; the new one works.
echo 'panel-pass-2' | "$QELI" set-web-password -c "$dir/server.conf" --socket "$dir/control.sock" \
  --username boss --password-stdin >"$E2E_DIR/setpw2.out" || e2e_fail "set-web-password 2"
grep -q "panel restarts" "$E2E_DIR/setpw2.out" || e2e_fail "no live reload: $(cat "$E2E_DIR/setpw2.out")"
e2e_wait_for 10 sh -c "[ \"\$(ip netns exec $NS_S curl -s -o /dev/null -w '%{http_code}' -b '$jar' $PANEL/)\" = 303 ]" ||
  e2e_fail "the old password's cookie still works"
e2e_wait_for 10 sh -c "[ \"\$(ip netns exec $NS_S curl -s -o /dev/null -w '%{http_code}' -d 'username=boss&password=panel-pass-2' $PANEL/login)\" = 303 ]" ||
  e2e_fail "the new password does not log in"

# The raw config editor: validate, save (comments kept, history, reload), refusals.
jar2="$E2E_DIR/cookies2"
expect 303 login3 -c "$jar2" -d 'username=boss&password=panel-pass-2' "$PANEL/login"
expect 200 cfg -b "$jar2" "$PANEL/config"
csrf2=$(csrf_of cfg)
base=$(grep -o 'name="base" value="[0-9a-f]*"' "$E2E_DIR/cfg.b" | sed 's/.*value="//; s/"//')
[ ${#base} = 64 ] || e2e_fail "no base sha256 on the config page"
grep -q '\[profile:e2e\]' "$E2E_DIR/cfg.b" || e2e_fail "the config text is not in the editor"
printf '# edited in the panel\n' >"$E2E_DIR/new.conf"
sed 's/^level = info$/level = debug/' "$dir/server.conf" >>"$E2E_DIR/new.conf"
sed 's/^obf.mode = fake-tls$/obf.mode = fake-tls\nrouting.post_up = \/bin\/true/' "$dir/server.conf" \
  >"$E2E_DIR/hook.conf"
sed 's/^bind.port = .*/bind.port = 99999/' "$dir/server.conf" >"$E2E_DIR/broken.conf"
cp "$dir/server.conf" "$E2E_DIR/before.conf"
expect 200 cfg_validate -b "$jar2" -d "csrf=$csrf2&base=$base" --data-urlencode "text@$E2E_DIR/broken.conf" \
  "$PANEL/config/validate"
grep -q '<td>error</td>' "$E2E_DIR/cfg_validate.b" && grep -q 'bind.port' "$E2E_DIR/cfg_validate.b" ||
  e2e_fail "validate did not show the bind.port error"
expect 422 cfg_broken -b "$jar2" -d "csrf=$csrf2&base=$base" --data-urlencode "text@$E2E_DIR/broken.conf" \
  "$PANEL/config/save"
expect 422 cfg_hook -b "$jar2" -d "csrf=$csrf2&base=$base" --data-urlencode "text@$E2E_DIR/hook.conf" \
  "$PANEL/config/save"
grep -q 'post_up' "$E2E_DIR/cfg_hook.b" || e2e_fail "the hook refusal does not name post_up"
expect 409 cfg_stale -b "$jar2" -d "csrf=$csrf2&base=$(printf '0%.0s' $(seq 64))" \
  --data-urlencode "text@$E2E_DIR/new.conf" "$PANEL/config/save"
cmp -s "$dir/server.conf" "$E2E_DIR/before.conf" || e2e_fail "a refused save changed the file"
# A config past httplib's 8 KiB cap on urlencoded forms goes as multipart/form-data (what
# the editor's form sends).
for i in $(seq 1 300); do echo "# padding line $i: the panel must save big files too" >>"$E2E_DIR/new.conf"; done
[ "$(stat -c %s "$E2E_DIR/new.conf")" -gt 12000 ] || e2e_fail "the padded config is too small"
expect 303 cfg_save -b "$jar2" -F "csrf=$csrf2" -F "base=$base" -F "text=<$E2E_DIR/new.conf" \
  "$PANEL/config/save"
cmp -s "$dir/server.conf" "$E2E_DIR/new.conf" || e2e_fail "the saved file is not the edited text"
e2e_wait_for 10 grep -q "saved the config from 127.0.0.1" "$E2E_DIR/server2.log" ||
  e2e_fail "no save logged"
e2e_wait_for 10 grep -q "reloaded users from" "$E2E_DIR/server2.log" || e2e_fail "no reload after the save"
expect 200 cfg_hist -b "$jar2" "$PANEL/api/v1/config/history"
jq -e '.versions | length == 1 and .[0].actor == "panel:boss"' "$E2E_DIR/cfg_hist.b" >/dev/null ||
  e2e_fail "history: $(cat "$E2E_DIR/cfg_hist.b")"
vid=$(jq -r '.versions[0].id' "$E2E_DIR/cfg_hist.b")
expect 200 cfg_version -b "$jar2" "$PANEL/config/version?id=$vid"
grep -q 'level = info' "$E2E_DIR/cfg_version.b" || e2e_fail "the saved version is not the old file"
expect 200 api_version -b "$jar2" "$PANEL/api/v1/config/version?id=$vid"
jq -e '.text | contains("level = info")' "$E2E_DIR/api_version.b" >/dev/null ||
  e2e_fail "GET config/version: $(head -c 300 "$E2E_DIR/api_version.b")"
expect 404 api_version_none -b "$jar2" "$PANEL/api/v1/config/version?id=20200101T000000Z-00000000"
# A save through the API: the text with a comment added, on the right base (an unchanged
# text is no save: no history, no reload).
expect 200 api_session2 -b "$jar2" "$PANEL/api/v1/session"
api_csrf2=$(jq -r .csrf_token "$E2E_DIR/api_session2.b")
expect 200 api_cfg -b "$jar2" "$PANEL/api/v1/config"
expect 200 api_save -b "$jar2" -H "X-CSRF-Token: $api_csrf2" -H 'Content-Type: application/json' \
  -d "$(jq '{text: (.text + "# saved through the API\n"), base_sha256: .sha256}' "$E2E_DIR/api_cfg.b")" \
  "$PANEL/api/v1/config"
jq -e '.reloaded == true and .history_id != ""' "$E2E_DIR/api_save.b" >/dev/null ||
  e2e_fail "API save: $(head -c 300 "$E2E_DIR/api_save.b")"

# Bodies httplib would read without a bound, and a name rebound to 127.0.0.1, are refused
# before any body is read.
expect 411 chunked -b "$jar2" -H 'Transfer-Encoding: chunked' -d "csrf=$csrf2" "$PANEL/logout"
expect 415 gzipped -b "$jar2" -H 'Content-Encoding: gzip' -d "csrf=$csrf2" "$PANEL/logout"
expect 413 too_big -b "$jar2" -H 'Content-Length: 9999999' -d "x" "$PANEL/logout"
expect 421 rebind -H 'Host: rebind.attacker.example:8080' "$PANEL/login"
expect 200 still_in -b "$jar2" "$PANEL/"

# Brute force: 3 failures lock the (address, user) pair out, even for the right password.
for i in 1 2 3; do expect 401 "bf$i" -d 'username=boss&password=guess' "$PANEL/login"; done
expect 429 bf_locked -d 'username=boss&password=panel-pass-2' "$PANEL/login"
grep -q "failed login of 'boss'" "$E2E_DIR/server2.log" || e2e_fail "failed logins not logged"
e2e_finish server2

# TLS with an operator's certificate.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=panel \
  -keyout "$dir/panel.key" -out "$dir/panel.crt" 2>/dev/null || e2e_fail "openssl req"
sed -i "/^\[web\]/a tls = true\ntls_cert = panel.crt\ntls_key = panel.key" "$dir/server.conf"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "check-config refused tls"
start_server server3
expect 200 tls_login -k "https://127.0.0.1:8080/login"
header tls_login strict-transport-security | grep -q 'max-age=' || e2e_fail "no HSTS over TLS"
expect 303 tls_auth -k -d 'username=boss&password=panel-pass-2' "https://127.0.0.1:8080/login"
header tls_auth set-cookie | grep -q '; Secure' || e2e_fail "no Secure cookie over TLS"
code=$(req plain_http "$PANEL/login") || true
[ "$code" != 200 ] || e2e_fail "plain HTTP answered on the TLS listener"
# enabled = false and a reload: the panel stops at once, the VPN server stays.
sed -i 's/^enabled = true$/enabled = false/' "$dir/server.conf"
kill -HUP "$E2E_PID_server3"
e2e_wait_for 10 sh -c "! ip netns exec $NS_S ss -ltn | grep -q '127.0.0.1:8080 '" ||
  e2e_fail "the panel still listens after enabled = false and a reload"
grep -q "stopping the panel" "$E2E_DIR/server3.log" || e2e_fail "no stop logged"
kill -0 "$E2E_PID_server3" || e2e_fail "the server stopped with its panel"
sed -i 's/^enabled = false$/enabled = true/' "$dir/server.conf"
e2e_finish server3

# A second factor: `qeli set-web-totp` writes [web] totp_secret and shows it once; the
# login then needs the password and a current code (each code once), a wrong code reads
# like a wrong password, and the panel's editor cannot remove the secret.
"$QELI" set-web-totp -c "$dir/server.conf" --socket "$dir/none.sock" --no-qr >"$E2E_DIR/totp.out" ||
  e2e_fail "set-web-totp failed"
secret=$(grep -o 'secret=[A-Z2-7]*' "$E2E_DIR/totp.out" | head -1 | cut -d= -f2)
[ ${#secret} = 32 ] || e2e_fail "no otpauth:// secret printed: $(cat "$E2E_DIR/totp.out")"
grep -q "^totp_secret = $secret\$" "$dir/server.conf" || e2e_fail "no totp_secret written"
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "check-config refused totp_secret"
# totp OFFSET — the code of now + OFFSET steps (RFC 6238 with Python's own HMAC); totp x —
# a code of none of the three steps the panel accepts now.
totp() {
  /usr/bin/python3 - "$secret" "$1" <<'PY'
import base64, hmac, struct, sys, time
key = base64.b32decode(sys.argv[1] + "=" * (-len(sys.argv[1]) % 8))
def code(step):
    h = hmac.new(key, struct.pack(">Q", step), "sha1").digest()
    o = h[19] & 15
    return "%06d" % ((struct.unpack(">I", h[o:o + 4])[0] & 0x7FFFFFFF) % 1000000)
now = int(time.time()) // 30
if sys.argv[2] == "x":
    near = {code(now + d) for d in (-2, -1, 0, 1, 2)}
    print(next("%06d" % n for n in range(1000000) if "%06d" % n not in near))
else:
    print(code(now + int(sys.argv[2])))
PY
}
TLS_PANEL=https://127.0.0.1:8080
start_server server4
expect 200 totp_page -k "$TLS_PANEL/login"
grep -q 'name="code"' "$E2E_DIR/totp_page.b" || e2e_fail "the login page asks for no code"
expect 401 totp_none -k -d 'username=boss&password=panel-pass-2' "$TLS_PANEL/login"
expect 401 totp_wrong -k -d "username=boss&password=panel-pass-2&code=$(totp x)" "$TLS_PANEL/login"
grep -q 'Wrong user name, password or code' "$E2E_DIR/totp_wrong.b" || e2e_fail "wrong code: $(head -c 300 "$E2E_DIR/totp_wrong.b")"
code=$(totp 0)
jar4="$E2E_DIR/jar4"
expect 303 totp_ok -k -c "$jar4" -d "username=boss&password=panel-pass-2&code=$code" "$TLS_PANEL/login"
expect 200 totp_in -k -b "$jar4" "$TLS_PANEL/"
expect 401 totp_reuse -k -d "username=boss&password=panel-pass-2&code=$code" "$TLS_PANEL/login"
# The editor: removing the secret is refused like a hook.
expect 200 totp_session -k -b "$jar4" "$TLS_PANEL/api/v1/session"
expect 200 totp_strip -k -b "$jar4" -H "X-CSRF-Token: $(jq -r .csrf_token "$E2E_DIR/totp_session.b")" \
  -H 'Content-Type: application/json' \
  -d "$(grep -v '^totp_secret = ' "$dir/server.conf" | jq -Rs '{text: .}')" "$TLS_PANEL/api/v1/config/validate"
jq -e '.valid == false and ([.findings[] | select(.key == "totp_secret")] | length) == 1' \
  "$E2E_DIR/totp_strip.b" >/dev/null || e2e_fail "the editor may remove totp_secret: $(head -c 400 "$E2E_DIR/totp_strip.b")"
grep -q "wrong or reused one-time code" "$E2E_DIR/server4.log" || e2e_fail "no failed code logged"
# ... and never shows it (a stolen session must not copy the second factor).
expect 200 totp_cfg -k -b "$jar4" "$TLS_PANEL/api/v1/config"
! grep -q "$secret" "$E2E_DIR/totp_cfg.b" || e2e_fail "GET /api/v1/config shows the TOTP secret"
grep -q 'totp_secret = (hidden)' "$E2E_DIR/totp_cfg.b" || e2e_fail "no hidden totp_secret line"
e2e_finish server4
"$QELI" set-web-totp -c "$dir/server.conf" --socket "$dir/none.sock" --disable >/dev/null ||
  e2e_fail "set-web-totp --disable failed"
! grep -q '^totp_secret' "$dir/server.conf" || e2e_fail "--disable left totp_secret"

# Refused settings.
refused() {  # refused KEY_LINE MESSAGE
  cp "$dir/server.conf" "$dir/bad.conf"
  sed -i "/^\[web\]/a $1" "$dir/bad.conf"
  if "$QELI" check-config "$dir/bad.conf" >"$E2E_DIR/bad.out" 2>&1; then
    e2e_fail "check-config accepted $1"
  fi
  grep -q "$2" "$E2E_DIR/bad.out" || e2e_fail "$1: $(cat "$E2E_DIR/bad.out")"
}
refused 'insecure_no_auth = true' 'never runs without authentication'
refused 'update_check = true' 'not supported yet'
sed -i '/^password_hash = /d' "$dir/server.conf"
refused 'csrf = true' 'needs the admin'"'"'s password hash'

# Every answer of the API and /metrics above, against docs/openapi.yaml.
/usr/bin/python3 "$(dirname "$(readlink -f "$0")")/tools/check_openapi.py" \
  "$(dirname "$(readlink -f "$0")")/../../docs/openapi.yaml" "$E2E_DIR/api.exchanges" "$E2E_DIR" ||
  e2e_fail "the API's answers do not match docs/openapi.yaml"
e2e_log "web panel ok"
