// IpPool against a naive oracle, plus the 0.7.16 rules it must keep.
#include "server/ip_pool.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace qeli::server {
namespace {

constexpr std::uint32_t kNet = 0x0a090000;  // 10.9.0.0

TEST(IpPool, SkipsNetworkBroadcastServerAndExcluded) {
  IpPool pool(kNet, 29, kNet + 1, {{kNet + 4, 31}});  // hosts .1-.6, server .1, exclude .4-.5
  EXPECT_EQ(pool.capacity(), 3U);                     // .2 .3 .6
  std::set<std::uint32_t> got;
  for (int i = 0; i < 3; ++i) got.insert(pool.allocate("d" + std::to_string(i)).value());
  EXPECT_EQ(got, (std::set<std::uint32_t>{kNet + 2, kNet + 3, kNet + 6}));
  EXPECT_FALSE(pool.allocate("d9").has_value());
}

TEST(IpPool, StickyPerDeviceAndStaticSteals) {
  IpPool pool(kNet, 24, kNet + 1);
  const auto a = pool.allocate("alice:01").value();
  const auto b = pool.allocate("bob:02").value();
  pool.release(a);
  pool.release(b);
  EXPECT_EQ(pool.allocate("alice:01").value(), a);  // its old address, though b was freed last
  std::string evicted;
  ASSERT_TRUE(pool.allocate_fixed("carol", a, evicted));
  EXPECT_EQ(evicted, "alice:01");
  EXPECT_FALSE(pool.allocate_fixed("carol", kNet + 1, evicted)) << "the server's address";
}

TEST(IpPool, MatchesANaiveOracle) {
  std::mt19937 rng(7);
  IpPool pool(kNet, 26, kNet + 1);  // 62 hosts, 61 assignable
  std::set<std::uint32_t> used;
  std::map<std::string, std::uint32_t> held;
  for (int step = 0; step < 20000; ++step) {
    const std::string dev = "dev" + std::to_string(rng() % 80);
    if (held.count(dev) && rng() % 2) {
      pool.release(held[dev]);
      used.erase(held[dev]);
      held.erase(dev);
      continue;
    }
    if (held.count(dev)) continue;
    auto ip = pool.allocate(dev);
    if (used.size() == pool.capacity()) {
      EXPECT_FALSE(ip.has_value());
      continue;
    }
    ASSERT_TRUE(ip.has_value()) << "free addresses exist";
    EXPECT_TRUE(pool.contains(*ip));
    EXPECT_NE(*ip, kNet + 1);
    EXPECT_FALSE(used.count(*ip)) << "double allocation";
    used.insert(*ip);
    held[dev] = *ip;
  }
  EXPECT_EQ(pool.used(), used.size());
}

}  // namespace
}  // namespace qeli::server
