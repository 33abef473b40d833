// BondPolicy: how many bonded TCP streams a client wants (qeli 0.7.16 §3.8). The server
// pushes max_streams and multipath_adaptive in AUTH OK:
//   FIXED     all max_streams at once, and a lost one is opened again;
//   ADAPTIVE  start with one; every kSamplePeriod look at the bytes moved both ways and
//             add a stream only when the load is above kAdaptiveMinLoad bytes/s and the
//             rate beat the best so far by more than 10 % (the window right after an add
//             is its grace: not judged); stop adding at the first plateau.
// Sans-I/O: the caller samples the session's byte counters and opens streams until
// target() are live.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "base/clock.h"

namespace qeli::client {

class BondPolicy {
 public:
  static constexpr std::chrono::seconds kSamplePeriod{3};
  static constexpr std::uint64_t kAdaptiveMinLoad = 250'000;  ///< bytes per second

  BondPolicy(std::size_t max_streams, bool adaptive);

  /// Streams wanted now (1..max_streams).
  std::size_t target() const { return target_; }
  bool adaptive() const { return adaptive_; }
  /// One sample: `total_bytes` moved both ways since the session began, at `now`.
  /// Call about every kSamplePeriod; the first call only sets the baseline.
  void on_sample(std::uint64_t total_bytes, Instant now);

 private:
  const std::size_t max_;
  const bool adaptive_;
  std::size_t target_;
  bool have_sample_ = false;
  std::uint64_t last_bytes_ = 0;
  Instant last_at_{};
  double best_rate_ = 0;
  bool grace_ = false;
  bool plateau_ = false;
};

}  // namespace qeli::client
