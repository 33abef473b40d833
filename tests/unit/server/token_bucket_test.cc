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

TEST(TokenBucket, ZeroBurstIsOne) {
  TokenBucket b(0, Seconds(1));
  EXPECT_TRUE(b.take(t0));
  EXPECT_FALSE(b.take(t0));
  EXPECT_TRUE(b.take(t0 + Seconds(1)));
}

}  // namespace
}  // namespace qeli::server
