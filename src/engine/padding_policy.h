// PaddingPolicy: how many random padding bytes go inside each data record's AEAD
// (qeli 0.7.16 `obf.padding.*`, pushed to clients in AUTH OK `obfuscation.padding`).
// Padding is capped so data + padding never exceeds the tunnel MTU, so full-size packets
// get none — as in 0.7.16.
#pragma once

#include <cstddef>
#include <cstdint>

#include "crypto/random.h"

namespace qeli::engine {

struct PaddingPolicy {
  bool enabled = false;
  std::size_t min_bytes = 32;
  std::size_t max_bytes = 512;
  bool randomize = true;     ///< uniform in [min, max]; false = always max
  double probability = 1.0;  ///< chance that a record is padded at all, 0..1

  /// Padding for a record carrying `data_len` bytes in a tunnel of MTU `mtu` bytes.
  std::size_t pick(std::size_t data_len, std::size_t mtu, crypto::Rng& rng) const;
  /// The largest value pick() can return (for buffer tailroom).
  std::size_t max() const { return enabled ? max_bytes : 0; }
};

/// Heartbeat (`obf.heartbeat.*`): an empty record with 16..48 random padding bytes sent
/// when nothing was sent for `interval_ms` (+ 0..jitter_ms).
struct HeartbeatPolicy {
  bool enabled = true;
  std::uint32_t interval_ms = 15000;
  std::uint32_t data_size_bytes = 16;
  std::uint32_t jitter_ms = 20;

  /// Receive-silence deadline (reference §3.6): max(30 s, 3 × (interval + jitter)) in ms;
  /// 0 = no deadline (heartbeat off).
  std::uint64_t liveness_ms() const;
};

}  // namespace qeli::engine
