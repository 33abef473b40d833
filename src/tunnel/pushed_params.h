// The data-plane parameters a server pushes in AUTH OK's `obfuscation` object (reference
// qeli-0.7.16.md §3.4, §3.6; docs/PROTOCOL.md "AUTH OK"): padding, heartbeat, traffic
// normalization and shaping. One typed form for the whole program — the server builds it
// from its profile (server/session_policy), the client from its fallbacks overridden by
// what was pushed — and one JSON codec (pushed_params.cc), so the wire object and what
// the tunnel does with it cannot drift apart.
//
// Units are in the types (std::chrono), byte counts are bytes.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/random.h"

namespace qeli::tunnel {

/// Random padding inside each data record's AEAD (`obf.padding.*`). Padding is capped so
/// data + padding never exceeds the tunnel MTU, so full-size packets get none (0.7.16).
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
  /// A fixed array: the policy is copied per session and never allocates.
  static constexpr std::size_t kMaxRoundSizes = 16;
  std::array<std::uint16_t, kMaxRoundSizes> round_sizes{};
  std::size_t round_count = 0;

  /// Sets round_sizes from a list (sorted, at most kMaxRoundSizes, zeros and values
  /// over 65535 skipped).
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
  friend bool operator==(const PaddingPolicy&, const PaddingPolicy&) = default;
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

/// Heartbeat (`obf.heartbeat.*`): an empty record with data_size..data_size+32 random
/// padding bytes, sent when nothing was sent for `interval` (+ 0..jitter).
struct HeartbeatPolicy {
  bool enabled = true;
  std::chrono::milliseconds interval{15000};
  std::uint32_t data_size_bytes = 16;
  std::chrono::milliseconds jitter{20};

  /// Receive-silence deadline (reference §3.6): max(30 s, 3 × (interval + jitter));
  /// zero = no deadline (heartbeat off).
  std::chrono::milliseconds liveness() const;
  friend bool operator==(const HeartbeatPolicy&, const HeartbeatPolicy&) = default;
};

/// `obf.traffic_normalization.*`: pushed, and applied as PaddingPolicy::round_sizes
/// (SessionParams::apply).
struct NormalizationParams {
  bool enabled = false;
  std::vector<std::uint32_t> round_sizes{64, 128, 256, 512, 1024, 1500};
  friend bool operator==(const NormalizationParams&, const NormalizationParams&) = default;
};

/// `obf.traffic_shaping.*` (pushed for 0.7.16 clients; not applied by this build).
struct ShapingParams {
  bool enabled = false;
  std::chrono::milliseconds idle_gap_mean{700};
  std::chrono::milliseconds idle_gap_min{40};
  std::chrono::milliseconds idle_gap_max{6000};
  std::uint32_t budget_bytes_per_sec = 16384;
  std::uint32_t min_size = 64;
  std::uint32_t max_size = 1024;
  bool stealth = false;
  std::uint32_t stealth_rate_mbps = 2;
  friend bool operator==(const ShapingParams&, const ShapingParams&) = default;
};

struct PushedParams {
  PaddingPolicy padding;
  HeartbeatPolicy heartbeat;
  NormalizationParams normalization;
  ShapingParams shaping;
  friend bool operator==(const PushedParams&, const PushedParams&) = default;
};

/// The `obfuscation` JSON object as the server sends it (keys sorted, as 0.7.16's serde
/// output is read by key, never by position).
std::string to_json(const PushedParams& p);

/// What a client applies: `fallback` (its own config), overridden key by key by what
/// `json` carries (an absent key, a wrong type or unparseable JSON keeps the fallback),
/// then clamped to sane values — a hostile server must not make us pad 1 MB or beat
/// every millisecond: padding ≤ 4096 bytes and min ≤ max, probability in 0..1,
/// interval ≥ 1 s, jitter < interval, heartbeat padding ≤ 1024 bytes.
PushedParams parse_pushed_params(std::string_view json, const PushedParams& fallback);

}  // namespace qeli::tunnel
