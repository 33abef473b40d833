// RoamIndex: connection ids → sessions across a UDP profile's workers (server/roam_index.h).
#include "server/roam_index.h"

#include <gtest/gtest.h>

#include "fakes/test_keys.h"

namespace qeli::server {
namespace {

using test::key_of;

TEST(RoamIndex, FindsTheWindowOfEpochsOnly) {
  RoamIndex idx;
  int a = 0;
  const crypto::Key32 s = key_of(1);
  idx.publish(&a, 1, s, 0);
  for (std::uint32_t e = 0; e <= wire::kRoamWindow; ++e) {
    const auto hit = idx.find(wire::roam_cid(s, e));
    ASSERT_TRUE(hit) << e;
    EXPECT_EQ(hit->peer, &a);
    EXPECT_EQ(hit->worker, 1U);
    EXPECT_EQ(hit->epoch, e);
  }
  EXPECT_FALSE(idx.find(wire::roam_cid(s, wire::kRoamWindow + 1)));
  EXPECT_FALSE(idx.find(wire::roam_cid(key_of(2), 0))) << "another session's secret";
}

TEST(RoamIndex, AMigrationMovesTheWindowAndTheOwner) {
  RoamIndex idx;
  int a = 0, b = 0;
  const crypto::Key32 sa = key_of(1), sb = key_of(40);
  idx.publish(&a, 0, sa, 0);
  idx.publish(&b, 0, sb, 0);
  idx.publish(&a, 1, sa, 3);  // a roamed at epoch 3, onto worker 1
  EXPECT_FALSE(idx.find(wire::roam_cid(sa, 2))) << "epochs behind the window are gone";
  ASSERT_TRUE(idx.find(wire::roam_cid(sa, 3 + wire::kRoamWindow)));
  EXPECT_EQ(idx.find(wire::roam_cid(sa, 3))->worker, 1U);
  idx.move(&a, 0);
  EXPECT_EQ(idx.find(wire::roam_cid(sa, 4))->worker, 0U);
  EXPECT_EQ(idx.find(wire::roam_cid(sb, 0))->peer, &b) << "the other session is untouched";
  EXPECT_EQ(idx.sessions(), 2U);
  idx.remove(&a);
  EXPECT_FALSE(idx.find(wire::roam_cid(sa, 3)));
  EXPECT_TRUE(idx.find(wire::roam_cid(sb, 0)));
  EXPECT_EQ(idx.sessions(), 1U);
  idx.remove(&a);  // twice: harmless
  idx.remove(&b);
  EXPECT_EQ(idx.sessions(), 0U);
}

}  // namespace
}  // namespace qeli::server
