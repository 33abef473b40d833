#!/usr/bin/env bash
# The first thing to run: builds qeli from scratch and shows what works today.
#
# Today qeli has its foundation — the build, the crypto layer checked against the RFC,
# FIPS and reference-implementation vectors — but no tunnel yet. So this demo builds,
# runs the crypto known-answer tests, and prints the crypto benchmark. Once the server
# and client land it sets up two network namespaces and measures a real tunnel.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release

echo
echo "== qeli: known-answer tests of the crypto layer"
ctest --preset release -R 'conformance|Aead|X25519|Hkdf|MlKem|Argon2' 2>&1 | tail -n 3

echo
echo "== qeli: crypto benchmark (release build, this machine)"
build/release/bench/crypto_bench --benchmark_min_time=0.1 \
  --benchmark_filter='BM_AeadSeal/chacha|X25519|MlKem|Argon2|Nonce' 2>/dev/null

echo
echo "qeli: the tunnel itself (server + client between network namespaces) is not built yet;"
echo "      see the open issues for what comes next."
