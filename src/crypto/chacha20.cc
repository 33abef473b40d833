#include "crypto/chacha20.h"

#include <sodium.h>

#include <cstdlib>

namespace qeli::crypto {

void chacha20_xor(std::span<const std::uint8_t, kChaCha20KeySize> key,
                  std::span<const std::uint8_t, kChaCha20NonceSize> nonce, std::uint32_t counter,
                  std::span<std::uint8_t> data) {
  // sodium_init() picks the fastest implementation for this CPU; it is idempotent and
  // thread-safe, the static makes it once per process.
  static const bool ready = sodium_init() >= 0;
  if (!ready) std::abort();
  if (data.empty()) return;
  static_assert(kChaCha20NonceSize == crypto_stream_chacha20_ietf_NONCEBYTES);
  static_assert(kChaCha20KeySize == crypto_stream_chacha20_ietf_KEYBYTES);
  crypto_stream_chacha20_ietf_xor_ic(data.data(), data.data(), data.size(), nonce.data(), counter,
                                     key.data());
}

}  // namespace qeli::crypto
