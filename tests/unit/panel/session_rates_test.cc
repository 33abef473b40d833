// SessionRates: rates from two samples of a session's byte counters, keyed by (profile,
// id); none on the first sample, the kept sample repeated within kMinSpan, a fresh start
// when the counters go backwards, forgotten sessions dropped.
#include "panel/session_rates.h"

#include <gtest/gtest.h>

namespace qeli::panel {
namespace {

control::SessionInfo session(std::string profile, std::uint64_t id, std::uint64_t rx,
                             std::uint64_t tx) {
  control::SessionInfo s;
  s.profile = std::move(profile);
  s.id = id;
  s.rx_bytes = rx;
  s.tx_bytes = tx;
  return s;
}

const Instant t0 = Instant{} + std::chrono::hours(5);

TEST(SessionRates, first_sample_has_no_rate_then_bytes_over_seconds) {
  SessionRates rates;
  control::SessionList list{{session("main", 1, 1000, 5000)}};
  auto r = rates.observe(list, t0);
  ASSERT_EQ(r.size(), 1U);
  EXPECT_FALSE(r[0].has_value());
  list.clients[0].rx_bytes = 1000 + 4000;
  list.clients[0].tx_bytes = 5000 + 1000;
  r = rates.observe(list, t0 + std::chrono::seconds(2));
  ASSERT_TRUE(r[0].has_value());
  EXPECT_DOUBLE_EQ(r[0]->rx_bytes_per_sec, 2000.0);
  EXPECT_DOUBLE_EQ(r[0]->tx_bytes_per_sec, 500.0);
  // No movement: zero, not "–".
  r = rates.observe(list, t0 + std::chrono::seconds(4));
  ASSERT_TRUE(r[0].has_value());
  EXPECT_DOUBLE_EQ(r[0]->rx_bytes_per_sec, 0.0);
}

TEST(SessionRates, a_sample_too_soon_repeats_the_last_rate_and_keeps_the_old_base) {
  SessionRates rates;
  control::SessionList list{{session("main", 1, 0, 0)}};
  rates.observe(list, t0);
  // Too soon after the first: still no rate, and the base stays t0's.
  list.clients[0].rx_bytes = 100;
  auto r = rates.observe(list, t0 + std::chrono::milliseconds(300));
  EXPECT_FALSE(r[0].has_value());
  list.clients[0].rx_bytes = 3000;
  r = rates.observe(list, t0 + std::chrono::seconds(3));
  ASSERT_TRUE(r[0].has_value());
  EXPECT_DOUBLE_EQ(r[0]->rx_bytes_per_sec, 1000.0);  // 3000 B over 3 s, from t0
  list.clients[0].rx_bytes = 999'999;
  r = rates.observe(list, t0 + std::chrono::milliseconds(3500));
  ASSERT_TRUE(r[0].has_value());
  EXPECT_DOUBLE_EQ(r[0]->rx_bytes_per_sec, 1000.0);  // repeated, not 996999 B / 0.5 s
}

TEST(SessionRates, keyed_by_profile_and_id_in_the_list_order) {
  SessionRates rates;
  control::SessionList list{{session("a", 7, 0, 0), session("b", 7, 0, 0)}};
  rates.observe(list, t0);
  list.clients[0].rx_bytes = 1000;
  list.clients[1].rx_bytes = 5000;
  std::swap(list.clients[0], list.clients[1]);
  const auto r = rates.observe(list, t0 + std::chrono::seconds(1));
  ASSERT_TRUE(r[0] && r[1]);
  EXPECT_DOUBLE_EQ(r[0]->rx_bytes_per_sec, 5000.0);  // b's
  EXPECT_DOUBLE_EQ(r[1]->rx_bytes_per_sec, 1000.0);  // a's
}

TEST(SessionRates, counters_that_go_back_start_over_and_gone_sessions_are_forgotten) {
  SessionRates rates;
  control::SessionList list{{session("main", 1, 5000, 5000), session("main", 2, 0, 0)}};
  rates.observe(list, t0);
  EXPECT_EQ(rates.size(), 2U);
  // A restarted server reuses id 1 with smaller counters: a new session, no rate.
  list.clients[0].rx_bytes = 10;
  auto r = rates.observe(list, t0 + std::chrono::seconds(2));
  EXPECT_FALSE(r[0].has_value());
  EXPECT_TRUE(r[1].has_value());
  // Session 2 ended: forgotten; when an id 2 shows up again it starts without a rate.
  list.clients.pop_back();
  rates.observe(list, t0 + std::chrono::seconds(4));
  EXPECT_EQ(rates.size(), 1U);
  list.clients.push_back(session("main", 2, 0, 0));
  r = rates.observe(list, t0 + std::chrono::seconds(6));
  EXPECT_TRUE(r[0].has_value());
  EXPECT_FALSE(r[1].has_value());
}

}  // namespace
}  // namespace qeli::panel
