#!/usr/bin/env bash
# The first thing to run: builds qeli from scratch and shows the main job working.
#
#   scripts/demo.sh            (as root: it creates two network namespaces)
#
# It installs what it needs, builds the release binary, then for every TCP mode (plain,
# fake-tls, padding, frag) provisions a user with `qeli add-client --link`, starts
# `qeli server` in one namespace and `qeli client 'qeli://…'` in another, and measures
# ping and iperf3 through the tunnel. Everything it creates is removed at the end.
# DEMO_SECONDS (default 5) sets the length of each iperf3 run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "demo: needs root (it creates network namespaces and TUN devices)" >&2
  exit 1
fi

echo "== qeli demo: installing dependencies and building (release)"
bash scripts/bootstrap.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target qeli | tail -n 1

echo
echo "== qeli $(build/release/qeli version | awk '{print $2}'): server + client in two network namespaces"
echo "   client ns ──veth── server ns; each TCP mode: ping, iperf3 TCP up/down, UDP at 100 Mbit/s"
echo
E2E_SECONDS=${DEMO_SECONDS:-5} bash tests/e2e/tcp_modes.sh build/release/qeli 2>&1 |
  grep -E '^\[e2e|^mode|^(plain|fake-tls|padding|frag) '
echo
echo "Each row: a real tunnel (ChaCha20-Poly1305 records, X25519 + ML-KEM-768 handshake,"
echo "the server proving its identity before the password is sent). Next: docs/OPERATIONS.md."
