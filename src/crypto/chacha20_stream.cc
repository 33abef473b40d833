#include "crypto/chacha20_stream.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace qeli::crypto {
namespace {
EVP_CIPHER_CTX* ctx_of(void* p) { return static_cast<EVP_CIPHER_CTX*>(p); }
}  // namespace

ChaCha20Stream::ChaCha20Stream(std::span<const std::uint8_t, kChaCha20KeySize> key,
                               std::span<const std::uint8_t, kChaCha20NonceSize> nonce,
                               std::uint64_t limit)
    : ctx_(EVP_CIPHER_CTX_new()), limit_(std::min(limit, kChaCha20StreamLimit)) {
  // OpenSSL's 16-byte IV = block counter (u32 LE, 0 here) ‖ the 12-byte nonce.
  std::array<std::uint8_t, 16> iv{};
  std::memcpy(iv.data() + 4, nonce.data(), nonce.size());
  if (ctx_ == nullptr ||
      EVP_EncryptInit_ex(ctx_of(ctx_), EVP_chacha20(), nullptr, key.data(), iv.data()) != 1) {
    std::abort();
  }
}

ChaCha20Stream::~ChaCha20Stream() {
  OPENSSL_cleanse(ahead_.data(), ahead_.size());
  EVP_CIPHER_CTX_free(ctx_of(ctx_));
}

bool ChaCha20Stream::apply(std::span<std::uint8_t> data) {
  if (data.size() > limit_ - pos_) return false;
  pos_ += data.size();
  // The keystream generated ahead comes first: EVP stands right after it.
  const std::size_t have = std::min(data.size(), kAhead - ahead_at_);
  for (std::size_t i = 0; i < have; ++i) data[i] ^= ahead_[ahead_at_ + i];
  ahead_at_ += have;
  data = data.subspan(have);
  if (data.empty()) return true;
  if (data.size() >= kAhead) {
    evp_apply(data);
    return true;
  }
  // Short: the next kAhead keystream bytes into the buffer, then the first of them. Bytes
  // past the limit may be generated here, never used (the check above comes first).
  std::fill(ahead_.begin(), ahead_.end(), std::uint8_t{0});
  evp_apply(ahead_);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] ^= ahead_[i];
  ahead_at_ = data.size();
  return true;
}

void ChaCha20Stream::evp_apply(std::span<std::uint8_t> data) {
  while (!data.empty()) {
    const std::size_t n = std::min<std::size_t>(data.size(), INT_MAX / 2);
    int out = 0;
    if (EVP_EncryptUpdate(ctx_of(ctx_), data.data(), &out, data.data(), static_cast<int>(n)) != 1 ||
        static_cast<std::size_t>(out) != n) {
      std::abort();  // never for valid arguments; continuing would send clear text
    }
    data = data.subspan(n);
  }
}

}  // namespace qeli::crypto
