#include "server/token_bucket.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

const Instant t0 = Instant{} + Seconds(1000);

TEST(TokenBucket, BurstThenOnePerInterval) {
  TokenBucket b(3, Millis(100));
  EXPECT_TRUE(b.full(t0));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.take(t0)) << i;
  EXPECT_FALSE(b.available(t0));
  EXPECT_FALSE(b.take(t0));
  EXPECT_FALSE(b.take(t0 + Millis(99)));  // a refused take costs nothing...
  EXPECT_TRUE(b.take(t0 + Millis(100)));  // ...so the token is there on time
  EXPECT_FALSE(b.take(t0 + Millis(150)));
  EXPECT_FALSE(b.full(t0 + Millis(399)));
  EXPECT_TRUE(b.full(t0 + Millis(400)));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.take(t0 + Millis(400))) << i;
}

TEST(TokenBucket, PerWindowAllowsMaxPerWindowSustained) {
  TokenBucket b = TokenBucket::per_window(10, Seconds(60));
  int admitted = 0;
  // One attempt a second for ten minutes: 10 at once, then one every 6 s.
  for (int s = 0; s < 600; ++s) admitted += b.take(t0 + Seconds(s)) ? 1 : 0;
  EXPECT_EQ(admitted, 10 + (600 - 1) / 6);
}

// The UDP workers' budgets (pre-auth crypto 500/s, roaming opens 2000/s): a rate above 1
// per second must not truncate to an unlimited bucket.
TEST(TokenBucket, PerSecondHoldsRatesAboveOne) {
  for (const std::uint32_t rate : {500U, 2000U}) {
    auto b = TokenBucket::per_second(64, rate);
    int taken = 0;
    for (int i = 0; i < 100000; ++i) taken += b.take(t0) ? 1 : 0;
    EXPECT_EQ(taken, 64) << rate;
    // Asking every 50 µs for one simulated second: `rate` more (± 1), not one per ask.
    taken = 0;
    for (int us = 50; us <= 1'000'000; us += 50) {
      taken += b.take(t0 + std::chrono::microseconds(us)) ? 1 : 0;
    }
    EXPECT_NEAR(taken, static_cast<int>(rate), 1) << rate;
  }
}

TEST(TokenBucket, ZeroBurstIsOne) {
  TokenBucket b(0, Seconds(1));
  EXPECT_TRUE(b.take(t0));
  EXPECT_FALSE(b.take(t0));
  EXPECT_TRUE(b.take(t0 + Seconds(1)));
}

}  // namespace
}  // namespace qeli::server
