#!/usr/bin/env bash
# e2e: qeli server + client over TCP in every TCP mode, between two network namespaces.
#
# Per mode (plain, fake-tls, padding, frag): provision a user with `qeli add-client
# --link`, start the server, start the client from the printed qeli:// link, then
#   * ping both ways through the tunnel;
#   * iperf3 TCP up and down (E2E_SECONDS, default 3 s) — must carry data;
#   * iperf3 UDP at 10 Mbit/s — most datagrams arrive (a delivery check; loss figures
#     are bench/lab's job);
#   * an IPv6 packet from the client is dropped (0.7.16 carries IPv4 only) without harm;
#   * the session's records are AES-256-GCM on a CPU with AES-GCM instructions, except in
#     `padding`, whose client runs with QELI_DISABLE_AESGCM=1 (ChaCha20-Poly1305);
# and print one table row per mode. Usage: tcp_modes.sh QELI_BINARY [MODE...]
set -euo pipefail
QELI=$(readlink -f "$1")
shift
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(plain fake-tls padding frag)
export E2E_SECONDS=${E2E_SECONDS:-3}
source "$(dirname "$0")/netns.sh"
e2e_setup

source "$(dirname "$0")/lib.sh"
E2E_TUN_QUEUES=2
results=()

run_mode() {
  local mode=$1 dir="$E2E_DIR/$1"
  local obf_mode=fake-tls padding=false frag=false
  case "$mode" in
    plain) obf_mode=plain ;;
    fake-tls) ;;
    padding) padding=true ;;
    frag) frag=true ;;
  esac
  e2e_server_conf "$dir" "$obf_mode" "obf.padding.enabled = $padding
obf.padding.min_bytes = 32
obf.padding.max_bytes = 256
obf.fragmentation.enabled = $frag
obf.heartbeat.interval_ms = 5000"
  local link cip
  link=$(e2e_add_user "$dir" alice "s3cret-$mode")
  e2e_start_server "server-$mode" "$dir"
  local aes=on
  [ "$mode" = padding ] && aes=off
  if [ $aes = off ]; then
    QELI_DISABLE_AESGCM=1 e2e_start_client "client-$mode" "$NS_C" "$dir" "$link"
  else
    e2e_start_client "client-$mode" "$NS_C" "$dir" "$link"
  fi
  cip=$(e2e_wait_tunnel 15 "$NS_C") || e2e_fail "$mode: client TUN never got an address"
  e2e_expect_aead "$dir" alice $aes

  e2e_ping "$NS_C" "$TUN_NET.1" || e2e_fail "$mode: ping client→server"
  e2e_ping "$NS_S" "$cip" || e2e_fail "$mode: ping server→client"
  # The control socket lists the session (user, address).
  grep -q "alice .*$cip" <<<"$("$QELI" list-clients --socket "$dir/control.sock")" ||
    e2e_fail "$mode: list-clients does not show alice at $cip"
  e2e_measure "$mode" "$cip"

  # IPv6 into the tunnel (the client switches it off on its TUN, so this normally never
  # even leaves; were it sent, both ends drop it): the tunnel keeps working.
  ip -n "$NS_C" -6 addr add fd00:77::2/64 dev vpn0 2>/dev/null || true
  ip netns exec "$NS_C" ping -6 -c 1 -W 1 fd00:77::1 >/dev/null 2>&1 || true
  ip netns exec "$NS_C" ping -c 1 -W 2 "$TUN_NET.1" >/dev/null || e2e_fail "$mode: tunnel broke after IPv6"

  # kick: the session ends and the client reconnects by itself (same device → same address).
  grep -q "kicked 1" <<<"$("$QELI" kick alice --socket "$dir/control.sock")" || e2e_fail "$mode: kick"
  e2e_wait_for 15 ip netns exec "$NS_C" ping -c 1 -W 1 "$TUN_NET.1" || e2e_fail "$mode: no reconnect after kick"
  grep -q "'alice' .* disconnected: kicked by the operator" "$E2E_DIR/server-$mode.log" ||
    e2e_fail "$mode: the server log does not name the kick"
  # The client was told (close extension), not left to find out.
  grep -q "the server ended the session: kicked by the operator" "$E2E_DIR/client-$mode.log" ||
    e2e_fail "$mode: the client was not told it was kicked"

  results+=("$E2E_ROW")
  e2e_stop "client-$mode"
  e2e_stop "server-$mode"
  # The server removed its TUN on SIGTERM.
  ip -n "$NS_S" link show qes0 >/dev/null 2>&1 && e2e_fail "$mode: server left its TUN behind"
  e2e_log "$mode ok"
}

for m in "${MODES[@]}"; do run_mode "$m"; done
e2e_measure_header
printf '%s\n' "${results[@]}"
