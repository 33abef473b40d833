// Randomness. Protocol code takes an `Rng&` so tests and the vectors in tests/vectors
// can be reproduced with a deterministic generator; production passes `system_rng()`.
#pragma once

#include <cstdint>
#include <span>

#include "crypto/secret_bytes.h"

namespace qeli::crypto {

class Rng {
 public:
  virtual ~Rng() = default;
  /// Fills `out` with random bytes. Never fails: a broken system CSPRNG aborts the
  /// process, since continuing would produce predictable keys.
  virtual void fill(std::span<std::uint8_t> out) = 0;

  /// A uniformly random integer in [lo, hi] (inclusive; requires lo <= hi).
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi);
};

/// OpenSSL's CSPRNG (RAND_bytes; DRBG seeded by getrandom). Thread-safe.
Rng& system_rng();

/// Fills `out` from the system CSPRNG.
void random_bytes(std::span<std::uint8_t> out);

/// A deterministic generator for tests and reproducible vectors: the ChaCha20 keystream
/// (RFC 8439 §2.4) under a 32-byte seed, zero nonce. NOT for production keys.
class DeterministicRng final : public Rng {
 public:
  explicit DeterministicRng(std::uint64_t seed);
  explicit DeterministicRng(std::span<const std::uint8_t, 32> seed);
  ~DeterministicRng() override;
  DeterministicRng(const DeterministicRng&) = delete;
  DeterministicRng& operator=(const DeterministicRng&) = delete;
  void fill(std::span<std::uint8_t> out) override;

 private:
  void* ctx_;  // EVP_CIPHER_CTX*
};

}  // namespace qeli::crypto
