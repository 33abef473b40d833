// The Logs page and GET /api/v1/logs: the server's lines (and the panel's own) escaped,
// newest first, the level passed on, a bad level refused.
#include <gtest/gtest.h>

#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

class PanelLogsTest : public LoggedInPanelTest {};

TEST_F(PanelLogsTest, ThePageShowsTheServersLinesEscapedNewestFirst) {
  const auto r = get("/logs");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "<td>server started</td>"));
  EXPECT_TRUE(contains(r.body, "odd &lt;script&gt;"));
  EXPECT_FALSE(contains(r.body, kEvil));
  EXPECT_LT(r.body.find("odd &lt;script&gt;"), r.body.find("server started"));
  ASSERT_EQ(server_.seen<control::GetLogs>().size(), 1U);
  EXPECT_EQ(server_.seen<control::GetLogs>()[0].level, "info");
  // The level filter goes to the server; an unknown one falls back to info.
  EXPECT_EQ(get("/logs?level=warn").status, 200);
  EXPECT_EQ(server_.seen<control::GetLogs>()[1].level, "warn");
  EXPECT_EQ(get("/logs?level=%3Cb%3E").status, 200);
  EXPECT_EQ(server_.seen<control::GetLogs>()[2].level, "info");
}

TEST_F(PanelLogsTest, TheApiAnswersTheLinesAndRefusesABadLevel) {
  auto r = get("/api/v1/logs?after=1&limit=5000&level=error");
  ASSERT_EQ(r.status, 200);
  const auto j = json::parse(r.body);
  EXPECT_EQ(j.at("last_seq"), 2U);
  EXPECT_EQ(j.at("lines").size(), 2U);
  const auto asked = server_.seen<control::GetLogs>().back();
  EXPECT_EQ(asked.after, 1U);
  EXPECT_EQ(asked.limit, 1000U);  // clamped
  EXPECT_EQ(asked.level, "error");
  r = get("/api/v1/logs?level=loud");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.content_type, "application/problem+json");
}

}  // namespace
}  // namespace qeli::panel
