#include "server/source_key.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

using transport::SockAddr;

TEST(SourceKey, Ipv4IsTheAddressIpv6IsItsSlash64) {
  EXPECT_EQ(source_key(SockAddr::ipv4(0xc0000207, 1)), source_key(SockAddr::ipv4(0xc0000207, 2)));
  EXPECT_NE(source_key(SockAddr::ipv4(0xc0000207, 1)), source_key(SockAddr::ipv4(0xc0000208, 1)));
  const auto a = *SockAddr::parse_ip("2001:db8:1:2::7", 1);
  const auto b = *SockAddr::parse_ip("2001:db8:1:2:ffff:ffff:ffff:ffff", 9);
  const auto c = *SockAddr::parse_ip("2001:db8:1:3::7", 1);
  EXPECT_EQ(source_key(a), source_key(b));
  EXPECT_NE(source_key(a), source_key(c));
  // IPv4 keys never meet an IPv6 /64 (ffff:ffff::/32 is multicast, never a source).
  EXPECT_NE(source_key(SockAddr::ipv4(0, 1)), source_key(*SockAddr::parse_ip("::", 1)));
  EXPECT_EQ(source_key(SockAddr{}), 0U);
}

TEST(SourceKey, PrintsAndParsesBack) {
  const auto k4 = source_key(SockAddr::ipv4(0xc0000207, 1));
  EXPECT_EQ(to_string_key(k4), "192.0.2.7");
  EXPECT_EQ(parse_source_key("192.0.2.7"), k4);
  const auto k6 = source_key(*SockAddr::parse_ip("2001:db8:1:2::7", 1));
  EXPECT_EQ(to_string_key(k6), "2001:db8:1:2::/64");
  EXPECT_EQ(parse_source_key("2001:db8:1:2::/64"), k6);
  EXPECT_EQ(parse_source_key("2001:db8:1:2::99"), k6);    // any address of the /64
  EXPECT_EQ(parse_source_key("[2001:db8:1:2::99]"), k6);  // as list-clients prints it
  EXPECT_FALSE(parse_source_key("[192.0.2.7]"));
  for (const char* bad :
       {"", "host", "2001:db8:1:2::1/64", "2001:db8::/48", "192.0.2.7/32", "10.0.0.1 "}) {
    EXPECT_FALSE(parse_source_key(bad)) << bad;
  }
}

}  // namespace
}  // namespace qeli::server
