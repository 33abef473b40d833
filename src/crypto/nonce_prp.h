// The qeli wire nonce: a keyed 96-bit permutation (PRP) of seed(4) ‖ counter_be(8), so
// the per-record counter never shows on the wire. qeli 0.7.16 `packet.rs`;
// docs/PROTOCOL.md "Data records"; vectors: fixtures/qeli-conformance/prp-nonce.json.
//
//   prp_key = SHA-256("qeli-nonce-prp-v1" ‖ aead_key)
//   x = L(6) ‖ R(6);  for round i in 0..3:  L, R = R, L ⊕ F_i(R)
//   F_i(R) = SHA-256(prp_key ‖ i ‖ R)[0..6]
//   nonce = L ‖ R
//
// permute() is on the data path (one call per record): it makes no heap allocation and
// takes four SHA-256 compressions (≈ 0.3 µs with SHA-NI).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "crypto/secret_bytes.h"

namespace qeli::crypto {

using Nonce12 = std::array<std::uint8_t, 12>;

class NoncePrp {
 public:
  /// `aead_key` is the 32-byte ChaCha20-Poly1305 key of the direction.
  explicit NoncePrp(std::span<const std::uint8_t, 32> aead_key);
  /// From an already derived 32-byte prp_key (the form the reference vectors use).
  struct FromPrpKey {};
  NoncePrp(FromPrpKey, std::span<const std::uint8_t, 32> prp_key);
  ~NoncePrp();
  NoncePrp(const NoncePrp&) = delete;
  NoncePrp& operator=(const NoncePrp&) = delete;

  /// The permuted nonce of the 12-byte block seed ‖ counter_be. Thread-safe (const, no
  /// shared state), allocation-free.
  Nonce12 permute(std::span<const std::uint8_t, 4> seed, std::uint64_t counter) const;
  /// The permutation of an arbitrary 12-byte block.
  Nonce12 permute_block(std::span<const std::uint8_t, 12> block) const;
  /// The inverse: invert_block(permute_block(b)) == b. Allocation-free, four SHA-256
  /// compressions (a UDP server reads a roaming client's connection id out of a nonce).
  std::array<std::uint8_t, 12> invert_block(std::span<const std::uint8_t, 12> nonce) const;

 private:
  Key32 prp_key_;
};

}  // namespace qeli::crypto
