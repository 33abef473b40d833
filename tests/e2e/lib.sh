# tests/e2e/lib.sh — qeli helpers for the scenario scripts (source netns.sh first).
#
# One server profile `e2e` on $UL_S:$E2E_PORT (TCP, or UDP with E2E_TRANSPORT=udp) with the tunnel pool $TUN_NET.0/24;
# every file of a run lives in one directory (config, users file, identity keys, client
# known_hosts and device ids), so nothing outside $E2E_DIR is touched.
E2E_PORT=${E2E_PORT:-4433}
TUN_NET=${TUN_NET:-10.77.0}

# e2e_server_conf DIR MODE [EXTRA_PROFILE_LINES] — writes DIR/server.conf and an empty
# DIR/users.conf. MODE: plain | fake-tls | obfs (UDP). E2E_TRANSPORT (tcp), E2E_TUN_QUEUES
# (1) and E2E_TUN_MTU (1400) set the profile's transport, TUN queues and MTU.
e2e_server_conf() {
  local dir=$1 mode=$2 extra=${3:-}
  mkdir -p "$dir/identity"
  : >"$dir/users.conf"
  cat >"$dir/server.conf" <<CONF
[auth]
users_file = users.conf

[logging]
level = info

[web]
# The panel's own file (API tokens) beside the config, never the host's /var/lib/qeli.
state_db = panel.db

[profile:e2e]
bind.transport = ${E2E_TRANSPORT:-tcp}
bind.address = $UL_S
bind.port = $E2E_PORT
tun.name = qes0
tun.address = $TUN_NET.1
tun.mtu = ${E2E_TUN_MTU:-1400}
tun.queues = ${E2E_TUN_QUEUES:-1}
pool.cidr = $TUN_NET.0/24
obf.mode = $mode
$extra
CONF
  "$QELI" check-config "$dir/server.conf" >/dev/null || e2e_fail "$dir/server.conf rejected"
}

# e2e_add_user DIR USER PASSWORD — provisions USER and prints the qeli:// link.
e2e_add_user() {
  local dir=$1 user=$2 pass=$3
  echo "$pass" | "$QELI" add-client "$user" --password-stdin -c "$dir/server.conf" \
    --identity-dir "$dir/identity" --link --host "$UL_S:$E2E_PORT" --link-profile e2e --no-qr |
    grep '^qeli://' || e2e_fail "add-client $user printed no link"
}

# e2e_start_server NAME DIR — starts the server (log NAME.log, control socket
# DIR/control.sock — never the host's default path) and waits until it listens.
e2e_start_server() {
  local name=$1 dir=$2
  e2e_bg "$name" "$NS_S" "$QELI" server -c "$dir/server.conf" --identity-dir "$dir/identity" \
    --socket "$dir/control.sock" --usage-db "$dir/usage.db"
  local ss_flags=-ltn
  [ "${E2E_TRANSPORT:-tcp}" = udp ] && ss_flags=-lun
  e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss $ss_flags | grep -q '$UL_S:$E2E_PORT '" ||
    e2e_fail "$name did not listen"
}

# e2e_start_client NAME NS DIR ARGS... — `qeli client ARGS...` in NS with its own
# known_hosts, device id, host-change journal and status socket under DIR/NAME.* (clients
# in different namespaces must not share the journal of /var/lib/qeli, nor use /run/qeli).
e2e_start_client() {
  local name=$1 ns=$2 dir=$3
  shift 3
  e2e_bg "$name" "$ns" "$QELI" client "$@" --known-hosts "$dir/$name.known_hosts" \
    --device-id-file "$dir/$name.device-id" --state-dir "$dir/$name.state" \
    --status-socket "$dir/$name.status.sock"
}

# e2e_sessions DIR — the server's live sessions as "user tunnel_ip" lines, sorted (from
# `qeli list-clients --json` on DIR/control.sock).
e2e_sessions() {
  "$QELI" list-clients --json --socket "$1/control.sock" | jq -r '.[] | "\(.username) \(.tunnel_ip)"' |
    sort
}

# e2e_tunnel_ip NS [DEV] — the tunnel address of DEV (default vpn0) in NS, or nothing.
e2e_tunnel_ip() {
  ip -n "$1" -4 -o addr show dev "${2:-vpn0}" 2>/dev/null | awk '{print $4}' | cut -d/ -f1
}

# e2e_wait_tunnel TIMEOUT_S NS [DEV] — waits for the client's TUN address; prints it.
e2e_wait_tunnel() {
  local t=$1 ns=$2 dev=${3:-vpn0}
  e2e_wait_for "$t" sh -c "ip -n '$ns' -4 addr show dev '$dev' | grep -q 'inet $TUN_NET\\.'" ||
    return 1
  e2e_tunnel_ip "$ns" "$dev"
}

# e2e_ping NS DST — three quick pings must all answer.
e2e_ping() {
  ip netns exec "$1" ping -c 3 -i 0.2 -W 2 "$2" >/dev/null
}

# e2e_wait_exit NAME TIMEOUT_S — waits for a process started with e2e_bg to exit and sets
# E2E_RC to its exit code, or to "running" if it is still alive after TIMEOUT_S. (Not for
# use in $(...): only this shell can collect its children's exit codes.)
e2e_wait_exit() {
  local var="E2E_PID_${1//-/_}"
  local pid=${!var} end=$(( $(date +%s) + $2 ))
  E2E_RC=running
  while kill -0 "$pid" 2>/dev/null; do
    [ "$(date +%s)" -lt "$end" ] || return 0
    sleep 0.2
  done
  E2E_RC=0
  wait "$pid" || E2E_RC=$?
}

# e2e_finish NAME... — the end of a scenario: SIGTERM each process (clients first, then
# the server) and require a clean exit (code 0) within 10 s, then fail if any log holds
# a sanitizer report (ASan/LSan/UBSan builds run these scripts too).
e2e_finish() {
  local name var
  for name in "$@"; do
    var="E2E_PID_${name//-/_}"
    kill -TERM "${!var}" 2>/dev/null || true
    e2e_wait_exit "$name" 10
    [ "$E2E_RC" = 0 ] || e2e_fail "$name did not exit cleanly on SIGTERM (exit $E2E_RC)"
  done
  if grep -ls -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$E2E_DIR"/*.log; then
    e2e_fail "a sanitizer report in the logs above"
  fi
}

# e2e_dns_upstream LOG ARGS... — tools/dns_upstream.py in NS_W (e2e_add_wan_ns) on $WAN_IP,
# named "upstream", logging each query it gets to LOG; ARGS add to its own (--a NAME=IP,
# --listen, --drop). Waits until it answers.
e2e_dns_upstream() {
  local log=$1
  shift
  e2e_bg upstream "$NS_W" python3 "$(dirname "${BASH_SOURCE[0]}")/tools/dns_upstream.py" \
    --listen "$WAN_IP" --log "$log" "$@"
  e2e_wait_for 20 grep -q ready "$E2E_DIR/upstream.log" || e2e_fail "the DNS upstream did not start"
}

# e2e_client_conf DIR NAME USER PASSWORD [EXTRA_LINES] — writes DIR/NAME.conf, a client
# config for the e2e profile with the server's key pinned (for what a qeli:// link cannot
# carry: include/exclude, gateway, dns, kill_switch...). Prints the path.
e2e_client_conf() {
  local dir=$1 name=$2 user=$3 pass=$4 extra=${5:-} key
  # With --identity-dir show-identity only reads: before the server's first start there
  # may be no key yet (rotate-identity makes one, as the server would).
  [ -f "$dir/identity/e2e.key" ] ||
    "$QELI" rotate-identity e2e -c "$dir/server.conf" --identity-dir "$dir/identity" >/dev/null
  key=$("$QELI" show-identity -c "$dir/server.conf" --identity-dir "$dir/identity" |
    grep -Eo '[0-9a-f]{64}' | head -1)
  [ -n "$key" ] || e2e_fail "no server key"
  cat >"$dir/$name.conf" <<CONF
[qeli]
server = $UL_S:$E2E_PORT
user = $user
pass = $pass
key = $key
mode = fake-tls
dev = vpn0
$extra
CONF
  "$QELI" check-config --client "$dir/$name.conf" >/dev/null || e2e_fail "$dir/$name.conf rejected"
  echo "$dir/$name.conf"
}

# e2e_session_counter DIR USER FIELD — one counter of USER's session from list-clients.
e2e_session_counter() {
  "$QELI" list-clients --json --socket "$1/control.sock" |
    jq -r --arg u "$2" --arg f "$3" '[.[] | select(.username == $u) | .[$f]] | first // "none"'
}

# e2e_expect_aead DIR USER [off] — the server seals USER's session records with
# AES-256-GCM when this CPU has AES-GCM instructions (both ends run on it; caps::kAesGcm,
# docs/PROTOCOL.md §18), with ChaCha20-Poly1305 otherwise or when "off" (an end ran with
# QELI_DISABLE_AESGCM=1).
e2e_expect_aead() {
  local want=chacha20-poly1305 got
  if [ "${3:-}" != off ] && grep -qw aes /proc/cpuinfo && grep -qw pclmulqdq /proc/cpuinfo; then
    want=aes-256-gcm
  fi
  got=$(e2e_session_counter "$1" "$2" aead)
  [ "$got" = "$want" ] || e2e_fail "$2's session seals with '$got', expected $want"
  e2e_log "$2's session: $got records"
}

# e2e_measure LABEL CLIENT_IP — through the tunnel between $NS_C and the server at
# $TUN_NET.1: ping both ways, iperf3 TCP up and down for E2E_SECONDS and iperf3 UDP at
# ${QELI_E2E_UDP_RATE:-10M}. A functional check, not a benchmark: it asserts that bulk
# TCP moves both ways (> 1 Mbit/s) and that most UDP datagrams arrive (loss < 20 %) at a
# rate the slowest build (ASan) sustains on a busy two-core box. Loss and throughput
# figures belong to bench/lab (docs/BENCHMARKS.md); this row only prints them. Sets
# E2E_ROW to a table row "label rtt up down loss" (see e2e_measure_header).
e2e_measure() {
  local label=$1 cip=$2 secs=${E2E_SECONDS:-5} rate=${QELI_E2E_UDP_RATE:-10M}
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$label: ping client→server"
  e2e_ping "$NS_S" "$cip" || e2e_fail "$label: ping server→client"
  local rtt up down loss
  rtt=$(ip netns exec "$NS_C" ping -c 5 -i 0.2 -q "$TUN_NET.1" | awk -F/ '/rtt/ {print $5}')
  e2e_bg "iperf-$label" "$NS_S" iperf3 -s -B "$TUN_NET.1" -p 5201
  e2e_wait_for 5 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q ':5201 '" || e2e_fail "iperf3 -s"
  up=$(ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$secs" -J |
    jq '.end.sum_received.bits_per_second / 1e6 | floor') || e2e_fail "$label: iperf3 up"
  down=$(ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$secs" -R -J |
    jq '.end.sum_received.bits_per_second / 1e6 | floor') || e2e_fail "$label: iperf3 down"
  loss=$(ip netns exec "$NS_C" iperf3 -c "$TUN_NET.1" -p 5201 -t "$secs" -u -b "$rate" -l 1200 -J |
    jq '.end.sum.lost_percent') || e2e_fail "$label: iperf3 udp"
  e2e_stop "iperf-$label"
  [ "$up" -ge 1 ] || e2e_fail "$label: TCP up moved only $up Mbit/s"
  [ "$down" -ge 1 ] || e2e_fail "$label: TCP down moved only $down Mbit/s"
  awk -v l="$loss" 'BEGIN { exit !(l < 20.0) }' || e2e_fail "$label: UDP loss $loss% at ${rate}bit/s"
  E2E_ROW=$(printf '%-9s %8s %10s %12s %9s%%' "$label" "$rtt" "$up" "$down" "$loss")
}

# e2e_measure_header — the header line of the e2e_measure table.
e2e_measure_header() {
  printf '\n%-9s %8s %10s %12s %10s\n' mode "rtt ms" "up Mbit/s" "down Mbit/s" "udp loss"
}

# e2e_start_nginx NAME DIR HTTP_PORT HTTPS_PORT [chain] — a real nginx (Debian
# nginx-light) in $NS_S on $UL_S: plain HTTP on HTTP_PORT and HTTPS (h2) on HTTPS_PORT with
# a self-signed certificate for decoy.test (DIR/decoy.crt), serving DIR/www/index.html.
# With `chain`: a leaf signed by an intermediate signed by a root (DIR/decoy-root.crt);
# nginx sends leaf + intermediate (DIR/decoy.crt), as real sites do. The decoy site the
# obfs 404 and the REALITY bridge are compared with. Stopped by the EXIT trap.
e2e_start_nginx() {
  local name=$1 dir=$2 http=$3 https=$4 chain=${5:-}
  mkdir -p "$dir/www" "$dir/nginx-tmp"
  echo "<html><body>decoy site $E2E_ID</body></html>" >"$dir/www/index.html"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  if [ "$chain" = chain ]; then
    printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' >"$dir/ca.ext"
    printf 'basicConstraints=critical,CA:FALSE\nsubjectAltName=DNS:decoy.test\n' >"$dir/leaf.ext"
    {
      openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=decoy root" -addext \
        basicConstraints=critical,CA:TRUE -keyout "$dir/root.key" -out "$dir/decoy-root.crt" &&
        openssl req "${ec[@]}" -subj "/CN=decoy intermediate" -keyout "$dir/int.key" \
          -out "$dir/int.csr" &&
        openssl x509 -req -in "$dir/int.csr" -CA "$dir/decoy-root.crt" -CAkey "$dir/root.key" \
          -CAcreateserial -days 2 -extfile "$dir/ca.ext" -out "$dir/int.crt" &&
        openssl req "${ec[@]}" -subj /CN=decoy.test -keyout "$dir/decoy.key" -out "$dir/leaf.csr" &&
        openssl x509 -req -in "$dir/leaf.csr" -CA "$dir/int.crt" -CAkey "$dir/int.key" \
          -CAcreateserial -days 2 -extfile "$dir/leaf.ext" -out "$dir/leaf.crt"
    } >/dev/null 2>&1 || e2e_fail "openssl: the certificate chain"
    cat "$dir/leaf.crt" "$dir/int.crt" >"$dir/decoy.crt"
  else
    openssl req -x509 "${ec[@]}" -days 2 \
      -subj /CN=decoy.test -addext subjectAltName=DNS:decoy.test \
      -keyout "$dir/decoy.key" -out "$dir/decoy.crt" >/dev/null 2>&1 || e2e_fail "openssl req"
  fi
  cat >"$dir/nginx.conf" <<CONF
daemon off;
user root;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
  server_tokens off;
  access_log off;
  client_body_temp_path $dir/nginx-tmp;
  proxy_temp_path $dir/nginx-tmp;
  fastcgi_temp_path $dir/nginx-tmp;
  uwsgi_temp_path $dir/nginx-tmp;
  scgi_temp_path $dir/nginx-tmp;
  server {
    listen $UL_S:$http;
    listen $UL_S:$https ssl http2;
    server_name decoy.test;
    ssl_protocols TLSv1.2 TLSv1.3;  # Debian 12's nginx 1.22 leaves TLS 1.3 out by default
    ssl_certificate $dir/decoy.crt;
    ssl_certificate_key $dir/decoy.key;
    root $dir/www;
  }
}
CONF
  e2e_bg "$name" "$NS_S" nginx -c "$dir/nginx.conf" -p "$dir"
  e2e_wait_for 10 ip netns exec "$NS_S" sh -c "ss -ltn | grep -q '$UL_S:$https '" ||
    e2e_fail "nginx did not listen"
}

# e2e_counter DIR NAME — one profile counter of the server's `qeli stats --json`.
e2e_counter() {
  "$QELI" stats --json --socket "$1/control.sock" |
    jq -r --arg n "$2" '.[0][$n] // 0'
}
