// AuthGuard: IP lockout after max_attempts, tarpit growth capped at 3 s, success resets.
#include "server/auth_guard.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "crypto/argon2id.h"

namespace qeli::server {
namespace {

using std::chrono::seconds;

BruteForcePolicy policy(std::uint32_t max, std::uint32_t address_max, bool per_address = false) {
  BruteForcePolicy p;
  p.max_attempts = max;
  p.address_max_attempts = address_max;
  p.per_address_only = per_address;
  return p;
}

TEST(AuthGuard, LocksThePairOutAfterMaxAttemptsAndLeavesOtherUsersOfTheAddressAlone) {
  AuthGuard g(policy(3, 20));
  const Instant t0{};
  const std::uint32_t ip = 0x0a000001;
  for (int i = 0; i < 2; ++i) g.record_failure(ip, "bob", t0 + seconds(i));
  EXPECT_FALSE(g.locked_out(ip, "bob", t0 + seconds(3)));
  EXPECT_TRUE(g.record_failure(ip, "bob", t0 + seconds(3))) << "this failure locked it";
  EXPECT_TRUE(g.locked_out(ip, "bob", t0 + seconds(4)));
  // The trial's case: a colleague behind the same NAT logs in fine.
  EXPECT_FALSE(g.locked_out(ip, "alice", t0 + seconds(4)));
  EXPECT_FALSE(g.locked_out(ip, t0 + seconds(4))) << "the address as a whole is not locked";
  EXPECT_FALSE(g.locked_out(0x0a000002, "bob", t0 + seconds(4))) << "bob from elsewhere";
  EXPECT_FALSE(g.locked_out(ip, "bob", t0 + seconds(3 + 901))) << "lockout expires";
}

// brute_force.window_secs: failures further apart than the window never add up.
TEST(AuthGuard, FailuresOutsideTheWindowAreForgotten) {
  BruteForcePolicy p = policy(3, 20);
  p.window = seconds(60);
  AuthGuard g(p);
  const Instant t0{};
  const std::uint32_t ip = 0x0a000001;
  for (int i = 0; i < 10; ++i) {
    EXPECT_FALSE(g.record_failure(ip, "bob", t0 + seconds(61 * i))) << "failure " << i;
  }
  EXPECT_FALSE(g.locked_out(ip, "bob", t0 + seconds(61 * 9 + 1)));
  // The same three failures inside one window lock the pair.
  const Instant t1 = t0 + seconds(10000);
  g.record_failure(ip, "bob", t1);
  g.record_failure(ip, "bob", t1 + seconds(30));
  EXPECT_TRUE(g.record_failure(ip, "bob", t1 + seconds(59)));
}

TEST(AuthGuard, SprayingManyNamesFromOneAddressHitsTheAddressCeiling) {
  AuthGuard g(policy(5, 8));
  const Instant t0{};
  const std::uint32_t ip = 0x0a000001;
  bool locked = false;
  for (int i = 0; i < 8; ++i) {
    EXPECT_FALSE(g.locked_out(ip, t0)) << i;
    locked = g.record_failure(ip, "user" + std::to_string(i), t0);  // one try per name
  }
  EXPECT_TRUE(locked);
  EXPECT_TRUE(g.locked_out(ip, t0)) << "eight failures, no name tried twice";
  EXPECT_TRUE(g.locked_out(ip, "alice", t0)) << "the whole address, every user";
  EXPECT_FALSE(g.locked_out(0x0a000002, "alice", t0));
  // A successful login of a valid account does not reset the ceiling.
  g.record_success(ip, "alice");
  EXPECT_TRUE(g.locked_out(ip, t0));
}

TEST(AuthGuard, LockoutKeyAddressLocksTheWholeAddressAsBefore) {
  AuthGuard g(policy(3, 20, /*per_address=*/true));
  const Instant t0{};
  const std::uint32_t ip = 0x0a000001;
  for (int i = 0; i < 3; ++i) g.record_failure(ip, "bob", t0 + seconds(i));
  EXPECT_TRUE(g.locked_out(ip, t0 + seconds(4)));
  EXPECT_TRUE(g.locked_out(ip, "alice", t0 + seconds(4)));
  EXPECT_FALSE(g.locked_out(ip, t0 + seconds(3 + 901)));
}

TEST(AuthGuard, TarpitDoublesPerFailureUpToThreeSecondsAndNeverLocksTheName) {
  AuthGuard g(policy(2, 20));
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

// The gate lets verify_concurrency() run at once and queues the rest: four times that
// many concurrent logins all finish with the right answers (a ticket lost or skipped
// would hang some of them).
TEST(AuthGuard, TheGateServesEveryQueuedVerification) {
  AuthGuard g({});
  ASSERT_GE(g.verify_concurrency(), 2U);
  const auto h = crypto::argon2id_hash("pw").value();
  const std::size_t n = 4 * g.verify_concurrency();
  std::vector<int> results(n, -1);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] { results[i] = g.verify_password(h, i % 2 == 0 ? "pw" : "no"); });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(results[i], i % 2 == 0 ? 1 : 0) << i;
}

}  // namespace
}  // namespace qeli::server

namespace qeli::server {
namespace {

TEST(AuthGuard, ListsLockoutsWithTimeLeftAndUnblocksOneAddress) {
  AuthGuard g(policy(2, 4));
  const Instant t0{};
  const std::uint32_t a = 0x0a000002, b = 0x0a000001, c = 0x0a000003;
  for (std::uint32_t ip : {a, a, b, b, c}) g.record_failure(ip, "bob", t0);
  for (const char* u : {"u1", "u2", "u3"}) g.record_failure(b, u, t0);  // b: 5 > 4
  const auto later = t0 + seconds(100);
  auto list = g.blocked(later);
  ASSERT_EQ(list.size(), 3U) << "c failed once: tracked, not locked";
  EXPECT_EQ(list[0].ip, b) << "ordered by address, the whole-address lockout first";
  EXPECT_EQ(list[0].user, "");
  EXPECT_EQ(list[0].failures, 5U);
  EXPECT_EQ(list[1].ip, b);
  EXPECT_EQ(list[1].user, "bob");
  EXPECT_EQ(list[2].ip, a);
  EXPECT_EQ(list[2].user, "bob");
  EXPECT_EQ(list[2].left, seconds(800));
  EXPECT_EQ(list[2].failures, 2U);
  EXPECT_EQ(g.locked_count(later), 3U);

  EXPECT_TRUE(g.unblock(a));
  EXPECT_FALSE(g.locked_out(a, "bob", later));
  EXPECT_TRUE(g.locked_out(b, "bob", later)) << "only the one address";
  EXPECT_FALSE(g.unblock(a)) << "no longer tracked";
  EXPECT_FALSE(g.unblock(0x0a0000ff));
  // Its failures were forgotten too: one more does not lock it again.
  g.record_failure(a, "bob", later);
  EXPECT_FALSE(g.locked_out(a, "bob", later));
  EXPECT_TRUE(g.unblock(b));
  EXPECT_FALSE(g.locked_out(b, later));
  EXPECT_TRUE(g.blocked(t0 + seconds(901)).empty()) << "lockouts expire";
}

}  // namespace
}  // namespace qeli::server
