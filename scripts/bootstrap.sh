#!/usr/bin/env bash
# Installs every build and test dependency of qeli on Debian 12 and fetches the pinned
# third-party sources that Debian does not package. Idempotent: a second run changes
# nothing and takes seconds.
#
#   scripts/bootstrap.sh            (as root, or with sudo available)
#
# PQClean (ML-KEM-768, FIPS 203) comes from the npm package `pqclean`, pinned below by
# version AND by the registry's sha512 integrity string; the tarball is checked before
# it is unpacked into build/_deps/pqclean (git-ignored, never committed).
set -euo pipefail
cd "$(dirname "$0")/.."

PQCLEAN_VERSION=0.8.1
PQCLEAN_INTEGRITY='sha512-+5FtknAJdiNtVBiyLiKW3OnanhcqSWy44KCaZz1tELhalp5HfuIcxNsX9uS0t7ne2tEWc7NBd4GpiQBTGTIJBA=='
DEPS_DIR=${QELI_DEPS_DIR:-$PWD/build/_deps}

APT_PACKAGES=(
  # toolchain
  build-essential g++ cmake ninja-build ccache pkg-config git clang-14 clang-format-14
  libclang-rt-14-dev
  # libraries
  libssl-dev libsodium-dev libasio-dev libinih-dev libcli11-dev libspdlog-dev libfmt-dev
  nlohmann-json3-dev libnl-3-dev libnl-route-3-dev libnftables-dev libsystemd-dev libqrencode-dev
  libsqlite3-dev libcpp-httplib-dev liburing-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcap-dev libbrotli-dev zlib1g-dev
  # the Debian package and its install test (scripts/package.sh, tests/package/)
  debhelper lintian fakeroot debootstrap systemd-container
  # test and lab tools
  argon2 openssl iperf3 iproute2 iputils-ping nftables tcpdump jq procps python3
  bind9-dnsutils nginx-light chromium chromium-driver python3-selenium zbar-tools
  python3-yaml python3-jsonschema
  # promtool (tests/e2e/metrics.sh parses /metrics with it); installed without
  # recommends, so no node exporter comes along
  prometheus
)

# npm fetches PQClean; machines that ship their own Node.js keep it (Debian's npm
# package would conflict with it).
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${#missing[@]} Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
else
  echo "bootstrap: Debian packages present"
fi

# --- PQClean from npm, pinned by version and integrity --------------------------------
stamp="$DEPS_DIR/pqclean/.qeli-pinned"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PQCLEAN_VERSION $PQCLEAN_INTEGRITY" ]; then
  echo "bootstrap: pqclean@$PQCLEAN_VERSION present"
else
  echo "bootstrap: fetching pqclean@$PQCLEAN_VERSION from npm"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "pqclean@$PQCLEAN_VERSION" >/dev/null)
  tarball="$tmp/pqclean-$PQCLEAN_VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [ "$got" != "$PQCLEAN_INTEGRITY" ]; then
    echo "bootstrap: integrity mismatch for pqclean@$PQCLEAN_VERSION" >&2
    echo "  expected $PQCLEAN_INTEGRITY" >&2
    echo "  got      $got" >&2
    exit 1
  fi
  rm -rf "$DEPS_DIR/pqclean"
  mkdir -p "$DEPS_DIR/pqclean"
  # Only what the build compiles: ML-KEM-768 (clean) and PQClean's common files.
  tar xzf "$tarball" -C "$DEPS_DIR/pqclean" \
    package/deps/PQClean/crypto_kem/ml-kem-768/clean package/deps/PQClean/common \
    package/LICENSE 2>/dev/null || \
  tar xzf "$tarball" -C "$DEPS_DIR/pqclean" \
    package/deps/PQClean/crypto_kem/ml-kem-768/clean package/deps/PQClean/common
  echo "$PQCLEAN_VERSION $PQCLEAN_INTEGRITY" > "$stamp"
fi
echo "bootstrap: done"
