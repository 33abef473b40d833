// The qeli_* page built from control answers (metrics/metrics_page.h): every counter of a
// `stats` answer lands in its family with the existing counter name as its label, nothing
// is invented, and per-user series are capped (the rest omitted and counted).
#include "metrics/metrics_page.h"

#include <gtest/gtest.h>

namespace qeli::metrics {
namespace {

control::StatsSnapshot snapshot() {
  control::StatsSnapshot s;
  s.version = "1.2.3";
  s.started_unix_secs = 1700000000;
  s.users = 4;
  s.users_disabled = 1;
  s.blocked_ips = 2;
  control::ProfileStats p;
  p.profile = "main";
  p.transport = "tcp";
  p.mode = "reality";
  p.port = 443;
  p.sessions = 1;
  p.counters = {{"accepted", 9},
                {"sessions_started", 5},
                {"auth_failed", 2},
                {"tun_no_route", 3},
                {"new_session_rate_limited", 4},
                {"bridge_started", 6},
                {"reality_bridged_replay", 1},
                {"dns_queries_udp", 8},
                {"streams_joined", 7},
                {"joins_refused", 2},
                {"udp_roams", 3},
                {"udp_roams_refused", 1},
                {"udp_unverified_refused", 40},
                {"udp_cookie_challenges", 30},
                {"udp_cookies_accepted", 2},
                {"udp_cookies_refused", 1},
                {"brand_new_counter", 1}};
  p.traffic = {{"tx_packets", 10},   {"tx_bytes", 1000}, {"rx_packets", 20},     {"rx_bytes", 2000},
               {"heartbeats_rx", 3}, {"control_rx", 1},  {"drop_queue_full", 12}};
  s.profiles.push_back(p);
  return s;
}

std::string page_of(const control::StatsSnapshot& s) {
  Exposition e;
  add_stats(e, s);
  return e.text();
}

bool has(const std::string& page, const std::string& line) {
  return page.find("\n" + line + "\n") != std::string::npos;
}

TEST(MetricsPage, EveryStatsCounterInItsFamily) {
  const std::string p = page_of(snapshot());
  for (const char* line : {
           "qeli_build_info{version=\"1.2.3\"} 1",
           "qeli_start_time_seconds 1700000000",
           "qeli_users 4",
           "qeli_users_disabled 1",
           "qeli_lockouts 2",
           "qeli_profile_info{profile=\"main\",transport=\"tcp\",mode=\"reality\",port=\"443\"} 1",
           "qeli_sessions{profile=\"main\"} 1",
           "qeli_connections_accepted_total{profile=\"main\"} 9",
           "qeli_handshakes_total{profile=\"main\",outcome=\"ok\"} 5",
           "qeli_handshakes_total{profile=\"main\",outcome=\"auth_failed\"} 2",
           "qeli_preauth_drops_total{profile=\"main\",reason=\"new_session_rate_limited\"} 4",
           "qeli_packet_drops_total{profile=\"main\",reason=\"tun_no_route\"} 3",
           "qeli_packet_drops_total{profile=\"main\",reason=\"queue_full\"} 12",
           "qeli_carrier_events_total{profile=\"main\",reason=\"bridge_started\"} 6",
           "qeli_carrier_events_total{profile=\"main\",reason=\"reality_bridged_replay\"} 1",
           "qeli_dns_events_total{profile=\"main\",reason=\"dns_queries_udp\"} 8",
           "qeli_profile_events_total{profile=\"main\",reason=\"brand_new_counter\"} 1",
           "qeli_bond_joins_total{profile=\"main\",result=\"joined\"} 7",
           "qeli_bond_joins_total{profile=\"main\",result=\"refused\"} 2",
           "qeli_udp_roams_total{profile=\"main\",result=\"migrated\"} 3",
           "qeli_udp_roams_total{profile=\"main\",result=\"refused\"} 1",
           "qeli_preauth_drops_total{profile=\"main\",reason=\"udp_unverified_refused\"} 40",
           "qeli_udp_cookies_total{profile=\"main\",result=\"challenged\"} 30",
           "qeli_udp_cookies_total{profile=\"main\",result=\"accepted\"} 2",
           "qeli_udp_cookies_total{profile=\"main\",result=\"refused\"} 1",
           "qeli_bytes_total{profile=\"main\",direction=\"tx\"} 1000",
           "qeli_bytes_total{profile=\"main\",direction=\"rx\"} 2000",
           "qeli_packets_total{profile=\"main\",direction=\"tx\"} 10",
           "qeli_packets_total{profile=\"main\",direction=\"rx\"} 20",
           "qeli_heartbeats_total{profile=\"main\",direction=\"rx\"} 3",
           "qeli_session_events_total{profile=\"main\",reason=\"control_rx\"} 1",
       }) {
    EXPECT_TRUE(has(p, line)) << "missing: " << line << "\n" << p;
  }
}

// A UDP profile's socket figures get their own families; a TCP profile has none.
TEST(MetricsPage, UdpSocketFiguresOnlyForUdpProfiles) {
  auto s = snapshot();
  EXPECT_EQ(page_of(s).find("qeli_udp_kernel_drops"), std::string::npos);  // TCP only
  auto udp = s.profiles[0];
  udp.profile = "udp";
  udp.transport = "udp";
  udp.udp_socket = control::UdpSocketFigures{17, 2, 16777216};
  s.profiles.push_back(udp);
  const std::string p = page_of(s);
  for (const char* line : {
           "qeli_udp_kernel_drops_total{profile=\"udp\"} 17",
           "qeli_udp_buffer_grows_total{profile=\"udp\"} 2",
           "qeli_udp_recv_buffer_bytes{profile=\"udp\"} 16777216",
           "# TYPE qeli_udp_kernel_drops_total counter",
           "# TYPE qeli_udp_buffer_grows_total counter",
           "# TYPE qeli_udp_recv_buffer_bytes gauge",
       }) {
    EXPECT_TRUE(has(p, line)) << "missing: " << line << "\n" << p;
  }
  EXPECT_EQ(p.find("qeli_udp_kernel_drops_total{profile=\"main\"}"), std::string::npos) << p;
}

TEST(MetricsPage, WebhookOutcomesWhenWebhooksAreOn) {
  auto s = snapshot();
  EXPECT_EQ(page_of(s).find("qeli_webhook"), std::string::npos);  // off: no family
  s.webhooks = {{"delivered", 7}, {"given_up", 1}};
  const std::string p = page_of(s);
  EXPECT_TRUE(has(p, "qeli_webhook_events_total{result=\"delivered\"} 7")) << p;
  EXPECT_TRUE(has(p, "qeli_webhook_events_total{result=\"given_up\"} 1")) << p;
  EXPECT_NE(p.find("# TYPE qeli_webhook_events_total counter"), std::string::npos) << p;
}

TEST(MetricsPage, TwoProfilesShareOneBlockPerFamily) {
  auto s = snapshot();
  auto second = s.profiles[0];
  second.profile = "udp";
  s.profiles.push_back(second);
  const std::string p = page_of(s);
  const auto first = p.find("qeli_bytes_total{profile=\"main\"");
  const auto other = p.find("qeli_bytes_total{profile=\"udp\"");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(other, std::string::npos);
  // Nothing of another family between them.
  EXPECT_EQ(p.substr(first, other - first).find("# TYPE"), std::string::npos) << p;
}

TEST(MetricsPage, PerUserSeriesAreCappedAndTheRestOmitted) {
  control::UsageList usage;
  usage.users = {{"small", 1, 1, {}, 0, false},
                 {"big", 500, 100, {}, 0, false},
                 {"mid", 50, 50, {}, 0, false}};
  control::SessionList sessions;
  control::SessionInfo s;
  s.username = "big";
  sessions.clients = {s, s};
  Exposition e;
  add_users(e, usage, sessions, 2);
  const std::string p = e.text();
  EXPECT_TRUE(has(p, "qeli_user_bytes_total{user=\"big\",direction=\"tx\"} 500")) << p;
  EXPECT_TRUE(has(p, "qeli_user_bytes_total{user=\"big\",direction=\"rx\"} 100")) << p;
  EXPECT_TRUE(has(p, "qeli_user_sessions{user=\"big\"} 2")) << p;
  EXPECT_TRUE(has(p, "qeli_user_sessions{user=\"mid\"} 0")) << p;
  EXPECT_EQ(p.find("user=\"small\""), std::string::npos) << p;
  EXPECT_TRUE(has(p, "qeli_metrics_users_omitted 1")) << p;
}

// A control service that answers from fixed data, counting what it was asked.
class FakeService : public control::ControlService {
 public:
  Result<control::Response, control::ControlError> handle(const control::Request& r,
                                                          const control::Caller&) override {
    ++calls;
    if (std::holds_alternative<control::GetStats>(r)) return control::Response{snapshot()};
    if (std::holds_alternative<control::GetUsage>(r))
      return control::Response{control::UsageList{}};
    if (std::holds_alternative<control::ListSessions>(r)) {
      return control::Response{control::SessionList{}};
    }
    return fail(control::ControlError{control::ErrorCode::kInternal, "unexpected"});
  }
  int calls = 0;
};

TEST(MetricsPage, PerUserOnlyWhenEnabled) {
  FakeService svc;
  auto off = metrics_page(svc, {false, 100});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(svc.calls, 1);
  EXPECT_EQ(off->find("qeli_user_"), std::string::npos);
  EXPECT_EQ(off->find("qeli_metrics_users_omitted"), std::string::npos);
  auto on = metrics_page(svc, {true, 100});
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(svc.calls, 4);
  EXPECT_NE(on->find("qeli_metrics_users_omitted 0"), std::string::npos);
}

}  // namespace
}  // namespace qeli::metrics
