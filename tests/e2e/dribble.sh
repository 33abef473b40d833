#!/usr/bin/env bash
# e2e: the handshake delivered one byte per TCP segment still connects. A relay in the
# client namespace (dribble_relay.py) forwards the first 2 KiB of each direction one byte
# per send with TCP_NODELAY and a 0.2 ms pause, so the ClientHello reaches the server — and
# the server's flight reaches the client — as ~2000 one-byte segments. tcpdump on the
# server's veth proves the segments really were one byte each. Per mode: plain, fake-tls.
# Usage: dribble.sh QELI_BINARY [MODE...]
set -euo pipefail
QELI=$(readlink -f "$1")
shift
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(plain fake-tls)
source "$(dirname "$0")/netns.sh"
source "$(dirname "$0")/lib.sh"
e2e_setup
RELAY_PORT=14433

for mode in "${MODES[@]}"; do
  dir="$E2E_DIR/$mode"
  # ~4 KB dribbled at a few ms per byte on a loaded CI machine can exceed the default
  # 10 s handshake timeout (a slowloris guard we do not want to test here).
  e2e_server_conf "$dir" "$mode" "perf.connection.handshake_timeout_secs = 30"
  link=$(e2e_add_user "$dir" alice alice-pass)
  relay_link=${link/@$UL_S:$E2E_PORT/@127.0.0.1:$RELAY_PORT}
  [ "$relay_link" != "$link" ] || e2e_fail "could not point the link at the relay"
  e2e_start_server "server-$mode" "$dir"
  e2e_bg "tcpdump-$mode" "$NS_S" tcpdump -i "$VETH_S" -n --immediate-mode -U -w "$dir/syn.pcap" \
    "tcp dst port $E2E_PORT and (ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2)) == 1"
  e2e_bg "relay-$mode" "$NS_C" python3 "$(dirname "$0")/dribble_relay.py" \
    "127.0.0.1:$RELAY_PORT" "$UL_S:$E2E_PORT" --gap-ms 0.2
  e2e_wait_for 5 grep -q listening "$E2E_DIR/relay-$mode.log" || e2e_fail "relay did not start"
  e2e_wait_for 5 grep -q listening "$E2E_DIR/tcpdump-$mode.log" || e2e_fail "tcpdump did not start"

  t0=$(date +%s)
  e2e_start_client "client-$mode" "$NS_C" "$dir" "$relay_link"
  e2e_wait_tunnel 20 "$NS_C" >/dev/null || e2e_fail "$mode: no tunnel through the dribbling relay"
  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: ping through the tunnel"
  e2e_finish "client-$mode"
  e2e_stop "tcpdump-$mode"
  segs=$(tcpdump -r "$dir/syn.pcap" -n 2>/dev/null | wc -l)
  e2e_log "$mode: connected in $(( $(date +%s) - t0 )) s; the server received $segs one-byte segments"
  [ "$segs" -ge 500 ] || e2e_fail "$mode: only $segs one-byte segments: the relay did not dribble"
  grep -q "connected as 'alice'" "$E2E_DIR/server-$mode.log" || e2e_fail "$mode: no session"
  e2e_stop "relay-$mode"
  e2e_finish "server-$mode"
done
e2e_log "dribble ok"
