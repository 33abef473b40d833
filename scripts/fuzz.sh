#!/usr/bin/env bash
# Runs every libFuzzer target built by the `fuzz` preset for a bounded time each.
#   scripts/fuzz.sh [--seconds N] [TARGET...]
# Corpora: fuzz/corpus/<target>/ seeds (committed, small) are copied to a scratch dir so
# runs never modify the tree. A crash fails the script and leaves the reproducer in
# build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=20
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) secs=$2; shift 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
bin=build/fuzz/fuzzers
[ -d "$bin" ] || { echo "fuzz: no fuzzers built (cmake --preset fuzz && cmake --build --preset fuzz)"; exit 1; }
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(find "$bin" -maxdepth 1 -type f -executable -printf '%f\n' | sort)
fi
mkdir -p build/fuzz/artifacts
# One target per core at a time (each libFuzzer run is single-threaded); the summary lines
# are printed in target order once every run has ended.
jobs=${QELI_FUZZ_JOBS:-$(nproc)}
run_one() {
  local t=$1 work
  work=$(mktemp -d)
  [ -d "fuzz/corpus/$t" ] && cp -r "fuzz/corpus/$t/." "$work/"
  if "$bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="build/fuzz/artifacts/$t-" "$work" >"build/fuzz/$t.log" 2>&1; then
    echo "fuzz: $t ok ($(grep -Eo 'stat::number_of_executed_units: [0-9]+' "build/fuzz/$t.log" | awk '{print $2}') runs)" >"build/fuzz/$t.result"
  else
    { echo "fuzz: $t FAILED"; tail -n 40 "build/fuzz/$t.log"; } >"build/fuzz/$t.result"
  fi
  rm -rf "$work"
}
for t in "${targets[@]}"; do
  rm -f "build/fuzz/$t.result"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$t" &
done
wait
fail=0
for t in "${targets[@]}"; do
  cat "build/fuzz/$t.result" 2>/dev/null || { echo "fuzz: $t FAILED (no result)"; fail=1; continue; }
  grep -q '^fuzz: .* FAILED' "build/fuzz/$t.result" && fail=1
done
echo "fuzz: ${#targets[@]} targets, $( [ $fail = 0 ] && echo all passed || echo FAILURES )"
exit $fail
