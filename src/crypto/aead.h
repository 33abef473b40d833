// AEADs over OpenSSL libcrypto, in place on caller-owned buffers, with no allocation
// per call: ChaCha20-Poly1305 (RFC 8439 §2.8) and AES-128/256-GCM (NIST SP 800-38D).
//
// An object holds one key and one cipher context. It is NOT thread-safe: use one object
// per thread (each direction of a session has its own).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

namespace qeli::crypto {

inline constexpr std::size_t kAeadNonceSize = 12;
inline constexpr std::size_t kAeadTagSize = 16;

enum class AeadAlgorithm { kChaCha20Poly1305, kAes128Gcm, kAes256Gcm };

/// Key size in bytes for `alg` (32, 16, 32).
std::size_t aead_key_size(AeadAlgorithm alg);

class Aead {
 public:
  /// `key` must hold exactly aead_key_size(alg) bytes; a wrong size aborts (a bug).
  Aead(AeadAlgorithm alg, std::span<const std::uint8_t> key);
  ~Aead();
  Aead(const Aead&) = delete;
  Aead& operator=(const Aead&) = delete;
  Aead(Aead&&) noexcept;
  Aead& operator=(Aead&&) noexcept;

  AeadAlgorithm algorithm() const { return alg_; }

  /// Encrypts `data` in place and writes the 16-byte tag to `tag`.
  /// `nonce` is 12 bytes; `aad` may be empty. Returns false only if the library
  /// fails (never for valid arguments).
  bool seal(std::span<const std::uint8_t, kAeadNonceSize> nonce, std::span<const std::uint8_t> aad,
            std::span<std::uint8_t> data, std::span<std::uint8_t, kAeadTagSize> tag);

  /// Decrypts `data` in place if `tag` authenticates (`nonce`, `aad`, `data`).
  /// Returns false on authentication failure — a normal result for hostile input —
  /// in which case `data` holds garbage and must be discarded.
  bool open(std::span<const std::uint8_t, kAeadNonceSize> nonce, std::span<const std::uint8_t> aad,
            std::span<std::uint8_t> data, std::span<const std::uint8_t, kAeadTagSize> tag);

 private:
  AeadAlgorithm alg_;
  void* enc_;  // EVP_CIPHER_CTX*, key set once
  void* dec_;
};

}  // namespace qeli::crypto
