// The webhooks page and GET /api/v1/webhooks: the server's delivery log shown escaped,
// "off" said as such, the API's limit passed on within 1..1000.
#include <gtest/gtest.h>

#include "panel/panel_app.h"
#include "panel_fixture.h"

namespace qeli::panel::panel_test {
namespace {

using PanelWebhooksTest = LoggedInPanelTest;

TEST_F(PanelWebhooksTest, the_page_says_when_they_are_off) {
  const auto r = get("/webhooks");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "Webhooks are off"));
  EXPECT_TRUE(contains(r.body, "href=\"/webhooks\""));  // in the navigation
}

TEST_F(PanelWebhooksTest, the_page_and_the_api_list_deliveries_escaped) {
  server_.webhook_log.enabled = true;
  server_.webhook_log.pending = 2;
  server_.webhook_log.deliveries = {
      {1'800'000'000'000, "msg_1", "session.connected", "delivered", 204, ""},
      {1'799'999'990'000, "msg_0", "session.kicked", "failed", 0, "connect: <refused>"}};
  const auto r = get("/webhooks");
  ASSERT_EQ(r.status, 200);
  for (const char* want : {"2 event(s) waiting", "<td>session.connected</td>",
                           "<td class=\"num\">204</td>", "connect: &lt;refused&gt;"}) {
    EXPECT_TRUE(contains(r.body, want)) << want;
  }
  EXPECT_FALSE(contains(r.body, "<refused>"));

  const auto answer = get("/api/v1/webhooks?limit=1");
  ASSERT_EQ(answer.status, 200);
  const auto j = json::parse(answer.body);
  EXPECT_TRUE(j.at("enabled").get<bool>());
  EXPECT_EQ(j.at("pending").get<int>(), 2);
  ASSERT_EQ(j.at("deliveries").size(), 1U);
  EXPECT_EQ(j.at("deliveries")[0].at("id"), "msg_1");
  // Out-of-range limits are clamped, not refused.
  EXPECT_EQ(get("/api/v1/webhooks?limit=0").status, 200);
  for (const auto& seen : server_.seen<control::GetWebhookLog>()) {
    EXPECT_GE(seen.limit, 1U);
    EXPECT_LE(seen.limit, 1000U);
  }
}

}  // namespace
}  // namespace qeli::panel::panel_test
