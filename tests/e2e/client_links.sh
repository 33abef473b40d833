#!/usr/bin/env bash
# e2e: the documented ways to get a full tunnel (and one that is not: a server's push), and
# the ways to hand the client a link
# (issue 13, "what the trial also hit"). The client's underlay has a default route, so a
# full tunnel has something to take precedence over; "full" is checked with the kernel's
# own route lookup for a wan address (dev vpn0) and a ping to it.
#
#   1. -c FILE with gateway = true (the baseline);
#   2. a link with &gateway=1;
#   3. -c FILE LINK: the file's gateway = true (and dev) applies, the link's server,
#      user and password too — the file is no longer ignored;
#   4. the server pushes route = 0.0.0.0/0 (and a /16): the client refuses the /0, as
#      0.7.16's client does (a server may not make a split tunnel full), and stays split
#      with the /16 through the TUN; check-config warns about the /0;
#   5. the link on standard input (quoted, with spaces) and from --link-file: no password
#      in `ps`; a link given as an argument warns; a config readable by others warns.
# Usage: client_links.sh QELI_BINARY
set -euo pipefail
QELI=$(readlink -f "$1")
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
e2e_add_wan_ns
ip -n "$NS_C" route add default via "$UL_S"

dir="$E2E_DIR/srv"
e2e_server_conf "$dir" fake-tls "routing.nat.enabled = true
routing.nat.interface = $WAN_IF"
link=$(e2e_add_user "$dir" alice alice-pass)
# with_param LINK P — LINK with the parameter P added before its #label.
with_param() { echo "${1%%#*}&$2#${1#*#}"; }
e2e_start_server server "$dir"

# full NAME DEV — the client NAME has a full tunnel on DEV: the wan host routes into it
# and answers through it.
full() {
  local name=$1 dev=$2
  e2e_wait_tunnel 15 "$NS_C" "$dev" >/dev/null || e2e_fail "$name: no tunnel on $dev"
  e2e_wait_for 5 sh -c "ip -n '$NS_C' route get '$WAN_IP' | grep -q 'dev $dev'" ||
    e2e_fail "$name: $WAN_IP does not go through $dev: $(ip -n "$NS_C" route get "$WAN_IP")"
  e2e_ping "$NS_C" "$WAN_IP" || e2e_fail "$name: no answer from the wan host through the tunnel"
  grep -q "^0.0.0.0/1 dev $dev" <<<"$(ip -n "$NS_C" route show)" ||
    e2e_fail "$name: no 0/1 route: $(ip -n "$NS_C" route show)"
  grep -q "dev $VETH_C" <<<"$(ip -n "$NS_C" route get "$UL_S")" || e2e_fail "$name: server not pinned"
}
split() {
  e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "split: no tunnel"
  grep -q "dev $VETH_C" <<<"$(ip -n "$NS_C" route get "$WAN_IP")" || e2e_fail "split: wan via the tunnel"
}

# 1. -c FILE with gateway = true.
conf=$(e2e_client_conf "$dir" c1 alice alice-pass "gateway = true")
chmod 600 "$conf"
e2e_start_client c1 "$NS_C" "$dir" -c "$conf"
full "config gateway" vpn0
e2e_finish c1

# 2. A link alone, with &gateway=1 (and without: split).
e2e_start_client c2 "$NS_C" "$dir" "$(with_param "$link" gateway=1)"
full "link gateway=1" vpn0
e2e_finish c2
e2e_start_client c2s "$NS_C" "$dir" "$link"
split
e2e_finish c2s

# 3. -c FILE LINK: host settings from the file (dev, gateway), where and who from the link.
printf '[qeli]\ndev = office0\ngateway = true\nuser = nobody-here\n' >"$dir/host.conf"
chmod 600 "$dir/host.conf"
e2e_start_client c3 "$NS_C" "$dir" -c "$dir/host.conf" "$link"
full "file + link" office0
grep -q "the link's user replaces the file's" "$E2E_DIR/c3.log" ||
  e2e_fail "file + link: the override of the file's user is not said"
e2e_finish c3

# 4. The server pushes 0.0.0.0/0 (refused: the client stays split) and a /16 (taken).
e2e_stop server
printf 'route = 0.0.0.0/0\nroute = 10.77.0.0/16\n' >>"$dir/server.conf"
checked=$("$QELI" check-config "$dir/server.conf" 2>&1) || e2e_fail "route = 0.0.0.0/0 rejected"
grep -q "clients refuse a pushed route broader than /8" <<<"$checked" ||
  e2e_fail "check-config: no warning about route = 0.0.0.0/0: $checked"
e2e_start_server server-push "$dir"
e2e_start_client c4 "$NS_C" "$dir" "$link"
split
grep -q "pushed route 0.0.0.0/0 refused" "$E2E_DIR/c4.log" || e2e_fail "push: refusal not logged"
grep -q "^0.0.0.0/1 dev vpn0\|^default dev vpn0" <<<"$(ip -n "$NS_C" route show)" &&
  e2e_fail "push: a default route on vpn0: $(ip -n "$NS_C" route show)"
grep -q "^10.77.0.0/16 dev vpn0" <<<"$(ip -n "$NS_C" route show)" ||
  e2e_fail "push: the /16 is not through vpn0: $(ip -n "$NS_C" route show)"
e2e_finish c4
e2e_stop server-push
sed -i '/^route = 0.0.0.0\/0$/d; /^route = 10.77.0.0\/16$/d' "$dir/server.conf"
e2e_start_server server "$dir"

# 5. Links without `ps` exposure; warnings.
printf '  "%s"  \n' "$link" >"$E2E_DIR/stdin.link"
e2e_bg c5 "$NS_C" sh -c "exec \"$QELI\" client - --known-hosts '$dir/c5.kh' --state-dir '$dir/c5.state' \
  --status-socket '$dir/c5.sock' < '$E2E_DIR/stdin.link'"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "stdin: no tunnel"
grep -q alice-pass <<<"$(ps -o args= -p "$E2E_PID_c5")" && e2e_fail "stdin: the password shows in ps"
grep -q "visible to every local user" "$E2E_DIR/c5.log" && e2e_fail "stdin: warned about ps"
e2e_finish c5
printf '# office\n%s\n' "$link" >"$dir/office.link"
chmod 644 "$dir/office.link"
e2e_start_client c6 "$NS_C" "$dir" --link-file "$dir/office.link"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "link file: no tunnel"
grep -q "office.link holds a link with a password and is readable by every user" \
  "$E2E_DIR/c6.log" || e2e_fail "link file: no warning about its mode 644"
e2e_finish c6
grep -q "visible to every local user in \`ps\`" "$E2E_DIR/c2.log" ||
  e2e_fail "a link given as an argument did not warn"
chmod 644 "$conf"
e2e_start_client c7 "$NS_C" "$dir" -c "$conf"
e2e_wait_tunnel 15 "$NS_C" >/dev/null || e2e_fail "c7: no tunnel"
grep -q "c1.conf holds a password or key and is readable by every user: chmod 600" \
  "$E2E_DIR/c7.log" || e2e_fail "a client config readable by others did not warn"
e2e_finish c7 server
e2e_log "client_links ok"
