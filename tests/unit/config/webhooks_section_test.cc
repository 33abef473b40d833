// [webhooks]: the URL rule, the section's checks, and the secret read from its file
// (config/webhooks_section.h).
#include "config/webhooks_section.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace qeli::config {
namespace {

TEST(webhooks_section, url_parse) {
  auto u = HttpUrl::parse("https://hooks.example/qeli?x=1");
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->https);
  EXPECT_EQ(u->host, "hooks.example");
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->target, "/qeli?x=1");
  u = HttpUrl::parse("http://10.0.0.1:8080");
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->https);
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->target, "/");
  u = HttpUrl::parse("https://[2001:db8::1]:9443/h");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "2001:db8::1");
  EXPECT_EQ(u->port, 9443);
  for (const char* bad : {"ftp://x/", "https://", "https://user:pw@h/", "https://h:0/",
                          "https://h:70000/", "https://h/#frag", "https://h/a b", "https://h:x/",
                          "https://[::1/", "hooks.example/x", "https://h/\r\nX: y"}) {
    EXPECT_FALSE(HttpUrl::parse(bad)) << bad;
  }
}

class WebhooksConfigTest : public ::testing::Test {
 protected:
  ServerLoad load(const std::string& webhooks) {
    tmp_.write("users.conf", "");
    return load_server_config_text(
        "[auth]\nusers_file = users.conf\n[profile:p]\n[webhooks]\n" + webhooks,
        tmp_.file("s.conf"));
  }
  bool has(const ServerLoad& r, const char* key, Severity sev = Severity::kError) {
    for (const auto& f : r.findings.all()) {
      if (f.section == "webhooks" && f.key == key && f.severity == sev) return true;
    }
    return false;
  }
  test::TempDir tmp_;
};

TEST_F(WebhooksConfigTest, rules) {
  tmp_.write("short.secret", "too short\n");
  tmp_.write("good.secret", std::string(64, 'a') + "\n");
  EXPECT_TRUE(load("").ok());  // disabled: nothing required
  EXPECT_TRUE(has(load("enabled = true\nsecret_file = good.secret"), "url"));
  EXPECT_TRUE(has(load("enabled = true\nurl = https://h/\n"), "secret_file"));
  EXPECT_TRUE(has(load("enabled = true\nurl = http://h/\nsecret_file = good.secret"), "url"));
  EXPECT_TRUE(has(load("enabled = true\nurl = nope\nsecret_file = good.secret"), "url"));
  EXPECT_TRUE(
      has(load("enabled = true\nurl = https://h/\nsecret_file = short.secret"), "secret_file"));
  EXPECT_TRUE(
      has(load("enabled = true\nurl = https://h/\nsecret_file = missing.secret"), "secret_file"));
  EXPECT_TRUE(has(load("events = session.connected, session.exploded"), "events"));
  EXPECT_TRUE(load("events = user.quota_reached, user.expired").ok());
  EXPECT_TRUE(has(load("timeout_secs = 61"), "timeout_secs"));
  EXPECT_TRUE(has(load("retry_hours = 0"), "retry_hours"));
  EXPECT_TRUE(has(load("outbox ="), "outbox"));
  const auto ok = load(
      "enabled = true\nurl = http://10.0.0.1:8080/in\nsecret_file = good.secret\nallow_http = "
      "true\nallow_private = true\nevents = session.connected\noutbox = w.db\nretry_hours = 2");
  ASSERT_TRUE(ok.ok());
  const auto& w = ok.config.webhooks;
  EXPECT_EQ(w.secret, std::string(64, 'a'));  // the newline is not part of it
  EXPECT_EQ(w.retry_for, std::chrono::hours(2));
  EXPECT_EQ(ok.config.webhooks_outbox_path(), tmp_.file("w.db"));
  EXPECT_EQ(w.events, std::vector<std::string>{"session.connected"});
  // An outbox whose directory does not exist: refused here as start-up would fail on it.
  const auto no_dir = load(
      "enabled = true\nurl = http://10.0.0.1:8080/in\nsecret_file = good.secret\nallow_http = "
      "true\nallow_private = true\noutbox = no/such/dir/w.db");
  EXPECT_TRUE(has(no_dir, "outbox"));
}

}  // namespace
}  // namespace qeli::config
