// The in-memory log ring the panel's Logs page reads: numbering, the level filter, the
// newest `limit`, the capacity and the line cut, and that configure_logging() feeds it.
#include "sys/log_memory.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "sys/log_output.h"

namespace qeli::sys {
namespace {

TEST(LogMemory, KeepsTheNewestLinesNumberedAndFiltersByLevel) {
  auto ring = std::make_shared<LogMemory>(4);
  spdlog::logger log("t", ring);
  log.set_level(spdlog::level::trace);
  log.info("one");
  log.warn("two");
  log.debug("three");
  log.error("four {}", 4);
  EXPECT_EQ(ring->last_seq(), 4U);
  auto all = ring->since(0, 100, spdlog::level::trace);
  ASSERT_EQ(all.size(), 4U);
  EXPECT_EQ(all[0].seq, 1U);
  EXPECT_EQ(all[0].text, "one");
  EXPECT_EQ(all[0].level, "info");
  EXPECT_EQ(all[3].text, "four 4");
  EXPECT_EQ(all[3].level, "error");
  EXPECT_GT(all[0].unix_ms, 1'600'000'000'000);
  // At warn and above; after a seq; the newest `limit`.
  auto warn = ring->since(0, 100, spdlog::level::warn);
  ASSERT_EQ(warn.size(), 2U);
  EXPECT_EQ(warn[0].text, "two");
  EXPECT_EQ(warn[0].level, "warning");
  EXPECT_EQ(ring->since(2, 100, spdlog::level::trace).size(), 2U);
  auto newest = ring->since(0, 1, spdlog::level::trace);
  ASSERT_EQ(newest.size(), 1U);
  EXPECT_EQ(newest[0].text, "four 4");
  // Past the capacity the oldest go; numbering goes on.
  log.info("five");
  all = ring->since(0, 100, spdlog::level::trace);
  ASSERT_EQ(all.size(), 4U);
  EXPECT_EQ(all[0].text, "two");
  EXPECT_EQ(all[3].seq, 5U);
  // A long line is cut.
  log.info(std::string(kLogMemoryLineBytes + 100, 'x'));
  EXPECT_EQ(ring->since(5, 1, spdlog::level::trace)[0].text.size(), kLogMemoryLineBytes);
}

TEST(LogMemory, LevelNamesAsTheRingAndTheConfigSpellThem) {
  spdlog::level::level_enum l{};
  ASSERT_TRUE(parse_spdlog_level("warn", l));
  EXPECT_EQ(l, spdlog::level::warn);
  ASSERT_TRUE(parse_spdlog_level("warning", l));
  EXPECT_EQ(l, spdlog::level::warn);
  ASSERT_TRUE(parse_spdlog_level("error", l));
  EXPECT_EQ(l, spdlog::level::err);
  ASSERT_TRUE(parse_spdlog_level("trace", l));
  EXPECT_EQ(l, spdlog::level::trace);
  EXPECT_FALSE(parse_spdlog_level("critical", l));
  EXPECT_FALSE(parse_spdlog_level("INFO", l));
  EXPECT_FALSE(parse_spdlog_level("", l));
}

TEST(LogMemory, TheProcessLoggerFeedsIt) {
  ASSERT_TRUE(configure_logging({}).ok());
  const auto before = log_memory().last_seq();
  spdlog::warn("log-memory-test marker {}", 42);
  const auto got = log_memory().since(before, 10, spdlog::level::trace);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].text, "log-memory-test marker 42");
}

}  // namespace
}  // namespace qeli::sys
