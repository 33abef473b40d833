#include "panel/form.h"

#include <gtest/gtest.h>

#include <string>

namespace qeli::panel {
namespace {

TEST(form, parses_fields_with_escapes_and_plus) {
  const auto f = parse_form("a=1&b=x%20y+z");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->all().size(), 2U);
  EXPECT_EQ(f->get("a"), "1");
  EXPECT_EQ(f->get("b"), "x y z");
  EXPECT_TRUE(f->has("a"));
  EXPECT_FALSE(f->has("c"));
  EXPECT_EQ(f->get("c"), "");
}

TEST(form, first_value_wins_and_names_are_decoded) {
  const auto f = parse_form("k=1&k=2&n%61me=v&flag");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->get("k"), "1");
  EXPECT_EQ(f->get("name"), "v");
  EXPECT_TRUE(f->has("flag"));
  EXPECT_EQ(f->get("flag"), "");
}

TEST(form, bad_escapes_refuse_the_whole_body) {
  for (const char* body : {"a=%G1", "a=%2", "a=1&b=%", "a=%1G", "%zz=1", "a=b%"}) {
    EXPECT_FALSE(parse_form(body)) << body;
  }
  EXPECT_FALSE(percent_decode("%", false));
  EXPECT_FALSE(percent_decode("ab%4", false));
  EXPECT_FALSE(percent_decode("%g0", false));
}

TEST(form, more_than_the_maximum_fields_is_refused) {
  std::string body;
  for (std::size_t i = 0; i < kMaxFormFields; ++i) body += "f" + std::to_string(i) + "=x&";
  const auto at_limit = parse_form(body);
  ASSERT_TRUE(at_limit);
  EXPECT_EQ(at_limit->all().size(), kMaxFormFields);
  EXPECT_FALSE(parse_form(body + "one=more"));
}

TEST(form, empty_parts_are_skipped) {
  const auto f = parse_form("&&a=1&&&b=2&");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->all().size(), 2U);
  EXPECT_EQ(f->all()[0].first, "a");
  EXPECT_EQ(f->all()[1].first, "b");
  const auto empty = parse_form("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->all().empty());
}

TEST(form, percent_decode_plus_only_when_asked) {
  EXPECT_EQ(percent_decode("a+b%2B", true), "a b+");
  EXPECT_EQ(percent_decode("a+b%2b", false), "a+b+");
}

TEST(form, percent_encode_round_trips) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (const std::string& s :
       {std::string("plain-._~AZaz09"), std::string("a b+c&d=e%f/é?#"), all}) {
    const std::string enc = percent_encode(s);
    for (const char c : enc) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~' || c == '%';
      EXPECT_TRUE(ok) << "unescaped " << c << " in " << enc;
    }
    EXPECT_EQ(percent_decode(enc, true), s);
    const auto f = parse_form("v=" + enc);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->get("v"), s);
  }
  EXPECT_EQ(percent_encode("a b&c"), "a%20b%26c");
  EXPECT_EQ(percent_encode("-._~"), "-._~");
}

}  // namespace
}  // namespace qeli::panel
