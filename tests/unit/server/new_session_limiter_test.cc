#include "server/new_session_limiter.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>

namespace qeli::server {
namespace {

const Instant t0 = Instant{} + Seconds(1000);
constexpr std::uint32_t kA = 0x0A000001, kB = 0x0A000002;

TEST(NewSessionLimiter, TenPerMinutePerAddress) {
  NewSessionLimiter lim({10, Seconds(60), 100});
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(lim.admit(kA, t0)) << i;
  EXPECT_FALSE(lim.admit(kA, t0));
  EXPECT_FALSE(lim.admit(kA, t0 + Seconds(5)));
  EXPECT_TRUE(lim.admit(kB, t0));  // another address has its own budget
  // The window slides: one more session every 60 s / 10.
  EXPECT_TRUE(lim.admit(kA, t0 + Seconds(6)));
  EXPECT_FALSE(lim.admit(kA, t0 + Seconds(7)));
  // After a whole quiet window the address is forgotten and gets its burst back.
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(lim.admit(kA, t0 + Seconds(200))) << i;
  EXPECT_FALSE(lim.admit(kA, t0 + Seconds(200)));
}

TEST(NewSessionLimiter, KeyIsTheSourceNotThePort) {
  const auto a1 = transport::SockAddr::ipv4(kA, 40000);
  const auto a2 = transport::SockAddr::ipv4(kA, 40001);
  const auto b = transport::SockAddr::ipv4(kB, 40000);
  EXPECT_EQ(source_key(a1), source_key(a2));
  EXPECT_NE(source_key(a1), source_key(b));
  NewSessionLimiter lim({2, Seconds(60), 100});
  EXPECT_TRUE(lim.admit(source_key(a1), t0));
  EXPECT_TRUE(lim.admit(source_key(a2), t0));
  EXPECT_FALSE(lim.admit(source_key(a1), t0));  // two ports, one address, one budget
  EXPECT_TRUE(lim.admit(source_key(b), t0));
  // IPv6: one /64 is one source, whatever its interface identifiers.
  const auto v6a = *transport::SockAddr::parse_ip("2001:db8:1:2::10", 40000);
  const auto v6b = *transport::SockAddr::parse_ip("2001:db8:1:2:abcd::99", 40001);
  const auto v6c = *transport::SockAddr::parse_ip("2001:db8:1:3::10", 40000);
  EXPECT_TRUE(lim.admit(source_key(v6a), t0));
  EXPECT_TRUE(lim.admit(source_key(v6b), t0));
  EXPECT_FALSE(lim.admit(source_key(v6a), t0));
  EXPECT_TRUE(lim.admit(source_key(v6c), t0));
}

TEST(NewSessionLimiter, MemoryIsBoundedOldestEvicted) {
  NewSessionLimiter lim({1, Seconds(60), 4});
  for (std::uint32_t ip = 1; ip <= 4; ++ip) EXPECT_TRUE(lim.admit(ip, t0));
  EXPECT_FALSE(lim.admit(1, t0 + Seconds(1)));  // 1 is now the most recently seen
  EXPECT_EQ(lim.tracked(), 4U);
  EXPECT_TRUE(lim.admit(5, t0 + Seconds(2)));  // evicts 2, the least recently seen
  EXPECT_EQ(lim.tracked(), 4U);
  EXPECT_EQ(lim.evicted(), 1U);
  EXPECT_FALSE(lim.admit(1, t0 + Seconds(3)));  // still tracked, still limited
  EXPECT_TRUE(lim.admit(2, t0 + Seconds(3)));   // forgotten: a fresh budget
  for (std::uint32_t ip = 100; ip < 10100; ++ip) (void)lim.admit(ip, t0 + Seconds(4));
  EXPECT_LE(lim.tracked(), 4U);
}

TEST(NewSessionLimiter, ExpiredEntriesAreForgottenBeforeEviction) {
  NewSessionLimiter lim({1, Seconds(10), 3});
  for (std::uint32_t ip = 1; ip <= 3; ++ip) EXPECT_TRUE(lim.admit(ip, t0));
  // All three buckets are full again after 10 s: a newcomer drops them, evicts nobody.
  EXPECT_TRUE(lim.admit(9, t0 + Seconds(10)));
  EXPECT_EQ(lim.tracked(), 1U);
  EXPECT_EQ(lim.evicted(), 0U);
}

}  // namespace
}  // namespace qeli::server
