#!/usr/bin/env bash
# The test command: everything CI runs, in order, on a fresh Debian 12 machine.
#
#   scripts/test.sh            bootstrap → format check → release build (warnings are
#                              errors) → every ctest test → the same suite under
#                              AddressSanitizer + UBSan → bounded fuzz runs (clang)
#
# Env: QELI_TEST_SKIP_ASAN=1 / QELI_TEST_SKIP_FUZZ=1 skip those stages (local use only;
#      CI runs everything). QELI_CONFORMANCE_DIR points the conformance tests elsewhere.
#      CTEST_PARALLEL_LEVEL defaults to the number of cores.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() { printf '\n==== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/qeli-ccache}
# Paths relative to the checkout, so a fresh clone (CI) reuses the cache of another one.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

stage "bootstrap"
bash scripts/bootstrap.sh

stage "format check"
bash scripts/format.sh --check

stage "release build"
cmake --preset release -DQELI_WERROR=ON >/dev/null
cmake --build --preset release

stage "release tests"
ctest --preset release

if [ "${QELI_TEST_SKIP_ASAN:-0}" != 1 ]; then
  stage "asan-ubsan build"
  cmake --preset asan-ubsan -DQELI_WERROR=ON >/dev/null
  cmake --build --preset asan-ubsan
  stage "asan-ubsan tests"
  ctest --preset asan-ubsan
fi

if [ "${QELI_TEST_SKIP_FUZZ:-0}" != 1 ] && [ -f fuzz/CMakeLists.txt ]; then
  stage "fuzz build (clang 14)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
  stage "fuzz runs (bounded)"
  bash scripts/fuzz.sh --seconds "${QELI_FUZZ_SECONDS:-20}"
fi

stage "all tests passed"
