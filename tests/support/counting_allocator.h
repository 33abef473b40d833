// A counting global allocator for tests and benchmarks that must prove a loop allocates
// nothing (STYLE.md practice 7: zero allocations per packet in the steady state).
//
// Linking the `qeli_counting_allocator` object library into an executable replaces the
// global operator new/delete (every form, including the aligned ones) with malloc/free
// wrappers that count each new, and routes OpenSSL's own allocations (CRYPTO_malloc /
// CRYPTO_realloc, the only door libcrypto allocates through) into the same counter. The
// OpenSSL hook is installed by a static initialiser because CRYPTO_set_mem_functions
// refuses once OpenSSL has allocated anything. Only executables that link it are affected.
#pragma once

#include <cstdint>

namespace qeli::test {

/// Global operator new calls plus OpenSSL malloc/realloc calls (all threads) since the
/// process started.
std::uint64_t allocation_count();

/// False if OpenSSL had allocated before the hook could be installed (its allocations are
/// then invisible and a zero count proves nothing about them).
bool openssl_counting_active();

/// Counts the allocations made between construction and allocations().
class AllocationWindow {
 public:
  AllocationWindow() : start_(allocation_count()) {}
  std::uint64_t allocations() const { return allocation_count() - start_; }

 private:
  std::uint64_t start_;
};

}  // namespace qeli::test
