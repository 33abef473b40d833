#include "transport/sock_addr.h"

#include <arpa/inet.h>

#include <gtest/gtest.h>

#include <unordered_set>

namespace qeli::transport {
namespace {

TEST(SockAddr, ParsesNumericAddressesOfBothFamiliesOnly) {
  const auto v4 = SockAddr::parse_ip("192.0.2.7", 443);
  ASSERT_TRUE(v4);
  EXPECT_TRUE(v4->is_ipv4());
  EXPECT_EQ(v4->ipv4_host(), 0xc0000207U);
  EXPECT_EQ(v4->to_string(), "192.0.2.7:443");
  const auto v6 = SockAddr::parse_ip("2001:DB8:0:0::1", 8443);
  ASSERT_TRUE(v6);
  EXPECT_TRUE(v6->is_ipv6());
  EXPECT_EQ(v6->ipv4_host(), 0U);
  EXPECT_EQ(v6->ip_string(), "2001:db8::1");  // RFC 5952 form
  EXPECT_EQ(v6->to_string(), "[2001:db8::1]:8443");
  for (const char* bad : {"", "vpn.example.com", "[2001:db8::1]", "2001:db8::1%eth0",
                          "192.0.2.7/32", "192.0.2.7 ", "1.2.3"}) {
    EXPECT_FALSE(SockAddr::parse_ip(bad, 1)) << bad;
  }
  // A NUL ends the text for inet_pton, never for us.
  EXPECT_FALSE(SockAddr::parse_ip(std::string_view("10.0.0.1\0junk", 13), 1));
  EXPECT_EQ(SockAddr{}.to_string(), "unset");
  // ::ffff:a.b.c.d is IPv4 (an IPv6-only socket could neither bind nor send to it).
  const auto mapped = SockAddr::parse_ip("::ffff:192.0.2.9", 53);
  ASSERT_TRUE(mapped);
  EXPECT_TRUE(mapped->is_ipv4());
  EXPECT_EQ(mapped->to_string(), "192.0.2.9:53");
}

TEST(SockAddr, WildcardsPortsAndEquality) {
  EXPECT_TRUE(SockAddr::ipv4(0, 443).is_unspecified());
  EXPECT_TRUE(SockAddr::parse_ip("::", 443)->is_unspecified());
  EXPECT_FALSE(SockAddr::parse_ip("::1", 443)->is_unspecified());
  const auto a = *SockAddr::parse_ip("fd00:77::2", 5000);
  EXPECT_EQ(a.with_port(6000).port(), 6000);
  EXPECT_EQ(a.with_port(6000).ip_string(), "fd00:77::2");
  EXPECT_NE(a, a.with_port(6000));
  EXPECT_NE(a, SockAddr::ipv4(0xfd000000, 5000));
  EXPECT_EQ(SockAddr::ipv6(a.v6.sin6_addr.s6_addr, 5000), a);  // from the 16 bytes
  std::unordered_set<SockAddr, SockAddrHash> set{a, a, a.with_port(1), SockAddr::ipv4(1, 1)};
  EXPECT_EQ(set.size(), 3U);
}

TEST(SockAddr, KernelAddressesOfBothFamiliesAndMappedIpv4) {
  sockaddr_in6 s6{};
  s6.sin6_family = AF_INET6;
  s6.sin6_port = htons(4433);
  ASSERT_EQ(inet_pton(AF_INET6, "fd00:77::1", &s6.sin6_addr), 1);
  const auto v6 = SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&s6), sizeof(s6));
  EXPECT_EQ(v6.to_string(), "[fd00:77::1]:4433");
  // A length too short for the family is refused (unset), never read past.
  EXPECT_FALSE(SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&s6), 16).is_set());
  EXPECT_FALSE(SockAddr::from_sockaddr(nullptr, 0).is_set());
  // ::ffff:192.0.2.9 (a dual-stack socket's IPv4 peer) is the IPv4 address it maps: one
  // client, one form for limits and lockouts.
  ASSERT_EQ(inet_pton(AF_INET6, "::ffff:192.0.2.9", &s6.sin6_addr), 1);
  const auto mapped = SockAddr::from_sockaddr(reinterpret_cast<const sockaddr*>(&s6), sizeof(s6));
  EXPECT_TRUE(mapped.is_ipv4());
  EXPECT_EQ(mapped.to_string(), "192.0.2.9:4433");
}

}  // namespace
}  // namespace qeli::transport
