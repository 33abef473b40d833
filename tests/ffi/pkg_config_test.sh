#!/usr/bin/env bash
# libqeli as an app developer meets it: `cmake --install` into a scratch prefix, then the
# example app builds with nothing but `pkg-config --cflags --libs qeli` and links against
# the installed libqeli.so.1 (its SONAME), and the header is the one in the prefix.
# Usage: pkg_config_test.sh BUILD_DIR SOURCE_DIR [CFLAGS] (the sanitizer build's library
# needs its app built with the same -fsanitize flags)
set -euo pipefail
build=$1 src=$2 extra=${3:-}
prefix=$(mktemp -d /tmp/qeli-pc.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(find "$prefix" -name qeli.pc | head -1)
[ -n "$pc" ] || { echo "FAIL: no qeli.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
hdr=$(find "$prefix" -name qeli_transport_core.h | head -1)
[ -n "$hdr" ] || { echo "FAIL: no header installed"; exit 1; }
# shellcheck disable=SC2046
# shellcheck disable=SC2086  # extra is a flag list
cc -std=c11 -Wall -Werror $extra -o "$prefix/qeli_ping" "$src/examples/libqeli/qeli_ping.c" \
  $(pkg-config --cflags --libs qeli) -lpthread
libdir=$(pkg-config --variable=libdir qeli)
[ -e "$libdir/libqeli.so.1" ] || { echo "FAIL: no libqeli.so.1 in $libdir"; exit 1; }
# Read whole, then matched: `ldd | grep -q` under pipefail fails whenever grep's early
# exit kills ldd with SIGPIPE first.
deps=$(LD_LIBRARY_PATH=$libdir ldd "$prefix/qeli_ping")
grep -q "libqeli.so.1 => $libdir" <<<"$deps" ||
  { echo "FAIL: the app does not load the installed libqeli: $deps"; exit 1; }
# Run without arguments: the usage line (the library loaded and resolved).
out=$(LD_LIBRARY_PATH=$libdir "$prefix/qeli_ping" 2>&1 || true)
case "$out" in usage:*) ;; *) echo "FAIL: qeli_ping: $out"; exit 1 ;; esac
echo "installed libqeli builds and loads via pkg-config ($libdir)"
