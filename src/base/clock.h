// Time for sans-I/O code: protocol state machines never read a clock; the caller passes
// `now` in (an Instant from a monotonic clock) and receives deadlines back.
#pragma once

#include <chrono>

namespace qeli {

using Instant = std::chrono::steady_clock::time_point;
using Duration = std::chrono::steady_clock::duration;
using Millis = std::chrono::milliseconds;
using Seconds = std::chrono::seconds;

/// The clock the I/O layers use; tests substitute a fake.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Instant now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  Instant now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace qeli
