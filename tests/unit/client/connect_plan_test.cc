#include "client/core/connect_plan.h"

#include <gtest/gtest.h>

#include <vector>

namespace qeli::client {
namespace {

struct FakeClock final : Clock {
  Instant t = Instant{} + Seconds(100);
  Instant now() const override { return t; }
};

TEST(ConnectPlan, ShareOfWhatIsLeft) {
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(0), 3, 0), Seconds(10));
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(1), 3, 1), Millis(14500));  // 29 s / 2
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(20), 3, 2), Seconds(10));
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(30), 3, 2), Duration::zero());
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(0), 3, 3), Duration::zero());
  EXPECT_EQ(attempt_share(Seconds(30), Seconds(0), 1, 0), Seconds(30));
}

// Three addresses, 30 s: a silent one uses its whole share, one that refuses at once
// leaves its time to the last, which answers.
TEST(ConnectPlan, TriesEachInTurnWithItsShare) {
  FakeClock clock;
  std::vector<Duration> shares;
  auto got = try_in_turn(3, Seconds(30), clock, [&](std::size_t i, Duration share) {
    shares.push_back(share);
    if (i == 0) {
      clock.t += share;  // no answer within the share
      return AttemptResult::kNoAnswer;
    }
    if (i == 1) {
      clock.t += Millis(2);  // refused at once
      return AttemptResult::kNoAnswer;
    }
    clock.t += Millis(300);
    return AttemptResult::kConnected;
  });
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, 2U);
  ASSERT_EQ(shares.size(), 3U);
  EXPECT_EQ(shares[0], Seconds(10));
  EXPECT_EQ(shares[1], Seconds(10));
  EXPECT_EQ(shares[2], Seconds(20) - Millis(2));  // all that is left, for the last one
}

TEST(ConnectPlan, StopEndsTheTries) {
  FakeClock clock;
  int calls = 0;
  auto got = try_in_turn(3, Seconds(30), clock, [&](std::size_t, Duration) {
    ++calls;
    return AttemptResult::kStop;
  });
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(calls, 1);
}

TEST(ConnectPlan, NobodyAnswersWithinTheBudget) {
  FakeClock clock;
  int calls = 0;
  auto got = try_in_turn(2, Seconds(30), clock, [&](std::size_t, Duration share) {
    ++calls;
    clock.t += share + Seconds(20);  // an attempt that overran the whole budget
    return AttemptResult::kNoAnswer;
  });
  EXPECT_FALSE(got.has_value());
  EXPECT_EQ(calls, 1);  // nothing left for the second
}

TEST(ConnectPlan, NoAddressNoAttempt) {
  FakeClock clock;
  auto got = try_in_turn(0, Seconds(30), clock, [](std::size_t, Duration) {
    ADD_FAILURE() << "no attempt expected";
    return AttemptResult::kConnected;
  });
  EXPECT_FALSE(got.has_value());
}

}  // namespace
}  // namespace qeli::client
