// The live sessions in the panel: each session's rates (from two page views' samples),
// its page with packets, bytes and drop reasons, and the same on the dashboard.
#include <gtest/gtest.h>

#include "panel_fixture.h"

namespace qeli::panel::panel_test {
namespace {

class PanelSessionsTest : public LoggedInPanelTest {
 protected:
  void SetUp() override {
    auto& alice = server_.sessions.clients[0];
    alice.rx_packets = 17;
    alice.tx_packets = 23;
    alice.tx_bytes = 4096;
    alice.drop_replay = 5;
    alice.drop_policy = 3;
    alice.drop_too_big = 1;
    alice.aead = "aes-256-gcm";
    alice.bandwidth_limit_mbps = 7.5;
    alice.counters = {{"rx_packets", 17},
                      {"drop_replay", 5},
                      {"heartbeats_rx", 9},
                      {std::string("new_") + kEvil, 4}};
    server_.sessions.clients[1].counters = {{"tx_packets", 1}};
    LoggedInPanelTest::SetUp();
  }
  control::SessionInfo& alice() { return server_.sessions.clients[0]; }
};

TEST_F(PanelSessionsTest, rates_need_two_samples_then_show_bytes_per_second) {
  auto first = get("/sessions");
  ASSERT_EQ(first.status, 200);
  EXPECT_TRUE(contains(first.body, "<th class=\"num\">Receiving</th>"));
  // No earlier sample: "–" for both directions of both sessions.
  EXPECT_TRUE(contains(first.body, "<td class=\"num\">–</td><td class=\"num\">–</td>"));
  EXPECT_FALSE(contains(first.body, "/s</td>"));
  // Ten seconds later alice received 20 KiB more and sent 10 KiB more.
  steady_ += std::chrono::seconds(10);
  alice().rx_bytes += 20 * 1024;
  alice().tx_bytes += 10 * 1024;
  const auto second = get("/sessions");
  EXPECT_TRUE(
      contains(second.body, "<td class=\"num\">2.0 KiB/s</td><td class=\"num\">1.0 KiB/s</td>"))
      << second.body;
  // The evil session did not move: 0 B/s each way.
  EXPECT_TRUE(contains(second.body, "<td class=\"num\">0 B/s</td><td class=\"num\">0 B/s</td>"));
  // The dashboard lists the same sessions with their rates (its sample follows the
  // sessions page's by another 10 s: alice moved 5 KiB more down).
  steady_ += std::chrono::seconds(10);
  alice().tx_bytes += 50 * 1024;
  const auto dash = get("/");
  EXPECT_TRUE(contains(dash.body, "<td class=\"num\">0 B/s</td><td class=\"num\">5.0 KiB/s</td>"))
      << dash.body;
  // A drops column: alice's drop_* add up to 9.
  EXPECT_TRUE(contains(dash.body, "<td class=\"num\">9</td>"));
}

TEST_F(PanelSessionsTest, the_session_page_shows_packets_drops_and_counters) {
  const auto list = get("/sessions");
  ASSERT_TRUE(contains(list.body, "href=\"/sessions/view?profile=main&amp;id=42\">alice</a>"))
      << list.body;
  auto r = get("/sessions/view?profile=main&id=42");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(contains(r.body, "<h1>Session 42 of alice</h1>"));
  EXPECT_TRUE(contains(r.body, "<dd>aes-256-gcm</dd>"));
  EXPECT_TRUE(contains(r.body, "<dd>7.5 Mbit/s</dd>"));
  // Packets and bytes each way, the rate "–" on the first sample.
  EXPECT_TRUE(contains(r.body,
                       "<td>Received from the client</td><td class=\"num\">17</td>"
                       "<td class=\"num\">2.0 KiB</td><td class=\"num\">–</td>"))
      << r.body;
  EXPECT_TRUE(contains(r.body,
                       "<td>Sent to the client</td><td class=\"num\">23</td>"
                       "<td class=\"num\">4.0 KiB</td>"));
  // Every drop reason with its count, and the total.
  EXPECT_TRUE(contains(r.body,
                       "<td>Replayed, or older than the replay window</td>"
                       "<td><code>drop_replay</code></td><td class=\"num\">5</td>"));
  EXPECT_TRUE(contains(r.body, "<code>drop_policy</code></td><td class=\"num\">3</td>"));
  EXPECT_TRUE(contains(r.body, "<code>drop_too_big</code></td><td class=\"num\">1</td>"));
  EXPECT_TRUE(contains(r.body, "<code>drop_bad_gso</code></td><td class=\"num\">0</td>"));
  EXPECT_TRUE(contains(r.body, "<th>Total</th><td></td><td class=\"num\">9</td>"));
  // The server's whole counter list, names escaped.
  EXPECT_TRUE(contains(r.body, "<code>heartbeats_rx</code></td><td class=\"num\">9</td>"));
  EXPECT_TRUE(contains(r.body, "new_&lt;script&gt;"));
  EXPECT_FALSE(contains(r.body, "<script"));
  // A kick button for this one session.
  EXPECT_TRUE(contains(r.body, "name=\"id\" value=\"42\""));
  // A second view 4 s later has the rate.
  steady_ += std::chrono::seconds(4);
  alice().rx_bytes += 4096;
  r = get("/sessions/view?profile=main&id=42");
  EXPECT_TRUE(contains(r.body, "<td class=\"num\">4.0 KiB</td><td class=\"num\">0 B/s</td>"))
      << r.body;
  EXPECT_TRUE(contains(r.body, "<td class=\"num\">6.0 KiB</td><td class=\"num\">1.0 KiB/s</td>"));
}

TEST_F(PanelSessionsTest, the_page_of_a_session_that_is_not_live_is_404) {
  for (const std::string q :
       {"profile=main&id=41", "profile=other&id=42", "profile=main&id=x", "profile=main", ""}) {
    const auto r = get("/sessions/view?" + q);
    EXPECT_EQ(r.status, 404) << q;
    EXPECT_TRUE(contains(r.body, "No such session")) << q;
  }
  // The hostile session's page: its name escaped in the title and the properties.
  const auto evil = get("/sessions/view?profile=main&id=43");
  ASSERT_EQ(evil.status, 200);
  EXPECT_FALSE(contains(evil.body, "<script"));
  EXPECT_TRUE(contains(evil.body, "Session 43 of &lt;script&gt;"));
  EXPECT_TRUE(contains(evil.body, "<code>tx_packets</code></td><td class=\"num\">1</td>"));
  // A server that sends no counter list: the page says so.
  server_.sessions.clients[1].counters.clear();
  EXPECT_TRUE(contains(get("/sessions/view?profile=main&id=43").body,
                       "The server reports no counter list."));
}

TEST_F(PanelSessionsTest, a_read_only_admin_may_look_at_a_session) {
  EXPECT_EQ(role_needed(false, "/sessions/view"), AdminRole::kReadOnly);
  // Looking changes nothing on the server.
  get("/sessions/view?profile=main&id=42");
  EXPECT_TRUE(server_.seen<control::Kick>().empty());
}

}  // namespace
}  // namespace qeli::panel::panel_test
