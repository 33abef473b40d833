#include "dns/name.h"

#include <gtest/gtest.h>

#include "dns_builder.h"

namespace qeli::dns {
namespace {

using test::put_name;

TEST(DnsName, ReadsAndLowercases) {
  Bytes m(12, 0);
  put_name(m, "WWW.Example.COM");
  std::size_t off = 12;
  std::string out;
  ASSERT_TRUE(read_name(m, off, out));
  EXPECT_EQ(off, m.size());
  EXPECT_EQ(out, std::string("\3www\7example\3com\0", 17));
  EXPECT_EQ(to_text(out), "www.example.com.");
}

TEST(DnsName, FollowsBackwardPointersAndContinuesAfterTheFirst) {
  Bytes m(12, 0);
  put_name(m, "example.com");  // at 12
  const std::size_t second = m.size();
  m.insert(m.end(), {3, 'w', 'w', 'w', 0xC0, 12});  // www + pointer to example.com
  m.push_back(0xAA);                                // what follows the name
  std::size_t off = second;
  std::string out;
  ASSERT_TRUE(read_name(m, off, out));
  EXPECT_EQ(out, std::string("\3www\7example\3com\0", 17));
  EXPECT_EQ(off, second + 6);
}

TEST(DnsName, RefusesLoopsForwardPointersAndOverruns) {
  std::string out;
  struct Case {
    const char* what;
    Bytes tail;
  };
  const Case cases[] = {
      {"pointer to itself", {0xC0, 12}},
      {"forward pointer", {0xC0, 14, 0}},
      {"pointer into the header", {0xC0, 2}},
      {"pointer cut short", {0xC0}},
      {"label past the end", {5, 'a', 'b'}},
      {"missing root", {1, 'a'}},
      {"reserved label type 0x40", {0x41, 'a', 0}},
      {"reserved label type 0x80", {0x81, 'a', 0}},
      {"empty", {}},
  };
  for (const auto& c : cases) {
    Bytes m(12, 0);
    m.insert(m.end(), c.tail.begin(), c.tail.end());
    std::size_t off = 12;
    EXPECT_FALSE(read_name(m, off, out)) << c.what;
    EXPECT_EQ(off, 12U) << c.what;
  }
}

TEST(DnsName, APointerTargetMustEndBeforeThePointer) {
  // At 12: a 3-byte label whose data runs into the pointer at 15 that points back to it.
  Bytes m(12, 0);
  m.insert(m.end(), {3, 'a', 'b', 0xC0, 12});
  std::size_t off = 15;
  std::string out;
  EXPECT_FALSE(read_name(m, off, out));
  // The same label, ended before the pointer: fine.
  Bytes ok(12, 0);
  ok.insert(ok.end(), {2, 'a', 'b', 0, 0xC0, 12});
  off = 16;
  EXPECT_TRUE(read_name(ok, off, out));
  EXPECT_EQ(out, std::string("\2ab\0", 4));
}

TEST(DnsName, RefusesNamesAbove255Bytes) {
  Bytes ok(12, 0), bad(12, 0);
  // 4 labels of 63 = 4 × 64 + 1 = 257 bytes: too long; 3 labels + one of 61 = 255: fine.
  for (int i = 0; i < 4; ++i) {
    bad.push_back(63);
    bad.insert(bad.end(), 63, 'a');
  }
  bad.push_back(0);
  for (int i = 0; i < 3; ++i) {
    ok.push_back(63);
    ok.insert(ok.end(), 63, 'a');
  }
  ok.push_back(61);
  ok.insert(ok.end(), 61, 'a');
  ok.push_back(0);
  std::string out;
  std::size_t off = 12;
  EXPECT_TRUE(read_name(ok, off, out));
  EXPECT_EQ(out.size(), 255U);
  off = 12;
  EXPECT_FALSE(read_name(bad, off, out));
}

TEST(DnsName, PointerChainsAreBounded) {
  // 40 pointers, each to the one before: more hops than kMaxPointerHops.
  Bytes m(12, 0);
  m.push_back(0);  // the root at 12
  for (int i = 0; i < 40; ++i) {
    const std::size_t prev = m.size() - (i == 0 ? 1 : 2);
    m.push_back(static_cast<std::uint8_t>(0xC0 | (prev >> 8)));
    m.push_back(static_cast<std::uint8_t>(prev));
  }
  std::size_t off = m.size() - 2;
  std::string out;
  EXPECT_FALSE(read_name(m, off, out));
}

TEST(DnsName, ParsesConfiguredDomains) {
  const std::string wire("\7example\3com\0", 13);
  EXPECT_EQ(parse_domain("example.com"), wire);
  EXPECT_EQ(parse_domain("Example.COM."), wire);
  EXPECT_EQ(parse_domain("*.example.com"), wire);
  EXPECT_EQ(parse_domain("_dmarc.x-y.example"), std::string("\6_dmarc\3x-y\7example\0", 20));
  for (const char* bad :
       {"", ".", "*.", "a..b", "exa mple.com", "ex\xc3\xa4mple.com", "a/b", "x.*.com"}) {
    EXPECT_FALSE(parse_domain(bad).has_value()) << bad;
  }
  EXPECT_FALSE(parse_domain(std::string(64, 'a') + ".com").has_value());
  EXPECT_TRUE(parse_domain(std::string(63, 'a') + ".com").has_value());
}

TEST(DnsName, Parent) {
  const std::string www("\3www\7example\3com\0", 17);
  EXPECT_EQ(parent(www), std::string_view("\7example\3com\0", 13));
  EXPECT_EQ(parent(parent(parent(www))), std::string_view("\0", 1));
  EXPECT_EQ(parent(std::string_view("\0", 1)), std::string_view("\0", 1));
}

}  // namespace
}  // namespace qeli::dns
