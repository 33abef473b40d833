#include "crypto/sha1.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace qeli::crypto {

Digest20 sha1(std::span<const std::uint8_t> data) {
  Digest20 out{};
  unsigned int n = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &n, EVP_sha1(), nullptr) != 1) std::abort();
  return out;
}

}  // namespace qeli::crypto
