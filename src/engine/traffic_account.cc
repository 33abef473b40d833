#include "engine/traffic_account.h"

#include <algorithm>
#include <cstdint>

namespace qeli::engine {
namespace {

std::int64_t ns_of(Instant t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// ns that `bytes` take at `rate` bytes/s (rate > 0), saturating.
constexpr std::int64_t kRefused = INT64_MIN;

std::int64_t cost_ns(std::uint64_t bytes, std::uint64_t rate) {
  // In double: bytes × 10^9 overflows 64 bits past 18 GB; 53 bits of precision are ample.
  const double ns = static_cast<double>(bytes) * 1e9 / static_cast<double>(rate);
  constexpr double kMax = static_cast<double>(INT64_MAX / 4);
  return ns >= kMax ? INT64_MAX / 4 : static_cast<std::int64_t>(ns);
}

}  // namespace

void RateLimiter::set(std::uint64_t bytes_per_sec, std::uint64_t burst_bytes) {
  tolerance_ns_.store(
      bytes_per_sec == 0 ? 0 : cost_ns(std::max<std::uint64_t>(burst_bytes, 1), bytes_per_sec),
      std::memory_order_relaxed);
  rate_.store(bytes_per_sec, std::memory_order_relaxed);
}

// One GCRA step: tat = when the charged bytes are paid for; the bucket holds `tol` of
// credit. `police`: take the bytes only if they fit (returns kRefused if not); otherwise always
// take them and return how far past the bucket the debt now runs (ns, ≤ 0 = none).
std::int64_t RateLimiter::step(std::uint64_t bytes, Instant now, bool police) {
  const std::uint64_t rate = rate_.load(std::memory_order_relaxed);
  if (rate == 0) return 0;
  const std::int64_t t = ns_of(now);
  const std::int64_t tol = tolerance_ns_.load(std::memory_order_relaxed);
  const std::int64_t cost = cost_ns(bytes, rate);
  std::int64_t tat = tat_ns_.load(std::memory_order_relaxed);
  std::int64_t next;
  do {
    // An idle bucket (tat in the past) starts from now: its credit never exceeds tol.
    next = std::max(tat, t) + cost;
    if (police && next - t > tol) return kRefused;
  } while (!tat_ns_.compare_exchange_weak(tat, next, std::memory_order_relaxed));
  return next - t - tol;
}

Duration RateLimiter::charge(std::uint64_t bytes, Instant now) {
  const std::int64_t ahead = step(bytes, now, false);
  return ahead > 0 ? std::chrono::nanoseconds(ahead) : Duration::zero();
}

bool RateLimiter::police(std::uint64_t bytes, Instant now) {
  return step(bytes, now, true) != kRefused;
}

}  // namespace qeli::engine
