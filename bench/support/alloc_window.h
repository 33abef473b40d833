// AllocWindow: fails a benchmark whose timed loop allocates. Built on the shared counting
// allocator (tests/support/counting_allocator.h; link `qeli_counting_allocator`), which
// counts every global operator new and every OpenSSL allocation. Construct it after the
// warm-up, call finish() after the loop: it sets the "allocs" counter and skips the run
// with an error if there was any (STYLE.md practice 7: the steady state must not allocate).
#pragma once

#include <benchmark/benchmark.h>

#include "support/counting_allocator.h"

namespace qeli::bench {

class AllocWindow {
 public:
  void finish(benchmark::State& state) {
    const std::uint64_t n = window_.allocations();
    state.counters["allocs"] = static_cast<double>(n);
    if (n != 0) state.SkipWithError("heap allocation in the hot loop");
  }

 private:
  test::AllocationWindow window_;
};

}  // namespace qeli::bench
