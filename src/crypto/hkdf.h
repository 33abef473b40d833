// HKDF (RFC 5869) and the TLS 1.3 key-schedule helpers (RFC 8446 §7.1): the SHA-256
// forms that qeli's own schedule uses, and forms over a negotiated DigestAlgorithm for
// TLS 1.3 (SHA-384 suites). One implementation; the SHA-256 forms call the generic ones.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "crypto/digest.h"
#include "crypto/secret_bytes.h"
#include "crypto/sha256.h"

namespace qeli::crypto {

/// HKDF-Extract (RFC 5869 §2.2): PRK = HMAC-SHA256(salt, IKM). An empty salt means
/// 32 zero bytes, as the RFC specifies.
Key32 hkdf_extract(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm);

/// HKDF-Expand (RFC 5869 §2.3) into `out` (1..8160 bytes). Returns false only if
/// `out.size()` is outside that range.
bool hkdf_expand(std::span<const std::uint8_t> prk, std::span<const std::uint8_t> info,
                 std::span<std::uint8_t> out);

/// Extract-then-Expand in one call; same contract as hkdf_expand.
bool hkdf(std::span<const std::uint8_t> salt, std::span<const std::uint8_t> ikm,
          std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

/// HKDF-Expand-Label (RFC 8446 §7.1): HkdfLabel = length(2) ‖ "tls13 " + label (1-byte
/// length) ‖ context (1-byte length). `label` ≤ 249 bytes, `context` ≤ 255, out ≤ 65535;
/// returns false if any is exceeded.
bool hkdf_expand_label(std::span<const std::uint8_t> secret, std::string_view label,
                       std::span<const std::uint8_t> context, std::span<std::uint8_t> out);

/// Derive-Secret (RFC 8446 §7.1) = HKDF-Expand-Label(secret, label, transcript_hash, 32).
/// `transcript_hash` is the SHA-256 of the messages (callers hash them).
Key32 derive_secret(std::span<const std::uint8_t> secret, std::string_view label,
                    std::span<const std::uint8_t, 32> transcript_hash);

/// HKDF-Extract under `alg` into `prk`, which must hold digest_size(alg) bytes (a wrong
/// size aborts: a bug). An empty salt means digest_size(alg) zero bytes.
void hkdf_extract(DigestAlgorithm alg, std::span<const std::uint8_t> salt,
                  std::span<const std::uint8_t> ikm, std::span<std::uint8_t> prk);

/// HKDF-Expand under `alg` into `out` (1..255·digest_size bytes); false outside that range.
bool hkdf_expand(DigestAlgorithm alg, std::span<const std::uint8_t> prk,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

/// HKDF-Expand-Label under `alg`; same limits as the SHA-256 form.
bool hkdf_expand_label(DigestAlgorithm alg, std::span<const std::uint8_t> secret,
                       std::string_view label, std::span<const std::uint8_t> context,
                       std::span<std::uint8_t> out);

}  // namespace qeli::crypto
