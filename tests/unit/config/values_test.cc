#include "config/values.h"

#include <gtest/gtest.h>

namespace qeli::config {
namespace {

TEST(values, ipv4_addr_table) {
  struct Row {
    const char* text;
    bool ok;
  };
  const Row rows[] = {{"0.0.0.0", true},    {"255.255.255.255", true}, {"10.9.0.1", true},
                      {"256.0.0.1", false}, {"1.2.3", false},          {"1.2.3.4.5", false},
                      {"01.2.3.4", false},  {"1.2.3.4 ", false},       {"", false},
                      {"a.b.c.d", false},   {"1..2.3", false},         {"1.2.3.-4", false}};
  for (const auto& r : rows) {
    SCOPED_TRACE(r.text);
    const auto a = Ipv4Addr::parse(r.text);
    EXPECT_EQ(a.has_value(), r.ok);
    if (a) {
      EXPECT_EQ(a->to_string(), r.text);
    }
  }
  EXPECT_EQ(Ipv4Addr::parse("10.9.0.1")->value, 0x0a090001U);
}

TEST(values, cidr) {
  const auto c = Ipv4Cidr::parse("10.9.0.0/24");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->broadcast().to_string(), "10.9.0.255");
  EXPECT_TRUE(c->is_usable_host(*Ipv4Addr::parse("10.9.0.1")));
  EXPECT_TRUE(c->is_usable_host(*Ipv4Addr::parse("10.9.0.254")));
  EXPECT_FALSE(c->is_usable_host(*Ipv4Addr::parse("10.9.0.0")));
  EXPECT_FALSE(c->is_usable_host(*Ipv4Addr::parse("10.9.0.255")));
  EXPECT_FALSE(c->is_usable_host(*Ipv4Addr::parse("10.9.1.1")));
  EXPECT_FALSE(Ipv4Cidr::parse("10.9.0.1/24"));  // host bits set
  EXPECT_FALSE(Ipv4Cidr::parse("10.9.0.0/33"));
  EXPECT_FALSE(Ipv4Cidr::parse("10.9.0.0"));
  EXPECT_TRUE(Ipv4Cidr::parse("10.9.0.7", true));
  EXPECT_EQ(Ipv4Cidr::parse("0.0.0.0/0")->mask(), 0U);
  const auto p31 = Ipv4Cidr::parse("10.0.0.0/31");
  EXPECT_TRUE(p31->is_usable_host(*Ipv4Addr::parse("10.0.0.0")));
  EXPECT_TRUE(Ipv4Cidr::parse("10.0.0.0/8")->overlaps(*Ipv4Cidr::parse("10.9.0.0/24")));
  EXPECT_FALSE(Ipv4Cidr::parse("10.8.0.0/24")->overlaps(*Ipv4Cidr::parse("10.9.0.0/24")));
}

TEST(values, endpoint) {
  auto e = Endpoint::parse("vpn.example.com:443");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "vpn.example.com");
  EXPECT_EQ(e->port, 443);
  e = Endpoint::parse("[2001:db8::1]:8443");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->bracketed);
  EXPECT_EQ(e->to_string(), "[2001:db8::1]:8443");
  EXPECT_FALSE(Endpoint::parse("host"));
  EXPECT_FALSE(Endpoint::parse("host:0"));
  EXPECT_TRUE(Endpoint::parse("host:0", true));
  EXPECT_FALSE(Endpoint::parse("host:65536"));
  EXPECT_FALSE(Endpoint::parse(":443"));
  EXPECT_FALSE(Endpoint::parse("2001:db8::1:443"));
  EXPECT_FALSE(Endpoint::parse("[::1]443"));
}

// Users, groups and profiles share one alphabet (one predicate: server_config,
// users_file and add-client all call it).
TEST(values, object_names) {
  for (const char* ok : {"alice", "Bob-2", "eve_x", "a.b", "ops@home", "a"}) {
    EXPECT_TRUE(is_valid_object_name(ok)) << ok;
  }
  EXPECT_TRUE(is_valid_object_name(std::string(64, 'a')));
  EXPECT_FALSE(is_valid_object_name(std::string(65, 'a')));
  for (const char* bad : {"", "a b", "a:b", "a/b", "[x]", "a#b", "caf\xc3\xa9", "a\nb", "a=b"}) {
    EXPECT_FALSE(is_valid_object_name(bad)) << bad;
  }
}

TEST(values, scalars) {
  EXPECT_EQ(parse_bool("TRUE"), true);
  EXPECT_EQ(parse_bool("off"), false);
  EXPECT_FALSE(parse_bool("2"));
  EXPECT_EQ(parse_uint("65535", 65535), 65535U);
  EXPECT_FALSE(parse_uint("65536", 65535));
  EXPECT_FALSE(parse_uint("-1", 10));
  EXPECT_FALSE(parse_uint("1 ", 10));
  EXPECT_FALSE(parse_uint("99999999999999999999999", ~0ULL));
  EXPECT_EQ(parse_int("-1", -1, 5), -1);
  EXPECT_FALSE(parse_int("-2", -1, 5));
  EXPECT_DOUBLE_EQ(parse_double("0.25").value(), 0.25);
  EXPECT_FALSE(parse_double("nan"));
  EXPECT_FALSE(parse_double("1.0x"));
  EXPECT_EQ(split_list(" a, b,,c ,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(is_ipv6_literal("::1"));
  EXPECT_FALSE(is_ipv6_literal("1.2.3.4"));
  EXPECT_FALSE(is_ipv6_literal(std::string_view("::1\0x", 5)));
  EXPECT_FALSE(Ipv4Addr::parse(std::string_view("10.9.0.1\0", 9)));
}

}  // namespace
}  // namespace qeli::config
