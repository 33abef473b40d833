#!/usr/bin/env bash
# Generates tests/vectors/argon2id.json: Argon2id PHC strings made by an implementation
# independent of libsodium (which qeli uses to verify): the reference argon2 command-line
# tool, Debian package `argon2` (installed by scripts/bootstrap.sh).
#
#   tools/vectors/gen_argon2.sh
#
# Fixed passwords and salts, so a run always writes the same file. libsodium 1.0.18
# (Debian 12) verifies every parameter set below, including p > 1, m = 64 MiB and a
# 64-byte hash; tests/unit/crypto/argon2id_test.cc checks each one and that a wrong
# password is refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v argon2 >/dev/null || { echo "gen_argon2: install the Debian package argon2" >&2; exit 1; }
command -v jq >/dev/null || { echo "gen_argon2: install jq" >&2; exit 1; }
out=tests/vectors/argon2id.json

# name | password | salt (>= 8 bytes, used as raw bytes) | argon2 flags
cases=(
  "qeli-default|correct horse battery staple|qeli-vectors-salt-00|-t 2 -k 19456 -p 1"
  "qeli-default-utf8|пароль:ünïcödé|qeli-vectors-salt-01|-t 2 -k 19456 -p 1"
  "qeli-default-short-salt|hunter2|8bytesal|-t 2 -k 19456 -p 1"
  "parallelism-2|user:pass with spaces|qeli-vectors-salt-03|-t 2 -k 19456 -p 2"
  "memory-64mib-p4|a longer passphrase, 3 passes over 64 MiB|qeli-vectors-salt-04|-t 3 -k 65536 -p 4"
  "hash-64-bytes|x|qeli-vectors-salt-05|-t 2 -k 19456 -p 1 -l 64"
)

tool_version=$(dpkg-query -W -f='${Version}' argon2 2>/dev/null || echo unknown)
json=$(jq -n --arg v "$tool_version" '{primitive: "argon2id (RFC 9106), PHC strings",
  generator: ("tools/vectors/gen_argon2.sh with the argon2 CLI, Debian package argon2 " + $v),
  cases: []}')
i=0
for c in "${cases[@]}"; do
  IFS='|' read -r name password salt flags <<<"$c"
  # printf, not echo: the CLI hashes every byte of stdin, a trailing newline included.
  # shellcheck disable=SC2086  # flags are deliberately split into words
  phc=$(printf '%s' "$password" | argon2 "$salt" -id $flags -e)
  json=$(jq --arg id "$(printf 'argon2id/cases/%02d' "$i")" --arg name "$name" \
    --arg password "$password" --arg phc "$phc" \
    '.cases += [{id: $id, name: $name, password: $password, phc: $phc}]' <<<"$json")
  i=$((i + 1))
done
printf '%s\n' "$json" >"$out"
echo "gen_argon2: wrote $i cases to $out"
