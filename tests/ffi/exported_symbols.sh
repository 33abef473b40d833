#!/usr/bin/env bash
# libqeli exports exactly the transport-core ABI (tests/ffi/exported_symbols.txt): no C++
# symbol, no third-party symbol leaks out of the shared library.
# Usage: exported_symbols.sh LIBQELI_SO EXPECTED_LIST
set -euo pipefail
got=$(nm -D --defined-only "$1" | awk '{print $3}' | grep -v '^$' | sort)
want=$(sort "$2")
if [ "$got" != "$want" ]; then
  diff <(echo "$want") <(echo "$got") || true
  echo "FAIL: libqeli's exported symbols differ from $2" >&2
  exit 1
fi
echo "libqeli exports the $(echo "$got" | wc -l) ABI functions and nothing else"
