// The three TLS 1.3 cipher suites we speak (RFC 8446 §B.4): their AEAD, hash and key size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "crypto/aead.h"
#include "crypto/digest.h"

namespace qeli::tls {

enum class CipherSuite : std::uint16_t {
  kAes128GcmSha256 = 0x1301,
  kAes256GcmSha384 = 0x1302,
  kChaCha20Poly1305Sha256 = 0x1303,
};

/// The suite for a wire code, or nullopt for anything else.
std::optional<CipherSuite> cipher_suite_from_code(std::uint16_t code);

constexpr std::uint16_t code_of(CipherSuite s) { return static_cast<std::uint16_t>(s); }

constexpr crypto::DigestAlgorithm hash_of(CipherSuite s) {
  return s == CipherSuite::kAes256GcmSha384 ? crypto::DigestAlgorithm::kSha384
                                            : crypto::DigestAlgorithm::kSha256;
}

constexpr crypto::AeadAlgorithm aead_of(CipherSuite s) {
  switch (s) {
    case CipherSuite::kAes128GcmSha256: return crypto::AeadAlgorithm::kAes128Gcm;
    case CipherSuite::kAes256GcmSha384: return crypto::AeadAlgorithm::kAes256Gcm;
    case CipherSuite::kChaCha20Poly1305Sha256: return crypto::AeadAlgorithm::kChaCha20Poly1305;
  }
  return crypto::AeadAlgorithm::kAes128Gcm;
}

/// Traffic key length (16 or 32).
constexpr std::size_t key_size_of(CipherSuite s) {
  return s == CipherSuite::kAes128GcmSha256 ? 16 : 32;
}

/// Records one key may protect before it must be updated (§5.5; constants.h).
std::uint64_t record_limit_of(CipherSuite s);

const char* to_string(CipherSuite s);

}  // namespace qeli::tls
