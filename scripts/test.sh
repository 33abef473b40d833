#!/usr/bin/env bash
# The test command: everything CI runs, in order, on a fresh Debian 12 machine.
#
#   scripts/test.sh            bootstrap → format check → release build (warnings are
#                              errors) → every ctest test → the same suite under
#                              AddressSanitizer + UBSan (but for the host/timer e2e
#                              scenarios labelled release-only) → libqeli under
#                              ThreadSanitizer → bounded fuzz runs (clang) →
#                              the Debian package (dpkg-buildpackage + lintian) and its
#                              install test in a booted Debian 12 root (systemd-nspawn)
#
# Env: QELI_TEST_SKIP_ASAN=1 / QELI_TEST_SKIP_TSAN=1 / QELI_TEST_SKIP_FUZZ=1 / QELI_TEST_SKIP_PACKAGE=1 skip those stages (local use only;
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
# Six builds share the cache (release, asan-ubsan, tsan, fuzz, the package's LTO objects
# and its upgrade rebuild); ccache's default 5 GB evicted some of them between runs, so a
# run recompiled what the previous one had cached.
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}

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
  # Everything but the host/timer scenarios labelled release-only (tests/e2e/CMakeLists.txt).
  ctest --preset asan-ubsan -LE release-only
fi

if [ "${QELI_TEST_SKIP_TSAN:-0}" != 1 ]; then
  # libqeli's threads (an app's poll, IO, push and pull threads on one handle) under
  # ThreadSanitizer, against the release server (tests/ffi/tsan.sh).
  stage "tsan build (libqeli)"
  cmake --preset tsan -DQELI_WERROR=ON >/dev/null
  cmake --build --preset tsan
  stage "tsan tests (libqeli)"
  bash tests/ffi/tsan.sh build/tsan build/release/qeli
fi

if [ "${QELI_TEST_SKIP_FUZZ:-0}" != 1 ] && [ -f fuzz/CMakeLists.txt ]; then
  stage "fuzz build (clang 14)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz
  stage "fuzz runs (bounded)"
  bash scripts/fuzz.sh --seconds "${QELI_FUZZ_SECONDS:-10}"
fi

if [ "${QELI_TEST_SKIP_PACKAGE:-0}" != 1 ]; then
  stage "debian package (dpkg-buildpackage, lintian)"
  bash scripts/package.sh
  ver=$(dpkg-parsechangelog -S Version)
  arch=$(dpkg-architecture -qDEB_HOST_ARCH)
  cp "build/deb/qeli_${ver}_${arch}.deb" build/deb/install-v1.deb
  # The "upgrade": the same package under a newer version (tests/package/reversion.sh).
  bash tests/package/reversion.sh "build/deb/qeli_${ver}_${arch}.deb" "${ver}+upgradetest" \
    "build/deb/qeli_${ver}+upgradetest_${arch}.deb"
  stage "package install test (Debian 12 root, systemd-nspawn)"
  rc=0
  bash tests/package/install_test.sh build/deb/install-v1.deb \
    "build/deb/qeli_${ver}+upgradetest_${arch}.deb" || rc=$?
  if [ "$rc" = 77 ]; then
    echo "package install test skipped (reason above)"
  elif [ "$rc" != 0 ]; then
    exit "$rc"
  fi
fi

stage "all tests passed"
