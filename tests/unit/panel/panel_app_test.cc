#include "panel/panel_app.h"

#include <gtest/gtest.h>

#include "panel_fixture.h"
#include "server/source_key.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

TEST_F(PanelAppTest, root_without_a_cookie_redirects_to_login) {
  auto app = make(settings());
  const auto r = app->handle(req("GET", "/"));
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  // A forged or foreign cookie is the same as none.
  const auto f = app->handle(req("GET", "/sessions", {}, {{"cookie", "qeli_session=v1.abc"}}));
  EXPECT_EQ(f.status, 303);
  EXPECT_EQ(server_.total(), 0U);
  // A POST without a session is refused (not redirected).
  EXPECT_EQ(app->handle(req("POST", "/sessions/kick", "user=alice")).status, 403);
  EXPECT_TRUE(server_.seen<control::Kick>().empty());
}

TEST_F(PanelAppTest, api_without_a_cookie_is_401_problem_json) {
  auto app = make(settings());
  const auto r = app->handle(req("GET", "/api/v1/sessions"));
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.content_type, "application/problem+json");
  const auto j = json::parse(r.body);
  EXPECT_EQ(j.at("status"), 401);
  EXPECT_EQ(server_.total(), 0U);
}

TEST_F(PanelAppTest, login_page_is_served) {
  auto app = make(settings());
  const auto r = app->handle(req("GET", "/login"));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "action=\"/login\""));
  EXPECT_TRUE(contains(r.body, "name=\"password\""));
  const auto css = app->handle(req("GET", "/assets/panel.css"));
  EXPECT_EQ(css.status, 200);
  EXPECT_EQ(css.content_type, "text/css; charset=utf-8");
}

TEST_F(PanelAppTest, wrong_password_is_401_and_counted) {
  auto s = settings();
  s.brute_force.max_attempts = 1;  // one failure locks the (address, user) pair
  auto app = make(s);
  const auto key = *server::parse_source_key("127.0.0.1");
  EXPECT_FALSE(app->guard().locked_out(key, "admin", steady_));
  const auto r = app->handle(req("POST", "/login", "username=admin&password=wrong"));
  EXPECT_EQ(r.status, 401);
  EXPECT_TRUE(header_of(r, "Set-Cookie").empty());
  EXPECT_TRUE(contains(r.body, "Wrong user name or password."));
  EXPECT_TRUE(app->guard().locked_out(key, "admin", steady_));
  // Another address is not affected.
  EXPECT_FALSE(app->guard().locked_out(*server::parse_source_key("127.0.0.2"), "admin", steady_));
}

TEST_F(PanelAppTest, wrong_user_name_is_401) {
  auto app = make(settings());
  const auto r = app->handle(req("POST", "/login", "username=root&password=secret"));
  EXPECT_EQ(r.status, 401);
  EXPECT_TRUE(header_of(r, "Set-Cookie").empty());
  EXPECT_EQ(app->handle(req("POST", "/login", "username=admi&password=secret")).status, 401);
}

TEST_F(PanelAppTest, right_password_sets_a_strict_cookie) {
  auto app = make(settings());
  const auto r = app->handle(req("POST", "/login", "username=admin&password=secret"));
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/");
  const std::string set = header_of(r, "Set-Cookie");
  EXPECT_TRUE(set.starts_with("qeli_session=v2.")) << set;
  EXPECT_TRUE(contains(set, "; HttpOnly")) << set;
  EXPECT_TRUE(contains(set, "; SameSite=Strict")) << set;
  EXPECT_TRUE(contains(set, "; Path=/;")) << set;
  EXPECT_TRUE(contains(set, "; Max-Age=3600")) << set;
  EXPECT_FALSE(contains(set, "Secure")) << set;
}

TEST_F(PanelAppTest, secure_cookie_adds_secure) {
  auto s = settings();
  s.secure_cookie = true;
  auto app = make(s);
  const auto r = app->handle(req("POST", "/login", "username=admin&password=secret"));
  ASSERT_EQ(r.status, 303);
  EXPECT_TRUE(contains(header_of(r, "Set-Cookie"), "; Secure")) << header_of(r, "Set-Cookie");
}

TEST_F(PanelAppTest, logged_in_dashboard_shows_the_server_answer) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  ASSERT_FALSE(cookie.empty());
  const auto r = app->handle(req("GET", "/", {}, {{"cookie", "theme=dark; " + cookie}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(contains(r.body, "<td>alice</td>"));
  EXPECT_TRUE(contains(r.body, "9.9.9-test"));
  // The UDP profile's socket figures; the TCP profile has none.
  EXPECT_TRUE(contains(r.body,
                       "<td class=\"num\">8.0 MiB</td><td class=\"num\">7</td>"
                       "<td class=\"num\">2</td></tr>"))
      << r.body;
  EXPECT_TRUE(contains(r.body, "<td class=\"num\">—</td><td class=\"num\">—</td>"));
  EXPECT_EQ(server_.seen<control::GetStats>().size(), 1U);
  EXPECT_EQ(server_.seen<control::ListSessions>().size(), 1U);
  EXPECT_EQ(server_.seen<control::GetEvents>().size(), 1U);
  // Looking changes nothing on the server.
  EXPECT_TRUE(server_.seen<control::Kick>().empty());
}

TEST_F(PanelAppTest, dashboard_and_api_show_the_host) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const auto page = app->handle(req("GET", "/", {}, {{"cookie", cookie}}));
  ASSERT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "<h2>Host</h2>"));
  EXPECT_TRUE(contains(page.body, "memory in use"));
  const auto api = app->handle(req("GET", "/api/v1/host", {}, {{"cookie", cookie}}));
  ASSERT_EQ(api.status, 200);
  const auto j = json::parse(api.body);
  EXPECT_GE(j.at("cpus").get<int>(), 1);
  EXPECT_GT(j.at("memory_total_bytes").get<std::uint64_t>(), 0U);
  ASSERT_EQ(j.at("load").size(), 3U);
  // The page's view was the first sample after the start: the API's has a CPU share (or
  // null when no clock tick passed between the two).
  EXPECT_TRUE(j.at("cpu_percent").is_null() || j.at("cpu_percent").get<double>() >= 0);
}

TEST_F(PanelAppTest, hostile_names_are_rendered_escaped) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  ASSERT_FALSE(cookie.empty());
  for (const char* path : {"/", "/sessions", "/users", "/blocked", "/events"}) {
    const auto r = app->handle(req("GET", path, {}, {{"cookie", cookie}}));
    ASSERT_EQ(r.status, 200) << path;
    EXPECT_FALSE(contains(r.body, "<script")) << path;
    EXPECT_TRUE(contains(r.body, "&lt;script&gt;alert(1)&lt;/script&gt;")) << path;
  }
}

TEST_F(PanelAppTest, server_failure_is_a_502_with_the_error_escaped) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  server_.fail_with = "socket <b>gone</b>";
  const auto r = app->handle(req("GET", "/sessions", {}, {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 502);
  EXPECT_FALSE(contains(r.body, "<b>"));
  EXPECT_TRUE(contains(r.body, "socket &lt;b&gt;gone&lt;/b&gt;"));
  // The API maps the refusal's code like every route's (answers.h http_status_of): an
  // unreachable server is `unavailable`, 503; a failing one `internal`, 502.
  const auto api = app->handle(req("GET", "/api/v1/sessions", {}, {{"cookie", cookie}}));
  EXPECT_EQ(api.status, 503);
  EXPECT_EQ(api.content_type, "application/problem+json");
  EXPECT_TRUE(contains(api.body, "\"title\":\"Service Unavailable\""));
}

TEST_F(PanelAppTest, api_config_version_answers_the_text_or_404) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const auto ok = app->handle(req("GET", "/api/v1/config/version?id=v1", {}, {{"cookie", cookie}}));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_TRUE(contains(ok.body, "\"text\":\"# old\\n\"")) << ok.body;
  const auto none =
      app->handle(req("GET", "/api/v1/config/version?id=v9", {}, {{"cookie", cookie}}));
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.content_type, "application/problem+json");
  EXPECT_TRUE(contains(none.body, "no version"));
}

TEST_F(PanelAppTest, kick_needs_the_csrf_token) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  ASSERT_EQ(csrf.size(), 64U);

  auto none = app->handle(req("POST", "/sessions/kick", "user=alice&id=42", {{"cookie", cookie}}));
  EXPECT_EQ(none.status, 403);
  auto wrong =
      app->handle(req("POST", "/sessions/kick", "user=alice&id=42&csrf=" + std::string(64, '0'),
                      {{"cookie", cookie}}));
  EXPECT_EQ(wrong.status, 403);
  EXPECT_TRUE(server_.seen<control::Kick>().empty());

  auto ok = app->handle(
      req("POST", "/sessions/kick", "csrf=" + csrf + "&user=alice&id=42", {{"cookie", cookie}}));
  EXPECT_EQ(ok.status, 303);
  EXPECT_EQ(header_of(ok, "Location"), "/sessions?done=kicked&n=1");
  const auto kicks = server_.seen<control::Kick>();
  ASSERT_EQ(kicks.size(), 1U);
  EXPECT_EQ(kicks[0].username, "alice");
  EXPECT_EQ(kicks[0].session_id, std::optional<std::uint64_t>(42));

  // Every session of a user (no id), back to the users page it came from.
  auto all = app->handle(
      req("POST", "/sessions/kick", "csrf=" + csrf + "&user=alice",
          {{"cookie", cookie}, {"referer", "http://192.0.2.10/users"}, {"host", "192.0.2.10"}}));
  EXPECT_EQ(all.status, 303);
  EXPECT_EQ(header_of(all, "Location"), "/users?done=kicked&n=2");
  ASSERT_EQ(server_.seen<control::Kick>().size(), 2U);
  EXPECT_FALSE(server_.seen<control::Kick>()[1].session_id);

  // A bad id is refused before the server is asked.
  EXPECT_EQ(app->handle(req("POST", "/sessions/kick", "csrf=" + csrf + "&user=alice&id=x",
                            {{"cookie", cookie}}))
                .status,
            400);
  EXPECT_EQ(server_.seen<control::Kick>().size(), 2U);
}

TEST_F(PanelAppTest, the_token_of_another_session_is_refused) {
  auto app = make(settings());
  const std::string a = login(*app);
  const std::string b = login(*app);
  ASSERT_NE(a, b);
  const std::string csrf_b = csrf_of(*app, b);
  const auto r =
      app->handle(req("POST", "/users/disable", "csrf=" + csrf_b + "&user=alice", {{"cookie", a}}));
  EXPECT_EQ(r.status, 403);
  EXPECT_TRUE(server_.seen<control::DisableUser>().empty());
}

TEST_F(PanelAppTest, forms_change_users_and_lockouts) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  const std::vector<std::pair<std::string, std::string>> h = {{"cookie", cookie}};
  auto d = app->handle(req("POST", "/users/disable", "csrf=" + csrf + "&user=alice", h));
  EXPECT_EQ(d.status, 303);
  EXPECT_EQ(header_of(d, "Location"), "/users?done=disabled&n=1");
  ASSERT_EQ(server_.seen<control::DisableUser>().size(), 1U);
  EXPECT_EQ(server_.seen<control::DisableUser>()[0].username, "alice");
  auto e = app->handle(req("POST", "/users/enable", "csrf=" + csrf + "&user=alice", h));
  EXPECT_EQ(e.status, 303);
  ASSERT_EQ(server_.seen<control::EnableUser>().size(), 1U);
  auto u = app->handle(req("POST", "/blocked/unblock", "csrf=" + csrf + "&ip=203.0.113.9", h));
  EXPECT_EQ(header_of(u, "Location"), "/blocked?done=unblocked&n=1");
  ASSERT_EQ(server_.seen<control::Unblock>().size(), 1U);
  EXPECT_EQ(server_.seen<control::Unblock>()[0].ip, "203.0.113.9");
  EXPECT_EQ(app->handle(req("POST", "/nothing/here", "csrf=" + csrf, h)).status, 404);
}

TEST_F(PanelAppTest, a_foreign_origin_is_refused_even_with_the_token) {
  auto s = settings();
  s.allowed_origins = {"https://vpn.example.com/"};
  auto app = make(s);
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  const std::string body = "csrf=" + csrf + "&user=alice&id=42";
  auto post = [&](std::vector<std::pair<std::string, std::string>> extra, bool tls = false) {
    extra.emplace_back("cookie", cookie);
    auto r = req("POST", "/sessions/kick", body, std::move(extra));
    r.tls = tls;
    return app->handle(r).status;
  };
  EXPECT_EQ(post({{"origin", "https://evil.example"}, {"host", "192.0.2.10:8080"}}), 403);
  EXPECT_EQ(post({{"referer", "https://evil.example/x"}, {"host", "192.0.2.10:8080"}}), 403);
  EXPECT_EQ(post({{"origin", "null"}, {"host", "192.0.2.10:8080"}}), 403);
  // Same host, another scheme than the request came over.
  EXPECT_EQ(post({{"origin", "https://192.0.2.10:8080"}, {"host", "192.0.2.10:8080"}}), 403);
  EXPECT_TRUE(server_.seen<control::Kick>().empty());

  EXPECT_EQ(post({{"origin", "http://192.0.2.10:8080"}, {"host", "192.0.2.10:8080"}}), 303);
  EXPECT_EQ(post({{"origin", "https://192.0.2.10:8080"}, {"host", "192.0.2.10:8080"}}, true), 303);
  EXPECT_EQ(post({{"referer", "http://192.0.2.10:8080/sessions"}, {"host", "192.0.2.10:8080"}}),
            303);
  EXPECT_EQ(post({{"origin", "https://vpn.example.com"}, {"host", "127.0.0.1:8080"}}), 303);
  EXPECT_EQ(post({{"origin", "HTTPS://VPN.example.com"}, {"host", "127.0.0.1:8080"}}), 303);
  EXPECT_EQ(post({}), 303);  // no Origin nor Referer: the token alone decides
  EXPECT_EQ(server_.seen<control::Kick>().size(), 6U);
}

TEST_F(PanelAppTest, public_host_is_an_allowed_origin) {
  auto s = settings();
  s.public_host = "vpn.example.org";
  auto app = make(s);
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  auto post = [&](const std::string& origin) {
    return app
        ->handle(req("POST", "/users/enable", "csrf=" + csrf + "&user=alice",
                     {{"cookie", cookie}, {"origin", origin}, {"host", "10.0.0.1:8080"}}))
        .status;
  };
  EXPECT_EQ(post("https://vpn.example.org"), 303);
  EXPECT_EQ(post("https://vpn.example.org:8443"), 303);
  EXPECT_EQ(post("https://vpn.example.org.evil.example"), 403);
}

TEST_F(PanelAppTest, login_from_a_foreign_origin_is_refused) {
  auto app = make(settings());
  const auto r =
      app->handle(req("POST", "/login", "username=admin&password=secret",
                      {{"origin", "https://evil.example"}, {"host", "192.0.2.10:8080"}}));
  EXPECT_EQ(r.status, 403);
  EXPECT_TRUE(header_of(r, "Set-Cookie").empty());
}

TEST_F(PanelAppTest, logout_ends_the_session) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  ASSERT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  // Logout is a state change: without the token it is refused.
  EXPECT_EQ(app->handle(req("POST", "/logout", "", {{"cookie", cookie}})).status, 403);
  const auto out = app->handle(req("POST", "/logout", "csrf=" + csrf, {{"cookie", cookie}}));
  EXPECT_EQ(out.status, 303);
  EXPECT_EQ(header_of(out, "Location"), "/login");
  EXPECT_TRUE(contains(header_of(out, "Set-Cookie"), "qeli_session=; Path=/; Max-Age=0"));
  const auto again = app->handle(req("GET", "/", {}, {{"cookie", cookie}}));
  EXPECT_EQ(again.status, 303);
  EXPECT_EQ(header_of(again, "Location"), "/login");
  EXPECT_EQ(app->handle(req("GET", "/api/v1/session", {}, {{"cookie", cookie}})).status, 401);
}

TEST_F(PanelAppTest, a_new_password_ends_the_old_sessions) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  ASSERT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  auto s = settings();
  const auto h = crypto::argon2id_hash("another secret");
  ASSERT_TRUE(h);
  s.password_hash = *h;
  auto changed = make(s);  // the same session key
  const auto r = changed->handle(req("GET", "/", {}, {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  // The same key and hash (a restart without a password change) keep it.
  EXPECT_EQ(make(settings())->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
}

TEST_F(PanelAppTest, an_expired_cookie_is_refused) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  now_unix_ += 3599;
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  now_unix_ += 1;
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 303);
}

TEST_F(PanelAppTest, allowed_ips_refuse_every_route_to_others) {
  auto s = settings();
  s.allowed_ips = {*config::Ipv4Cidr::parse("10.0.0.0/8")};
  auto app = make(s);
  const std::string cookie = login(*app, "", "10.1.2.3");
  ASSERT_FALSE(cookie.empty());
  for (const auto& [m, p] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/"},
                                                        {"GET", "/login"},
                                                        {"POST", "/login"},
                                                        {"GET", "/assets/panel.css"},
                                                        {"GET", "/api/v1/sessions"},
                                                        {"GET", "/nope"},
                                                        {"PUT", "/"}}) {
    const auto r =
        app->handle(req(m, p, "username=admin&password=secret", {{"cookie", cookie}}, "127.0.0.1"));
    EXPECT_EQ(r.status, 403) << m << " " << p;
    EXPECT_TRUE(header_of(r, "Set-Cookie").empty());
  }
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}}, "::ffff:127.0.0.1")).status, 403);
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}}, "::1")).status, 403);
  EXPECT_EQ(app->handle(req("GET", "/login", {}, {}, "10.1.2.3")).status, 200);
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}}, "10.1.2.3")).status, 200);
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}}, "::ffff:10.1.2.3")).status, 200);
}

TEST_F(PanelAppTest, trusted_proxies_forwarded_address_counts) {
  auto s = settings();
  s.allowed_ips = {*config::Ipv4Cidr::parse("10.0.0.0/8")};
  s.trusted_proxies = {*config::Ipv4Cidr::parse("127.0.0.1/32")};
  auto app = make(s);
  auto get_login = [&](const std::string& remote, const std::string& xff) {
    std::vector<std::pair<std::string, std::string>> h;
    if (!xff.empty()) h.emplace_back("x-forwarded-for", xff);
    return app->handle(req("GET", "/login", {}, std::move(h), remote)).status;
  };
  EXPECT_EQ(get_login("127.0.0.1", "10.1.2.3"), 200);
  EXPECT_EQ(get_login("127.0.0.1", ""), 403);
  // The rightmost untrusted hop is the client; what it claims before that is not believed.
  EXPECT_EQ(get_login("127.0.0.1", "10.9.9.9, 192.0.2.1"), 403);
  EXPECT_EQ(get_login("127.0.0.1", "192.0.2.1, 10.1.2.3"), 200);
  EXPECT_EQ(get_login("127.0.0.1", "10.1.2.3, 127.0.0.1"), 200);
  // A proxy that adds its own line after the client's: the lines are one list, so the
  // client's line is not read alone.
  EXPECT_EQ(app->handle(req("GET", "/login", {},
                            {{"x-forwarded-for", "10.1.2.3"}, {"x-forwarded-for", "192.0.2.1"}},
                            "127.0.0.1"))
                .status,
            403);
  EXPECT_EQ(app->handle(req("GET", "/login", {},
                            {{"x-forwarded-for", "192.0.2.1"}, {"x-forwarded-for", "10.1.2.3"}},
                            "127.0.0.1"))
                .status,
            200);
  // An untrusted peer's X-Forwarded-For is ignored (both ways).
  EXPECT_EQ(get_login("192.0.2.1", "10.1.2.3"), 403);
  EXPECT_EQ(get_login("10.5.5.5", "192.0.2.1"), 200);

  // Login failures are counted for the forwarded address, not the proxy's.
  auto s2 = settings();
  s2.trusted_proxies = {*config::Ipv4Cidr::parse("127.0.0.1/32")};
  s2.brute_force.max_attempts = 1;
  auto app2 = make(s2);
  EXPECT_EQ(app2->handle(req("POST", "/login", "username=admin&password=bad",
                             {{"x-forwarded-for", "10.1.2.3"}}, "127.0.0.1"))
                .status,
            401);
  EXPECT_TRUE(app2->guard().locked_out(*server::parse_source_key("10.1.2.3"), "admin", steady_));
  EXPECT_FALSE(app2->guard().locked_out(*server::parse_source_key("127.0.0.1"), "admin", steady_));
}

TEST_F(PanelAppTest, base_path_prefixes_every_route_link_and_cookie) {
  auto s = settings();
  s.base_path = "/panel";
  auto app = make(s);
  const auto page = app->handle(req("GET", "/panel/login"));
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(contains(page.body, "action=\"/panel/login\""));
  EXPECT_TRUE(contains(page.body, "href=\"/panel/assets/panel.css\""));
  EXPECT_EQ(app->handle(req("GET", "/login")).status, 404);
  EXPECT_EQ(app->handle(req("GET", "/panelx/login")).status, 404);
  EXPECT_EQ(app->handle(req("GET", "/")).status, 404);

  const auto root = app->handle(req("GET", "/panel/"));
  EXPECT_EQ(root.status, 303);
  EXPECT_EQ(header_of(root, "Location"), "/panel/login");
  EXPECT_EQ(header_of(app->handle(req("GET", "/panel")), "Location"), "/panel/login");

  const auto in = app->handle(req("POST", "/panel/login", "username=admin&password=secret"));
  ASSERT_EQ(in.status, 303);
  EXPECT_EQ(header_of(in, "Location"), "/panel/");
  const std::string set = header_of(in, "Set-Cookie");
  EXPECT_TRUE(contains(set, "; Path=/panel;")) << set;
  const std::string cookie = set.substr(0, set.find(';'));

  const auto dash = app->handle(req("GET", "/panel", {}, {{"cookie", cookie}}));
  EXPECT_EQ(dash.status, 200);
  EXPECT_TRUE(contains(dash.body, "href=\"/panel/sessions\""));
  EXPECT_TRUE(contains(dash.body, "action=\"/panel/sessions/kick\""));
  EXPECT_TRUE(contains(dash.body, "action=\"/panel/logout\""));

  const std::string csrf = csrf_of(*app, cookie, "/panel");
  ASSERT_FALSE(csrf.empty());
  const auto kick = app->handle(
      req("POST", "/panel/sessions/kick", "csrf=" + csrf + "&user=alice", {{"cookie", cookie}}));
  EXPECT_EQ(header_of(kick, "Location"), "/panel/sessions?done=kicked&n=2");
  const auto out = app->handle(req("POST", "/panel/logout", "csrf=" + csrf, {{"cookie", cookie}}));
  EXPECT_EQ(header_of(out, "Location"), "/panel/login");
  EXPECT_TRUE(contains(header_of(out, "Set-Cookie"), "; Path=/panel;"));
}

TEST_F(PanelAppTest, brute_force_locks_out_even_the_right_password) {
  auto s = settings();
  s.brute_force.max_attempts = 3;
  auto app = make(s);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(app->handle(req("POST", "/login", "username=admin&password=bad")).status, 401) << i;
  }
  EXPECT_TRUE(sleeps_.empty());
  const auto r = app->handle(req("POST", "/login", "username=admin&password=secret"));
  EXPECT_EQ(r.status, 429);
  EXPECT_TRUE(header_of(r, "Set-Cookie").empty());
  // From another address the pair is not locked, but the name is tarpitted.
  const std::string cookie = login(*app, "", "127.0.0.2");
  EXPECT_FALSE(cookie.empty());
  ASSERT_EQ(sleeps_.size(), 1U);
  EXPECT_GT(sleeps_[0], Duration::zero());
  // The lockout ends after its time.
  steady_ += s.brute_force.lockout + std::chrono::seconds(1);
  EXPECT_EQ(app->handle(req("POST", "/login", "username=admin&password=secret")).status, 303);
}

TEST_F(PanelAppTest, every_answer_carries_the_security_headers) {
  auto s = settings();
  s.allowed_ips = {*config::Ipv4Cidr::parse("127.0.0.0/8")};
  auto app = make(s);
  const std::string cookie = login(*app);
  std::vector<HttpRequest> reqs = {
      req("GET", "/"),
      req("GET", "/", {}, {{"cookie", cookie}}),
      req("GET", "/login"),
      req("POST", "/login", "username=admin&password=bad"),
      req("GET", "/assets/panel.css"),
      req("GET", "/api/v1/sessions"),
      req("GET", "/api/v1/sessions", {}, {{"cookie", cookie}}),
      req("GET", "/nope", {}, {{"cookie", cookie}}),
      req("PUT", "/"),
      req("POST", "/sessions/kick", "user=alice", {{"cookie", cookie}}),
      req("GET", "/", {}, {}, "192.0.2.1"),
  };
  auto tls = req("GET", "/login");
  tls.tls = true;
  reqs.push_back(tls);
  for (const auto& q : reqs) {
    const auto r = app->handle(q);
    const std::string what = q.method + " " + q.path + " -> " + std::to_string(r.status);
    EXPECT_EQ(count_of(r, "Content-Security-Policy"), 1U) << what;
    EXPECT_TRUE(contains(header_of(r, "Content-Security-Policy"), "default-src 'none'")) << what;
    EXPECT_TRUE(contains(header_of(r, "Content-Security-Policy"), "frame-ancestors 'none'"))
        << what;
    EXPECT_EQ(header_of(r, "X-Frame-Options"), "DENY") << what;
    EXPECT_EQ(header_of(r, "X-Content-Type-Options"), "nosniff") << what;
    EXPECT_EQ(header_of(r, "Cache-Control"), "no-store") << what;
    EXPECT_EQ(count_of(r, "Strict-Transport-Security"), q.tls ? 1U : 0U) << what;
  }
}

TEST_F(PanelAppTest, json_api_lists_sessions) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const auto r = app->handle(req("GET", "/api/v1/sessions", {}, {{"cookie", cookie}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const auto j = json::parse(r.body);
  EXPECT_EQ(j.at("ok"), true);
  ASSERT_EQ(j.at("clients").size(), 2U);
  EXPECT_EQ(j["clients"][0].at("username"), "alice");
  EXPECT_EQ(j["clients"][0].at("id"), 42);
  EXPECT_EQ(j["clients"][1].at("username"), kEvil);  // JSON is data, not markup

  const auto session =
      json::parse(app->handle(req("GET", "/api/v1/session", {}, {{"cookie", cookie}})).body);
  EXPECT_EQ(session.at("user"), "admin");
  EXPECT_EQ(session.at("expires_unix"), now_unix_ + 3600);

  const auto ev =
      app->handle(req("GET", "/api/v1/events?after=7&limit=5000", {}, {{"cookie", cookie}}));
  EXPECT_EQ(ev.status, 200);
  const auto asked = server_.seen<control::GetEvents>();
  ASSERT_EQ(asked.size(), 1U);
  EXPECT_EQ(asked[0].after, 7U);
  EXPECT_EQ(asked[0].limit, 1000U);

  EXPECT_EQ(app->handle(req("GET", "/api/v1/nope", {}, {{"cookie", cookie}})).status, 404);
  EXPECT_EQ(app->handle(req("GET", "/api/v2/sessions", {}, {{"cookie", cookie}})).status, 404);
}

TEST_F(PanelAppTest, short_api_paths_are_404) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  for (const char* p : {"/api/", "/api/v", "/api/v1", "/api/v1/"}) {
    const auto r = app->handle(req("GET", p, {}, {{"cookie", cookie}}));
    EXPECT_EQ(r.status, 404) << p;
    EXPECT_EQ(r.content_type, "application/problem+json") << p;
  }
}

TEST_F(PanelAppTest, json_api_disable_needs_the_csrf_header) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  const std::string body = R"({"user":"alice"})";
  const auto no = app->handle(req("POST", "/api/v1/users/disable", body,
                                  {{"cookie", cookie}, {"content-type", "application/json"}}));
  EXPECT_EQ(no.status, 403);
  EXPECT_EQ(no.content_type, "application/problem+json");
  // The form field is not accepted for the API (its body is JSON).
  EXPECT_EQ(app->handle(req("POST", "/api/v1/users/disable", "csrf=" + csrf, {{"cookie", cookie}}))
                .status,
            403);
  EXPECT_TRUE(server_.seen<control::DisableUser>().empty());

  const auto ok = app->handle(
      req("POST", "/api/v1/users/disable", body, {{"cookie", cookie}, {"x-csrf-token", csrf}}));
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.content_type, "application/json");
  const auto j = json::parse(ok.body);
  EXPECT_EQ(j.at("ok"), true);
  EXPECT_EQ(j.at("kicked"), 1);
  ASSERT_EQ(server_.seen<control::DisableUser>().size(), 1U);
  EXPECT_EQ(server_.seen<control::DisableUser>()[0].username, "alice");

  const auto kick = app->handle(req("POST", "/api/v1/sessions/kick", R"({"user":"alice","id":42})",
                                    {{"cookie", cookie}, {"x-csrf-token", csrf}}));
  EXPECT_EQ(kick.status, 200);
  ASSERT_EQ(server_.seen<control::Kick>().size(), 1U);
  EXPECT_EQ(server_.seen<control::Kick>()[0].session_id, std::optional<std::uint64_t>(42));
  EXPECT_EQ(app->handle(req("POST", "/api/v1/sessions/kick", R"({"user":"alice","id":-1})",
                            {{"cookie", cookie}, {"x-csrf-token", csrf}}))
                .status,
            400);
  EXPECT_EQ(app->handle(req("POST", "/api/v1/users/disable", "not json",
                            {{"cookie", cookie}, {"x-csrf-token", csrf}}))
                .status,
            400);
  EXPECT_EQ(server_.seen<control::Kick>().size(), 1U);
}

TEST_F(PanelAppTest, other_methods_are_405) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  for (const char* m : {"PUT", "DELETE", "PATCH", "OPTIONS"}) {
    const auto r = app->handle(req(m, "/sessions", {}, {{"cookie", cookie}}));
    EXPECT_EQ(r.status, 405) << m;
    EXPECT_EQ(header_of(r, "Allow"), "GET, HEAD, POST") << m;
  }
  EXPECT_EQ(app->handle(req("PUT", "/api/v1/sessions")).status, 405);
}

TEST_F(PanelAppTest, done_message_is_fixed_text_only) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  auto body = [&](const std::string& target) {
    const auto r = app->handle(req("GET", target, {}, {{"cookie", cookie}}));
    EXPECT_EQ(r.status, 200) << target;
    return r.body;
  };
  const std::string kicked = body("/sessions?done=kicked&n=3");
  EXPECT_TRUE(contains(kicked, "<p class=\"msg\">Ended 3 session(s).</p>"));

  const std::string evil = body("/sessions?done=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
  EXPECT_FALSE(contains(evil, "class=\"msg\""));
  EXPECT_FALSE(contains(evil, "alert(1)</"));
  const std::string raw = body("/users?done=<script>");
  EXPECT_FALSE(contains(raw, "class=\"msg\""));
  const std::string n = body("/sessions?done=kicked&n=%3Cscript%3E");
  EXPECT_TRUE(contains(n, "Ended 0 session(s)."));
  EXPECT_FALSE(contains(n, "&lt;script&gt;</p>"));
  EXPECT_FALSE(contains(body("/sessions?done=kicked&n=%"), "class=\"msg\""));
}

TEST_F(PanelAppTest, config_editor_shows_the_file_escaped_with_its_base) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const auto r = app->handle(req("GET", "/config", {}, {{"cookie", cookie}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_FALSE(contains(r.body, kEvil));
  EXPECT_TRUE(contains(r.body, "name=\"base\" value=\"" + std::string(64, 'a') + "\""));
  EXPECT_TRUE(contains(r.body, "/config/version?id=v1"));
  const auto v = app->handle(req("GET", "/config/version?id=v1", {}, {{"cookie", cookie}}));
  EXPECT_EQ(v.status, 200);
  EXPECT_TRUE(contains(v.body, "# old"));
  EXPECT_EQ(app->handle(req("GET", "/config/version?id=nope", {}, {{"cookie", cookie}})).status,
            404);
}

TEST_F(PanelAppTest, config_save_sends_lf_text_with_base_and_actor) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  // What a browser posts: CRLF line ends, URL-encoded.
  const auto r = app->handle(req("POST", "/config/save",
                                 "csrf=" + csrf + "&base=abc&text=%5Bweb%5D%0D%0Aport+%3D+81%0D%0A",
                                 {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/config?done=saved");
  const auto saves = server_.seen<control::SaveConfig>();
  ASSERT_EQ(saves.size(), 1U);
  EXPECT_EQ(saves[0].text, "[web]\nport = 81\n");
  EXPECT_EQ(saves[0].base_sha256, "abc");
  EXPECT_EQ(saves[0].actor, "panel:admin");
  // Without the token nothing is validated or saved.
  EXPECT_EQ(
      app->handle(req("POST", "/config/save", "base=abc&text=x", {{"cookie", cookie}})).status,
      403);
  EXPECT_EQ(server_.seen<control::SaveConfig>().size(), 1U);
}

TEST_F(PanelAppTest, config_with_errors_or_a_stale_base_is_not_saved_and_keeps_the_edit) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  server_.validation = {false, {{"error", "f", "web", "port", 2, "out of range", "t"}}, 0};
  auto r = app->handle(
      req("POST", "/config/save", "csrf=" + csrf + "&base=abc&text=my+edit", {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(contains(r.body, "out of range"));
  EXPECT_TRUE(contains(r.body, ">\nmy edit</textarea>"));
  EXPECT_TRUE(server_.seen<control::SaveConfig>().empty());
  // Validate only: 200 with the findings, nothing saved.
  r = app->handle(req("POST", "/config/validate", "csrf=" + csrf + "&base=abc&text=my+edit",
                      {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "out of range"));
  EXPECT_TRUE(server_.seen<control::SaveConfig>().empty());
  // Valid, but the file changed meanwhile: 409, the edit kept.
  server_.validation = {true, {}, 0};
  server_.save_error = "the file changed since it was read";
  r = app->handle(
      req("POST", "/config/save", "csrf=" + csrf + "&base=abc&text=my+edit", {{"cookie", cookie}}));
  EXPECT_EQ(r.status, 409);
  EXPECT_TRUE(contains(r.body, "the file changed since it was read"));
  EXPECT_TRUE(contains(r.body, ">\nmy edit</textarea>"));
}

// The page after a save says what the server did: reloaded, nothing to do, or saved
// while the reload was refused (with the server's reason, escaped) — never "reloaded"
// when it was not. The same for a restore.
TEST_F(PanelAppTest, a_save_says_whether_the_server_reloaded) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const std::string csrf = csrf_of(*app, cookie);
  auto save = [&](const std::string& path, const std::string& body) {
    return app->handle(req("POST", path, "csrf=" + csrf + "&" + body, {{"cookie", cookie}}));
  };
  auto r = save("/config/save", "base=abc&text=my+edit");
  EXPECT_EQ(header_of(r, "Location"), "/config?done=saved");
  r = app->handle(req("GET", "/config?done=saved", {}, {{"cookie", cookie}}));
  EXPECT_TRUE(contains(r.body, "Saved; the server reloaded the config."));
  EXPECT_EQ(header_of(save("/config/restore", "id=v1&base=abc"), "Location"),
            "/config?done=restored");
  // The text was the file's: nothing saved, nothing reloaded.
  server_.saved.history_id.clear();
  server_.saved.reloaded = false;
  EXPECT_EQ(header_of(save("/config/save", "base=abc&text=my+edit"), "Location"),
            "/config?done=unchanged");
  r = app->handle(req("GET", "/config?done=unchanged", {}, {{"cookie", cookie}}));
  EXPECT_TRUE(contains(r.body, "Nothing to save: the text is the file&#39;s already."));
  // Saved, but the reload was refused: the editor says so with the reason, over the
  // saved text and its new base.
  server_.saved.history_id = "v2";
  server_.saved.reload_error = std::string("users.conf:3: bad ") + kEvil;
  r = save("/config/save", "base=abc&text=my+edit");
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(contains(r.body, "the server reloaded"));
  EXPECT_TRUE(contains(r.body,
                       "<p class=\"err\">Saved, but the server refused to reload it and keeps "
                       "running the previous configuration: users.conf:3: bad &lt;script&gt;"))
      << r.body;
  EXPECT_FALSE(contains(r.body, "<script"));
  EXPECT_TRUE(contains(r.body, ">\nmy edit</textarea>"));
  EXPECT_TRUE(contains(r.body, "name=\"base\" value=\"" + std::string(64, 'b') + "\""));
  r = save("/config/restore", "id=v1&base=abc");
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(contains(r.body, "Restored, but the server refused to reload it"));
  EXPECT_TRUE(contains(r.body, ">\n# old\n</textarea>"));
  // A refusal without a reason still says it was not reloaded.
  server_.saved.reload_error.clear();
  EXPECT_TRUE(contains(save("/config/save", "base=abc&text=my+edit").body,
                       "keeps running the previous configuration: no reason given"));
  // In Russian.
  r = app->handle(req("POST", "/config/save", "csrf=" + csrf + "&base=abc&text=x",
                      {{"cookie", cookie}, {"accept-language", "ru"}}));
  EXPECT_TRUE(contains(r.body, "Сохранено, но сервер отказался перезагрузить конфигурацию"))
      << r.body;
  EXPECT_EQ(server_.seen<control::SaveConfig>().size(), 7U);
}

// DNS rebinding: a name the attacker's DNS points at 127.0.0.1 is not this panel; an
// address, localhost, public_host and an allowed origin's host are.
TEST_F(PanelAppTest, a_host_name_that_is_not_the_panel_is_misdirected) {
  auto s = settings();
  s.public_host = "vpn.example.org";
  s.allowed_origins = {"https://admin.example.org:8443"};
  auto app = make(s);
  auto code = [&](const char* host) {
    return app->handle(req("GET", "/login", {}, {{"host", host}})).status;
  };
  EXPECT_EQ(code("rebind.evil.example:8080"), 421);
  EXPECT_EQ(code("localhost.evil.example"), 421);
  EXPECT_EQ(code("127.0.0.1:8080"), 200);
  EXPECT_EQ(code("[::1]:8080"), 200);
  EXPECT_EQ(code("localhost:8080"), 200);
  EXPECT_EQ(code("VPN.example.org"), 200);
  EXPECT_EQ(code("admin.example.org:8443"), 200);
  // Refused before anything else: none of these counts as a failed login (more of them
  // than max_attempts, and the right password still logs in afterwards).
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(app->handle(req("POST", "/login", "username=admin&password=wrong",
                              {{"host", "rebind.evil.example"}}))
                  .status,
              421);
  }
  EXPECT_FALSE(login(*app).empty());
}

// A planted cookie that comes first (a more specific Path) does not hide the real one.
TEST_F(PanelAppTest, every_session_cookie_is_tried) {
  auto app = make(settings());
  const std::string cookie = login(*app);
  const auto r =
      app->handle(req("GET", "/sessions", {}, {{"cookie", "qeli_session=v1.planted; " + cookie}}));
  EXPECT_EQ(r.status, 200);
}

}  // namespace
}  // namespace qeli::panel
