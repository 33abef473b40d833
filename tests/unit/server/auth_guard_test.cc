// AuthGuard: IP lockout after max_attempts, tarpit growth capped at 3 s, success resets.
#include "server/auth_guard.h"

#include <gtest/gtest.h>

#include "crypto/argon2id.h"

namespace qeli::server {
namespace {

TEST(AuthGuard, LocksTheSourceOutAfterMaxAttemptsWithinTheWindow) {
  AuthGuard g({true, 3, std::chrono::seconds(300), std::chrono::seconds(900)});
  const Instant t0{};
  const std::uint32_t ip = 0x0a000001;
  for (int i = 0; i < 2; ++i) g.record_failure(ip, "bob", t0 + std::chrono::seconds(i));
  EXPECT_FALSE(g.locked_out(ip, t0 + std::chrono::seconds(3)));
  g.record_failure(ip, "bob", t0 + std::chrono::seconds(3));
  EXPECT_TRUE(g.locked_out(ip, t0 + std::chrono::seconds(4)));
  EXPECT_FALSE(g.locked_out(0x0a000002, t0 + std::chrono::seconds(4))) << "other sources";
  EXPECT_FALSE(g.locked_out(ip, t0 + std::chrono::seconds(3 + 901))) << "lockout expires";
}

TEST(AuthGuard, TarpitDoublesPerFailureUpToThreeSecondsAndNeverLocksTheName) {
  AuthGuard g({true, 2, std::chrono::seconds(300), std::chrono::seconds(900)});
  const Instant t0{};
  EXPECT_EQ(g.tarpit("alice", t0), Duration::zero());
  std::vector<Duration> seen;
  for (int i = 0; i < 8; ++i) {
    g.record_failure(0x0b000000 + static_cast<std::uint32_t>(i), "alice", t0);
    seen.push_back(g.tarpit("alice", t0));
  }
  EXPECT_EQ(seen[0], Duration::zero());
  EXPECT_EQ(seen[1], std::chrono::milliseconds(200));
  EXPECT_EQ(seen[2], std::chrono::milliseconds(400));
  EXPECT_EQ(seen[7], std::chrono::milliseconds(3000));
  g.record_success(0x0c000000, "alice");
  EXPECT_EQ(g.tarpit("alice", t0), Duration::zero());
}

TEST(AuthGuard, VerifiesRealHashesAndFailsUnknownUsersAfterEqualWork) {
  AuthGuard g({});
  const auto h = crypto::argon2id_hash("pw").value();
  EXPECT_TRUE(g.verify_password(h, "pw"));
  EXPECT_FALSE(g.verify_password(h, "pW"));
  EXPECT_FALSE(g.verify_password("", "pw"));
}

}  // namespace
}  // namespace qeli::server

namespace qeli::server {
namespace {

TEST(AuthGuard, ListsLockedSourcesWithTimeLeftAndUnblocksOne) {
  AuthGuard g({true, 2, std::chrono::seconds(300), std::chrono::seconds(900)});
  const Instant t0{};
  const std::uint32_t a = 0x0a000002, b = 0x0a000001, c = 0x0a000003;
  for (std::uint32_t ip : {a, a, b, b, c}) g.record_failure(ip, "bob", t0);
  const auto later = t0 + std::chrono::seconds(100);
  auto list = g.blocked(later);
  ASSERT_EQ(list.size(), 2U) << "c failed once: tracked, not locked";
  EXPECT_EQ(list[0].ip, b) << "ordered by address";
  EXPECT_EQ(list[1].ip, a);
  EXPECT_EQ(list[0].left, std::chrono::seconds(800));
  EXPECT_EQ(list[0].failures, 2U);
  EXPECT_EQ(g.locked_count(later), 2U);

  EXPECT_TRUE(g.unblock(a));
  EXPECT_FALSE(g.locked_out(a, later));
  EXPECT_TRUE(g.locked_out(b, later)) << "only the one address";
  EXPECT_FALSE(g.unblock(a)) << "no longer tracked";
  EXPECT_FALSE(g.unblock(0x0a0000ff));
  // Its failures were forgotten too: one more does not lock it again.
  g.record_failure(a, "bob", later);
  EXPECT_FALSE(g.locked_out(a, later));
  EXPECT_TRUE(g.blocked(t0 + std::chrono::seconds(901)).empty()) << "lockouts expire";
}

}  // namespace
}  // namespace qeli::server
