#include "crypto/aead.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <utility>

namespace qeli::crypto {
namespace {

EVP_CIPHER_CTX* cctx(void* p) { return static_cast<EVP_CIPHER_CTX*>(p); }

const EVP_CIPHER* cipher(AeadAlgorithm alg) {
  switch (alg) {
    case AeadAlgorithm::kChaCha20Poly1305: return EVP_chacha20_poly1305();
    case AeadAlgorithm::kAes128Gcm: return EVP_aes_128_gcm();
    case AeadAlgorithm::kAes256Gcm: return EVP_aes_256_gcm();
  }
  std::abort();
}

// A context with cipher and key set once; each call only sets the nonce, so seal/open
// do no key schedule and no allocation.
void* make_ctx(AeadAlgorithm alg, std::span<const std::uint8_t> key, bool encrypt) {
  EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
  if (c == nullptr) std::abort();
  const int enc = encrypt ? 1 : 0;
  if (EVP_CipherInit_ex(c, cipher(alg), nullptr, nullptr, nullptr, enc) != 1 ||
      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(kAeadNonceSize), nullptr) !=
          1 ||
      EVP_CipherInit_ex(c, nullptr, nullptr, key.data(), nullptr, enc) != 1) {
    std::abort();
  }
  return c;
}

}  // namespace

std::size_t aead_key_size(AeadAlgorithm alg) { return alg == AeadAlgorithm::kAes128Gcm ? 16 : 32; }

Aead::Aead(AeadAlgorithm alg, std::span<const std::uint8_t> key) : alg_(alg) {
  if (key.size() != aead_key_size(alg)) std::abort();
  enc_ = make_ctx(alg, key, true);
  dec_ = make_ctx(alg, key, false);
}

Aead::~Aead() {
  EVP_CIPHER_CTX_free(cctx(enc_));
  EVP_CIPHER_CTX_free(cctx(dec_));
}

Aead::Aead(Aead&& o) noexcept
    : alg_(o.alg_), enc_(std::exchange(o.enc_, nullptr)), dec_(std::exchange(o.dec_, nullptr)) {}

Aead& Aead::operator=(Aead&& o) noexcept {
  std::swap(alg_, o.alg_);
  std::swap(enc_, o.enc_);
  std::swap(dec_, o.dec_);
  return *this;
}

bool Aead::seal(std::span<const std::uint8_t, kAeadNonceSize> nonce,
                std::span<const std::uint8_t> aad, std::span<std::uint8_t> data,
                std::span<std::uint8_t, kAeadTagSize> tag) {
  EVP_CIPHER_CTX* c = cctx(enc_);
  int n = 0;
  if (EVP_EncryptInit_ex(c, nullptr, nullptr, nullptr, nonce.data()) != 1) return false;
  if (!aad.empty() &&
      EVP_EncryptUpdate(c, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) {
    return false;
  }
  if (!data.empty() &&
      EVP_EncryptUpdate(c, data.data(), &n, data.data(), static_cast<int>(data.size())) != 1) {
    return false;
  }
  if (EVP_EncryptFinal_ex(c, data.data() + data.size(), &n) != 1) return false;
  return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(kAeadTagSize),
                             tag.data()) == 1;
}

bool Aead::open(std::span<const std::uint8_t, kAeadNonceSize> nonce,
                std::span<const std::uint8_t> aad, std::span<std::uint8_t> data,
                std::span<const std::uint8_t, kAeadTagSize> tag) {
  EVP_CIPHER_CTX* c = cctx(dec_);
  int n = 0;
  if (EVP_DecryptInit_ex(c, nullptr, nullptr, nullptr, nonce.data()) != 1) return false;
  if (!aad.empty() &&
      EVP_DecryptUpdate(c, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) {
    return false;
  }
  if (!data.empty() &&
      EVP_DecryptUpdate(c, data.data(), &n, data.data(), static_cast<int>(data.size())) != 1) {
    return false;
  }
  if (EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(kAeadTagSize),
                          const_cast<std::uint8_t*>(tag.data())) != 1) {
    return false;
  }
  return EVP_DecryptFinal_ex(c, data.data() + data.size(), &n) == 1;
}

}  // namespace qeli::crypto
