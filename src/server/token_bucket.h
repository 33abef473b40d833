// TokenBucket: a rate limit held in one Instant (the generic cell rate algorithm, GCRA —
// ITU-T I.371 §4.4.2; the same as a token bucket of `burst` tokens refilled one per
// `interval`, without a refill loop or floating point). Sans-I/O: the caller passes `now`.
// Not thread-safe: the owner serialises calls (a worker thread, or a lock around it).
#pragma once

#include <cstdint>

#include "base/clock.h"

namespace qeli::server {

class TokenBucket {
 public:
  /// `burst` tokens at most (0 is taken as 1), one more every `interval` (> 0).
  TokenBucket(std::uint32_t burst, Duration interval);
  /// `max` per `window`: a burst of `max`, then one every window / max.
  static TokenBucket per_window(std::uint32_t max, Duration window);
  /// A burst of `burst`, then `rate` a second (> 0). The interval is computed in
  /// nanoseconds: `seconds(1) / rate` would truncate to zero for any rate above 1.
  static TokenBucket per_second(std::uint32_t burst, std::uint32_t rate);

  /// Takes one token if there is one at `now`. True = taken.
  bool take(Instant now);
  /// True if take(now) would succeed (nothing is taken).
  bool available(Instant now) const;
  /// True when the bucket is full again at `now`: it holds no history and may be forgotten.
  bool full(Instant now) const { return tat_ <= now; }

 private:
  Duration interval_;
  Duration tolerance_;  ///< (burst - 1) × interval: how far ahead of `now` tat_ may run
  Instant tat_{};       ///< the "theoretical arrival time" of the next conforming take
};

}  // namespace qeli::server
