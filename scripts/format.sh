#!/usr/bin/env bash
# Formats (default) or checks (--check) every C/C++ file under src, tests, bench, fuzz,
# include with clang-format 14 and the repository's .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
CF=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files -co --exclude-standard -- 'src/*' 'tests/*' 'bench/*' 'fuzz/*' \
  'include/*' 'examples/*' | grep -E '\.(cc|h|c|cpp|hpp)$' || true)
[ ${#files[@]} -eq 0 ] && exit 0
if [ "${1:-}" = "--check" ]; then
  "$CF" --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files clean"
else
  "$CF" -i "${files[@]}"
fi
