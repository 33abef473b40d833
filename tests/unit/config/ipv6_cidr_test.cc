// config/ipv6_cidr.h: IPv6 addresses and networks in configuration — RFC 5952 output,
// host bits refused, prefix lengths and membership at the bit boundaries.
#include "config/ipv6_cidr.h"

#include <gtest/gtest.h>

namespace qeli::config {
namespace {

TEST(Ipv6Cidr, ParsesCanonicalizesAndRefuses) {
  EXPECT_EQ(Ipv6Cidr::parse("FD00:0009:0::/64")->to_string(), "fd00:9::/64");
  EXPECT_EQ(Ipv6Cidr::parse("::/0")->to_string(), "::/0");
  EXPECT_EQ(Ipv6Cidr::parse("2001:db8::1", true)->to_string(), "2001:db8::1/128");
  for (const char* bad :
       {"2001:db8::1", "fd00:9::1/64", "fd00:9::/129", "fd00:9::/064", "fd00:9::/", "fd00:9::/6a",
        "[fd00:9::]/64", "10.9.0.0/24", "fd00:9::%eth0/64", "/64", ""}) {
    EXPECT_FALSE(Ipv6Cidr::parse(bad).has_value()) << bad;
  }
  EXPECT_FALSE(Ipv6Addr::parse("fd00::1/128").has_value());
  EXPECT_FALSE(Ipv6Addr::parse(std::string_view("::1\0x", 5)).has_value());
}

TEST(Ipv6Cidr, ContainsAndOverlapsAtTheBitBoundary) {
  const auto c = Ipv6Cidr::parse("2001:db8:0:80::/57").value();
  EXPECT_TRUE(c.contains(Ipv6Addr::parse("2001:db8:0:80::1").value()));
  EXPECT_TRUE(c.contains(Ipv6Addr::parse("2001:db8:0:ff:ffff::").value()));
  EXPECT_FALSE(c.contains(Ipv6Addr::parse("2001:db8:0:7f::1").value()));
  EXPECT_FALSE(c.contains(Ipv6Addr::parse("2001:db8:0:100::").value()));
  EXPECT_TRUE(c.overlaps(Ipv6Cidr::parse("2001:db8::/32").value()));
  EXPECT_FALSE(c.overlaps(Ipv6Cidr::parse("2001:db8:0:100::/56").value()));
  EXPECT_TRUE(Ipv6Cidr::parse("::/0")->contains(Ipv6Addr::parse("ff02::1").value()));
}

}  // namespace
}  // namespace qeli::config
