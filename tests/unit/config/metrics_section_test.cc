// [metrics] (docs/CONFIG.md "Server [metrics]"): defaults, every key, bad values naming
// file, section and key (the path check-config, start-up and a reload share), the
// warning for a non-loopback listen, and a listen port another listener already has.
#include <gtest/gtest.h>

#include "config/server_config.h"
#include "section_fixture.h"

namespace qeli::config {
namespace {

class MetricsSectionTest : public ServerSectionTest {
 protected:
  ServerLoad server(const std::string& metrics, const std::string& profile = "") {
    return server_with("metrics", metrics, profile);
  }
};

TEST_F(MetricsSectionTest, Defaults) {
  auto r = server("");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  const MetricsConfig& m = r.config.metrics;
  EXPECT_FALSE(m.enabled);
  EXPECT_EQ(m.listen_address.to_string(), "127.0.0.1");
  EXPECT_EQ(m.listen_port, 9477);
  EXPECT_FALSE(m.per_user);
  EXPECT_EQ(m.per_user_limit, 100U);
}

TEST_F(MetricsSectionTest, EveryKey) {
  auto r = server("enabled = true\nlisten = 127.0.0.2:9100\nper_user = true\nper_user_limit = 7\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_TRUE(r.config.metrics.enabled);
  EXPECT_EQ(r.config.metrics.listen_address.to_string(), "127.0.0.2");
  EXPECT_EQ(r.config.metrics.listen_port, 9100);
  EXPECT_TRUE(r.config.metrics.per_user);
  EXPECT_EQ(r.config.metrics.per_user_limit, 7U);
  EXPECT_EQ(r.findings.count(Severity::kWarning), 1U) << dump(r.findings);  // users file only
}

TEST_F(MetricsSectionTest, BadValuesNameFileSectionAndKey) {
  for (const auto& [line, key] : std::vector<std::pair<std::string, std::string>>{
           {"listen = localhost:9477", "listen"},
           {"listen = 127.0.0.1", "listen"},
           {"listen = 127.0.0.1:0", "listen"},
           {"listen = 127.0.0.1:70000", "listen"},
           {"listen = [::1]:9477", "listen"},
           {"listen = 127.0.0.1:9477 # loopback", "listen"},
           {"enabled = maybe", "enabled"},
           {"per_user = 2", "per_user"},
           {"per_user_limit = 0", "per_user_limit"},
           {"per_user_limit = 10001", "per_user_limit"},
           {"per_user_limit = -1", "per_user_limit"}}) {
    auto r = server(line + "\n");
    EXPECT_FALSE(r.ok()) << line;
    bool named = false;
    for (const auto& f : r.findings.all()) {
      if (f.severity == Severity::kError && f.section == "metrics" && f.key == key &&
          f.file == tmp_.file("server.conf") && f.line > 0) {
        named = true;
      }
    }
    EXPECT_TRUE(named) << line << "\n" << dump(r.findings);
  }
}

TEST_F(MetricsSectionTest, UnknownKeysAndTwoSections) {
  auto r = server("per_users = true\n");
  EXPECT_TRUE(r.findings.contains(Severity::kUnknownKey, "per_users", "")) << dump(r.findings);
  tmp_.write("users.conf", "");
  r = load_server_config_text(
      "[auth]\nusers_file = users.conf\n[metrics]\n[metrics]\n[profile:p]\n",
      tmp_.file("server.conf"));
  EXPECT_FALSE(r.ok());
}

TEST_F(MetricsSectionTest, NonLoopbackListenIsWarnedAbout) {
  auto r = server("enabled = true\nlisten = 0.0.0.0:9477\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_TRUE(r.findings.contains(Severity::kWarning, "listen", "no authentication"))
      << dump(r.findings);
  // Not while the endpoint is off.
  r = server("listen = 0.0.0.0:9477\n");
  EXPECT_FALSE(r.findings.contains(Severity::kWarning, "listen", "no authentication"));
}

TEST_F(MetricsSectionTest, AListenPortTakenByAProfileIsAnError) {
  auto r = server("enabled = true\nlisten = 127.0.0.1:9477\n", "bind.port = 9477\n");
  EXPECT_TRUE(r.findings.contains(Severity::kError, "listen", "already used")) << dump(r.findings);
}

}  // namespace
}  // namespace qeli::config
