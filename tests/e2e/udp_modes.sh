#!/usr/bin/env bash
# e2e: qeli server + client over UDP in every UDP mode, between two network namespaces
# (topology: netns.sh). Per mode — fake-tls, padding, quic (QUIC-shaped envelope), junk
# (fake-tls after jc=4 AmneziaWG junk datagrams), obfs (the per-datagram seal) — provision
# a user, start the server (2 TUN queues = 2 SO_REUSEPORT workers) and the client from
# the printed qeli:// link (proto=udp …), then e2e_measure (lib.sh): ping both ways,
# iperf3 TCP up/down carry data, iperf3 UDP at ${QELI_E2E_UDP_RATE:-10M} mostly
# arrives (delivery checks; rates and loss are bench/lab's); one table row per mode; both ends must exit cleanly on SIGTERM. Once, with the
# first server up: a stranger's single short datagram gets nothing back. Per mode, the
# client's `qeli status` and the server's `qeli stats --json` show the UDP sockets'
# receive buffer (> 0), kernel drops and grows. Records are
# AES-256-GCM on a CPU with AES-GCM instructions, except in `junk`, whose server runs with
# QELI_DISABLE_AESGCM=1 (ChaCha20-Poly1305). Last, the path
# is narrowed to MTU 1280 (both veth ends): the handshake (≤ 1163-byte fragments) and
# full-size tunnel packets (tun.mtu 1200) cross it with no IP fragment on either side.
# Usage: udp_modes.sh QELI_BINARY [MODE...]   (E2E_SECONDS per iperf3 run, default 3)
set -euo pipefail
QELI=$(readlink -f "$1")
shift
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(fake-tls padding quic junk obfs)
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
E2E_PORT=4443
TUN_NET=10.78.0
E2E_TRANSPORT=udp
E2E_TUN_QUEUES=2
source "$(dirname "$0")/lib.sh"
e2e_setup

# One short datagram to the server from the client namespace; prints how many bytes came
# back within a second (0 expected: a stranger learns nothing).
stranger_probe() {
  ip netns exec "$NS_C" python3 - "$UL_S" "$E2E_PORT" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)
s.sendto(b"\x17\x03\x03\x00\x10hello stranger!!", (sys.argv[1], int(sys.argv[2])))
try:
    print(len(s.recvfrom(65535)[0]))
except socket.timeout:
    print(0)
PY
}

# The UDP sockets' receive side is visible to the operator at both ends: the client's
# `qeli status` line (and --json) and the server profile's `qeli stats --json`, each with
# the receive buffer the kernel granted (> 0) and the drop and grow counts.
expect_udp_figures() {
  local mode=$1 dir=$2 st
  st=$("$QELI" status --socket "$dir/client-$mode.status.sock") || e2e_fail "$mode: qeli status: $st"
  grep -Eq '^  udp: +receive buffer [1-9][0-9.]* (KiB|MiB), [0-9]+ kernel drops?, [0-9]+ grows?$' \
    <<<"$st" || e2e_fail "$mode: no udp socket line in qeli status: $st"
  "$QELI" status --json --socket "$dir/client-$mode.status.sock" |
    jq -e '.[0] | .udp_recv_buffer_bytes > 0 and (.udp_kernel_drops | type) == "number" and
           (.udp_buffer_grows | type) == "number"' >/dev/null ||
    e2e_fail "$mode: qeli status --json without the udp figures"
  "$QELI" stats --json --socket "$dir/control.sock" |
    jq -e '.[0] | .udp_recv_buffer_bytes > 0 and (.udp_kernel_drops | type) == "number" and
           (.udp_buffer_grows | type) == "number"' >/dev/null ||
    e2e_fail "$mode: qeli stats --json without the udp socket figures: $("$QELI" stats --json --socket "$dir/control.sock")"
}

results=()
probed=0
run_mode() {
  local mode=$1 dir="$E2E_DIR/$1"
  local obf_mode=fake-tls extra="obf.heartbeat.interval_ms = 5000"
  case "$mode" in
    fake-tls) ;;
    padding) extra+=$'\nobf.padding.enabled = true\nobf.padding.min_bytes = 32\nobf.padding.max_bytes = 256' ;;
    quic) extra+=$'\nobf.quic.enabled = true' ;;
    junk) extra+=$'\nobf.awg.enabled = true\nobf.awg.jc = 4\nobf.awg.jmin = 40\nobf.awg.jmax = 300' ;;
    obfs) obf_mode=obfs extra+=$'\nobf.obfs_key = e2e-obfs-psk' ;;
    *) e2e_fail "unknown mode $mode" ;;
  esac
  [ "$mode" = padding ] || extra+=$'\nobf.padding.enabled = false'
  e2e_server_conf "$dir" "$obf_mode" "$extra"
  local link
  link=$(e2e_add_user "$dir" alice "s3cret-$mode")
  case "$link" in *proto=udp*) ;; *) e2e_fail "$mode: link without proto=udp: $link" ;; esac
  [ "$mode" != junk ] || case "$link" in *jc=4*) ;; *) e2e_fail "junk: link without jc=4" ;; esac
  [ "$mode" != quic ] || case "$link" in *quic=1*) ;; *) e2e_fail "quic: link without quic=1" ;; esac

  local aes=on
  [ "$mode" = junk ] && aes=off
  if [ $aes = off ]; then
    QELI_DISABLE_AESGCM=1 e2e_start_server "server-$mode" "$dir"
  else
    e2e_start_server "server-$mode" "$dir"
  fi
  if [ "$probed" = 0 ]; then
    local back
    back=$(stranger_probe)
    [ "$back" = 0 ] || e2e_fail "a stranger's short datagram got $back bytes back"
    probed=1
  fi
  e2e_start_client "client-$mode" "$NS_C" "$dir" "$link"
  local cip
  cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "$mode: client TUN never got an address"
  grep -q "alice .*$cip" <<<"$("$QELI" list-clients --socket "$dir/control.sock")" ||
    e2e_fail "$mode: list-clients does not show alice at $cip"
  e2e_expect_aead "$dir" alice $aes
  expect_udp_figures "$mode" "$dir"
  # The mode really is on the wire: only the quic mode's handshake had the QUIC shape.
  if grep -q "QUIC shape" "$E2E_DIR/server-$mode.log"; then
    [ "$mode" = quic ] || e2e_fail "$mode: the server saw a QUIC shape"
  else
    [ "$mode" != quic ] || e2e_fail "quic: the server saw no QUIC shape"
  fi
  e2e_measure "$mode" "$cip"
  results+=("$E2E_ROW")
  e2e_finish "client-$mode" "server-$mode"
  ip -n "$NS_S" link show qes0 >/dev/null 2>&1 && e2e_fail "$mode: server left its TUN behind"
  e2e_log "$mode ok"
}

# IP fragments created or reassembled in namespace $1 so far.
fragments() {
  ip netns exec "$1" nstat -az IpFragCreates IpReasmReqds | awk '/^Ip/ {n += $2} END {print n + 0}'
}

run_mtu1280() {
  local dir="$E2E_DIR/mtu1280"
  ip -n "$NS_S" link set "$VETH_S" mtu 1280
  ip -n "$NS_C" link set "$VETH_C" mtu 1280
  local before_s before_c
  before_s=$(fragments "$NS_S")
  before_c=$(fragments "$NS_C")
  E2E_TUN_MTU=1200 e2e_server_conf "$dir" fake-tls "obf.padding.enabled = false"
  local link
  link=$(e2e_add_user "$dir" alice "s3cret-mtu")
  e2e_start_server server-mtu1280 "$dir"
  e2e_start_client client-mtu1280 "$NS_C" "$dir" "$link"
  local cip
  cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "mtu1280: no handshake over an MTU-1280 path"
  # Full-size inner packets (1200 bytes) both ways, DF set, no fragment anywhere.
  ip netns exec "$NS_C" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$TUN_NET.1" >/dev/null ||
    e2e_fail "mtu1280: 1200-byte ping client→server"
  ip netns exec "$NS_S" ping -c 3 -i 0.2 -W 2 -M do -s 1172 "$cip" >/dev/null ||
    e2e_fail "mtu1280: 1200-byte ping server→client"
  [ "$(fragments "$NS_S")" = "$before_s" ] || e2e_fail "mtu1280: IP fragments on the server side"
  [ "$(fragments "$NS_C")" = "$before_c" ] || e2e_fail "mtu1280: IP fragments on the client side"
  e2e_finish client-mtu1280 server-mtu1280
  e2e_log "mtu1280 ok"
}

for m in "${MODES[@]}"; do
  if [ "$m" = mtu1280 ]; then run_mtu1280; else run_mode "$m"; fi
done
[ $# -gt 0 ] || run_mtu1280
e2e_measure_header
printf '%s\n' "${results[@]}"
