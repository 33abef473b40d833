// FakeClock: a base::Clock whose time moves only when a test says so (advance/set).
// Thread-safe (an atomic tick count), so a loop thread may read it while the test moves it.
#pragma once

#include <atomic>

#include "base/clock.h"

namespace qeli::test {

class FakeClock final : public Clock {
 public:
  /// Starts at an arbitrary, fixed instant (far from the epoch: no underflow when tests
  /// subtract).
  FakeClock() : ticks_(std::chrono::duration_cast<Duration>(std::chrono::hours(1000)).count()) {}
  Instant now() const override { return Instant(Duration(ticks_.load())); }
  void advance(Duration d) { ticks_.fetch_add(d.count()); }
  void set(Instant t) { ticks_.store(t.time_since_epoch().count()); }

 private:
  std::atomic<Duration::rep> ticks_;
};

}  // namespace qeli::test
