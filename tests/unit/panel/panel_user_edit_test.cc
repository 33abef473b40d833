// Editing a user's limits through the panel: the form over the current values (escaped),
// its CSRF rule, what it asks the server, the server's refusal shown on the form with
// what the admin typed, and POST /api/v1/users/edit with problem details.
#include <gtest/gtest.h>

#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

using PanelUserEditTest = LoggedInPanelTest;

TEST_F(PanelUserEditTest, the_form_shows_the_current_values_escaped) {
  const auto r = get("/users/edit?user=alice");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(contains(r.body, "action=\"/users/edit\""));
  EXPECT_TRUE(contains(r.body, "name=\"csrf\" value=\"" + csrf_ + "\""));
  EXPECT_TRUE(contains(r.body, "name=\"max_sessions\" type=\"number\" value=\"2\""));
  EXPECT_TRUE(contains(r.body, "name=\"bandwidth_limit_mbps\" type=\"number\" value=\"7.5\""));
  EXPECT_TRUE(contains(r.body, ">10.1.0.0/16\n10.2.0.0/16 metric=3</textarea>"));
  EXPECT_TRUE(contains(r.body, "name=\"enabled\" value=\"1\" checked"));
  // The user page links to it.
  EXPECT_TRUE(contains(get("/users/view?name=alice").body, "href=\"/users/edit?user=alice\""));
  const auto evil = get("/users/edit?user=%3Cscript%3Ealert%281%29%3C%2Fscript%3E");
  ASSERT_EQ(evil.status, 200);
  EXPECT_FALSE(contains(evil.body, kEvil));  // its name and its group: text
  EXPECT_TRUE(contains(evil.body, "value=\"&lt;script&gt;alert(1)&lt;/script&gt;\""));
  EXPECT_EQ(get("/users/edit?user=nobody").status, 404);
}

TEST_F(PanelUserEditTest, a_post_needs_the_csrf_token) {
  EXPECT_EQ(post("/users/edit", "user=alice&max_sessions=4", /*with_csrf=*/false).status, 403);
  EXPECT_EQ(
      post("/users/edit", "csrf=" + std::string(64, '0') + "&user=alice&max_sessions=4", false)
          .status,
      403);
  EXPECT_TRUE(server_.seen<control::EditUser>().empty());
}

TEST_F(PanelUserEditTest, a_saved_form_asks_the_server_for_every_field) {
  const auto r = post("/users/edit",
                      "user=alice&group=staff&static_ip=10.9.0.50&max_sessions=4&profiles=main%2C+"
                      "spare&routes=10.3.0.0%2F16%0D%0A%0D%0A172.16.0.0%2F12+metric%3D5%0D%0A&"
                      "allowed_networks=10.0.0.0%2F8&bandwidth_limit_mbps=12.5&data_limit_gb=50&"
                      "expire_at=1900000000");
  ASSERT_EQ(r.status, 303) << r.body;
  EXPECT_EQ(header_of(r, "Location"), "/users/view?name=alice&done=user-edited&n=1");
  const auto seen = server_.seen<control::EditUser>();
  ASSERT_EQ(seen.size(), 1U);
  const auto& e = seen[0];
  EXPECT_EQ(e.username, "alice");
  EXPECT_EQ(e.actor, "panel:admin");
  EXPECT_EQ(e.group, "staff");
  EXPECT_EQ(e.static_ip, "10.9.0.50");
  EXPECT_EQ(e.max_sessions, 4U);
  EXPECT_EQ(e.profiles, (std::vector<std::string>{"main", "spare"}));
  EXPECT_EQ(e.routes, (std::vector<std::string>{"10.3.0.0/16", "172.16.0.0/12 metric=5"}));
  EXPECT_EQ(e.allowed_networks, std::vector<std::string>{"10.0.0.0/8"});
  EXPECT_EQ(e.bandwidth_limit_mbps, 12.5);
  EXPECT_EQ(e.data_limit_gb, 50);
  EXPECT_EQ(e.expire_at, 1'900'000'000U);
  EXPECT_EQ(e.enabled, false);  // the checkbox was not sent
  EXPECT_TRUE(contains(get("/users/view?name=alice&done=user-edited&n=1").body,
                       "User saved; the server reloaded (ended 1 session(s))."));
}

TEST_F(PanelUserEditTest, a_refusal_is_shown_on_the_form_with_what_was_typed) {
  const auto r = post("/users/edit", std::string("user=alice&static_ip=") + kOutsidePool +
                                         "&max_sessions=9&enabled=1");
  ASSERT_EQ(r.status, 422);
  EXPECT_FALSE(contains(r.body, kEvil));
  EXPECT_TRUE(contains(r.body,
                       "is not a free host of any of the user&#39;s pools "
                       "&lt;script&gt;alert(1)&lt;/script&gt;"))
      << r.body;
  EXPECT_TRUE(contains(
      r.body, std::string("name=\"static_ip\" type=\"text\" value=\"") + kOutsidePool + "\""));
  EXPECT_TRUE(contains(r.body, "name=\"max_sessions\" type=\"number\" value=\"9\""));
  // A number the form cannot read: refused on the form, the server never asked.
  const auto before = server_.seen<control::EditUser>().size();
  const auto bad = post("/users/edit", "user=alice&max_sessions=lots");
  ASSERT_EQ(bad.status, 422);
  EXPECT_TRUE(contains(bad.body, "Max sessions: not a whole number"));
  EXPECT_TRUE(contains(bad.body, "value=\"lots\""));
  EXPECT_EQ(server_.seen<control::EditUser>().size(), before);
}

TEST_F(PanelUserEditTest, json_api_edits_with_problem_details_on_refusal) {
  auto r = api("/api/v1/users/edit", {{"user", "alice"},
                                      {"max_sessions", 4},
                                      {"bandwidth_limit_mbps", 12.5},
                                      {"expire_at", 1900000000}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["users_file"], "/u.conf");
  auto seen = server_.seen<control::EditUser>();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].username, "alice");
  EXPECT_EQ(seen[0].actor, "panel:admin");
  EXPECT_EQ(seen[0].max_sessions, 4U);
  EXPECT_EQ(seen[0].expire_at, 1'900'000'000U);
  EXPECT_FALSE(seen[0].group.has_value());  // absent: kept
  EXPECT_FALSE(seen[0].routes.has_value());

  r = api("/api/v1/users/edit", {{"user", "alice"}, {"static_ip", kOutsidePool}});
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.content_type, "application/problem+json");
  EXPECT_EQ(json::parse(r.body)["detail"], kEditRefusal);
  // Refused before the server hears of them: a misspelt member, a wrong type, no user.
  const auto asked = server_.seen<control::EditUser>().size();
  for (const auto& body :
       {json{{"user", "alice"}, {"max_session", 4}}, json{{"user", "alice"}, {"max_sessions", "4"}},
        json{{"user", "alice"}, {"routes", "10.0.0.0/8"}}, json{{"max_sessions", 4}}}) {
    SCOPED_TRACE(body.dump());
    r = api("/api/v1/users/edit", body);
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.content_type, "application/problem+json");
  }
  EXPECT_EQ(server_.seen<control::EditUser>().size(), asked);
}

}  // namespace
}  // namespace qeli::panel
