#!/usr/bin/env bash
# Builds the Debian package from the tree with Debian's own tooling (dpkg-buildpackage +
# debhelper; docs/OPERATIONS.md "Debian package"), then runs lintian on it.
#
#   scripts/package.sh [--version V] [--no-lintian]
#
# The tree (tracked and untracked-but-not-ignored files, i.e. what a commit would hold)
# is copied to build/deb/src/qeli, so dpkg-buildpackage writes its results into
# build/deb/src/ and never next to the checkout. The debhelper build directory
# (build/deb/obj) is kept between runs: a rebuild recompiles only what changed.
# --version V writes V into the copy's debian/changelog (the install test builds an
# "upgrade" this way). Results: build/deb/qeli_<V>_<arch>.deb, libqeli1_<V>_<arch>.deb,
# libqeli-dev_<V>_<arch>.deb (and their -dbgsym) and build/deb/lintian.txt.
# lintian errors fail; warnings are listed in build/deb/lintian.txt (and docs/OPERATIONS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=""
lintian=1
while [ $# -gt 0 ]; do
  case $1 in
    --version) version=$2; shift 2 ;;
    --no-lintian) lintian=0; shift ;;
    *) echo "usage: $0 [--version V] [--no-lintian]" >&2; exit 2 ;;
  esac
done

out=$root/build/deb
src=$out/src/qeli
rm -rf "$src"
mkdir -p "$src"
git ls-files -co --exclude-standard -z | grep -zv '^build/' |
  xargs -0 cp --parents -t "$src" 2>/dev/null || true
if [ -n "$version" ]; then
  sed -i "1s/^qeli ([^)]*)/qeli ($version)/" "$src/debian/changelog"
fi
pkgver=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
rev=$(git describe --always --dirty --tags 2>/dev/null || echo unknown)

echo "package: building qeli $pkgver ($rev) in $src"
(
  cd "$src"
  export QELI_DEPS_DIR="$root/build/_deps" QELI_DEB_BUILDDIR="$out/obj" QELI_GIT_REVISION="$rev"
  # -nc: keep the build directory (incremental); -b: binary only; unsigned.
  nice dpkg-buildpackage -b -nc -us -uc --no-check-builddeps >"$out/build.log" 2>&1
) || { tail -40 "$out/build.log" >&2; echo "package: dpkg-buildpackage failed ($out/build.log)" >&2; exit 1; }
debs=()
for p in qeli libqeli1 libqeli-dev; do
  mv -f "$out/src/${p}_${pkgver}_${arch}.deb" "$out/"
  debs+=("$out/${p}_${pkgver}_${arch}.deb")
done
rm -f "$out"/src/qeli_"${pkgver}"_*.{buildinfo,changes}
for f in "$out"/src/*-dbgsym_"${pkgver}"_*.deb; do [ -e "$f" ] && mv -f "$f" "$out/"; done
echo "package: ${debs[*]}"

if [ "$lintian" = 1 ]; then
  # Errors fail the build; warnings and the rest are kept for the docs.
  lintian --tag-display-limit 0 --display-level ">=info" "${debs[@]}" >"$out/lintian.txt" 2>&1 || true
  sed 's/^/  lintian: /' "$out/lintian.txt"
  if grep -q '^E: ' "$out/lintian.txt"; then
    echo "package: lintian reported errors" >&2
    exit 1
  fi
  echo "package: lintian: $(grep -c '^W: ' "$out/lintian.txt" || true) warning(s), no errors"
fi
