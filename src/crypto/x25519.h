// X25519 Diffie-Hellman (RFC 7748 §5, §6.1) over OpenSSL libcrypto.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "crypto/random.h"
#include "crypto/secret_bytes.h"

namespace qeli::crypto {

inline constexpr std::size_t kX25519KeySize = 32;
using X25519Public = std::array<std::uint8_t, kX25519KeySize>;

struct X25519KeyPair {
  Key32 private_key;  // 32-byte scalar (clamped by X25519 itself, RFC 7748 §5)
  X25519Public public_key;
};

/// A fresh key pair with the private scalar drawn from `rng`.
X25519KeyPair x25519_generate(Rng& rng);

/// The public key X25519(private, 9) of a 32-byte private scalar.
X25519Public x25519_public(std::span<const std::uint8_t, 32> private_key);

/// The shared secret X25519(private, peer_public) (RFC 7748 §6.1). Returns nullopt when
/// the result is all zero — `peer_public` was a low-order point (RFC 7748 §6.1 "check")
/// — so a peer cannot force a known secret.
std::optional<Key32> x25519(std::span<const std::uint8_t, 32> private_key,
                            std::span<const std::uint8_t, 32> peer_public);

}  // namespace qeli::crypto
