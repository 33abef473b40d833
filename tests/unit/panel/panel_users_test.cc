// Users and devices through the panel: the pages, the forms' CSRF rule, the device link
// page (shown once: the only place its credential appears), and the JSON API with the
// server's refusals as problem details.
#include <gtest/gtest.h>

#include "crypto/base64.h"
#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

class PanelUsersTest : public LoggedInPanelTest {
 protected:
  void SetUp() override {
    PanelSettings s = settings();
    s.public_host = "vpn.example.com";
    start(s);
  }
};

TEST_F(PanelUsersTest, users_page_links_each_user_and_offers_the_new_user_form) {
  const auto r = get("/users");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "href=\"/users/view?name=alice\"")) << r.body;
  // The evil name is percent-encoded in the link and escaped in the text.
  EXPECT_TRUE(contains(r.body, "/users/view?name=%3Cscript%3Ealert%281%29%3C%2Fscript%3E"));
  EXPECT_FALSE(contains(r.body, kEvil));
  EXPECT_TRUE(contains(r.body, "action=\"/users/add\""));
  EXPECT_TRUE(contains(r.body, "placeholder=\"main, fast\""));  // the server's profiles
}

TEST_F(PanelUsersTest, user_page_lists_devices_and_prefills_the_public_host) {
  const auto r = get("/users/view?name=alice");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "alice-phone"));
  EXPECT_TRUE(contains(r.body, "89abcdef"));
  EXPECT_TRUE(contains(r.body, "action=\"/devices/revoke\""));
  EXPECT_TRUE(contains(r.body, "action=\"/devices/add\""));
  EXPECT_TRUE(contains(r.body, "value=\"vpn.example.com\""));
  EXPECT_TRUE(contains(r.body, "<option>main</option>"));
  EXPECT_TRUE(contains(r.body, "action=\"/users/remove\""));
  // Stored XSS in a device name and a user name: text, never markup.
  const auto evil = get("/users/view?name=%3Cscript%3Ealert%281%29%3C%2Fscript%3E");
  ASSERT_EQ(evil.status, 200);
  EXPECT_FALSE(contains(evil.body, kEvil));
  EXPECT_TRUE(contains(evil.body, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_EQ(get("/users/view?name=nobody").status, 404);
}

TEST_F(PanelUsersTest, every_user_and_device_form_needs_the_csrf_token) {
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/users/add", "name=carol"},
           {"/users/remove", "user=alice"},
           {"/devices/add", "user=alice&name=laptop&host=vpn.example.com"},
           {"/devices/revoke", "user=alice&id=89abcdef"}}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(post(path, body, /*with_csrf=*/false).status, 403);
    EXPECT_EQ(post(path, "csrf=" + std::string(64, '0') + "&" + body, false).status, 403);
  }
  EXPECT_TRUE(server_.seen<control::AddUser>().empty());
  EXPECT_TRUE(server_.seen<control::RemoveUser>().empty());
  EXPECT_TRUE(server_.seen<control::AddDevice>().empty());
  EXPECT_TRUE(server_.seen<control::RevokeDevice>().empty());
}

TEST_F(PanelUsersTest, add_user_asks_the_server_and_lands_on_the_user_page) {
  const auto r = post("/users/add", "name=carol&profiles=main%2C+udp+&max_sessions=3");
  ASSERT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/users/view?name=carol&done=user-added");
  const auto seen = server_.seen<control::AddUser>();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].username, "carol");
  EXPECT_EQ(seen[0].profiles, (std::vector<std::string>{"main", "udp"}));
  EXPECT_EQ(seen[0].max_sessions, 3U);
  EXPECT_EQ(seen[0].actor, "panel:admin");
  // Refused (the name exists): back to the list with the fixed failure sentence.
  const auto dup = post("/users/add", "name=alice");
  EXPECT_EQ(header_of(dup, "Location"), "/users?done=failed");
}

TEST_F(PanelUsersTest, a_new_device_shows_its_link_and_qr_once_and_never_redirects) {
  const auto r = post("/devices/add", "user=alice&name=laptop&profile=main&host=vpn.example.com");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto seen = server_.seen<control::AddDevice>();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].host, "vpn.example.com");
  EXPECT_EQ(seen[0].profile, "main");
  EXPECT_TRUE(contains(r.body, kCredential));
  EXPECT_TRUE(contains(r.body, "id=\"device-link\""));
  EXPECT_FALSE(contains(r.body, kEvil));  // the link's label is escaped too
  // The QR code is an SVG image in a data: URI that decodes to a real SVG.
  const std::string marker = "src=\"data:image/svg+xml;base64,";
  const auto at = r.body.find(marker);
  ASSERT_NE(at, std::string::npos);
  const auto end = r.body.find('"', at + marker.size());
  const auto svg =
      crypto::base64_decode(r.body.substr(at + marker.size(), end - at - marker.size()));
  ASSERT_TRUE(svg);
  const std::string text(svg->begin(), svg->end());
  EXPECT_EQ(text.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U) << text;
  // Never stored by a browser or a proxy.
  EXPECT_EQ(header_of(r, "Cache-Control"), "no-store");
  // A refusal keeps the admin on the user's page.
  const auto taken = post("/devices/add", "user=alice&name=taken&host=vpn.example.com");
  EXPECT_EQ(header_of(taken, "Location"), "/users/view?name=alice&done=failed");
}

TEST_F(PanelUsersTest, revoke_and_remove_report_the_sessions_they_ended) {
  const auto r = post("/devices/revoke", "user=alice&id=89abcdef");
  EXPECT_EQ(header_of(r, "Location"), "/users/view?name=alice&done=revoked&n=1");
  const auto page = get("/users/view?name=alice&done=revoked&n=1");
  EXPECT_TRUE(contains(page.body, "Device revoked; ended 1 session(s)."));
  const auto gone = post("/users/remove", "user=alice");
  EXPECT_EQ(header_of(gone, "Location"), "/users?done=user-removed&n=2");
}

TEST_F(PanelUsersTest, json_api_adds_and_revokes_with_problem_details_on_refusal) {
  auto r = api("/api/v1/users", {{"user", "carol"}, {"profiles", {"main"}}, {"max_sessions", 2}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["users_file"], "/u.conf");
  r = api("/api/v1/users", {{"user", "alice"}});
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.content_type, "application/problem+json");
  r = api("/api/v1/users", {{"user", "carol"}, {"profiles", "main"}});
  EXPECT_EQ(r.status, 400);
  r = api("/api/v1/devices", {{"user", "alice"}, {"name", "tablet"}, {"host", "vpn.example.com"}});
  ASSERT_EQ(r.status, 200);
  const auto j = json::parse(r.body);
  EXPECT_EQ(j["credential"], kCredential);
  EXPECT_EQ(j["id"], "fedcba98");
  r = api("/api/v1/devices/revoke", {{"user", "alice"}, {"id", "00000000"}});
  EXPECT_EQ(r.status, 404);
  r = api("/api/v1/devices/revoke", {{"user", "alice"}, {"id", "89abcdef"}});
  EXPECT_EQ(json::parse(r.body)["sessions_ended"], 1);
  r = api("/api/v1/users/remove", {{"user", "alice"}});
  EXPECT_EQ(r.status, 200);
  // The same calls without the CSRF header: refused before the server hears of them.
  const auto before = server_.total();
  const auto bare =
      app_->handle(req("POST", "/api/v1/devices", json{{"user", "alice"}, {"name", "x"}}.dump(),
                       {{"cookie", cookie_}}));
  EXPECT_EQ(bare.status, 403);
  EXPECT_EQ(server_.total(), before);
}

}  // namespace
}  // namespace qeli::panel
