// The raw ChaCha20 stream cipher (RFC 8439 §2.4): the keystream XORed into a buffer in
// place, for the obfuscation layers that need a keystream without an AEAD tag (the
// per-datagram UDP obfs seal). NOT authenticated: the inner AEAD protects the content.
//
// Over OpenSSL's EVP_chacha20 (its AVX2/AVX-512 code; ~1.4x libsodium's on this CPU). An
// object holds one key and one cipher context, so a call allocates nothing; it is NOT
// thread-safe: use one object per thread.
#pragma once

#include <cstdint>
#include <span>

namespace qeli::crypto {

inline constexpr std::size_t kChaCha20KeySize = 32;
inline constexpr std::size_t kChaCha20NonceSize = 12;

class ChaCha20 {
 public:
  explicit ChaCha20(std::span<const std::uint8_t, kChaCha20KeySize> key);
  ~ChaCha20();
  ChaCha20(const ChaCha20&) = delete;
  ChaCha20& operator=(const ChaCha20&) = delete;
  ChaCha20(ChaCha20&& o) noexcept;
  ChaCha20& operator=(ChaCha20&& o) noexcept;

  /// XORs `data` with the keystream for (key, nonce), starting at 64-byte block `counter`
  /// (RFC 8439 §2.4: the 32-bit block counter; 0 = the first block). Encryption and
  /// decryption are the same call. `data` of any length, including 0. A library failure
  /// (never for valid arguments) aborts: continuing would send clear text.
  void xor_in_place(std::span<const std::uint8_t, kChaCha20NonceSize> nonce, std::uint32_t counter,
                    std::span<std::uint8_t> data);

 private:
  void* ctx_;  // EVP_CIPHER_CTX*
};

}  // namespace qeli::crypto
