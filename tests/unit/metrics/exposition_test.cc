// The text exposition format 0.0.4 as Exposition writes it: escaping of label values and
// HELP texts, one HELP and one TYPE line per family, a family's samples kept together.
#include "metrics/exposition.h"

#include <gtest/gtest.h>

namespace qeli::metrics {
namespace {

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

TEST(Exposition, EscapesLabelValuesPerTheFormat) {
  EXPECT_EQ(escape_label_value(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(escape_label_value(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(escape_label_value("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(escape_label_value("plain-user@x.y"), "plain-user@x.y");
  Exposition e;
  e.family("qeli_user_sessions", MetricType::kGauge, "h")
      .sample({{"user", "a\"b\\c\nd"}}, std::uint64_t{2});
  EXPECT_NE(e.text().find(R"(qeli_user_sessions{user="a\"b\\c\nd"} 2)"), std::string::npos)
      << e.text();
}

TEST(Exposition, EscapesHelpButNotQuotes) {
  EXPECT_EQ(escape_help("a \"q\" \\ and\nmore"), "a \"q\" \\\\ and\\nmore");
}

TEST(Exposition, OneHelpAndTypePerFamilyWithItsSamplesTogether) {
  Exposition e;
  auto& bytes = e.family("qeli_bytes_total", MetricType::kCounter, "Bytes.");
  bytes.sample({{"profile", "a"}, {"direction", "rx"}}, std::uint64_t{1});
  e.family("qeli_sessions", MetricType::kGauge, "Sessions.").sample({{"profile", "a"}}, 3.0);
  // The same family again later: its samples join the first block.
  e.family("qeli_bytes_total", MetricType::kCounter, "Bytes.")
      .sample({{"profile", "b"}, {"direction", "tx"}}, std::uint64_t{18446744073709551615ULL});
  bytes.sample({{"profile", "c"}, {"direction", "rx"}}, std::uint64_t{5});
  const std::string t = e.text();
  EXPECT_EQ(t,
            "# HELP qeli_bytes_total Bytes.\n"
            "# TYPE qeli_bytes_total counter\n"
            "qeli_bytes_total{profile=\"a\",direction=\"rx\"} 1\n"
            "qeli_bytes_total{profile=\"b\",direction=\"tx\"} 18446744073709551615\n"
            "qeli_bytes_total{profile=\"c\",direction=\"rx\"} 5\n"
            "# HELP qeli_sessions Sessions.\n"
            "# TYPE qeli_sessions gauge\n"
            "qeli_sessions{profile=\"a\"} 3\n");
  EXPECT_EQ(count(t, "# TYPE qeli_bytes_total"), 1U);
}

TEST(Exposition, SamplesWithoutLabelsAndSpecialValues) {
  Exposition e;
  e.family("qeli_start_time_seconds", MetricType::kGauge, "t").sample({}, std::int64_t{1700000000});
  e.family("qeli_x", MetricType::kGauge, "x").sample({{"k", "inf"}}, 1.0 / 0.0);
  const std::string t = e.text();
  EXPECT_NE(t.find("\nqeli_start_time_seconds 1700000000\n"), std::string::npos) << t;
  EXPECT_NE(t.find("qeli_x{k=\"inf\"} +Inf\n"), std::string::npos) << t;
}

TEST(Exposition, NameGrammar) {
  EXPECT_TRUE(valid_metric_name("qeli_bytes_total"));
  EXPECT_TRUE(valid_metric_name("a:b_c9"));
  EXPECT_FALSE(valid_metric_name("9abc"));
  EXPECT_FALSE(valid_metric_name("qeli-bytes"));
  EXPECT_FALSE(valid_metric_name(""));
  EXPECT_TRUE(valid_label_name("profile"));
  EXPECT_FALSE(valid_label_name("__name__"));
  EXPECT_FALSE(valid_label_name("a:b"));
}

}  // namespace
}  // namespace qeli::metrics
