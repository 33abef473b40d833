// The raw ChaCha20 stream cipher (RFC 8439 §2.4): the keystream XORed into a buffer in
// place, for the obfuscation layers that need a keystream without an AEAD tag (the
// per-datagram UDP obfs seal). NOT authenticated: the inner AEAD protects the content.
//
// Over libsodium's crypto_stream_chacha20_ietf_xor_ic: stateless, no allocation, safe to
// call from any thread (an OpenSSL EVP context would need one object per thread).
#pragma once

#include <cstdint>
#include <span>

namespace qeli::crypto {

inline constexpr std::size_t kChaCha20KeySize = 32;
inline constexpr std::size_t kChaCha20NonceSize = 12;

/// XORs `data` with the ChaCha20 keystream for (key, nonce), starting at 64-byte block
/// `counter` (RFC 8439 §2.4: the 32-bit block counter; 0 = the first block). Encryption
/// and decryption are the same call. `data` of any length, including 0.
void chacha20_xor(std::span<const std::uint8_t, kChaCha20KeySize> key,
                  std::span<const std::uint8_t, kChaCha20NonceSize> nonce, std::uint32_t counter,
                  std::span<std::uint8_t> data);

}  // namespace qeli::crypto
