#!/usr/bin/env bash
# e2e: the server under the trial's robustness findings (issue 13).
#
#   1. reload: alice is removed from the users file, bob set to `enabled = false`, carol
#      given a new password; SIGHUP ends exactly those three sessions (their clients are
#      told), dave's stays;
#   2. TCP pre-auth work is bounded per source address like UDP's
#      (perf.connection.new_session_rate_*): 30 connections from one address in a burst,
#      most closed at once and counted (new_session_rate_limited);
#   3. no free descriptor (a second server under `prlimit --nofile`): the accept loop
#      backs off instead of spinning (CPU measured), logs it rate-limited, the session it
#      already had keeps working, and it accepts again once descriptors are free;
#   4. a UDP profile on the wildcard address answers a client from the address the client
#      dialed (a second address of the server), so that client connects;
#   5. a control command run by a user who may not use the socket says so.
# Usage: server_robustness.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
for k in 2 3 4; do e2e_add_client_ns "$k"; done

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls
declare -A link
for u in alice bob carol dave; do link[$u]=$(e2e_add_user "$dir" "$u" "$u-pass"); done
e2e_start_server server "$dir"
stat_of() { "$QELI" stats --json --socket "$1/control.sock" | jq -r --arg f "$2" '.[0][$f]'; }

# --- 1. reload ends the sessions of users who are gone, disabled or re-keyed ----------
e2e_start_client alice "$NS_C" "$dir" "${link[alice]}"
e2e_start_client bob "$NS_C2" "$dir" "${link[bob]}"
e2e_start_client carol "$NS_C3" "$dir" "${link[carol]}"
e2e_start_client dave "$NS_C4" "$dir" "${link[dave]}"
for ns in "$NS_C" "$NS_C2" "$NS_C3" "$NS_C4"; do
  e2e_wait_tunnel 15 "$ns" >/dev/null || e2e_fail "no tunnel in $ns"
done
# carol's new password: hashed by add-client into a scratch user, then moved over.
echo "carol-new" | "$QELI" add-client scratch --password-stdin -c "$dir/server.conf" >/dev/null
python3 - "$dir/users.conf" <<'PY'
import re, sys
path = sys.argv[1]
text = open(path).read()
sections = {m.group(1): m.group(0) for m in re.finditer(r"\[user:([^\]]+)\]\n(?:(?!\[).*\n?)*", text)}
new_hash = re.search(r"password_hash = (\S+)", sections["scratch"]).group(1)
sections.pop("alice")
sections.pop("scratch")
sections["bob"] += "enabled = false\n"
sections["carol"] = re.sub(r"password_hash = \S+", "password_hash = " + new_hash, sections["carol"])
open(path, "w").write("".join(s if s.endswith("\n") else s + "\n" for s in sections.values()))
PY
"$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "the edited users file is rejected"
kill -HUP "$E2E_PID_server"
for u in alice bob carol; do
  e2e_wait_for 10 grep -q "ending the session of '$u'" "$E2E_DIR/server.log" ||
    e2e_fail "the reload did not end $u's session"
done
grep -q "ending the session of 'alice': removed from the config" "$E2E_DIR/server.log" ||
  e2e_fail "alice: wrong reason"
grep -q "ending the session of 'bob': disabled in the config" "$E2E_DIR/server.log" ||
  e2e_fail "bob: wrong reason"
grep -q "ending the session of 'carol': password changed" "$E2E_DIR/server.log" ||
  e2e_fail "carol: wrong reason"
grep -q "ending the session of 'dave'" "$E2E_DIR/server.log" && e2e_fail "dave's session was ended"
e2e_wait_exit alice 10
[ "$E2E_RC" = 1 ] || e2e_fail "alice's client did not stop (exit $E2E_RC)"
e2e_wait_exit bob 10
[ "$E2E_RC" = 1 ] || e2e_fail "bob's client did not stop (exit $E2E_RC)"
# carol is told her credentials changed and does not come back with the old password.
e2e_wait_exit carol 10
[ "$E2E_RC" = 1 ] || e2e_fail "carol's client did not stop (exit $E2E_RC)"
grep -q "changed the password of user 'carol'" "$E2E_DIR/carol.log" || e2e_fail "carol not told why"
grep -q "connected as 'carol'" <(sed -n '/ending the session of .carol./,$p' "$E2E_DIR/server.log") &&
  e2e_fail "carol's client was let in again with the old password"
e2e_ping "$NS_C4" "$TUN_NET.1" || e2e_fail "dave's tunnel after the reload"
[ "$(grep -c "connected as 'dave'" "$E2E_DIR/server.log")" = 1 ] || e2e_fail "dave reconnected"
e2e_log "reload ended alice (removed), bob (disabled), carol (password); dave stayed"

# --- 2. TCP: per-source-address bound on pre-auth work ---------------------------------
before=$(stat_of "$dir" new_session_rate_limited)
ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" <<'PY'
import socket, sys
for _ in range(30):
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
    s.close()
PY
limited=$(( $(stat_of "$dir" new_session_rate_limited) - before ))
[ "$limited" -ge 15 ] || e2e_fail "only $limited of 30 TCP connections from one address were limited"
e2e_ping "$NS_C4" "$TUN_NET.1" || e2e_fail "dave's tunnel during the burst"
e2e_log "TCP burst: $limited of 30 connections closed by the per-address limit"

# --- 3. EMFILE: back off, log, keep serving --------------------------------------------
# Not under the sanitizers: UBSan checks a virtual call's type by probing memory through a
# pipe, which cannot be opened once the server has no descriptor left, and then reports a
# false "invalid vptr" (a suppression cannot help: it needs the same probe). The release
# build runs this part in every CI run.
if [ -n "${ASAN_OPTIONS:-}${UBSAN_OPTIONS:-}" ]; then
  e2e_log "EMFILE: skipped under the sanitizers (see above)"
else
dir2="$E2E_DIR/fd"
E2E_PORT=4435 TUN_NET=10.81.0 e2e_server_conf "$dir2" fake-tls \
  'perf.connection.new_session_rate_max = 100000'
sed -i 's/^tun.name = .*/tun.name = qefd0/' "$dir2/server.conf"
link_fd=$(E2E_PORT=4435 e2e_add_user "$dir2" erin erin-pass)
e2e_bg server2 "$NS_S" prlimit --nofile=40:40 "$QELI" server -c "$dir2/server.conf" \
  --identity-dir "$dir2/identity" --socket "$dir2/control.sock"
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '$UL_S:4435 '" || e2e_fail "server2"
e2e_start_client erin "$NS_C2" "$dir2" "$link_fd"
TUN_NET=10.81.0 e2e_wait_tunnel 15 "$NS_C2" >/dev/null || e2e_fail "erin got no tunnel"
# Traffic before the descriptors run out, too.
ip netns exec "$NS_C2" ping -c 2 -i 0.2 -W 2 10.81.0.1 >/dev/null || e2e_fail "erin's session"
e2e_bg flood "$NS_C3" python3 -c '
import socket, sys, time
held = []
for _ in range(200):
    try:
        held.append(socket.create_connection((sys.argv[1], 4435), timeout=1))
    except OSError:
        pass
time.sleep(60)
' "$UL_S"
e2e_wait_for 15 grep -q "cannot accept connections: Too many open files" "$E2E_DIR/server2.log" ||
  e2e_fail "server2 never ran out of descriptors (or did not say so)"
ticks() { awk '{print $14 + $15}' "/proc/$E2E_PID_server2/stat"; }
t0=$(ticks)
sleep 2
used=$(( $(ticks) - t0 ))  # clock ticks (100/s) in 2 s; a spin is ~200
[ "$used" -lt 60 ] || e2e_fail "the accept loop spins: $used ticks in 2 s"
ip netns exec "$NS_C2" ping -c 3 -i 0.2 -W 2 10.81.0.1 >/dev/null || e2e_fail "erin's session"
lines=$(grep -c "cannot accept connections" "$E2E_DIR/server2.log")
[ "$lines" -le 2 ] || e2e_fail "the EMFILE log is not rate-limited ($lines lines)"
e2e_stop flood
e2e_start_client erin2 "$NS_C3" "$dir2" "$link_fd"
e2e_wait_for 20 sh -c "[ \$(grep -c \"connected as 'erin'\" '$E2E_DIR/server2.log') -ge 2 ]" ||
  e2e_fail "server2 did not accept again after the descriptors were freed"
e2e_log "EMFILE: $used ticks in 2 s, $lines log line(s), the running session kept working"
e2e_finish erin2 erin server2
fi

# --- 4. UDP on the wildcard address: replies from the address the client dialed --------
ip -n "$NS_S" addr add "$UL_NET.3/24" dev "$VETH_S"
dir3="$E2E_DIR/udp"
E2E_TRANSPORT=udp E2E_PORT=4436 TUN_NET=10.82.0 e2e_server_conf "$dir3" fake-tls
sed -i -e "s/^bind.address = .*/bind.address = 0.0.0.0/" -e 's/^tun.name = .*/tun.name = qeud0/' \
  "$dir3/server.conf"
link_u=$(E2E_PORT=4436 e2e_add_user "$dir3" frank frank-pass)
link_u=${link_u/@$UL_S:/@$UL_NET.3:}
e2e_bg server3 "$NS_S" "$QELI" server -c "$dir3/server.conf" --identity-dir "$dir3/identity" \
  --socket "$dir3/control.sock"
e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -lun | grep -q ':4436 '" || e2e_fail "server3"
e2e_start_client frank "$NS_C" "$dir3" "$link_u"
TUN_NET=10.82.0 e2e_wait_tunnel 15 "$NS_C" >/dev/null ||
  e2e_fail "a UDP client dialing the server's second address never connected"
ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 2 10.82.0.1 >/dev/null || e2e_fail "frank's tunnel"
e2e_log "UDP wildcard: the client that dialed $UL_NET.3 is connected"

# --- 5. a control command without the privilege says which one ------------------------
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$QELI" list-clients \
  --socket "$dir/control.sock" 2>&1) && e2e_fail "list-clients as nobody succeeded"
grep -q "Permission denied — the control socket is only for root" <<<"$out" ||
  e2e_fail "list-clients as nobody: $out"
e2e_finish frank server3 dave server
e2e_log "server_robustness ok"
