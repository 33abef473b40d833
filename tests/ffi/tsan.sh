#!/usr/bin/env bash
# libqeli under ThreadSanitizer (issue 19: the ABI is called from several threads at once —
# an app's poll thread, its IO thread blocked in qeli_client_run, pushers and pullers — and
# a data race there is a crash waiting on some phone). Runs, from the tsan preset's build:
#
#   1. ffi_test (the registry, event queue, packet pipe, plan and run-input codecs);
#   2. tests/e2e/libqeli.sh with the TSan-built harness and example app against a release
#      `qeli server` (the server is not what is checked here): misuse, lifecycle with a
#      stop during a transfer, refusals, a TUN fd, free with events queued, threads
#      hammering shared and own handles, every mode.
#
# Any report fails the run (TSan exits non-zero; halt_on_error stops at the first).
#   tests/ffi/tsan.sh TSAN_BUILD_DIR QELI_RELEASE_BINARY
set -euo pipefail
build=$(readlink -f "$1")
qeli=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4"
export E2E_HARNESS_TIMEOUT=${E2E_HARNESS_TIMEOUT:-300}
# GCC 12's TSan maps its shadow at fixed addresses: with the larger mmap randomisation of
# newer kernels (vm.mmap_rnd_bits = 32) a randomised layout can collide with it
# ("unexpected memory mapping"). Address randomisation off for these processes only.
norand=(setarch "$(uname -m)" -R)
"${norand[@]}" "$build/tests/unit/ffi/ffi_test" --gtest_brief=1
"${norand[@]}" bash "$here/../e2e/libqeli.sh" "$qeli" "$build/tests/ffi/qeli_abi_harness" \
  "$build/examples/libqeli/qeli_ping"
