// A gap in the process's own wake-ups longer than the liveness deadline (suspend, SIGSTOP)
// ends a UDP session at once instead of after another liveness interval.
#include "engine/stall_detector.h"

#include <gtest/gtest.h>

namespace qeli::engine {
namespace {

using std::chrono::seconds;

TEST(StallDetector, AGapLongerThanTheLimitIsAStall) {
  StallDetector d(seconds(30));
  EXPECT_FALSE(d.stalled(seconds(100))) << "the first report only starts the clock";
  EXPECT_FALSE(d.stalled(seconds(101)));
  EXPECT_FALSE(d.stalled(seconds(130))) << "29 s: a slow wake-up, not a stall";
  EXPECT_TRUE(d.stalled(seconds(175)));
  EXPECT_EQ(d.last_gap(), seconds(45));
  EXPECT_FALSE(d.stalled(seconds(176))) << "measured from the last wake-up again";
  StallDetector off(Duration::zero());
  EXPECT_FALSE(off.stalled(seconds(1)));
  EXPECT_FALSE(off.stalled(seconds(1000)));
}

TEST(StallDetector, BoottimeAdvances) {
  const Duration a = boottime_now();
  const Duration b = boottime_now();
  EXPECT_GE(b, a);
  EXPECT_GT(a, Duration::zero());
}

}  // namespace
}  // namespace qeli::engine
