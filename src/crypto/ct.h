// Constant-time helpers for secrets (MACs, proofs, tokens, key pins).
#pragma once

#include <cstdint>
#include <span>

namespace qeli::crypto {

/// True iff `a` and `b` have the same length and the same bytes. The time taken depends
/// only on the lengths, never on the contents (OpenSSL CRYPTO_memcmp).
bool ct_equal(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b);

/// True iff every byte of `a` is zero, in time independent of the contents.
bool ct_is_zero(std::span<const std::uint8_t> a);

}  // namespace qeli::crypto
