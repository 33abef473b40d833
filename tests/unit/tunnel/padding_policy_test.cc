// PaddingPolicy with traffic normalisation (obf.traffic_normalization): records round up
// to the next configured size that fits the MTU, on top of the random padding; without
// round sizes nothing changes; tailroom covers the largest size.
#include "tunnel/pushed_params.h"

#include <gtest/gtest.h>

#include <vector>

#include "crypto/random.h"
#include "tunnel/session.h"

namespace qeli::tunnel {
namespace {

TEST(PaddingPolicy, NormalisationRoundsUpToTheNextSizeThatFits) {
  PaddingPolicy p;
  p.enabled = false;
  p.set_round_sizes(std::vector<std::uint32_t>{1500, 64, 256, 128, 512, 1024});
  ASSERT_EQ(p.round_count, 6U);
  EXPECT_EQ(p.round_sizes[0], 64);
  crypto::Rng& rng = crypto::system_rng();
  EXPECT_EQ(p.pick(10, 1400, rng), 54U);     // 10 → 64
  EXPECT_EQ(p.pick(64, 1400, rng), 0U);      // already round
  EXPECT_EQ(p.pick(300, 1400, rng), 212U);   // → 512
  EXPECT_EQ(p.pick(1100, 1400, rng), 0U);    // 1500 does not fit the MTU: as it is
  EXPECT_EQ(p.pick(1100, 1500, rng), 400U);  // it does here
  EXPECT_EQ(p.max(), 1500U);
}

TEST(PaddingPolicy, NormalisationComesOnTopOfRandomPadding) {
  PaddingPolicy p;
  p.enabled = true;
  p.min_bytes = 32;
  p.max_bytes = 64;
  p.set_round_sizes(std::vector<std::uint32_t>{128, 256, 512});
  crypto::Rng& rng = crypto::system_rng();
  for (int i = 0; i < 200; ++i) {
    const std::size_t total = 50 + p.pick(50, 1400, rng);
    EXPECT_TRUE(total == 128 || total == 256) << total;  // 82..114 → 128
  }
}

TEST(PaddingPolicy, WithoutRoundSizesNothingChanges) {
  PaddingPolicy p;
  p.enabled = false;
  crypto::Rng& rng = crypto::system_rng();
  EXPECT_EQ(p.pick(10, 1400, rng), 0U);
  EXPECT_EQ(p.max(), 0U);
  p.set_round_sizes(std::vector<std::uint32_t>{0, 0});
  EXPECT_EQ(p.round_count, 0U);
}

// The pushed normalization reaches the sender's padding (both ends build it this way).
TEST(PaddingPolicy, SessionParamsApplyTheNormalizationRoundSizes) {
  PushedParams pushed;
  pushed.normalization.enabled = true;
  pushed.normalization.round_sizes = {256, 64};
  SessionParams sp;
  sp.apply(pushed);
  ASSERT_EQ(sp.send.padding.round_count, 2U);
  EXPECT_EQ(sp.send.padding.round_sizes[0], 64);
  EXPECT_EQ(sp.send.padding.max(), 256U);
  pushed.normalization.enabled = false;
  sp.apply(pushed);
  EXPECT_EQ(sp.send.padding.round_count, 0U);
}

}  // namespace
}  // namespace qeli::tunnel
