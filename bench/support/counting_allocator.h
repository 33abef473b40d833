// A counting global allocator for benchmarks: include this header in exactly ONE source
// file of a benchmark binary (it defines the replaceable global operator new/delete).
// AllocWindow records allocations between its construction (after warm-up) and finish(),
// and fails the run if there were any: the steady state must not allocate (STYLE.md
// practice 7).
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

// The replacement operators below pair malloc with free by design; GCC 12 cannot see that
// operator new here IS malloc and warns under LTO.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace qeli::bench {
inline std::atomic<std::uint64_t> g_allocs{0};

class AllocWindow {
 public:
  AllocWindow() : start_(g_allocs.load()) {}
  void finish(benchmark::State& state) {
    const std::uint64_t n = g_allocs.load() - start_;
    state.counters["allocs"] = static_cast<double>(n);
    if (n != 0) state.SkipWithError("heap allocation in the hot loop");
  }

 private:
  std::uint64_t start_;
};
}  // namespace qeli::bench

void* operator new(std::size_t n) {
  qeli::bench::g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  qeli::bench::g_allocs.fetch_add(1, std::memory_order_relaxed);
  const auto al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (n + al - 1) / al * al)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t a) { return operator new(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
