// Traffic over time: the meters' deltas (baseline, server restarts, per user: resets and
// new users from zero, never negative), the SQLite buckets (sums, ranges, retention, a
// reopen; per user through indexes), the SVG chart on the dashboard and each user's page,
// and GET /api/v1/traffic[?user=NAME].
#include "panel/traffic_history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "../config/temp_dir.h"
#include "panel/admin_accounts.h"
#include "panel/api_tokens.h"
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

control::UsageList usage_of(
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> rows) {
  control::UsageList u;
  for (auto& [name, down, up] : rows) u.users.push_back({name, down, up, std::nullopt, 0, false});
  return u;
}

std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> by_user(
    const std::vector<UserTrafficDelta>& deltas) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& d : deltas) {
    EXPECT_TRUE(out.emplace(d.user, std::pair(d.moved.down_bytes, d.moved.up_bytes)).second);
  }
  return out;
}

using Moves = std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>;

TEST(UserTrafficMeter, FirstSampleIsTheBaselineThenEachUsersGrowth) {
  UserTrafficMeter m;
  const TrafficDelta server{1'000'000, 1'000'000};
  EXPECT_TRUE(m.observe(usage_of({{"alice", 100, 10}, {"bob", 50, 5}}), server).empty());
  // Only the users whose totals moved; each by its own growth.
  EXPECT_EQ(by_user(m.observe(usage_of({{"alice", 150, 10}, {"bob", 50, 5}}), server)),
            (Moves{{"alice", {50, 0}}}));
  EXPECT_EQ(by_user(m.observe(usage_of({{"alice", 150, 12}, {"bob", 80, 9}}), server)),
            (Moves{{"alice", {0, 2}}, {"bob", {30, 4}}}));
  // No server-wide interval (its meter's baseline): this sample is a baseline too.
  EXPECT_TRUE(m.observe(usage_of({{"alice", 900, 90}}), std::nullopt).empty());
  EXPECT_EQ(by_user(m.observe(usage_of({{"alice", 901, 90}}), server)), (Moves{{"alice", {1, 0}}}));
  // After reset() (the usage answer failed) the next sample is a baseline.
  m.reset();
  EXPECT_TRUE(m.observe(usage_of({{"alice", 5000, 500}}), server).empty());
  EXPECT_EQ(by_user(m.observe(usage_of({{"alice", 5007, 500}}), server)),
            (Moves{{"alice", {7, 0}}}));
}

TEST(UserTrafficMeter, ATotalThatWentDownOrANewUserCountsFromZeroNeverNegative) {
  UserTrafficMeter m;
  EXPECT_TRUE(
      m.observe(usage_of({{"alice", 1000, 100}, {"bob", 10'000'000, 9'000}}), TrafficDelta{0, 0})
          .empty());
  // qeli usage --reset alice, or a restarted server without its usage_db: alice's totals
  // went down; what she has now moved since (from zero), not a negative delta, not a wrap.
  // bob's total went down by the seconds a crashed server had not saved: from zero too, but
  // never more than the whole server moved meanwhile (not his lifetime at once).
  // carol is new: from zero, within the same bound.
  const auto d =
      by_user(m.observe(usage_of({{"alice", 30, 5}, {"bob", 9'999'000, 8'000}, {"carol", 700, 70}}),
                        TrafficDelta{40'000, 4'000}));
  EXPECT_EQ(d, (Moves{{"alice", {30, 5}}, {"bob", {40'000, 4'000}}, {"carol", {700, 70}}}));
  for (const auto& [user, moved] : d) {
    EXPECT_LE(moved.first, 40'000U) << user;
    EXPECT_LE(moved.second, 4'000U) << user;
  }
  // Then each grows from its new total; a user gone is forgotten and, back, counts anew.
  EXPECT_EQ(by_user(m.observe(usage_of({{"alice", 31, 5}, {"bob", 9'999'500, 8'000}}),
                              TrafficDelta{1'000, 0})),
            (Moves{{"alice", {1, 0}}, {"bob", {500, 0}}}));
  EXPECT_EQ(
      by_user(m.observe(usage_of({{"alice", 31, 5}, {"carol", 900, 0}}), TrafficDelta{100, 100})),
      (Moves{{"carol", {100, 0}}}));
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

TEST(TrafficHistory, EachUsersBucketsSumApartAgeOutAndSurviveAReopen) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  const std::int64_t b0 = kT0 - 100;
  {
    auto h = TrafficHistory::open(db);
    ASSERT_TRUE(h.ok()) << h.error();
    ASSERT_TRUE((*h)->add_users(kT0, {{"alice", {10, 1}}, {"bob", {5, 5}}}));
    ASSERT_TRUE((*h)->add_users(kT0 + 150, {{"alice", {20, 2}}}));  // the same bucket
    ASSERT_TRUE((*h)->add_users(kT0 + 250, {{"alice", {1, 0}}}));   // the next one
    // Counts beyond SQLite's signed range are held at its top, not wrapped negative.
    ASSERT_TRUE((*h)->add_users(kT0, {{"max", {UINT64_MAX, 0}}, {"max", {UINT64_MAX, 0}}}));
  }
  auto h = TrafficHistory::open(db);
  ASSERT_TRUE(h.ok());
  auto alice = (*h)->user_range("alice", b0 - 1000, b0 + 1000);
  ASSERT_EQ(alice.size(), 2U);
  EXPECT_EQ(alice[0].start_unix, b0);
  EXPECT_EQ(alice[0].down_bytes, 30U);
  EXPECT_EQ(alice[0].up_bytes, 3U);
  EXPECT_EQ(alice[1].start_unix, b0 + kBucketSecs);
  EXPECT_EQ(alice[1].down_bytes, 1U);
  EXPECT_EQ((*h)->user_range("alice", b0, b0 + kBucketSecs).size(), 1U);  // [from, to)
  const auto bob = (*h)->user_range("bob", b0 - 1000, b0 + 1000);
  ASSERT_EQ(bob.size(), 1U);
  EXPECT_EQ(bob[0].down_bytes, 5U);
  EXPECT_EQ((*h)->user_range("max", b0, b0 + 1)[0].down_bytes,
            static_cast<std::uint64_t>(INT64_MAX));
  EXPECT_TRUE((*h)->user_range("nobody", 0, kT0 * 2).empty());
  EXPECT_TRUE((*h)->user_range("ali", 0, kT0 * 2).empty());  // a name, not a prefix
  EXPECT_TRUE((*h)->range(0, kT0 * 2).empty());              // the server-wide history is apart
  // Past the retention every user's old buckets go, also when no one moved.
  ASSERT_TRUE((*h)->add_users(kT0 + kRetentionSecs + kBucketSecs, {}));
  alice = (*h)->user_range("alice", 0, kT0 * 2);
  ASSERT_EQ(alice.size(), 1U);
  EXPECT_EQ(alice[0].start_unix, b0 + kBucketSecs);
  EXPECT_TRUE((*h)->user_range("bob", 0, kT0 * 2).empty());
}

// 1000 users × 8640 buckets is 8.6 million rows: one user's range must be a range of the
// primary key and the retention a range of the index on start — never a scan of the table.
TEST(TrafficHistory, OneUsersRangeAndTheRetentionNeverScanTheTable) {
  test::TempDir dir;
  const std::string path = dir.path() + "/panel.db";
  ASSERT_TRUE(TrafficHistory::open(path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const auto plan = [&](const char* sql) {
    std::string out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, (std::string("EXPLAIN QUERY PLAN ") + sql).c_str(), -1, &st,
                                 nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    while (sqlite3_step(st) == SQLITE_ROW) {
      out += reinterpret_cast<const char*>(sqlite3_column_text(st, 3));
      out += "; ";
    }
    sqlite3_finalize(st);
    return out;
  };
  // The store's statements (traffic_history.cc).
  const std::string range = plan(
      "SELECT start, down, up FROM user_traffic_history WHERE user = ?1 AND start >= ?2 AND "
      "start < ?3 ORDER BY start");
  EXPECT_NE(range.find("SEARCH user_traffic_history USING PRIMARY KEY (user=? AND start>? AND "
                       "start<?)"),
            std::string::npos)
      << range;
  EXPECT_EQ(range.find("TEMP B-TREE"), std::string::npos) << range;  // no sort either
  const std::string prune = plan("DELETE FROM user_traffic_history WHERE start < ?1");
  EXPECT_NE(prune.find("USING COVERING INDEX user_traffic_history_start (start<?)"),
            std::string::npos)
      << prune;
  sqlite3_close(db);
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

TEST_F(PanelTrafficTest, EachUsersTrafficOnItsPageAndInTheApiForEveryReader) {
  // 37.5 MB in a 5-minute bucket: 1 Mbit/s; bob twice that.
  ASSERT_TRUE(history_->add_users(now_unix_ - 600,
                                  {{"alice", {37'500'000, 400}}, {"bob", {75'000'000, 1}}}));
  ASSERT_TRUE(history_->add_users(now_unix_ - 2 * 86400, {{"alice", {9, 9}}}));  // before a day
  ASSERT_TRUE(history_->add(now_unix_ - 600, {112'500'000, 401}));
  const auto page = get("/users/view?name=alice");
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "Traffic, the last 24 hours"));
  EXPECT_TRUE(contains(page.body, "peak 1.00 Mbit/s")) << page.body;
  EXPECT_TRUE(contains(get("/").body, "peak 3.00 Mbit/s"));  // the server's
  auto r = get("/api/v1/traffic?user=alice");
  ASSERT_EQ(r.status, 200);
  auto j = json::parse(r.body);
  EXPECT_EQ(j.at("user"), "alice");
  ASSERT_EQ(j.at("points").size(), 1U);
  EXPECT_EQ(j.at("points")[0].at("down_bytes"), 37'500'000U);
  EXPECT_EQ(j.at("points")[0].at("up_bytes"), 400U);
  EXPECT_EQ(json::parse(get("/api/v1/traffic?user=alice&hours=72").body).at("points").size(), 2U);
  EXPECT_FALSE(json::parse(get("/api/v1/traffic").body).contains("user"));
  // A user the server does not have (bob's rows are history: the list is the server's).
  server_.users.users.pop_back();  // the evil-named one
  EXPECT_EQ(get("/api/v1/traffic?user=bob").status, 404);
  EXPECT_EQ(get("/api/v1/traffic?user=nobody").status, 404);
  // A name the loader would never take.
  for (const std::string& bad :
       {std::string(), std::string("two%20words"), std::string("%3Cscript%3E"),
        std::string(65, 'a'), std::string("alice%0A"), std::string("..%2Fetc")}) {
    const auto b = get("/api/v1/traffic?user=" + bad);
    EXPECT_EQ(b.status, 400) << bad;
    EXPECT_EQ(b.content_type, "application/problem+json") << bad;
  }
  EXPECT_EQ(get("/api/v1/traffic?user=alice&hours=0").status, 400);
  // The server does not answer the user list: its refusal, as for every route.
  server_.fail_with = "connect: ECONNREFUSED";
  EXPECT_EQ(get("/api/v1/traffic?user=alice").status, 503);
  server_.fail_with.clear();

  // A read-only admin and a token with the read scope see it as an owner does.
  auto admins = AdminAccounts::open(dir_.path() + "/panel.db");
  auto tokens = ApiTokens::open(dir_.path() + "/panel.db");
  ASSERT_TRUE(admins.ok() && tokens.ok());
  app_->set_admins(admins->get());
  app_->set_tokens(tokens->get());
  ASSERT_TRUE((*admins)->create("watcher", AdminRole::kReadOnly, hash_, now_unix_, "admin").ok());
  const auto in = app_->handle(req("POST", "/login", "username=watcher&password=secret",
                                   {{"content-type", "application/x-www-form-urlencoded"}}));
  ASSERT_EQ(in.status, 303);
  const std::string set = header_of(in, "Set-Cookie");
  const std::string watcher = set.substr(0, set.find(';'));
  for (const std::string path : {"/api/v1/traffic?user=alice", "/users/view?name=alice"}) {
    const auto w = app_->handle(req("GET", path, {}, {{"cookie", watcher}}));
    EXPECT_EQ(w.status, 200) << path;
    EXPECT_TRUE(contains(w.body, path.starts_with("/api") ? "37500000" : "peak 1.00")) << path;
  }
  crypto::DeterministicRng rng(7);
  const auto token =
      (*tokens)->create("reader", static_cast<TokenScopes>(TokenScope::kRead), 5, now_unix_, rng);
  ASSERT_TRUE(token.ok());
  const auto t = app_->handle(
      req("GET", "/api/v1/traffic?user=alice", {}, {{"authorization", "Bearer " + token->token}}));
  EXPECT_EQ(t.status, 200);
  EXPECT_EQ(json::parse(t.body).at("user"), "alice");
}

}  // namespace
}  // namespace qeli::panel
