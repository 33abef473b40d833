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
