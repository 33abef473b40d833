#include "crypto/sha1.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

namespace qeli::crypto {

Digest20 sha1(std::span<const std::uint8_t> data) {
  Digest20 out{};
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, EVP_sha1(), nullptr) != 1) std::abort();
  return out;
}

Digest20 hmac_sha1(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
  Digest20 out{};
  unsigned int n = 0;
  // A zero-length key still needs a valid pointer.
  static const std::uint8_t kEmpty = 0;
  if (HMAC(EVP_sha1(), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()),
           data.data(), data.size(), out.data(), &n) == nullptr ||
      n != out.size()) {
    std::abort();
  }
  return out;
}

}  // namespace qeli::crypto
