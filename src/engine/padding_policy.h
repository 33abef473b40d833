// PaddingPolicy: how many random padding bytes go inside each data record's AEAD
// (qeli 0.7.16 `obf.padding.*`, pushed to clients in AUTH OK `obfuscation.padding`).
// Padding is capped so data + padding never exceeds the tunnel MTU, so full-size packets
// get none — as in 0.7.16.
#pragma once

#include <array>
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
  /// Traffic normalisation (`obf.traffic_normalization`, pushed): data + padding is
  /// rounded up to the next of these sizes (ascending; 0 entries = off) that fits the
  /// MTU, so record sizes fall into a few buckets. 0.7.16 appends the bytes to the IP
  /// packet itself; we put them in the record's padding, which every peer strips, so a
  /// 0.7.16 peer reads them the same way and no receiver relies on IP-length trimming.
  static constexpr std::size_t kMaxRoundSizes = 16;
  std::array<std::uint16_t, kMaxRoundSizes> round_sizes{};
  std::size_t round_count = 0;

  /// Sets round_sizes from a list (sorted, at most kMaxRoundSizes, zeros skipped).
  template <class Sizes>
  void set_round_sizes(const Sizes& sizes);

  /// Padding for a record carrying `data_len` bytes in a tunnel of MTU `mtu` bytes.
  std::size_t pick(std::size_t data_len, std::size_t mtu, crypto::Rng& rng) const;
  /// The largest value pick() can return (for buffer tailroom).
  std::size_t max() const {
    const std::size_t random = enabled ? max_bytes : 0;
    const std::size_t round = round_count > 0 ? round_sizes[round_count - 1] : 0;
    return random > round ? random : round;
  }
};

template <class Sizes>
void PaddingPolicy::set_round_sizes(const Sizes& sizes) {
  round_count = 0;
  for (const auto v : sizes) {
    if (v == 0 || v > 0xffff || round_count == kMaxRoundSizes) continue;
    std::size_t i = round_count++;
    while (i > 0 && round_sizes[i - 1] > v) {  // insertion sort: a handful of entries
      round_sizes[i] = round_sizes[i - 1];
      --i;
    }
    round_sizes[i] = static_cast<std::uint16_t>(v);
  }
}

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
