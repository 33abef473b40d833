// Log outputs (sys/log_output.h): patterns per time_format, journal detection from
// $JOURNAL_STREAM, the file sink's reopen after a logrotate-style rename, the journal's
// priorities and the thread's structured fields.
#include "sys/log_output.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "sys/journal_sink.h"
#include "sys/log_fields.h"
#include "sys/reopen_file_sink.h"
#include "temp_dir.h"

namespace qeli::sys {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(log_output, pattern_per_time_format) {
  EXPECT_EQ(log_pattern(TimeFormat::kDatetime), "[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v");
  EXPECT_EQ(log_pattern(TimeFormat::kRfc3339), "[%Y-%m-%dT%H:%M:%S.%e%z] [%^%l%$] %v");
  EXPECT_EQ(log_pattern(TimeFormat::kTime), "[%H:%M:%S.%e] [%^%l%$] %v");
  EXPECT_EQ(log_pattern(TimeFormat::kEpoch), "[%E.%e] [%^%l%$] %v");
  EXPECT_EQ(log_pattern(TimeFormat::kNone), "[%^%l%$] %v");
}

TEST(log_output, level_names) {
  LogLevel l = LogLevel::kInfo;
  EXPECT_TRUE(parse_log_level("debug", l));
  EXPECT_EQ(l, LogLevel::kDebug);
  EXPECT_TRUE(parse_log_level("error", l));
  EXPECT_EQ(l, LogLevel::kError);
  EXPECT_FALSE(parse_log_level("verbose", l));
  EXPECT_EQ(l, LogLevel::kError);
}

TEST(log_output, journal_stream_must_name_stderr) {
  struct stat st {};
  ASSERT_EQ(::fstat(STDERR_FILENO, &st), 0);
  const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  ::setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(stderr_is_journal());
  // A stream inherited from a parent whose stderr went to the journal, while ours was
  // redirected: not the journal.
  ::setenv("JOURNAL_STREAM",
           (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1)).c_str(), 1);
  EXPECT_FALSE(stderr_is_journal());
  ::setenv("JOURNAL_STREAM", "garbage", 1);
  EXPECT_FALSE(stderr_is_journal());
  ::unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(stderr_is_journal());
}

TEST(log_output, file_with_each_time_format_and_level) {
  test::TempDir dir;
  const std::string path = dir / "q.log";
  const std::pair<TimeFormat, std::regex> cases[] = {
      {TimeFormat::kDatetime,
       std::regex(R"(^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] \[info\] hello$)")},
      {TimeFormat::kRfc3339,
       std::regex(R"(^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d\] \[info\] hello$)")},
      {TimeFormat::kTime, std::regex(R"(^\[\d\d:\d\d:\d\d\.\d{3}\] \[info\] hello$)")},
      {TimeFormat::kEpoch, std::regex(R"(^\[\d{10,}\.\d{3}\] \[info\] hello$)")},
      {TimeFormat::kNone, std::regex(R"(^\[info\] hello$)")},
  };
  for (const auto& [fmt, re] : cases) {
    ::unlink(path.c_str());
    ASSERT_TRUE(configure_logging({LogLevel::kInfo, path, fmt}).ok());
    EXPECT_EQ(log_destination(), LogDestination::kFile);
    spdlog::debug("below the level");
    spdlog::info("hello");
    spdlog::default_logger()->flush();
    std::string text = slurp(path);
    ASSERT_FALSE(text.empty());
    text.pop_back();  // the newline
    EXPECT_TRUE(std::regex_match(text, re)) << static_cast<int>(fmt) << ": " << text;
  }
  ASSERT_TRUE(configure_logging({}).ok());
}

TEST(log_output, env_overrides_the_level) {
  test::TempDir dir;
  const std::string path = dir / "q.log";
  ::setenv("QELI_LOG_LEVEL", "debug", 1);
  ASSERT_TRUE(configure_logging({LogLevel::kError, path, TimeFormat::kNone}).ok());
  ::unsetenv("QELI_LOG_LEVEL");
  spdlog::debug("dbg");
  EXPECT_EQ(slurp(path), "[debug] dbg\n");
  ASSERT_TRUE(configure_logging({}).ok());
}

TEST(log_output, unopenable_file_is_an_error_naming_it) {
  auto st = configure_logging({LogLevel::kInfo, "/nonexistent-dir/q.log", TimeFormat::kNone});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("/nonexistent-dir/q.log"), std::string::npos) << st.error();
}

TEST(log_output, reopen_after_rename_writes_the_new_file) {
  test::TempDir dir;
  const std::string path = dir / "q.log";
  ASSERT_TRUE(configure_logging({LogLevel::kInfo, path, TimeFormat::kNone}).ok());
  spdlog::info("one");
  ASSERT_EQ(::rename(path.c_str(), (dir / "q.log.1").c_str()), 0);
  spdlog::info("two");  // still the old (renamed) file
  ASSERT_TRUE(reopen_log_file().ok());
  spdlog::info("three");
  EXPECT_EQ(slurp(dir / "q.log.1"), "[info] one\n[info] two\n");
  EXPECT_EQ(slurp(path), "[info] three\n");
  // A path that cannot be opened again keeps the old descriptor.
  ASSERT_EQ(::rename(path.c_str(), (dir / "q.log.2").c_str()), 0);
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);  // a directory where the file was
  EXPECT_FALSE(reopen_log_file().ok());
  spdlog::info("four");
  EXPECT_EQ(slurp(dir / "q.log.2"), "[info] three\n[info] four\n");
  ASSERT_TRUE(configure_logging({}).ok());
}

TEST(log_output, lines_from_threads_never_interleave) {
  test::TempDir dir;
  const std::string path = dir / "q.log";
  ASSERT_TRUE(configure_logging({LogLevel::kInfo, path, TimeFormat::kNone}).ok());
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([t] {
      for (int i = 0; i < 200; ++i)
        spdlog::info("thread {} line {} {}", t, i, std::string(100, 'x'));
    });
  }
  for (auto& t : ts) t.join();
  std::istringstream in(slurp(path));
  std::string line;
  int n = 0;
  const std::regex re(R"(^\[info\] thread \d line \d+ x{100}$)");
  while (std::getline(in, line)) {
    EXPECT_TRUE(std::regex_match(line, re)) << line;
    ++n;
  }
  EXPECT_EQ(n, 800);
  ASSERT_TRUE(configure_logging({}).ok());
}

TEST(journal_sink, priorities) {
  EXPECT_EQ(JournalSink::priority(spdlog::level::err), 3);
  EXPECT_EQ(JournalSink::priority(spdlog::level::warn), 4);
  EXPECT_EQ(JournalSink::priority(spdlog::level::info), 6);
  EXPECT_EQ(JournalSink::priority(spdlog::level::debug), 7);
  EXPECT_EQ(JournalSink::priority(spdlog::level::trace), 7);
}

TEST(log_fields, nest_and_unwind) {
  EXPECT_TRUE(LogFields::current().empty());
  {
    LogFields a{{"QELI_USER", "alice"}, {"QELI_PROFILE", "main"}};
    {
      LogFields b{{"QELI_TUNNEL_IP", "10.9.0.2\nx"}};
      ASSERT_EQ(LogFields::current().size(), 3U);
      EXPECT_EQ(LogFields::current()[2], "QELI_TUNNEL_IP=10.9.0.2 x");
    }
    ASSERT_EQ(LogFields::current().size(), 2U);
    EXPECT_EQ(LogFields::current()[0], "QELI_USER=alice");
    std::thread([] { EXPECT_TRUE(LogFields::current().empty()); }).join();  // per thread
  }
  EXPECT_TRUE(LogFields::current().empty());
}

TEST(log_fields, journal_name_rules) {
  EXPECT_TRUE(valid_journal_field_name("QELI_USER"));
  EXPECT_TRUE(valid_journal_field_name("A1_B"));
  EXPECT_FALSE(valid_journal_field_name("_QELI"));
  EXPECT_FALSE(valid_journal_field_name("qeli_user"));
  EXPECT_FALSE(valid_journal_field_name("1ABC"));
  EXPECT_FALSE(valid_journal_field_name(""));
  EXPECT_FALSE(valid_journal_field_name("QELI-USER"));
}

}  // namespace
}  // namespace qeli::sys
