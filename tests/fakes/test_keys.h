// Deterministic key material for unit tests: key_of(b) = b, b+1, …, b+31.
#pragma once

#include <cstdint>

#include "crypto/secret_bytes.h"

namespace qeli::test {

inline crypto::Key32 key_of(std::uint8_t base) {
  crypto::Key32 k;
  for (std::size_t i = 0; i < 32; ++i) k[i] = static_cast<std::uint8_t>(base + i);
  return k;
}

}  // namespace qeli::test
