#include "engine/padding_policy.h"

#include <algorithm>

namespace qeli::engine {

std::size_t PaddingPolicy::pick(std::size_t data_len, std::size_t mtu, crypto::Rng& rng) const {
  if (!enabled || max_bytes == 0 || data_len >= mtu) return 0;
  if (probability < 1.0) {
    const auto roll = static_cast<double>(rng.uniform(0, 1'000'000)) / 1'000'000.0;
    if (roll >= probability) return 0;
  }
  std::size_t pad =
      randomize ? static_cast<std::size_t>(rng.uniform(std::min(min_bytes, max_bytes), max_bytes))
                : max_bytes;
  return std::min(pad, mtu - data_len);
}

std::uint64_t HeartbeatPolicy::liveness_ms() const {
  if (!enabled) return 0;
  return std::max<std::uint64_t>(30'000, 3ULL * (interval_ms + jitter_ms));
}

}  // namespace qeli::engine
