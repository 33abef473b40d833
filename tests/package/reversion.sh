#!/usr/bin/env bash
# The install test's "upgrade": the same package under a newer version, repacked with
# dpkg-deb instead of rebuilt (a rebuild re-ran the LTO links and debhelper: minutes of
# CI for identical binaries). What an upgrade exercises is dpkg and the maintainer
# scripts (stop, unpack, restart, conffiles kept), and those see a newer version here.
#
#   tests/package/reversion.sh IN.deb VERSION OUT.deb
#
# Only the control file's Version changes; the payload and its md5sums stay as built.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 IN.deb VERSION OUT.deb" >&2; exit 2; }
in=$(readlink -f "$1") version=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -R "$in" "$tmp/root"
old=$(dpkg-deb -f "$in" Version)
dpkg --compare-versions "$version" gt "$old" ||
  { echo "reversion: $version is not newer than $old" >&2; exit 1; }
sed -i "s/^Version: .*/Version: $version/" "$tmp/root/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz -b "$tmp/root" "$out" >/dev/null
echo "reversion: $(basename "$in") $old → $version ($out)"
