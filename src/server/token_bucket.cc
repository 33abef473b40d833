#include "server/token_bucket.h"

#include <algorithm>

namespace qeli::server {

TokenBucket::TokenBucket(std::uint32_t burst, Duration interval)
    : interval_(std::max(interval, Duration{1})),
      tolerance_(interval_ * (static_cast<std::int64_t>(std::max<std::uint32_t>(burst, 1)) - 1)) {}

TokenBucket TokenBucket::per_second(std::uint32_t burst, std::uint32_t rate) {
  return TokenBucket(burst,
                     std::chrono::duration_cast<Duration>(std::chrono::nanoseconds(1'000'000'000) /
                                                          std::max<std::uint32_t>(rate, 1)));
}

TokenBucket TokenBucket::per_window(std::uint32_t max, Duration window) {
  const std::uint32_t n = std::max<std::uint32_t>(max, 1);
  return TokenBucket(n, window / static_cast<std::int64_t>(n));
}

bool TokenBucket::available(Instant now) const { return tat_ - now <= tolerance_; }

bool TokenBucket::take(Instant now) {
  if (!available(now)) return false;
  tat_ = std::max(tat_, now) + interval_;
  return true;
}

}  // namespace qeli::server
