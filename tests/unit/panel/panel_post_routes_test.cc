// Every state-changing route of the panel, from its one table (panel/post_routes.h): each
// one with a body that would change something is refused — without the session's CSRF
// token (403), and with a session cookie from before the admin's password changed (403 on
// a form, 401 on the API) — and nothing changes: no request reaches the server, no token,
// admin or second factor moves, no cookie is set, the session stays. The same request
// with the token is not refused (the control: the refusals above are the token's doing).
// A POST path the table lacks is 404 even with the token. Plus stored XSS on the audit,
// tokens and admins pages.
#include <gtest/gtest.h>

#include <map>

#include "../config/temp_dir.h"
#include "crypto/base32.h"
#include "crypto/totp.h"
#include "panel/post_routes.h"
#include "panel_fixture.h"

namespace qeli::panel::panel_test {
namespace {

constexpr char kBoss[] = "boss2";
constexpr char kOldPassword[] = "old-password-of-boss2";
constexpr char kNewPassword[] = "new-password-of-boss2";

class PanelPostRoutesTest : public PanelAppTest {
 protected:
  void SetUp() override {
    stores_.open(dir_.path() + "/panel.db");
    app_ = make(settings());
    stores_.attach(*app_);
    // An owner who is a further admin (its password and second factor are the panel's to
    // change), and things for the routes to change: another admin and a token.
    const auto hash = crypto::argon2id_hash(kOldPassword);
    ASSERT_TRUE(hash);
    ASSERT_TRUE(stores_.admins->create(kBoss, AdminRole::kOwner, *hash, now_unix_, "admin").ok());
    ASSERT_TRUE(
        stores_.admins->create("second", AdminRole::kAdmin, *hash, now_unix_, "admin").ok());
    ASSERT_TRUE(stores_.admins->set_totp("second", crypto::base32_encode(Bytes(20, 7))));
    auto made = stores_.tokens->create("ci", static_cast<TokenScopes>(TokenScope::kRead), 30,
                                       now_unix_, crypto::system_rng());
    ASSERT_TRUE(made.ok());
    token_id_ = made->info.id;
  }

  /// Logs kBoss in (with a one-time code of a later step when it has a second factor: a
  /// step is accepted once); the cookie pair, empty on failure.
  std::string login_as(const std::string& password) {
    std::string body = std::string("username=") + kBoss + "&password=" + password;
    if (const auto a = stores_.admins->find(kBoss); a && !a->totp_secret.empty()) {
      now_unix_ += 30;
      const auto key = crypto::base32_decode(a->totp_secret);
      body += "&code=" + crypto::totp_code(*key, crypto::totp_step(now_unix_));
    }
    const auto r = app_->handle(
        req("POST", "/login", body, {{"content-type", "application/x-www-form-urlencoded"}}));
    const std::string set = header_of(r, "Set-Cookie");
    return r.status == 303 ? set.substr(0, set.find(';')) : std::string();
  }

  /// What a route could change, besides the server (whose requests are counted).
  std::string state() {
    std::string s;
    for (const auto& t : stores_.tokens->list()) s += "token " + t.id + " " + t.name + "\n";
    for (const auto& a : stores_.admins->list()) {
      s += "admin " + a.name + " " + std::string(role_name(a.role)) + " " + a.password_hash + " " +
           a.totp_secret + " " + std::to_string(a.generation) + "\n";
    }
    return s;
  }

  /// The route's body (form or JSON) that would change something if it were let through.
  std::string body_of(std::string_view path) {
    const std::string secret = crypto::base32_encode(Bytes(crypto::kTotpSecretBytes, 9));
    const auto key = crypto::base32_decode(secret);
    const std::string code = crypto::totp_code(*key, crypto::totp_step(now_unix_));
    const std::map<std::string_view, std::string> bodies = {
        {"/logout", ""},
        {"/lang", "lang=ru&to=/users"},
        {"/sessions/kick", "user=alice&id=42"},
        {"/users/add", "name=carol&max_sessions=1"},
        {"/users/edit", "user=alice&max_sessions=3"},
        {"/users/remove", "user=alice"},
        {"/users/disable", "user=alice"},
        {"/users/enable", "user=alice"},
        {"/devices/add", "user=alice&name=phone&host=h&profile=main"},
        {"/devices/revoke", "user=alice&id=89abcdef"},
        {"/blocked/unblock", "ip=203.0.113.9"},
        {"/blocked/unblock-all", ""},
        {"/config/validate", "text=x&base=a"},
        {"/config/save", "text=x&base=a"},
        {"/config/restore", "id=v1&base=a"},
        {"/tokens/create", "name=ci2&scope=admin&days=5"},
        {"/tokens/revoke", "id=" + token_id_},
        {"/admins/create", "name=third&role=owner"},
        {"/admins/role", "name=second&role=owner"},
        {"/admins/remove", "name=second"},
        {"/admins/logout", "name=second"},
        {"/admins/totp-reset", "name=second"},
        {"/account/password",
         std::string("current=") + password_ + "&new=" + kNewPassword + "&again=" + kNewPassword},
        {"/account/totp/start", ""},
        {"/account/totp/enable", "secret=" + secret + "&code=" + code},
        {"/account/totp/disable", std::string("current=") + password_},
        {"/api/v1/sessions/kick", R"({"user":"alice","id":42})"},
        {"/api/v1/users", R"({"user":"carol","max_sessions":1})"},
        {"/api/v1/users/edit", R"({"user":"alice","max_sessions":3})"},
        {"/api/v1/users/remove", R"({"user":"alice"})"},
        {"/api/v1/users/disable", R"({"user":"alice"})"},
        {"/api/v1/users/enable", R"({"user":"alice"})"},
        {"/api/v1/devices", R"({"user":"alice","name":"phone","host":"h","profile":"main"})"},
        {"/api/v1/devices/revoke", R"({"user":"alice","id":"89abcdef"})"},
        {"/api/v1/config/validate", R"({"text":"x"})"},
        {"/api/v1/config", R"({"text":"x","base_sha256":"a"})"},
    };
    const auto it = bodies.find(path);
    if (it == bodies.end()) {
      ADD_FAILURE() << "POST " << path << " is in the route table but this test has no body "
                    << "for it: add one that would change something";
      return {};
    }
    return it->second;
  }

  HttpResponse post(const std::string& path, const std::string& cookie, const std::string& csrf) {
    std::string body = body_of(path);
    std::vector<std::pair<std::string, std::string>> headers = {{"cookie", cookie}};
    if (path.starts_with("/api/")) {
      if (!csrf.empty()) headers.emplace_back("x-csrf-token", csrf);
    } else if (!csrf.empty()) {
      body = "csrf=" + csrf + (body.empty() ? "" : "&" + body);
    }
    return app_->handle(req("POST", path, body, headers));
  }

  /// POST `path` as `cookie` with `csrf` ("" = none): refused with one of `statuses`, and
  /// nothing changed.
  void expect_refused(const std::string& path, const std::string& cookie, const std::string& csrf,
                      std::initializer_list<int> statuses, const std::string& live_cookie) {
    const std::size_t asked = server_.total();
    const std::string before = state();
    const auto r = post(path, cookie, csrf);
    EXPECT_TRUE(std::find(statuses.begin(), statuses.end(), r.status) != statuses.end())
        << "POST " << path << ": " << r.status << " " << r.body.substr(0, 300);
    EXPECT_EQ(server_.total(), asked) << "POST " << path << " reached the server";
    EXPECT_EQ(state(), before) << "POST " << path << " changed the panel's state";
    EXPECT_EQ(count_of(r, "Set-Cookie"), 0U) << "POST " << path << " set a cookie";
    EXPECT_NE(header_of(r, "Location"), "/login") << "POST " << path;
    // The admin's live session goes on.
    EXPECT_EQ(app_->handle(req("GET", "/api/v1/session", {}, {{"cookie", live_cookie}})).status,
              200)
        << "POST " << path << " ended the session";
  }

  test::TempDir dir_;
  PanelStores stores_;
  std::unique_ptr<PanelApp> app_;
  std::string token_id_;
  std::string password_ = kOldPassword;
};

TEST_F(PanelPostRoutesTest, every_post_route_is_refused_without_the_token_or_with_a_stale_cookie) {
  // A session from before the password change: its cookie and its token are stale after.
  const std::string stale = login_as(kOldPassword);
  ASSERT_FALSE(stale.empty());
  const std::string stale_csrf = csrf_of(*app_, stale);
  ASSERT_FALSE(stale_csrf.empty());
  {
    const std::string changer = login_as(kOldPassword);
    password_ = kOldPassword;
    const auto r = post("/account/password", changer, csrf_of(*app_, changer));
    ASSERT_EQ(r.status, 303) << r.body;
    ASSERT_EQ(header_of(r, "Location"), "/login");
    password_ = kNewPassword;
  }
  ASSERT_EQ(app_->handle(req("GET", "/api/v1/session", {}, {{"cookie", stale}})).status, 401);

  std::size_t checked = 0;
  for (const PostRoute& route : post_routes()) {
    const std::string path(route.path);
    if (!route.needs_session) continue;  // /login: no session to forge (see below)
    SCOPED_TRACE(path);
    ++checked;
    std::string cookie = login_as(password_);
    ASSERT_FALSE(cookie.empty()) << "cannot log in before " << path;
    const std::string csrf = csrf_of(*app_, cookie);
    // 1. No CSRF token: refused, nothing changed.
    expect_refused(path, cookie, "", {403}, cookie);
    // 2. A wrong one (the stale session's): the same.
    expect_refused(path, cookie, stale_csrf, {403}, cookie);
    // 3. The cookie from before the password change, with its own token: not logged in.
    expect_refused(path, stale, stale_csrf, {401, 403}, cookie);
    // 4. The control: the live session with its token is let through to the route (which
    //    may still refuse for its own reasons, but not as a forgery, and it exists).
    const auto done = post(path, cookie, csrf);
    EXPECT_NE(done.status, 403) << done.body.substr(0, 300);
    EXPECT_NE(done.status, 401);
    EXPECT_NE(done.status, 404) << "the table lists a route nobody answers";
    // (The ones that work as asked: /account/password set the same password again and
    // /account/totp/enable a second factor, which login_as answers from now on.)
    if (path == "/account/password") {
      EXPECT_EQ(header_of(done, "Location"), "/login");
    }
  }
  EXPECT_GE(checked, 36U);
}

TEST_F(PanelPostRoutesTest, the_table_is_the_whole_set_of_post_routes) {
  const std::string cookie = login_as(password_);
  const std::string csrf = csrf_of(*app_, cookie);
  // A POST path the table lacks is no route, even for an owner with the token: not a
  // prefix of one, not a GET page, not an API path.
  for (const std::string path :
       {"/users/add2", "/users", "/tokens", "/config", "/admins/", "/account/totp", "/brand-new",
        "/api/v1/users/x", "/api/v1/tokens", "/api/v1/admins", "/api/v1/session"}) {
    const std::size_t asked = server_.total();
    const auto r = app_->handle(req("POST", path, "csrf=" + csrf + "&user=alice&name=x",
                                    {{"cookie", cookie}, {"x-csrf-token", csrf}}));
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(server_.total(), asked) << path;
  }
  // Every table entry is a path once, and /login is the one without a session.
  std::map<std::string_view, int> seen;
  for (const auto& r : post_routes()) {
    EXPECT_EQ(++seen[r.path], 1) << r.path;
    EXPECT_EQ(r.needs_session, r.path != "/login") << r.path;
    EXPECT_TRUE(is_post_route(r.path));
  }
  EXPECT_FALSE(is_post_route("/login/"));
}

TEST_F(PanelPostRoutesTest, markup_in_names_is_inert_on_the_audit_tokens_and_admins_pages) {
  const std::string cookie = login_as(password_);
  const std::string csrf = csrf_of(*app_, cookie);
  auto form = [&](const std::string& path, const std::string& body) {
    return app_->handle(req("POST", path, "csrf=" + csrf + "&" + body, {{"cookie", cookie}}));
  };
  auto page = [&](const std::string& path) {
    return app_->handle(req("GET", path, {}, {{"cookie", cookie}}));
  };
  const std::string evil = "%3Cscript%3Ealert(1)%3C%2Fscript%3E";
  const std::string shown = "&lt;script&gt;alert(1)&lt;/script&gt;";
  // A token's name is free text: stored as typed, shown as text.
  auto made = form("/tokens/create", "name=" + evil + "&scope=read&days=5");
  ASSERT_EQ(made.status, 200) << made.body;
  EXPECT_FALSE(contains(made.body, "<script")) << made.body;
  EXPECT_TRUE(contains(made.body, shown));
  const auto list = stores_.tokens->list();
  ASSERT_TRUE(std::any_of(list.begin(), list.end(), [](const auto& t) { return t.name == kEvil; }));
  auto tokens = page("/tokens");
  ASSERT_EQ(tokens.status, 200);
  EXPECT_FALSE(contains(tokens.body, "<script"));
  EXPECT_TRUE(contains(tokens.body, "<td>" + shown + "</td>")) << tokens.body;
  // An admin's name cannot hold markup: refused, and the refusal does not echo it raw.
  const auto admin = form("/admins/create", "name=" + evil + "&role=admin");
  EXPECT_EQ(admin.status, 422);
  EXPECT_FALSE(contains(admin.body, "<script"));
  EXPECT_FALSE(stores_.admins->find(kEvil));
  const auto admins = page("/admins");
  ASSERT_EQ(admins.status, 200);
  EXPECT_FALSE(contains(admins.body, "<script"));
  // The audit log records each of those requests' targets (the names as sent) and a user
  // name from a form: all text on its page.
  ASSERT_EQ(form("/users/disable", "user=" + evil).status, 303);
  const auto audit = page("/audit");
  ASSERT_EQ(audit.status, 200);
  EXPECT_FALSE(contains(audit.body, "<script")) << audit.body;
  EXPECT_TRUE(contains(audit.body, shown)) << audit.body;
  const auto api = app_->handle(req("GET", "/api/v1/audit", {}, {{"cookie", cookie}}));
  EXPECT_TRUE(contains(api.body, kEvil)) << "the API answers the stored value as it is";
}

}  // namespace
}  // namespace qeli::panel::panel_test
