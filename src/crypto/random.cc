#include "crypto/random.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "base/endian.h"

namespace qeli::crypto {
namespace {

class SystemRng final : public Rng {
 public:
  void fill(std::span<std::uint8_t> out) override { random_bytes(out); }
};

}  // namespace

std::uint64_t Rng::uniform(std::uint64_t lo, std::uint64_t hi) {
  if (lo >= hi) return lo;
  const std::uint64_t span = hi - lo;
  if (span == std::numeric_limits<std::uint64_t>::max()) {
    std::uint8_t b[8];
    fill(b);
    return load_be64(b);
  }
  const std::uint64_t n = span + 1;
  // Rejection sampling removes modulo bias.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - (std::numeric_limits<std::uint64_t>::max() % n);
  for (;;) {
    std::uint8_t b[8];
    fill(b);
    const std::uint64_t v = load_be64(b);
    if (v < limit) return lo + v % n;
  }
}

Rng& system_rng() {
  static SystemRng rng;
  return rng;
}

void random_bytes(std::span<std::uint8_t> out) {
  if (out.empty()) return;
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    std::fputs("qeli: the system CSPRNG failed; refusing to continue\n", stderr);
    std::abort();
  }
}

namespace {
std::array<std::uint8_t, 32> seed_key(std::uint64_t seed) {
  std::array<std::uint8_t, 32> key{};
  store_be64(key.data(), seed);
  return key;
}
}  // namespace

DeterministicRng::DeterministicRng(std::uint64_t seed)
    : DeterministicRng(std::span<const std::uint8_t, 32>(seed_key(seed))) {}

DeterministicRng::DeterministicRng(std::span<const std::uint8_t, 32> seed) {
  auto* ctx = EVP_CIPHER_CTX_new();
  const std::uint8_t iv[16] = {};  // OpenSSL's chacha20 IV = counter(4 LE) ‖ nonce(12)
  if (ctx == nullptr || EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, seed.data(), iv) != 1) {
    std::abort();
  }
  ctx_ = ctx;
}

DeterministicRng::~DeterministicRng() { EVP_CIPHER_CTX_free(static_cast<EVP_CIPHER_CTX*>(ctx_)); }

void DeterministicRng::fill(std::span<std::uint8_t> out) {
  std::fill(out.begin(), out.end(), std::uint8_t{0});
  int n = 0;
  if (!out.empty() && EVP_EncryptUpdate(static_cast<EVP_CIPHER_CTX*>(ctx_), out.data(), &n,
                                        out.data(), static_cast<int>(out.size())) != 1) {
    std::abort();
  }
}

}  // namespace qeli::crypto
