// VerifyBudget's shares: unverified hellos hold half the login slots at most, verified
// ones may take any, and a slot goes back when its VerifySlot goes.
#include "server/verify_budget.h"

#include <gtest/gtest.h>

#include <vector>

namespace qeli::server {
namespace {

TEST(VerifyBudget, UnverifiedHellosFillHalfVerifiedOnesTheRest) {
  VerifyBudget b(64);
  EXPECT_EQ(b.unverified_limit(), 32U);
  std::vector<VerifySlot> held;
  for (int i = 0; i < 32; ++i) {
    auto s = VerifySlot::take(b, SlotShare::kUnverified);
    ASSERT_TRUE(s.has_value()) << i;
    held.push_back(std::move(*s));
  }
  EXPECT_FALSE(b.available(SlotShare::kUnverified));
  EXPECT_FALSE(VerifySlot::take(b, SlotShare::kUnverified).has_value());  // a flood stops here
  EXPECT_TRUE(b.available(SlotShare::kAll));
  for (int i = 0; i < 32; ++i) {
    auto s = VerifySlot::take(b, SlotShare::kAll);
    ASSERT_TRUE(s.has_value()) << i;
    held.push_back(std::move(*s));
  }
  EXPECT_EQ(b.in_use(), 64U);
  EXPECT_FALSE(VerifySlot::take(b, SlotShare::kAll).has_value());
  held.pop_back();
  EXPECT_FALSE(b.available(SlotShare::kUnverified));  // 63 in use: still over the share
  EXPECT_TRUE(b.available(SlotShare::kAll));
  held.clear();
  EXPECT_EQ(b.in_use(), 0U);
}

TEST(VerifyBudget, VerifiedHellosMayTakeTheUnverifiedShareToo) {
  VerifyBudget b(4);
  std::vector<VerifySlot> held;
  for (int i = 0; i < 4; ++i) held.push_back(*VerifySlot::take(b, SlotShare::kAll));
  EXPECT_FALSE(b.available(SlotShare::kUnverified));
  held.clear();
  EXPECT_TRUE(VerifySlot::take(b, SlotShare::kUnverified).has_value());
}

TEST(VerifyBudget, ASingleSlotIsEveryonesShare) {
  VerifyBudget b(1);
  EXPECT_EQ(b.unverified_limit(), 1U);
  auto s = VerifySlot::take(b, SlotShare::kUnverified);
  EXPECT_TRUE(s.has_value());
  EXPECT_FALSE(b.available(SlotShare::kAll));
}

}  // namespace
}  // namespace qeli::server
