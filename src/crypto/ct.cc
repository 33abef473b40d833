#include "crypto/ct.h"

#include <openssl/crypto.h>

#include "crypto/secret_bytes.h"

namespace qeli::crypto {

void secure_wipe(void* p, std::size_t n) { OPENSSL_cleanse(p, n); }

bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

bool ct_is_zero(std::span<const std::uint8_t> a) {
  std::uint8_t acc = 0;
  for (std::uint8_t b : a) acc = static_cast<std::uint8_t>(acc | b);
  // Branch-free map of acc to 0/1: acc - 1 underflows (bit 8 set) only when acc == 0.
  return ((static_cast<unsigned>(acc) - 1U) >> 8) & 1U;
}

}  // namespace qeli::crypto
