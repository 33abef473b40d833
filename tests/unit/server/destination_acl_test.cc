// DestinationAcl: which list applies (user over group) and CIDR matching, against a
// naive bit-by-bit oracle.
#include "server/destination_acl.h"

#include <gtest/gtest.h>

#include <random>

namespace qeli::server {
namespace {

config::Ipv4Cidr cidr(const char* s) { return config::Ipv4Cidr::parse(s, true).value(); }
std::uint32_t ip(const char* s) { return config::Ipv4Cidr::parse(s, true).value().network.value; }

TEST(DestinationAcl, EmptyAllowsEverything) {
  const DestinationAcl acl;
  EXPECT_TRUE(acl.unrestricted());
  EXPECT_TRUE(acl.allows(ip("0.0.0.0")));
  EXPECT_TRUE(acl.allows(ip("255.255.255.255")));
}

TEST(DestinationAcl, MatchesEdgesOfEachNetwork) {
  const DestinationAcl acl({cidr("10.20.30.0/24"), cidr("192.0.2.7/32")});
  struct Row {
    const char* dst;
    bool allowed;
  };
  for (const Row& r : {Row{"10.20.30.0", true}, Row{"10.20.30.255", true},
                       Row{"10.20.29.255", false}, Row{"10.20.31.0", false}, Row{"192.0.2.7", true},
                       Row{"192.0.2.6", false}, Row{"192.0.2.8", false}, Row{"0.0.0.0", false}}) {
    EXPECT_EQ(acl.allows(ip(r.dst)), r.allowed) << r.dst;
  }
  EXPECT_TRUE(DestinationAcl({cidr("0.0.0.0/0")}).allows(ip("203.0.113.9")));
}

TEST(DestinationAcl, UserListOverridesTheGroupList) {
  config::UserConfig user;
  config::GroupConfig group;
  group.allowed_networks = {cidr("10.0.0.0/8")};
  // No user list: the group's applies.
  auto acl = DestinationAcl::for_user(&user, &group);
  EXPECT_TRUE(acl.allows(ip("10.1.2.3")));
  EXPECT_FALSE(acl.allows(ip("192.0.2.1")));
  // A user list replaces it (narrower here: the rest of 10/8 is no longer allowed)...
  user.allowed_networks = {cidr("10.1.2.3/32")};
  acl = DestinationAcl::for_user(&user, &group);
  EXPECT_TRUE(acl.allows(ip("10.1.2.3")));
  EXPECT_FALSE(acl.allows(ip("10.1.2.4")));
  // ...or wider: the lists are not intersected.
  user.allowed_networks = {cidr("192.0.2.0/24")};
  acl = DestinationAcl::for_user(&user, &group);
  EXPECT_TRUE(acl.allows(ip("192.0.2.1")));
  EXPECT_FALSE(acl.allows(ip("10.1.2.3")));
  // No group, no user list: unrestricted; no user at all: unrestricted.
  user.allowed_networks.clear();
  EXPECT_TRUE(DestinationAcl::for_user(&user, nullptr).unrestricted());
  EXPECT_TRUE(DestinationAcl::for_user(nullptr, nullptr).unrestricted());
  // A group with an empty list restricts nothing.
  const config::GroupConfig open_group;
  EXPECT_TRUE(DestinationAcl::for_user(&user, &open_group).unrestricted());
}

// The oracle compares the first `prefix` bits one at a time.
bool oracle_contains(std::uint32_t net, int prefix, std::uint32_t a) {
  for (int b = 0; b < prefix; ++b) {
    const std::uint32_t bit = 1U << (31 - b);
    if ((net & bit) != (a & bit)) return false;
  }
  return true;
}

TEST(DestinationAcl, MatchesANaiveOracle) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<config::Ipv4Cidr> nets;
    const int n = static_cast<int>(rng() % 4) + 1;
    for (int i = 0; i < n; ++i) {
      config::Ipv4Cidr c;
      c.prefix = static_cast<std::uint8_t>(rng() % 33);
      c.network.value = static_cast<std::uint32_t>(rng()) & c.mask();
      nets.push_back(c);
    }
    const DestinationAcl acl(nets);
    for (int k = 0; k < 50; ++k) {
      // Half the probes start inside a network so both answers are exercised.
      std::uint32_t a = static_cast<std::uint32_t>(rng());
      if (k % 2 == 0) {
        const auto& c = nets[static_cast<std::size_t>(rng()) % nets.size()];
        a = c.network.value | (a & ~c.mask());
      }
      bool want = false;
      for (const auto& c : nets) want = want || oracle_contains(c.network.value, c.prefix, a);
      ASSERT_EQ(acl.allows(a), want) << round << "/" << k;
    }
  }
}

}  // namespace
}  // namespace qeli::server
