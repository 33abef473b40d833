#!/usr/bin/env python3
"""Two builds of one Google Benchmark program, side by side on a shared machine.

    bench/ab_bench.py BEFORE AFTER FILTER [ROUNDS] [-- extra benchmark flags]

    e.g. bench/ab_bench.py /tmp/qeli-before/build/release/bench/engine/pipeline_bench \\
             build/release/bench/engine/pipeline_bench 'BM_TcpSendPath' 8

Runs ROUNDS rounds (default 8), each one run of BEFORE and one of AFTER (the order
alternating, so a slow phase of the box hits both alike), every run with 3 repetitions
of 0.2 s per benchmark matching FILTER; prints per benchmark the median CPU time of
each side in µs (ROUNDS × 3 samples) and after ÷ before. CPU time keeps other load out
of the quotient but not out of the caches: compare sides only within one invocation.
A benchmark that reports an error (e.g. pipeline_bench's allocation check) is shown as
such instead of a time.
"""
import collections
import json
import statistics
import subprocess
import sys


def run(binary, flt, extra):
    out = subprocess.run(
        [binary, f"--benchmark_filter={flt}", "--benchmark_format=json",
         "--benchmark_repetitions=3", "--benchmark_min_time=0.2", *extra],
        capture_output=True, text=True, check=True).stdout
    for bm in json.loads(out)["benchmarks"]:
        if bm.get("run_type") != "iteration":
            continue
        if bm.get("error_occurred"):
            yield bm["run_name"], None
            continue
        unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[bm["time_unit"]]
        yield bm["run_name"], bm["cpu_time"] * unit


def main(argv):
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    before, after, flt = argv[1:4]
    rounds = int(argv[4]) if len(argv) == 5 else 8
    samples = {before: collections.defaultdict(list), after: collections.defaultdict(list)}
    order = []
    for r in range(rounds):
        for binary in (before, after) if r % 2 == 0 else (after, before):
            for name, t in run(binary, flt, extra):
                if name not in order:
                    order.append(name)
                samples[binary][name].append(t)
    print(f"{'benchmark':78s} {'before µs':>10s} {'after µs':>10s} {'after/before':>12s}")
    for name in order:
        a, b = samples[before][name], samples[after][name]
        if None in a or None in b or not a or not b:
            print(f"{name:78s} {'error':>10s}")
            continue
        x, y = statistics.median(a), statistics.median(b)
        print(f"{name:78s} {x:10.2f} {y:10.2f} {y / x:12.3f}")
    print(f"(medians of CPU time, {rounds} rounds × 3 repetitions per side)")


if __name__ == "__main__":
    main(sys.argv)
