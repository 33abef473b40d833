#!/usr/bin/env bash
# e2e: `qeli server --user nobody` drops its privileges after start-up, checked from
# outside in /proc/PID/status — every uid is nobody's, the capability sets hold only
# CAP_NET_ADMIN (bit 12; nothing inheritable or ambient, the bounding set cut too),
# no_new_privs is set — and everything the server still does works after the drop:
#   * a client connects and passes traffic;
#   * SIGHUP reloads (a user added afterwards logs in; alice's live session stays);
#   * SIGHUP reopens the [logging] file after a logrotate-style rename + create;
#   * the control socket still answers (and belongs to the service user);
#   * the panel (nobody, no capability) saves the config, adds a user, issues and revokes a
#     device: the server writes through its file steward (root, cap_chown only), the
#     files stay root's with their modes;
#   * SIGTERM removes the NAT table (CAP_NET_ADMIN) and the TUN, exit 0.
# Usage: privilege_drop.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "routing.nat.enabled = true
routing.nat.interface = $VETH_S"
# The log file of [logging], and files the service user must read on reload.
sed -i "s|^level = info|level = info\nfile = $dir/server.log|" "$dir/server.conf"
link=$(e2e_add_user "$dir" alice alice-pass)
# The web panel too: its child must end up as the service user without any capability.
echo 'panel-pass' | "$QELI" set-web-password -c "$dir/server.conf" --socket "$dir/none.sock" \
  --password-stdin >/dev/null || e2e_fail "set-web-password"
chmod 0755 "$E2E_DIR" "$dir"
chmod 0644 "$dir/server.conf" "$dir/users.conf"
# The control socket in a directory of its own, as /run/qeli under the unit: the drop
# hands that directory to the service user, and the config directory stays root's.
run="$E2E_DIR/run"
mkdir -m 0755 "$run"
nobody_uid=$(id -u nobody)

e2e_bg server "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
  --socket "$run/control.sock" --user nobody
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '$UL_S:$E2E_PORT '" ||
  e2e_fail "the server did not listen"
# `ip netns exec` execs qeli in place: the PID e2e_bg recorded is the server's.
pid=$E2E_PID_server
[ "$(cat /proc/$pid/comm)" = qeli ] || e2e_fail "pid $pid is not qeli"
e2e_wait_for 10 grep -q "running as user nobody" "$dir/server.log" ||
  e2e_fail "no drop logged in the [logging] file: $(cat "$dir/server.log")"

status=/proc/$pid/status
uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$status")
[ "$uids" = "$nobody_uid $nobody_uid $nobody_uid $nobody_uid" ] || e2e_fail "Uid: $uids"
gids=$(awk '/^Gid:/ {print $2, $3, $4, $5}' "$status")
[ "$gids" = "$(id -g nobody) $(id -g nobody) $(id -g nobody) $(id -g nobody)" ] || e2e_fail "Gid: $gids"
for set in CapEff CapPrm CapBnd; do
  v=$(awk -v k="$set:" '$1 == k {print $2}' "$status")
  [ "$v" = 0000000000001000 ] || e2e_fail "$set = $v (want CAP_NET_ADMIN only: 0000000000001000)"
done
for set in CapInh CapAmb; do
  v=$(awk -v k="$set:" '$1 == k {print $2}' "$status")
  [ "$v" = 0000000000000000 ] || e2e_fail "$set = $v (want none)"
done
[ "$(awk '/^NoNewPrivs:/ {print $2}' "$status")" = 1 ] || e2e_fail "no_new_privs not set"
e2e_log "server pid $pid: uid $nobody_uid, CapEff/CapPrm/CapBnd = cap_net_admin, no_new_privs"

# The panel: a child of its own, nobody's uid, no capability at all.
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '127.0.0.1:8080 '" ||
  e2e_fail "the panel does not listen"
ppid_=$(ip netns exec "$NS_S" ss -ltnp | grep '127.0.0.1:8080 ' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
[ -n "$ppid_" ] && [ "$ppid_" != "$pid" ] || e2e_fail "no panel process of its own"
pstatus=/proc/$ppid_/status
[ "$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$pstatus")" = "$nobody_uid $nobody_uid $nobody_uid $nobody_uid" ] ||
  e2e_fail "panel Uid: $(grep ^Uid: "$pstatus")"
for set in CapEff CapPrm CapBnd CapInh CapAmb; do
  v=$(awk -v k="$set:" '$1 == k {print $2}' "$pstatus")
  [ "$v" = 0000000000000000 ] || e2e_fail "panel $set = $v (want none)"
done
[ "$(awk '/^NoNewPrivs:/ {print $2}' "$pstatus")" = 1 ] || e2e_fail "panel without no_new_privs"
panel_code() {
  ip netns exec "$NS_S" curl -s --max-time 10 -o /dev/null -w '%{http_code}' \
    -d 'username=admin&password=wrong' http://127.0.0.1:8080/login
}
[ "$(panel_code)" = 401 ] || e2e_fail "the panel does not answer a login as nobody"
# The panel's account gets every permission on the control socket (config-save needs
# manage), and the dropped server — which may not create files beside root's config —
# saves through its file steward (server/file_steward.h): a root helper with CAP_CHOWN
# alone. Through the panel's API as nobody: the config saved (an added comment), a user
# added, a device issued and revoked; the files stay root's with their modes.
spid=$(pgrep -f "^/proc/self/exe file-steward --config $dir/server.conf" | head -1)
[ -n "$spid" ] || spid=$(pgrep -f "file-steward --config $dir/server.conf" | head -1)
[ -n "$spid" ] || e2e_fail "no file steward process"
sstatus=/proc/$spid/status
[ "$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$sstatus")" = "0 0 0 0" ] ||
  e2e_fail "file steward Uid: $(grep ^Uid: "$sstatus")"
for set in CapEff CapPrm; do
  v=$(awk -v k="$set:" '$1 == k {print $2}' "$sstatus")
  [ "$v" = 0000000000000001 ] || e2e_fail "file steward $set = $v (want cap_chown only)"
done
[ "$(awk '/^NoNewPrivs:/ {print $2}' "$sstatus")" = 1 ] || e2e_fail "file steward without no_new_privs"
pjar="$E2E_DIR/panel.jar"
ip netns exec "$NS_S" curl -s -c "$pjar" -o /dev/null -d 'username=admin&password=panel-pass' \
  http://127.0.0.1:8080/login
ip netns exec "$NS_S" curl -s -b "$pjar" -o "$E2E_DIR/pconf.json" http://127.0.0.1:8080/api/v1/config
ptok=$(ip netns exec "$NS_S" curl -s -b "$pjar" http://127.0.0.1:8080/api/v1/session | jq -r .csrf_token)
jq '{text: (.text + "# saved by the panel as nobody\n"), base_sha256: .sha256}' "$E2E_DIR/pconf.json" >"$E2E_DIR/psave.json"
code=$(ip netns exec "$NS_S" curl -s -b "$pjar" -o "$E2E_DIR/psave.out" -w '%{http_code}' \
  -H "X-CSRF-Token: $ptok" -H 'Content-Type: application/json' --data-binary @"$E2E_DIR/psave.json" \
  http://127.0.0.1:8080/api/v1/config)
[ "$code" = 200 ] || e2e_fail "config save through the panel as nobody: $code $(cat "$E2E_DIR/psave.out")"
grep -q '^# saved by the panel as nobody$' "$dir/server.conf" || e2e_fail "the panel's save is not in the file"
papi() {  # PATH JSON — a POST to the panel's API; prints the HTTP code, the body to papi.out
  ip netns exec "$NS_S" curl -s -b "$pjar" -o "$E2E_DIR/papi.out" -w '%{http_code}' \
    -H "X-CSRF-Token: $ptok" -H 'Content-Type: application/json' -d "$2" \
    "http://127.0.0.1:8080/api/v1/$1"
}
code=$(papi users '{"user":"carol"}')
[ "$code" = 200 ] || e2e_fail "add-user through the panel as nobody: $code $(cat "$E2E_DIR/papi.out")"
code=$(papi devices '{"user":"carol","name":"phone"}')
[ "$code" = 200 ] || e2e_fail "add-device through the panel as nobody: $code $(cat "$E2E_DIR/papi.out")"
did=$(jq -r .id "$E2E_DIR/papi.out")
grep -q "^device.$did = phone \$argon2id" "$dir/users.conf" || e2e_fail "the device is not in the users file"
code=$(papi devices/revoke "{\"user\":\"carol\",\"id\":\"$did\"}")
[ "$code" = 200 ] || e2e_fail "revoke-device through the panel as nobody: $code $(cat "$E2E_DIR/papi.out")"
! grep -q "^device.$did" "$dir/users.conf" || e2e_fail "the revoked device is still in the users file"
grep -q '^\[user:carol\]' "$dir/users.conf" || e2e_fail "carol is not in the users file"
for f in server.conf users.conf; do
  [ "$(stat -c '%u %g %a' "$dir/$f")" = "0 0 644" ] || e2e_fail "$f after the steward: $(stat -c '%u %g %a' "$dir/$f")"
done
[ "$(stat -c %u "$dir")" = 0 ] || e2e_fail "the config directory changed hands"
# Outside its three files the steward writes nothing, whatever the dropped server asks.
grep -q "file steward: replaced $dir/users.conf" "$E2E_DIR/server.log" || e2e_fail "no steward log line"
e2e_log "panel pid $ppid_: uid $nobody_uid, no capability, no_new_privs; config-save, add-user, add-device, revoke-device through the file steward (pid $spid, cap_chown only)"

# Traffic and the control socket after the drop.
e2e_start_client alice "$NS_C" "$dir" "$link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "no tunnel after the drop"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "ping after the drop"
[ "$(e2e_sessions "$run")" = "alice $TUN_NET.2" ] || e2e_fail "list-clients after the drop"
[ "$(stat -c %u "$run/control.sock")" = "$nobody_uid" ] || e2e_fail "control socket not the service user's"

# The log file stays root's, the service user's group may write it (the next start, as
# root without CAP_DAC_OVERRIDE under systemd, must open it again).
[ "$(stat -c '%u %g %a' "$dir/server.log")" = "0 $(id -g nobody) 660" ] ||
  e2e_fail "log file after the drop: $(stat -c '%u %g %a' "$dir/server.log")"
# logrotate (create 0660 root <group>): rename, create the new file, SIGHUP.
mv "$dir/server.log" "$dir/server.log.1"
install -m 0660 -o root -g "$(id -g nobody)" /dev/null "$dir/server.log"
# A reload as nobody: a user added now must be able to log in (alice, carol from the
# panel above, bob).
link_bob=$(e2e_add_user "$dir" bob bob-pass)
kill -HUP "$pid"
e2e_wait_for 10 grep -q "reloaded users from .* (3 users)" "$dir/server.log" ||
  e2e_fail "no reload line in the reopened log file"
grep -q "reloaded users from .* (3 users)" "$dir/server.log.1" && e2e_fail "the reload was logged to the rotated file"
# The panel follows the rotation too (the reload passes SIGHUP on).
sleep 0.5
[ "$(panel_code)" = 401 ] || e2e_fail "panel login after the reload"
e2e_wait_for 10 grep -q "panel: failed login of 'admin'" "$dir/server.log" ||
  e2e_fail "the panel's lines did not follow the rotation into the new log file"
e2e_add_client_ns 2
e2e_start_client bob "${NS_C}2" "$dir" "$link_bob"
e2e_wait_tunnel 15 "${NS_C}2" >/dev/null || e2e_fail "bob (added before the reload) did not connect"
e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "alice's session did not survive the reload"
grep -q "'alice' .* disconnected" "$dir/server.log" && e2e_fail "alice was disconnected by the reload"

grep -q qeli_nat_e2e <<<"$(ip netns exec "$NS_S" nft list tables)" || e2e_fail "no NAT table while running"
e2e_finish alice bob server
grep -q qeli_nat_e2e <<<"$(ip netns exec "$NS_S" nft list tables)" && e2e_fail "NAT table left after stop"
ip -n "$NS_S" link show qes0 >/dev/null 2>&1 && e2e_fail "TUN left after stop"
[ -e "$run/control.sock" ] && e2e_fail "control socket left after stop"
e2e_log "privilege drop ok"
