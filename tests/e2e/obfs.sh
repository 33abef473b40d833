#!/usr/bin/env bash
# e2e: TCP obfs between two network namespaces, with a real nginx beside it as the site
# the WebSocket front must look like.
#
# Per variant — ws (WebSocket front), raw (no front), ws-awg (front + 3 junk records),
# raw-awg — provision a user with `qeli add-client --link`, start the server, start the
# client from the link, then ping both ways, iperf3 TCP up and down (e2e_measure), and a
# server restart the client survives, then a client on 0.7.16's wire (extensions off).
# Between two of ours the header-only keystream is negotiated (docs/PROTOCOL.md §17). For
# the WebSocket front: HTTP to any other path gets byte for byte what real nginx gives
# (Date aside) — curl's plain GET, HEAD, a POST body, an unknown method, HTTP/1.0, a bad
# request line — kept alive across requests and closed exactly when nginx closes, counted; a head
# that never ends (> 4096 bytes) and a raw junk length over 1400 are refused and
# counted. Usage: obfs.sh QELI_BINARY [VARIANT...]
set -euo pipefail
QELI=$(readlink -f "$1")
shift
VARIANTS=("$@")
[ ${#VARIANTS[@]} -gt 0 ] || VARIANTS=(ws raw ws-awg raw-awg)
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
results=()

e2e_start_nginx nginx "$E2E_DIR/nginx" 8080 8443

# What a port answers to HTTP requests for pages it does not have, Date lines removed:
# one connection per argument, each argument's requests (split at '|') sent one after
# the other on it, each answer read until 1 s of silence; the connection's bytes printed
# line by line, then whether the port closed.
http_exchange() {
  local port=$1
  shift
  ip netns exec "$NS_C" python3 - "$UL_S" "$port" "$@" <<'PY'
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
for conn in sys.argv[3:]:
    s = socket.create_connection((host, port))
    s.settimeout(1.0)
    closed = False
    data = b""
    for req in conn.split("|"):
        s.sendall(req.encode().decode("unicode_escape").encode("latin1"))
        while True:
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            if not d:
                closed = True
                break
            data += d
        if closed:
            break
    # The bytes of the whole connection, split once: how TCP cut them into segments is not
    # part of the comparison.
    for line in data.decode("latin1").split("\r\n"):
        if not line.startswith("Date: "):
            print(repr(line))
    print("closed" if closed else "open")
    s.close()
PY
}
counter_at_least() { [ "$(e2e_counter "$1" "$2")" -ge "$3" ]; }
HTTP_PROBES=(
  'GET /no/such/page HTTP/1.1\r\nHost: decoy.test\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n|HEAD /x HTTP/1.1\r\nHost: decoy.test\r\n\r\n|POST /y HTTP/1.1\r\nHost: decoy.test\r\nContent-Length: 4\r\n\r\nbodyFOO /z HTTP/1.1\r\nHost: decoy.test\r\n\r\n|GET /last HTTP/1.1\r\nHost: decoy.test\r\nConnection: close\r\n\r\n'
  'GET /old HTTP/1.0\r\n\r\n'
  'HELLO\r\n\r\n'
)

run_variant() {
  local v=$1 dir="$E2E_DIR/$1" front=websocket awg=false
  case "$v" in raw*) front=none ;; esac
  case "$v" in *awg) awg=true ;; esac
  e2e_server_conf "$dir" obfs "obf.obfs_key = e2e obfs key/$v
obf.obfs_fronting = $front
obf.awg.enabled = $awg
obf.awg.jc = 3
obf.awg.jmin = 20
obf.awg.jmax = 400
obf.heartbeat.interval_ms = 5000"
  local link cip
  link=$(e2e_add_user "$dir" alice "pw-$v")
  case "$link" in *mode=obfs*obfs=*) ;; *) e2e_fail "$v: link without mode=obfs and key: $link" ;; esac
  e2e_start_server "server-$v" "$dir"
  e2e_start_client "client-$v" "$NS_C" "$dir" "$link"
  cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "$v: client TUN never got an address"
  e2e_measure "obfs-$v" "$cip"
  results+=("$E2E_ROW")
  # Two of ours: record bodies skip the second keystream (caps bit 6, PROTOCOL §17); the
  # iperf3 runs above crossed the switch in both directions.
  grep -q "record bodies skip the second keystream" "$E2E_DIR/client-$v.log" ||
    e2e_fail "$v: the header-only keystream was not negotiated"

  if [ "$front" = websocket ]; then
    # Anyone else gets what nginx says: curl's own GET byte for byte, then the same
    # exchanges on both ports.
    local ours theirs answered
    answered=$(e2e_counter "$dir" obfs_ws_answered_404)
    ours=$(ip netns exec "$NS_C" curl -s -i "http://$UL_S:$E2E_PORT/no/such/page" | grep -v '^Date:')
    theirs=$(ip netns exec "$NS_C" curl -s -i "http://$UL_S:8080/no/such/page" | grep -v '^Date:')
    [ -n "$theirs" ] || e2e_fail "nginx gave nothing"
    [ "$ours" = "$theirs" ] || e2e_fail "$v: our answer to curl differs from nginx's:
--- ours
$ours
--- nginx
$theirs"
    ours=$(http_exchange "$E2E_PORT" "${HTTP_PROBES[@]}")
    theirs=$(http_exchange 8080 "${HTTP_PROBES[@]}")
    grep -q "405 Not Allowed" <<<"$theirs" || e2e_fail "nginx's exchange: $theirs"
    [ "$ours" = "$theirs" ] || e2e_fail "$v: our HTTP exchanges differ from nginx's:
--- ours
$ours
--- nginx
$theirs"
    # Each connection counted once it ended (curl's, the three exchanges).
    e2e_wait_for 5 counter_at_least "$dir" obfs_ws_answered_404 $((answered + 4)) ||
      e2e_fail "$v: the answered connections were not counted: $(e2e_counter "$dir" obfs_ws_answered_404)"
    # A head without CRLFCRLF: closed without an answer, counted.
    local got
    got=$(ip netns exec "$NS_C" python3 -c "
import socket; s = socket.create_connection(('$UL_S', $E2E_PORT)); s.settimeout(5)
s.sendall(b'GET / HTTP/1.1\r\nX: ' + b'a' * 5000)
try:
    print(len(s.recv(100)))
except Exception as e:
    print('err', e)")
    [ "$got" = 0 ] || e2e_fail "$v: an endless head got '$got' instead of a close"
    e2e_wait_for 5 sh -c "[ \$('$QELI' stats --json --socket '$dir/control.sock' | jq '.[0].obfs_ws_head_too_large') -ge 1 ]" ||
      e2e_fail "$v: the endless head was not counted"
    if [ "$awg" = false ]; then  # (with junk the peer would owe junk frames first)
      # Past a correct upgrade and nonce exchange (the path derived here independently, in
      # Python), a frame claiming 2^63 bytes: that one connection is closed, counted.
      ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" "e2e obfs key/$v" <<'PY' || e2e_fail "$v: 2^63 frame"
import base64, hashlib, hmac, os, socket, sys
key = hashlib.sha256(b'qeli-obfs-key-v1' + sys.argv[3].encode()).digest()
prk = hmac.new(b'\0' * 32, key, hashlib.sha256).digest()
path = '/' + base64.urlsafe_b64encode(hmac.new(prk, b'qeli-ws-path-v1\x01', hashlib.sha256).digest()[:18]).rstrip(b'=').decode()
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
wskey = base64.b64encode(os.urandom(16)).decode()
s.sendall(f'GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {wskey}\r\nSec-WebSocket-Version: 13\r\n\r\n'.encode())
head = b''
while b'\r\n\r\n' not in head:
    head += s.recv(1)
assert head.startswith(b'HTTP/1.1 101'), head
accept = base64.b64encode(hashlib.sha1((wskey + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').encode()).digest())
assert b'Sec-WebSocket-Accept: ' + accept in head, head
mask, nonce = os.urandom(4), os.urandom(12)
s.sendall(bytes([0x82, 0x80 | 12]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(nonce)))
got = b''
while len(got) < 14:
    got += s.recv(14 - len(got))
assert got[:2] == b'\x82\x0c', got
s.sendall(b'\x82\xff\x80' + b'\0' * 7 + mask)
assert s.recv(100) == b''
PY
      e2e_wait_for 5 sh -c "[ \$('$QELI' stats --json --socket '$dir/control.sock' | jq '.[0].obfs_stream_error') -ge 1 ]" ||
      e2e_fail "$v: the 2^63 frame was not counted"
    fi
  elif [ "$awg" = true ]; then
    # A junk length over 1400: closed, counted.
    ip netns exec "$NS_C" python3 -c "
import socket; s = socket.create_connection(('$UL_S', $E2E_PORT)); s.settimeout(5)
s.sendall(bytes([0x05, 0x79]) + b'x' * 64)
assert s.recv(100) == b''"  || e2e_fail "$v: an overlong junk record was not closed"
    e2e_wait_for 5 sh -c "[ \$('$QELI' stats --json --socket '$dir/control.sock' | jq '.[0].obfs_junk_too_long') -ge 1 ]" ||
      e2e_fail "$v: the overlong junk record was not counted"
  fi

  # The server restarts; the client comes back by itself.
  e2e_finish "server-$v"
  e2e_start_server "server-$v-again" "$dir"
  e2e_wait_for 20 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" ||
    e2e_fail "$v: no traffic after the server restart"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$v: ping after the restart"
  e2e_finish "client-$v"
  # A client on 0.7.16's wire (no extensions): every byte keyed, as before.
  QELI_DISABLE_EXTENSIONS=1 e2e_start_client "client-$v-0716" "$NS_C" "$dir" "$link"
  e2e_wait_for 20 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" ||
    e2e_fail "$v: a client without extensions got no traffic through"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$v: ping from a client without extensions"
  ! grep -q "record bodies skip" "$E2E_DIR/client-$v-0716.log" ||
    e2e_fail "$v: a client without extensions switched"
  e2e_finish "client-$v-0716" "server-$v-again"
  e2e_log "obfs $v ok"
}

for v in "${VARIANTS[@]}"; do run_variant "$v"; done
e2e_measure_header
printf '%s\n' "${results[@]}"
