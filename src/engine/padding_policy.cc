#include "engine/padding_policy.h"

#include <algorithm>

namespace qeli::engine {

std::size_t PaddingPolicy::pick(std::size_t data_len, std::size_t mtu, crypto::Rng& rng) const {
  if (data_len >= mtu) return 0;
  std::size_t pad = 0;
  bool roll_ok = true;
  if (enabled && max_bytes > 0 && probability < 1.0) {
    const auto roll = static_cast<double>(rng.uniform(0, 1'000'000)) / 1'000'000.0;
    roll_ok = roll < probability;
  }
  if (enabled && max_bytes > 0 && roll_ok) {
    pad = randomize
              ? static_cast<std::size_t>(rng.uniform(std::min(min_bytes, max_bytes), max_bytes))
              : max_bytes;
    pad = std::min(pad, mtu - data_len);
  }
  // Normalisation: up to the next round size that fits the MTU (none fits: as it is).
  for (std::size_t i = 0; i < round_count; ++i) {
    const std::size_t target = round_sizes[i];
    if (target > mtu) break;
    if (target >= data_len + pad) return target - data_len;
  }
  return pad;
}

std::uint64_t HeartbeatPolicy::liveness_ms() const {
  if (!enabled) return 0;
  return std::max<std::uint64_t>(30'000, 3ULL * (interval_ms + jitter_ms));
}

}  // namespace qeli::engine
