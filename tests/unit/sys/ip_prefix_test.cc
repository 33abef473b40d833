#include "sys/ip_prefix.h"

#include <gtest/gtest.h>

namespace qeli::sys {
namespace {

TEST(IpPrefix, ParsesAndPrintsCanonicalForms) {
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"10.0.0.0/8", "10.0.0.0/8"},
      {"0.0.0.0/0", "0.0.0.0/0"},
      {"192.0.2.7", "192.0.2.7/32"},
      {"2001:DB8:0:0::/32", "2001:db8::/32"},
      {"::/1", "::/1"},
      {"8000::/1", "8000::/1"},
      {"fd00::1", "fd00::1/128"},
  };
  for (const Case& c : cases) {
    auto p = IpPrefix::parse(c.in);
    ASSERT_TRUE(p.ok()) << c.in;
    EXPECT_EQ(p->to_string(), c.out) << c.in;
  }
}

TEST(IpPrefix, RejectsMalformedInput) {
  for (const char* bad : {"", "10.0.0.0/", "10.0.0.0/33", "10.1.2.3/8", "::1/129", "fd00::1/64",
                          "10.0.0.0/8x", "10.0.0.0/-1", "1.2.3", "1.2.3.4.5", "host.example",
                          "10.0.0.0/08000", "[::1]", "fe80::1%eth0", " 10.0.0.0/8"}) {
    auto p = IpPrefix::parse(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.error().code, HostErrc::kInvalidArgument) << bad;
  }
  // inet_pton would stop at the NUL and accept the address before it.
  EXPECT_FALSE(IpAddress::parse(std::string_view("10.0.0.1\0x", 10)).ok());
  EXPECT_FALSE(IpAddress::parse(std::string_view("::1\0", 4)).ok());
  EXPECT_TRUE(IpAddress::parse(std::string_view("::1\0", 3)).ok());
}

TEST(IpPrefix, ContainsMatchesAnAddressBitByBitOracle) {
  auto p = IpPrefix::parse("172.16.0.0/12");
  ASSERT_TRUE(p.ok());
  // Oracle: the top 12 bits of the address equal 172.16 (0xAC1).
  for (unsigned second = 0; second < 256; ++second) {
    const IpAddress a = IpAddress::v4(172, static_cast<std::uint8_t>(second), 1, 1);
    const bool want = (second & 0xF0U) == 16;
    EXPECT_EQ(p->contains(a), want) << second;
  }
  auto v6 = IpAddress::parse("2001:db8::1");
  ASSERT_TRUE(v6.ok());
  EXPECT_FALSE(p->contains(*v6));
  auto all = IpPrefix::parse("::/0");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->contains(*v6));
}

TEST(IpPrefix, HostPrefixOfAnAddress) {
  auto a = IpAddress::parse("2001:db8::5");
  ASSERT_TRUE(a.ok());
  const IpPrefix h = IpPrefix::host(*a);
  EXPECT_EQ(h.len, 128);
  EXPECT_TRUE(h.is_host());
  EXPECT_EQ(h.to_string(), "2001:db8::5/128");
}

}  // namespace
}  // namespace qeli::sys
