#include "engine/stall_detector.h"

#include <time.h>

namespace qeli::engine {

bool StallDetector::stalled(Duration boot_now) {
  const bool first = !started_;
  const Duration gap = boot_now - last_;
  started_ = true;
  last_ = boot_now;
  if (first || limit_ <= Duration::zero() || gap <= limit_) return false;
  gap_ = gap;
  return true;
}

Duration boottime_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return std::chrono::duration_cast<Duration>(std::chrono::seconds(ts.tv_sec) +
                                              std::chrono::nanoseconds(ts.tv_nsec));
}

}  // namespace qeli::engine
