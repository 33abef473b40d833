// The REALITY session_id token of qeli 0.7.16 (reference §4.1; docs/PROTOCOL.md
// "REALITY token"). The 32-byte legacy_session_id of the ClientHello is
//
//   shared    = X25519(client ephemeral, profile identity key)   (the 0x001D key share)
//   key ‖ iv  = HKDF-SHA256(salt = none, IKM = shared, info "qeli-reality-sid-v1", 44)
//   token     = ChaCha20-Poly1305(key, iv, aad = none, short_id(8) ‖ unix_secs u64 LE)
//             = 16 ciphertext bytes ‖ 16-byte tag
//
// The client's shared secret is the same value as its static-bound `es`, so the pinned
// server key is all it needs. The ephemeral must be single-use (a fresh one per hello):
// (key, iv) is a function of it. The time window and the short-id allow-list are the
// server's policy (server/reality_gate.h), not this codec's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace qeli::wire {

inline constexpr std::size_t kRealityTokenSize = 32;
inline constexpr std::size_t kRealityShortIdSize = 8;
/// ±120 s (REALITY_WINDOW_SECS) and the replay memory of twice that.
inline constexpr std::uint64_t kRealityWindowSecs = 120;
inline constexpr std::uint64_t kRealityReplaySecs = 2 * kRealityWindowSecs;

using RealityToken = std::array<std::uint8_t, kRealityTokenSize>;
using RealityShortId = std::array<std::uint8_t, kRealityShortIdSize>;

/// Seals (short_id, unix_secs) under `shared` (32 bytes, X25519 result).
RealityToken seal_reality_token(std::span<const std::uint8_t, 32> shared,
                                const RealityShortId& short_id, std::uint64_t unix_secs);

struct RealityTokenContents {
  RealityShortId short_id{};
  std::uint64_t unix_secs = 0;
};

/// Opens a token; nullopt when it does not authenticate under `shared`.
std::optional<RealityTokenContents> open_reality_token(std::span<const std::uint8_t, 32> shared,
                                                       std::span<const std::uint8_t, 32> token);

/// |now − t| ≤ window, without overflow.
constexpr bool within_window(std::uint64_t now, std::uint64_t t,
                             std::uint64_t window = kRealityWindowSecs) {
  return (now > t ? now - t : t - now) <= window;
}

}  // namespace qeli::wire
