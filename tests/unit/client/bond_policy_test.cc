// The client's stream-bonding policy (0.7.16 §3.8): FIXED wants every stream at once;
// ADAPTIVE adds one while each addition pays (>10 % over the best rate, above 250 kB/s),
// skips the grace window after each add, and stops at the first plateau.
#include "client/core/bond_policy.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

using std::chrono::seconds;

TEST(BondPolicy, FixedWantsEveryStreamAndIgnoresLoad) {
  BondPolicy p(4, false);
  EXPECT_EQ(p.target(), 4U);
  const Instant t0{};
  p.on_sample(0, t0);
  p.on_sample(100'000'000, t0 + seconds(3));
  EXPECT_EQ(p.target(), 4U);
}

TEST(BondPolicy, AdaptiveStartsWithOneAndStaysThereWhenIdle) {
  BondPolicy p(4, true);
  EXPECT_EQ(p.target(), 1U);
  Instant t{};
  std::uint64_t bytes = 0;
  for (int i = 0; i < 10; ++i) {
    p.on_sample(bytes, t);
    bytes += 100'000 * 3;  // 100 kB/s: under the 250 kB/s floor
    t += seconds(3);
  }
  EXPECT_EQ(p.target(), 1U);
}

TEST(BondPolicy, AdaptiveGrowsWhileItPaysThenStopsAtThePlateau) {
  BondPolicy p(4, true);
  Instant t{};
  std::uint64_t bytes = 0;
  auto window = [&](double mb_per_s) {
    bytes += static_cast<std::uint64_t>(mb_per_s * 1e6 * 3);
    t += seconds(3);
    p.on_sample(bytes, t);
  };
  p.on_sample(0, t);  // baseline
  window(1.0);        // loaded: first add
  EXPECT_EQ(p.target(), 2U);
  window(1.5);  // grace: not judged
  EXPECT_EQ(p.target(), 2U);
  window(2.0);  // 2.0 > 1.1 × 1.0: add
  EXPECT_EQ(p.target(), 3U);
  window(2.0);  // grace
  window(2.1);  // 2.1 < 1.1 × 2.0: plateau
  EXPECT_EQ(p.target(), 3U);
  window(9.0);  // a plateau is final for the session
  window(9.0);
  EXPECT_EQ(p.target(), 3U);
}

TEST(BondPolicy, AdaptiveNeverPassesMaxStreams) {
  BondPolicy p(2, true);
  Instant t{};
  std::uint64_t bytes = 0;
  p.on_sample(0, t);
  for (int i = 1; i < 10; ++i) {
    bytes += static_cast<std::uint64_t>(i) * 10'000'000;
    t += seconds(3);
    p.on_sample(bytes, t);
  }
  EXPECT_EQ(p.target(), 2U);
}

TEST(BondPolicy, ACounterThatWentBackOnlyResetsTheBaseline) {
  BondPolicy p(4, true);
  Instant t{};
  p.on_sample(50'000'000, t);
  p.on_sample(10, t + seconds(3));  // a new session's counters
  EXPECT_EQ(p.target(), 1U);
  p.on_sample(10 + 3'000'000, t + seconds(6));
  EXPECT_EQ(p.target(), 2U);
}

}  // namespace
}  // namespace qeli::client
