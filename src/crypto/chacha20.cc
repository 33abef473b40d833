#include "crypto/chacha20.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace qeli::crypto {

namespace {
EVP_CIPHER_CTX* ctx_of(void* p) { return static_cast<EVP_CIPHER_CTX*>(p); }
}  // namespace

ChaCha20::ChaCha20(std::span<const std::uint8_t, kChaCha20KeySize> key)
    : ctx_(EVP_CIPHER_CTX_new()) {
  // The key is scheduled once; each call only sets a new IV.
  if (ctx_ == nullptr ||
      EVP_EncryptInit_ex(ctx_of(ctx_), EVP_chacha20(), nullptr, key.data(), nullptr) != 1) {
    std::abort();
  }
}

ChaCha20::~ChaCha20() { EVP_CIPHER_CTX_free(ctx_of(ctx_)); }  // also cleanses the key

ChaCha20::ChaCha20(ChaCha20&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
ChaCha20& ChaCha20::operator=(ChaCha20&& o) noexcept {
  if (this != &o) {
    EVP_CIPHER_CTX_free(ctx_of(ctx_));
    ctx_ = std::exchange(o.ctx_, nullptr);
  }
  return *this;
}

void ChaCha20::xor_in_place(std::span<const std::uint8_t, kChaCha20NonceSize> nonce,
                            std::uint32_t counter, std::span<std::uint8_t> data) {
  if (ctx_ == nullptr) std::abort();  // used after move: a bug
  // OpenSSL's 16-byte ChaCha20 IV = block counter (u32 little-endian) ‖ nonce (RFC 8439).
  std::array<std::uint8_t, 16> iv{};
  for (int i = 0; i < 4; ++i)
    iv[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(counter >> (8 * i));
  std::memcpy(iv.data() + 4, nonce.data(), nonce.size());
  if (EVP_EncryptInit_ex(ctx_of(ctx_), nullptr, nullptr, nullptr, iv.data()) != 1) std::abort();
  while (!data.empty()) {
    const std::size_t n = std::min<std::size_t>(data.size(), INT_MAX / 2);
    int out = 0;
    if (EVP_EncryptUpdate(ctx_of(ctx_), data.data(), &out, data.data(), static_cast<int>(n)) != 1 ||
        static_cast<std::size_t>(out) != n) {
      std::abort();
    }
    data = data.subspan(n);
  }
}

}  // namespace qeli::crypto
