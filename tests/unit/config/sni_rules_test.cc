// The one rule for TLS server names (config/sni_rules.h): host-name syntax, the 253-
// character bound, and what each mode accepts.
#include "config/sni_rules.h"

#include <gtest/gtest.h>

namespace qeli::config {
namespace {

TEST(sni_rules, host_name_syntax) {
  struct Row {
    std::string name;
    bool ok;
  };
  const Row rows[] = {
      {"www.example.com", true},
      {"www.example.com.", true},  // fully qualified
      {"localhost", true},
      {"_dmarc.example.com", true},
      {"xn--80ak6aa92e.com", true},
      {"a-b.example", true},
      {std::string(63, 'a') + ".com", true},
      {std::string(64, 'a') + ".com", false},  // a label is at most 63
      {std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
           std::string(61, 'd'),
       true},  // 253 characters
      {std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
           std::string(62, 'd'),
       false},  // 254
      {"", false},
      {".", false},
      {"a..b", false},
      {"-a.example", false},
      {"a-.example", false},
      {"a b.example", false},
      {"a/b", false},
      {"192.0.2.1", false},  // an IPv4 literal is not a host name (RFC 6066 §3)
      {"2001:db8::1", false},
      {"[2001:db8::1]", false},
      {"!", false},
  };
  for (const auto& r : rows) EXPECT_EQ(is_host_name(r.name), r.ok) << r.name;
}

TEST(sni_rules, what_each_mode_accepts) {
  // Every mode: the length bound.
  for (const auto m : {ClientMode::kFakeTls, ClientMode::kReality, ClientMode::kRealityTls}) {
    EXPECT_FALSE(sni_conflict(m, std::string(254, 'a')).empty());
    EXPECT_TRUE(sni_conflict(m, std::string(253, 'a')).empty() == (m != ClientMode::kRealityTls));
  }
  // fake-tls and reality keep 0.7.16's forms and allow an IP (with advice).
  for (const auto m : {ClientMode::kFakeTls, ClientMode::kReality}) {
    for (const char* s : {"!", "~", "@", "", "192.0.2.1", "www.example.com"}) {
      EXPECT_TRUE(sni_conflict(m, s).empty()) << s;
    }
    EXPECT_FALSE(sni_advice(m, "192.0.2.1").empty());
    EXPECT_FALSE(sni_advice(m, "2001:db8::1").empty());
    EXPECT_TRUE(sni_advice(m, "www.example.com").empty());
  }
  // reality-tls: a host name only (empty = "not set", judged by the caller).
  for (const char* s : {"!", "~", "@", "192.0.2.1", "2001:db8::1", "bad name", "a..b"}) {
    EXPECT_FALSE(sni_conflict(ClientMode::kRealityTls, s).empty()) << s;
  }
  EXPECT_TRUE(sni_conflict(ClientMode::kRealityTls, "").empty());
  EXPECT_TRUE(sni_conflict(ClientMode::kRealityTls, "www.example.com").empty());
  EXPECT_TRUE(sni_advice(ClientMode::kRealityTls, "192.0.2.1").empty());  // an error there
}

}  // namespace
}  // namespace qeli::config
