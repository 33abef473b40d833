// [logging] (docs/CONFIG.md §4) on the server and the client: every value, a relative
// `file` taken from the config's directory, and what start-up would refuse.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "config/client_config.h"
#include "config/server_config.h"
#include "section_fixture.h"

namespace qeli::config {
namespace {

class LoggingTest : public ServerSectionTest {
 protected:
  ServerLoad server(const std::string& logging) { return server_with("logging", logging); }
};

TEST_F(LoggingTest, every_value) {
  auto r = server("level = debug\ntime_format = rfc3339\nfile = /tmp/qeli-test.log\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.config.logging.level, LogLevel::kDebug);
  EXPECT_EQ(r.config.logging.time_format, TimeFormat::kRfc3339);
  EXPECT_EQ(r.config.logging.file, "/tmp/qeli-test.log");
  const LogOptions o = r.config.logging.options();
  EXPECT_EQ(o.level, LogLevel::kDebug);
  EXPECT_EQ(o.file, "/tmp/qeli-test.log");
  for (const auto& [name, fmt] : {std::pair{"datetime", TimeFormat::kDatetime},
                                  {"time", TimeFormat::kTime},
                                  {"epoch", TimeFormat::kEpoch},
                                  {"none", TimeFormat::kNone}}) {
    r = server(std::string("time_format = ") + name + "\n");
    ASSERT_TRUE(r.ok()) << dump(r.findings);
    EXPECT_EQ(r.config.logging.time_format, fmt);
  }
  for (const auto& [name, lvl] : {std::pair{"error", LogLevel::kError},
                                  {"warn", LogLevel::kWarn},
                                  {"trace", LogLevel::kTrace}}) {
    r = server(std::string("level = ") + name + "\n");
    ASSERT_TRUE(r.ok()) << dump(r.findings);
    EXPECT_EQ(r.config.logging.level, lvl);
  }
}

TEST_F(LoggingTest, relative_file_is_taken_from_the_config_dir) {
  ::mkdir(tmp_.file("logs").c_str(), 0700);
  auto r = server("file = logs/server.log\n");
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.config.logging.file, tmp_.file("logs/server.log"));
}

TEST_F(LoggingTest, refused_files_and_values) {
  const char* bad[] = {"file = /nonexistent-qeli-dir/x.log\n", "file = /tmp\n",
                       "time_format = iso\n", "level = verbose\n"};
  for (const char* b : bad) {
    SCOPED_TRACE(b);
    auto r = server(b);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(dump(r.findings).find("[logging]"), std::string::npos) << dump(r.findings);
  }
}

TEST_F(LoggingTest, client_reads_the_same_section) {
  const std::string path =
      tmp_.write("client.conf",
                 "[qeli]\nserver = vpn.example:443\n[logging]\nlevel = warn\ntime_format = none\n");
  auto r = load_client_config(path);
  ASSERT_TRUE(r.ok()) << dump(r.findings);
  EXPECT_EQ(r.config.logging.level, LogLevel::kWarn);
  EXPECT_EQ(r.config.logging.time_format, TimeFormat::kNone);
}

}  // namespace
}  // namespace qeli::config
