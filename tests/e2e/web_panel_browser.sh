#!/usr/bin/env bash
# e2e: the web panel in a real browser — Debian's headless Chromium driven through
# chromedriver by Selenium (tools/panel_browser.py), in the server's namespace, as an
# admin uses it:
#   * / lands on the login page; the admin logs in by typing into the form;
#   * the dashboard lists alice's live session; panel.css applies under the panel's CSP
#     (the header is styled) and the console shows no Content-Security-Policy violation;
#   * Sessions → "Kick" on alice's row: "Ended 1 session(s)."; her client hears the kick and
#     reconnects; Users → "Disable" alice: she is listed disabled, her session ends and her
#     client exits (checked from outside with list-clients and the client's exit);
#   * Users → "New user" carol, then "Add a device": the page shows the link and its QR
#     code; the browser reads the QR back with zbarimg, and this script connects a real
#     client (its own namespace) with exactly that link; carol's session appears live, is
#     kicked (the client reconnects), then the device is revoked: the session ends and the
#     same link is refused afterwards ("unknown or revoked device"); the users file holds a
#     hash of the credential and never the credential;
#   * carol's session has its own page (packets, drop reasons, counters; a rate on the
#     second view);
#   * the config editor validates and saves a >8 KiB file (multipart) that adds an inline
#     user, dave; the page says the server reloaded, and it did: the control API lists dave
#     (which only a reload of the saved file can bring), and the server logged the reload
#     between the last earlier action's and the panel's save line;
#   * a screenshot of every other page: lockouts, events, logs, audit, API tokens,
#     webhooks, the admin's account, carol's edit form, the saved config version;
#   * "Log out" is back on the login page and / redirects to /login again.
# A PNG of every page visited goes to $E2E_DIR/screens/ and to
# ${E2E_ARTEFACTS:-/tmp/qeli-e2e-artefacts}/web_panel_browser/ (kept after the run, with
# the console log, and on failure the last page's HTML and chromedriver's log).
# Needs chromium, chromium-driver and python3-selenium (scripts/bootstrap.sh), run by
# /usr/bin/python3.
# Usage: web_panel_browser.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
TOOLS=$(cd "$(dirname "$0")/tools" && pwd)

for need in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$need" ] || e2e_fail "$need is missing (scripts/bootstrap.sh installs chromium and chromium-driver)"
done
# Debian's python3-selenium is for Debian's interpreter (a python3 earlier in PATH, say
# pyenv's, does not see it).
PY=/usr/bin/python3
"$PY" -c 'import selenium' 2>/dev/null ||
  e2e_fail "python3-selenium is missing (scripts/bootstrap.sh installs it)"

e2e_setup
e2e_add_client_ns 2
t0=$(date +%s)
ART="${E2E_ARTEFACTS:-/tmp/qeli-e2e-artefacts}/web_panel_browser"
mkdir -p "$ART" "$E2E_DIR/screens"
rm -f "$ART"/*.png "$ART"/*.json "$ART"/*.html "$ART"/*.txt  # this run's only

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
link=$(e2e_add_user "$dir" alice alice-pass)
printf 'panel-pass-1\n' >"$E2E_DIR/panel.pass"
chmod 600 "$E2E_DIR/panel.pass"
"$QELI" set-web-password -c "$dir/server.conf" --socket "$dir/none.sock" --username boss \
  --password-stdin <"$E2E_DIR/panel.pass" >"$E2E_DIR/setpw.out" || e2e_fail "set-web-password failed"
# Past httplib's 8 KiB cap on urlencoded forms: the editor must save it all the same.
for i in $(seq 1 250); do echo "# padding line $i of a config file that is larger than 8 KiB" >>"$dir/server.conf"; done
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "check-config refused [web]"
# What the browser's config edit appends: dave, a user defined inline, with a password
# hash made by add-client in a scratch config (the real one must not have him yet).
e2e_server_conf "$E2E_DIR/scratch" plain
echo dave-pass-1 | "$QELI" add-client dave --password-stdin -c "$E2E_DIR/scratch/server.conf" \
  >/dev/null || e2e_fail "add-client dave (scratch) failed"
dave_hash=$(sed -n 's/^password_hash = //p' "$E2E_DIR/scratch/users.conf")
[ -n "$dave_hash" ] || e2e_fail "no password hash for dave in the scratch users file"
printf '[user:dave]\npassword_hash = %s\n' "$dave_hash" >"$E2E_DIR/config_append.txt"

e2e_start_server server "$dir"
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '127.0.0.1:8080 '" ||
  e2e_fail "the panel does not listen on 127.0.0.1:8080"
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "alice got no tunnel"
e2e_wait_for 10 sh -c "\"$QELI\" list-clients --json --socket '$dir/control.sock' | jq -e '[.[].username] == [\"alice\"]'" ||
  e2e_fail "the server does not list alice's session"
# Bytes both ways for the panel's traffic history (checked at the end).
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "no ping through alice's tunnel"
e2e_log "server, panel and alice up in $(( $(date +%s) - t0 )) s"

# The browser, in the server's namespace (the panel listens on its loopback), in the
# background: when it has read carol's device link from the QR code it writes it to
# $link_file, and carol's client starts here with it.
link_file="$E2E_DIR/carol.link"
ip netns exec "$NS_S" timeout -k 5 150 "$PY" "$TOOLS/panel_browser.py" \
  --url http://127.0.0.1:8080 --username boss --password-file "$E2E_DIR/panel.pass" \
  --user alice --new-user carol --link-host "$UL_S:$E2E_PORT" --link-out "$link_file" \
  --screens "$E2E_DIR/screens" --artefacts "$ART" --config-append "$E2E_DIR/config_append.txt" \
  --user-data-dir "$E2E_DIR/chromium-profile" --driver-log "$E2E_DIR/chromedriver.txt" \
  >"$E2E_DIR/panel_browser.log" 2>&1 &
browser=$!
for _ in $(seq 1 1200); do  # ≤ 120 s: the browser's own timeout ends it sooner
  [ -s "$link_file" ] || ! kill -0 "$browser" 2>/dev/null && break
  sleep 0.1
done
if [ -s "$link_file" ]; then
  carol_link=$(cat "$link_file")
  e2e_start_client carol "$NS_C2" "$dir" "$carol_link"
fi
rc=0
wait "$browser" || rc=$?
[ "$rc" != 0 ] || cat "$E2E_DIR/panel_browser.log"  # on failure e2e_fail shows it
# Nothing of the browser may outlive the driver (it quits Chromium; `timeout` kills its
# process group): end any leftover by pid, namespace by namespace.
for pid in $(ip netns pids "$NS_S"); do
  case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in
    */chromium/*|*/chromedriver*) kill -KILL "$pid" 2>/dev/null || true ;;
  esac
done
if [ "$rc" != 0 ]; then
  cp "$E2E_DIR/chromedriver.txt" "$ART/" 2>/dev/null || true
  [ "$rc" != 124 ] || e2e_fail "the browser scenario timed out (150 s); screenshots in $ART"
  e2e_fail "the browser scenario failed (exit $rc); screenshots in $ART"
fi
ls "$E2E_DIR"/screens/*.png >/dev/null 2>&1 || e2e_fail "no screenshots in $E2E_DIR/screens"
for f in "$E2E_DIR"/screens/*.png; do
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || e2e_fail "$f is not a PNG"
  cmp -s "$f" "$ART/$(basename "$f")" || e2e_fail "$(basename "$f") was not copied to $ART"
done

# From outside: the kick and the disable really happened.
grep -q "session ended: the server ended the session: kicked by the operator" "$E2E_DIR/alice.log" ||
  e2e_fail "alice's client did not hear the kick from the panel"
grep -q "panel: admin 'boss' kicked 1 session(s) of 'alice' from 127.0.0.1" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the panel's kick"
grep -q "panel: admin 'boss' disabled user 'alice' from 127.0.0.1" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the panel's disable"
grep -q "panel: admin 'boss' saved the config from 127.0.0.1" "$E2E_DIR/server.log" ||
  e2e_fail "the config save from the browser is not in the server log"
grep -q '^# padding line 250 ' "$dir/server.conf" || e2e_fail "the saved config lost its end"
grep -q '^\[user:dave\]$' "$dir/server.conf" || e2e_fail "the browser's inline user is not in the file"
# The reload really happened: the server lists dave now (only the saved file has him)...
python3 "$TOOLS/control_call.py" "$dir/control.sock" '{"cmd": "list-users"}' \
  >"$E2E_DIR/users_after_save.json" || e2e_fail "list-users over the control socket failed"
jq -e '[.users[].name] | index("dave") != null' "$E2E_DIR/users_after_save.json" >/dev/null ||
  e2e_fail "the server does not list dave after the save: not reloaded ($(head -c 300 "$E2E_DIR/users_after_save.json"))"
# ...and logged a reload after the panel's last earlier action (the revoke, itself followed
# by a reload) and before the panel's save line (the server reloads, then answers).
awk '/panel: admin .boss. revoked device/ { after = 1; reloaded = 0 }
     after && /reloaded users from / { reloaded = 1 }
     /panel: admin .boss. saved the config/ { found = 1; ok = after && reloaded; exit }
     END { exit !(found && ok) }' "$E2E_DIR/server.log" ||
  e2e_fail "no reload line in the server log between the revoke and the config save"
grep -q '^# saved from the browser$' "$dir/server.conf" || e2e_fail "the browser's edit is not in the file"
for page in blocked events logs audit tokens webhooks account user-edit config-version session-detail; do
  ls "$ART"/*-"$page".png >/dev/null 2>&1 || e2e_fail "no screenshot of the $page page in $ART"
done
! grep -q $'\r' "$dir/server.conf" || e2e_fail "the saved config has CR line ends"
e2e_wait_for 10 sh -c "[ -z \"\$(\"$QELI\" list-clients --json --socket '$dir/control.sock' | jq -r '.[].username')\" ]" ||
  e2e_fail "alice's session did not end after the disable in the browser"
e2e_wait_exit alice 10
[ "$E2E_RC" != running ] || e2e_fail "alice keeps running after her user was disabled in the browser"
grep -q "the server disabled user 'alice'" "$E2E_DIR/alice.log" || e2e_fail "alice was not told why"

# carol: the device link from the QR code logged in, the kick was heard, the revoke ended
# the session, and the same link is refused now.
carol_id=$(printf '%s' "$carol_link" | sed -n 's#^qeli://carol:qd1\.\([0-9a-f]\{8\}\)\..*#\1#p')
[ -n "$carol_id" ] || e2e_fail "carol's link has no device credential: $carol_link"
grep -q "session ended: the server ended the session: kicked by the operator" "$E2E_DIR/carol.log" ||
  e2e_fail "carol's client did not hear the kick from the panel"
grep -q "panel: admin 'boss' added user 'carol' from 127.0.0.1" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the panel's new user"
grep -q "panel: admin 'boss' revoked device $carol_id of 'carol' from 127.0.0.1" "$E2E_DIR/server.log" ||
  e2e_fail "the server log does not name the panel's revoke"
e2e_wait_for 10 grep -q "ending the session of 'carol': device revoked" "$E2E_DIR/server.log" ||
  e2e_fail "carol's session did not end on the revoke"
grep -q '^\[user:carol\]' "$dir/users.conf" || e2e_fail "carol is not in the users file"
! grep -q "device.$carol_id" "$dir/users.conf" || e2e_fail "the revoked device is still in the users file"
cred=${carol_link#qeli://carol:}
cred=${cred%%@*}
! grep -rqF "$cred" "$dir" "$E2E_DIR/server.log" || e2e_fail "the device credential was written to a file or a log"
kill -TERM "$E2E_PID_carol" 2>/dev/null || true
e2e_wait_exit carol 10
e2e_start_client carol-again "$NS_C2" "$dir" "$carol_link"
e2e_wait_for 15 grep -q "rejected: unknown or revoked device $carol_id (user 'carol')" \
  "$E2E_DIR/server.log" || e2e_fail "the revoked device link was not refused"
kill -TERM "$E2E_PID_carol_again" 2>/dev/null || true
e2e_wait_exit carol-again 10

# Traffic over time: the panel samples the server's counters (and each user's totals)
# every 30 s into its state_db; the sessions above moved bytes both ways, so a bucket with
# both appears, the server's and alice's (the panel has run for more than one sampling
# period by now, or will shortly).
ip netns exec "$NS_S" curl -s -c "$E2E_DIR/tjar" --data-urlencode username=boss \
  --data-urlencode "password=$(cat "$E2E_DIR/panel.pass")" -o /dev/null http://127.0.0.1:8080/login
traffic_seen() {  # traffic_seen FILE QUERY
  sleep 1
  ip netns exec "$NS_S" curl -s -b "$E2E_DIR/tjar" "http://127.0.0.1:8080/api/v1/traffic?$2" \
    >"$E2E_DIR/$1" &&
    jq -e '[.points[] | select(.down_bytes > 0 and .up_bytes > 0)] | length >= 1' \
      "$E2E_DIR/$1" >/dev/null
}
e2e_wait_for 45 traffic_seen traffic.json 'hours=1' ||
  e2e_fail "no traffic in the panel's history: $(head -c 400 "$E2E_DIR/traffic.json")"
e2e_wait_for 45 traffic_seen alice_traffic.json 'hours=1&user=alice' ||
  e2e_fail "no traffic in alice's history: $(head -c 400 "$E2E_DIR/alice_traffic.json")"

e2e_finish server
e2e_log "web panel in a browser ok in $(( $(date +%s) - t0 )) s ($(ls "$ART"/*.png | wc -l) screenshots in $ART)"
