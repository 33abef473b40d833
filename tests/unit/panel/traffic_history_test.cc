// Traffic over time: the meter's deltas (baseline, server restarts), the SQLite buckets
// (sums, ranges, retention, a reopen), the dashboard's SVG chart and GET /api/v1/traffic.
#include "panel/traffic_history.h"

#include <gtest/gtest.h>

#include "../config/temp_dir.h"
#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

constexpr std::int64_t kT0 = 1'800'000'100;  // 100 s into a 5-minute bucket

TEST(TrafficMeter, FirstSampleIsTheBaselineThenDeltasAndRestartsCountFromZero) {
  TrafficMeter m;
  EXPECT_FALSE(m.observe({1000, 500, 70}));
  auto d = m.observe({1000, 800, 75});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->down_bytes, 300U);
  EXPECT_EQ(d->up_bytes, 5U);
  // Restarted: another start time, counters from zero.
  d = m.observe({2000, 40, 9});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->down_bytes, 40U);
  EXPECT_EQ(d->up_bytes, 9U);
  // A counter that went back with the same start time is a restart too (never a wrap).
  d = m.observe({2000, 41, 3});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->down_bytes, 41U);
  EXPECT_EQ(d->up_bytes, 3U);
}

TEST(TrafficMeter, TotalsSumEveryProfileDownIsWhatTheServerSent) {
  control::StatsSnapshot s;
  s.started_unix_secs = 77;
  control::ProfileStats a, b;
  a.traffic = {{"tx_bytes", 100}, {"rx_bytes", 7}, {"tx_packets", 9999}};
  b.traffic = {{"rx_bytes", 3}, {"tx_bytes", 50}};
  s.profiles = {a, b};
  const auto t = totals_of(s);
  EXPECT_EQ(t.server_started_unix, 77);
  EXPECT_EQ(t.down_bytes, 150U);
  EXPECT_EQ(t.up_bytes, 10U);
}

TEST(TrafficHistory, BucketsSumRangesAreHalfOpenOldBucketsGoAndAReopenKeepsThem) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  {
    auto h = TrafficHistory::open(db);
    ASSERT_TRUE(h.ok()) << h.error();
    ASSERT_TRUE((*h)->add(kT0, {10, 1}));
    ASSERT_TRUE((*h)->add(kT0 + 150, {20, 2}));  // the same bucket
    ASSERT_TRUE((*h)->add(kT0 + 250, {5, 0}));   // the next one
  }
  auto h = TrafficHistory::open(db);
  ASSERT_TRUE(h.ok());
  const std::int64_t b0 = kT0 - 100;
  auto all = (*h)->range(b0 - 1000, b0 + 1000);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].start_unix, b0);
  EXPECT_EQ(all[0].down_bytes, 30U);
  EXPECT_EQ(all[0].up_bytes, 3U);
  EXPECT_EQ(all[1].start_unix, b0 + kBucketSecs);
  EXPECT_EQ(all[1].down_bytes, 5U);
  EXPECT_EQ((*h)->range(b0, b0 + kBucketSecs).size(), 1U);  // [from, to)
  EXPECT_TRUE((*h)->range(b0 + 2 * kBucketSecs, b0 + 9 * kBucketSecs).empty());
  // Past the retention the old buckets are dropped as new ones come.
  ASSERT_TRUE((*h)->add(kT0 + kRetentionSecs + kBucketSecs, {1, 1}));
  all = (*h)->range(0, kT0 + 2 * kRetentionSecs);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].start_unix, b0 + kBucketSecs);
  // Counts beyond SQLite's signed range are held at its top, not wrapped negative.
  ASSERT_TRUE((*h)->add(kT0 + kRetentionSecs + kBucketSecs, {UINT64_MAX, 0}));
  ASSERT_TRUE((*h)->add(kT0 + kRetentionSecs + kBucketSecs, {UINT64_MAX, 0}));
  EXPECT_EQ((*h)->range(0, kT0 + 2 * kRetentionSecs).back().down_bytes,
            static_cast<std::uint64_t>(INT64_MAX));
}

TEST(TrafficChart, OnePointPerBucketScaledToThePeakAndNothingToRun) {
  // 37.5 MB in one 5-minute bucket = 1 Mbit/s on average.
  const std::int64_t to = 1'800'000'000, from = to - 86400;
  const std::vector<TrafficPoint> pts = {{to - 3600 - (to - 3600) % kBucketSecs, 37'500'000, 0}};
  const std::string svg = traffic_chart_svg(Lang::kEn, pts, from, to);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart\""));
  EXPECT_NE(svg.find("peak 1.00 Mbit/s"), std::string::npos) << svg.substr(0, 400);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  // Two lines of 24 h / 5 min points each.
  std::size_t lines = 0, at = 0;
  while ((at = svg.find("<polyline", at)) != std::string::npos) {
    ++lines;
    const auto from_q = svg.find("points=\"", at) + 8;
    const auto to_q = svg.find('"', from_q);
    const std::string list = svg.substr(from_q, to_q - from_q);
    EXPECT_EQ(std::count(list.begin(), list.end(), ','), 86400 / kBucketSecs);
    at = to_q;
  }
  EXPECT_EQ(lines, 2U);
  // The peak reaches near the top of the plot (y = 8 + 160 - 160/1.1 ≈ 22.5).
  EXPECT_NE(svg.find(",22.5 "), std::string::npos);
}

class PanelTrafficTest : public LoggedInPanelTest {
 protected:
  void SetUp() override {
    auto h = TrafficHistory::open(dir_.path() + "/panel.db");
    ASSERT_TRUE(h.ok()) << h.error();
    history_ = std::move(*h);
    LoggedInPanelTest::SetUp();
    app_->set_traffic(history_.get());
  }
  test::TempDir dir_;
  std::unique_ptr<TrafficHistory> history_;
};

TEST_F(PanelTrafficTest, TheDashboardDrawsTheDayAndTheApiAnswersTheBuckets) {
  ASSERT_TRUE(history_->add(now_unix_ - 600, {1000, 200}));
  ASSERT_TRUE(history_->add(now_unix_ - 2 * 86400, {9, 9}));  // before a day
  const auto dash = get("/");
  EXPECT_EQ(dash.status, 200);
  EXPECT_TRUE(contains(dash.body, "<svg class=\"chart\""));
  auto r = get("/api/v1/traffic");
  ASSERT_EQ(r.status, 200);
  auto j = json::parse(r.body);
  EXPECT_EQ(j.at("bucket_secs"), kBucketSecs);
  ASSERT_EQ(j.at("points").size(), 1U);
  EXPECT_EQ(j.at("points")[0].at("down_bytes"), 1000U);
  EXPECT_EQ(j.at("points")[0].at("up_bytes"), 200U);
  j = json::parse(get("/api/v1/traffic?hours=72").body);
  EXPECT_EQ(j.at("points").size(), 2U);
  EXPECT_EQ(get("/api/v1/traffic?hours=0").status, 400);
  EXPECT_EQ(get("/api/v1/traffic?hours=721").status, 400);
  EXPECT_EQ(get("/api/v1/traffic?hours=x").status, 400);
  app_->set_traffic(nullptr, "[web] state_db is empty");
  EXPECT_EQ(get("/api/v1/traffic").status, 503);
  EXPECT_TRUE(contains(get("/").body, "No history: [web] state_db is empty"));
}

}  // namespace
}  // namespace qeli::panel
