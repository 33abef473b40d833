// Admins with roles: the role each route needs, the store of further admins (state_db),
// and the panel's flows — an owner makes an admin whose password is shown once, each role
// is held to its routes, a changed role or password and a removal end that admin's sessions.
#include <gtest/gtest.h>

#include "../config/temp_dir.h"
#include "crypto/base32.h"
#include "crypto/totp.h"
#include "panel/admin_accounts.h"
#include "panel_fixture.h"
#include "sys/log_memory.h"
#include "sys/log_output.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

TEST(AdminRoles, EachRouteNeedsTheRoleItsPowerCalls) {
  struct Row {
    bool post;
    const char* path;
    AdminRole need;
  };
  const Row rows[] = {
      {false, "/", AdminRole::kReadOnly},
      {false, "/sessions", AdminRole::kReadOnly},
      {false, "/users", AdminRole::kReadOnly},
      {false, "/account", AdminRole::kReadOnly},
      {false, "/metrics", AdminRole::kReadOnly},
      {false, "/api/v1/users", AdminRole::kReadOnly},
      // The config's text holds password hashes; tokens and admins are the panel's keys.
      {false, "/config", AdminRole::kOwner},
      {false, "/config/version", AdminRole::kOwner},
      {false, "/api/v1/config", AdminRole::kOwner},
      {false, "/api/v1/config/history", AdminRole::kOwner},
      {false, "/tokens", AdminRole::kOwner},
      {false, "/admins", AdminRole::kOwner},
      {true, "/logout", AdminRole::kReadOnly},
      {true, "/account/password", AdminRole::kReadOnly},
      {true, "/sessions/kick", AdminRole::kAdmin},
      {true, "/users/add", AdminRole::kAdmin},
      {true, "/users/edit", AdminRole::kAdmin},
      {true, "/api/v1/users/edit", AdminRole::kAdmin},
      {true, "/devices/revoke", AdminRole::kAdmin},
      {true, "/blocked/unblock-all", AdminRole::kAdmin},
      {true, "/api/v1/sessions/kick", AdminRole::kAdmin},
      {true, "/api/v1/users", AdminRole::kAdmin},
      {true, "/api/v1/devices/revoke", AdminRole::kAdmin},
      {true, "/config/save", AdminRole::kOwner},
      {true, "/config/validate", AdminRole::kOwner},
      {true, "/api/v1/config", AdminRole::kOwner},
      {true, "/tokens/create", AdminRole::kOwner},
      {true, "/admins/create", AdminRole::kOwner},
      // Not a prefix match: a new route is closed until someone names its role.
      {true, "/usersx", AdminRole::kOwner},
      {true, "/brand-new", AdminRole::kOwner},
      {false, "/logs", AdminRole::kOwner},
      {false, "/api/v1/logs", AdminRole::kOwner},
      {false, "/api/v1/admins", AdminRole::kOwner},
      {true, "/account/totp/start", AdminRole::kReadOnly},
      {true, "/lang", AdminRole::kReadOnly},
      // A GET no list names is an owner's too, as a POST is.
      {false, "/configs", AdminRole::kOwner},
      {false, "/brand-new-page", AdminRole::kOwner},
      {false, "/api/v1/brand-new", AdminRole::kOwner},
      {false, "/users/view", AdminRole::kReadOnly},
      {false, "/events", AdminRole::kReadOnly},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(role_needed(r.post, r.path), r.need) << (r.post ? "POST " : "GET ") << r.path;
  }
  for (const auto role : kAllRoles) EXPECT_EQ(parse_role(role_name(role)), role);
  EXPECT_FALSE(parse_role("root"));
  EXPECT_FALSE(parse_role("Owner"));
}

TEST(AdminAccounts, KeepAdminsAcrossReopenAndRefuseDuplicatesAndBadNames) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  {
    auto store = AdminAccounts::open(db);
    ASSERT_TRUE(store.ok()) << store.error();
    auto& s = **store;
    ASSERT_TRUE(s.create("zed", AdminRole::kAdmin, "hash-z", 100, "boss").ok());
    ASSERT_TRUE(s.create("amy.b@ops", AdminRole::kReadOnly, "hash-a", 200, "boss").ok());
    const auto dup = s.create("zed", AdminRole::kOwner, "other", 300, "boss");
    ASSERT_FALSE(dup.ok());
    EXPECT_NE(dup.error().find("exists"), std::string::npos);
    for (const std::string& bad : {std::string(), std::string("has space"), std::string("<b>"),
                                   std::string(kMaxAdminName + 1, 'a'), std::string("nul\0x", 5)}) {
      EXPECT_FALSE(s.create(bad, AdminRole::kAdmin, "h", 1, "boss").ok()) << bad;
    }
    EXPECT_TRUE(s.create(std::string(kMaxAdminName, 'a'), AdminRole::kAdmin, "h", 1, "b").ok());
    EXPECT_TRUE(s.remove(std::string(kMaxAdminName, 'a')));
  }
  auto store = AdminAccounts::open(db);
  ASSERT_TRUE(store.ok());
  auto& s = **store;
  const auto all = s.list();
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].name, "amy.b@ops");  // by name
  EXPECT_EQ(all[1].name, "zed");
  EXPECT_EQ(all[1].role, AdminRole::kAdmin);
  EXPECT_EQ(all[1].password_hash, "hash-z");
  EXPECT_EQ(all[1].created_unix, 100);
  EXPECT_EQ(all[1].created_by, "boss");
  EXPECT_TRUE(s.set_role("zed", AdminRole::kOwner));
  EXPECT_TRUE(s.set_password("zed", "hash-z2"));
  EXPECT_EQ(s.find("zed")->role, AdminRole::kOwner);
  EXPECT_EQ(s.find("zed")->password_hash, "hash-z2");
  EXPECT_FALSE(s.set_role("nobody", AdminRole::kOwner));
  EXPECT_FALSE(s.set_password("nobody", "h"));
  EXPECT_TRUE(s.remove("zed"));
  EXPECT_FALSE(s.remove("zed"));
  EXPECT_FALSE(s.find("zed"));
}

class PanelAdminsTest : public LoggedInPanelTest {
 protected:
  void SetUp() override {
    auto store = AdminAccounts::open(dir_.path() + "/panel.db");
    ASSERT_TRUE(store.ok()) << store.error();
    admins_ = std::move(*store);
    app_ = make(settings());
    app_->set_admins(admins_.get());
    cookie_ = login(*app_);
    csrf_ = csrf_of(*app_, cookie_);
    ASSERT_FALSE(csrf_.empty());
  }

  /// The owner makes an admin; its one-time password (empty on failure).
  std::string create(const std::string& name, const std::string& role) {
    const auto r = post("/admins/create", "name=" + name + "&role=" + role);
    if (r.status != 200) return {};
    const std::string open = "<textarea id=\"password\" readonly rows=\"1\">";
    const auto at = r.body.find(open);
    if (at == std::string::npos) return {};
    const auto from = at + open.size();
    return r.body.substr(from, r.body.find('<', from) - from);
  }

  std::string login_as(const std::string& name, const std::string& password) {
    const auto r = app_->handle(req("POST", "/login", "username=" + name + "&password=" + password,
                                    {{"content-type", "application/x-www-form-urlencoded"}}));
    const std::string set = header_of(r, "Set-Cookie");
    return r.status == 303 ? set.substr(0, set.find(';')) : std::string();
  }

  HttpResponse get_as(const std::string& cookie, const std::string& path) {
    return app_->handle(req("GET", path, {}, {{"cookie", cookie}}));
  }
  HttpResponse post_as(const std::string& cookie, const std::string& path,
                       const std::string& body) {
    return app_->handle(
        req("POST", path, "csrf=" + csrf_of(*app_, cookie) + "&" + body, {{"cookie", cookie}}));
  }

  test::TempDir dir_;
  std::unique_ptr<AdminAccounts> admins_;
};

TEST_F(PanelAdminsTest, AReadOnlyAdminSeesButChangesNothing) {
  const std::string password = create("watcher", "read-only");
  ASSERT_EQ(password.size(), 24U);
  // Shown once: the store keeps an Argon2id hash, not the password.
  EXPECT_TRUE(admins_->find("watcher")->password_hash.starts_with("$argon2id$"));
  EXPECT_EQ(get("/admins").body.find(password), std::string::npos);

  const std::string ro = login_as("watcher", password);
  ASSERT_FALSE(ro.empty());
  EXPECT_EQ(get_as(ro, "/").status, 200);
  EXPECT_EQ(get_as(ro, "/users").status, 200);
  EXPECT_EQ(get_as(ro, "/account").status, 200);
  const auto session = json::parse(get_as(ro, "/api/v1/session").body);
  EXPECT_EQ(session.at("user"), "watcher");
  EXPECT_EQ(session.at("role"), "read-only");
  const auto refused = get_as(ro, "/config");
  EXPECT_EQ(refused.status, 403);
  // A page, in the admin's language, with its navigation: not a bare text answer.
  EXPECT_EQ(refused.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(contains(refused.body, "Your role, read-only, cannot do this (owner can)."));
  EXPECT_TRUE(contains(refused.body, ">watcher</a>"));
  EXPECT_EQ(get_as(ro, "/api/v1/config").status, 403);
  EXPECT_EQ(get_as(ro, "/tokens").status, 403);
  EXPECT_EQ(get_as(ro, "/admins").status, 403);
  const std::size_t before = server_.total();
  EXPECT_EQ(post_as(ro, "/sessions/kick", "user=alice").status, 403);
  EXPECT_EQ(post_as(ro, "/users/disable", "user=alice").status, 403);
  const auto api = app_->handle(req("POST", "/api/v1/sessions/kick", R"({"user":"alice"})",
                                    {{"cookie", ro}, {"x-csrf-token", csrf_of(*app_, ro)}}));
  EXPECT_EQ(api.status, 403);
  EXPECT_EQ(api.content_type, "application/problem+json");
  EXPECT_TRUE(server_.seen<control::Kick>().empty());
  EXPECT_TRUE(server_.seen<control::DisableUser>().empty());
  // Only the session reads above reached the server (the /api/v1/session calls do not).
  EXPECT_EQ(server_.total(), before);
  EXPECT_EQ(post_as(ro, "/admins/create", "name=me2&role=owner").status, 403);
  EXPECT_FALSE(admins_->find("me2"));
  // The header shows who is logged in.
  EXPECT_TRUE(contains(get_as(ro, "/").body, ">watcher</a>"));
}

TEST_F(PanelAdminsTest, AnAdminRunsTheVpnButNotTheConfigTokensOrAdmins) {
  const std::string op = login_as("op", create("op", "admin"));
  ASSERT_FALSE(op.empty());
  EXPECT_EQ(post_as(op, "/sessions/kick", "user=alice").status, 303);
  ASSERT_EQ(server_.seen<control::Kick>().size(), 1U);
  // The server is told who acted.
  EXPECT_EQ(post_as(op, "/users/remove", "user=bob").status, 303);
  ASSERT_EQ(server_.seen<control::RemoveUser>().size(), 1U);
  EXPECT_EQ(server_.seen<control::RemoveUser>()[0].actor, "panel:op");
  EXPECT_EQ(post_as(op, "/config/save", "text=x&base=" + std::string(64, 'a')).status, 403);
  EXPECT_TRUE(server_.seen<control::SaveConfig>().empty());
  EXPECT_EQ(post_as(op, "/tokens/create", "name=t&scope=admin&days=1").status, 403);
  EXPECT_EQ(post_as(op, "/admins/role", "name=op&role=owner").status, 403);
  EXPECT_EQ(admins_->find("op")->role, AdminRole::kAdmin);
}

TEST_F(PanelAdminsTest, ARoleChangeOrRemovalEndsThatAdminsSessionsOnly) {
  const std::string password = create("op", "read-only");
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  EXPECT_EQ(post("/admins/role", "name=op&role=admin").status, 303);
  EXPECT_EQ(get_as(op, "/").status, 303);  // back to the login page
  const std::string again = login_as("op", password);
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(json::parse(get_as(again, "/api/v1/session").body).at("role"), "admin");
  EXPECT_EQ(post("/admins/remove", "name=op").status, 303);
  EXPECT_EQ(get_as(again, "/").status, 303);
  EXPECT_TRUE(login_as("op", password).empty());
  EXPECT_EQ(get("/").status, 200);  // the owner is untouched
}

TEST_F(PanelAdminsTest, AnAdminChangesItsOwnPasswordKnowingTheCurrentOne) {
  const std::string password = create("op", "admin");
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  const std::string next = "a-much-longer-passphrase";
  auto r = post_as(op, "/account/password",
                   "current=wrong-" + password + "&new=" + next + "&again=" + next);
  EXPECT_EQ(header_of(r, "Location"), "/account?done=password-wrong");
  r = post_as(op, "/account/password", "current=" + password + "&new=short&again=short");
  EXPECT_EQ(header_of(r, "Location"), "/account?done=password-weak");
  r = post_as(op, "/account/password",
              "current=" + password + "&new=" + next + "&again=" + next + "x");
  EXPECT_EQ(header_of(r, "Location"), "/account?done=password-weak");
  EXPECT_EQ(get_as(op, "/").status, 200);  // nothing changed yet
  r = post_as(op, "/account/password", "current=" + password + "&new=" + next + "&again=" + next);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  EXPECT_EQ(get_as(op, "/").status, 303);  // the old session ended
  EXPECT_TRUE(login_as("op", password).empty());
  EXPECT_FALSE(login_as("op", next).empty());
  // The config's owner changes its password on the server, not here.
  EXPECT_EQ(post("/account/password", "current=secret&new=" + next + "&again=" + next).status, 409);
  EXPECT_TRUE(contains(get("/account").body, "set-web-password"));
}

TEST_F(PanelAdminsTest, TheOwnersNameAndBadNamesAreNotCreated) {
  EXPECT_EQ(post("/admins/create", "name=admin&role=read-only").status, 422);
  EXPECT_EQ(post("/admins/create", "name=%3Cb%3E&role=read-only").status, 422);
  EXPECT_EQ(post("/admins/create", "name=ok&role=root").status, 400);
  EXPECT_TRUE(admins_->list().empty());
  const std::string password = create("ok", "owner");
  ASSERT_FALSE(password.empty());
  EXPECT_TRUE(create("ok", "admin").empty());  // exists
  EXPECT_EQ(admins_->find("ok")->role, AdminRole::kOwner);
  // A second owner does what the first does.
  const std::string second = login_as("ok", password);
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(post_as(second, "/admins/create", "name=third&role=read-only").status, 200);
  EXPECT_EQ(admins_->find("third")->created_by, "ok");
}

TEST_F(PanelAdminsTest, WithoutAStoreOnlyTheConfigsOwnerLogsIn) {
  app_->set_admins(nullptr, "[web] state_db is empty");
  EXPECT_TRUE(contains(get("/admins").body, "Further admins are off: [web] state_db is empty"));
  EXPECT_EQ(post("/admins/create", "name=x&role=admin").status, 503);
}

class PanelAdminTotpTest : public PanelAdminsTest {
 protected:
  std::string login_code(const std::string& name, const std::string& password,
                         const std::string& code) {
    const auto r = app_->handle(req("POST", "/login",
                                    "username=" + name + "&password=" + password + "&code=" + code,
                                    {{"content-type", "application/x-www-form-urlencoded"}}));
    const std::string set = header_of(r, "Set-Cookie");
    return r.status == 303 ? set.substr(0, set.find(';')) : std::string();
  }
  std::string code_at(const Bytes& key, std::int64_t unix) {
    return crypto::totp_code(key, crypto::totp_step(unix));
  }
};

TEST_F(PanelAdminTotpTest, AnAdminTurnsItOnWithACodeThenEveryLoginNeedsAFreshOne) {
  const std::string password = create("op", "admin");
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  EXPECT_TRUE(contains(get_as(op, "/account").body, "Second factor: off"));
  // Set up: a new key shown once, on only after a right code.
  const auto start = post_as(op, "/account/totp/start", "");
  ASSERT_EQ(start.status, 200);
  const std::string open = "<code id=\"totp-secret\">";
  const auto at = start.body.find(open);
  ASSERT_NE(at, std::string::npos);
  const std::string secret = start.body.substr(at + open.size(), 32);
  const auto key = crypto::base32_decode(secret);
  ASSERT_TRUE(key);
  ASSERT_EQ(key->size(), crypto::kTotpSecretBytes);
  EXPECT_TRUE(contains(start.body, "id=\"totp-qr\""));
  const std::string right = code_at(*key, now_unix_);
  const std::string wrong = right == "000000" ? "000001" : "000000";
  auto r = post_as(op, "/account/totp/enable", "secret=" + secret + "&code=" + wrong);
  EXPECT_EQ(r.status, 422);
  EXPECT_TRUE(admins_->find("op")->totp_secret.empty());
  EXPECT_EQ(post_as(op, "/account/totp/enable", "secret=AAAA&code=" + right).status, 400);
  r = post_as(op, "/account/totp/enable", "secret=" + secret + "&code=" + right);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  EXPECT_EQ(admins_->find("op")->totp_secret, secret);
  EXPECT_EQ(get_as(op, "/").status, 303);  // its sessions ended
  // The login form asks for a code, without insisting (the owner has none).
  const auto page = app_->handle(req("GET", "/login"));
  EXPECT_TRUE(contains(page.body, "autocomplete=\"one-time-code\">"));
  // The password alone, and the code the setup used (its step is spent), are refused.
  EXPECT_TRUE(login_as("op", password).empty());
  EXPECT_TRUE(login_code("op", password, right).empty());
  now_unix_ += crypto::kTotpStepSecs;
  const std::string next = code_at(*key, now_unix_);
  const std::string again = login_code("op", password, next);
  ASSERT_FALSE(again.empty());
  EXPECT_TRUE(login_code("op", password, next).empty());  // once
  EXPECT_TRUE(contains(get_as(again, "/account").body, "Second factor: on"));
  // The owner needs none and is asked for none.
  EXPECT_FALSE(login(*app_).empty());
  // Off again: the current password, not a guess.
  r = post_as(again, "/account/totp/disable", "current=not-" + password);
  EXPECT_EQ(header_of(r, "Location"), "/account?done=password-wrong");
  EXPECT_EQ(admins_->find("op")->totp_secret, secret);
  r = post_as(again, "/account/totp/disable", "current=" + password);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  EXPECT_TRUE(admins_->find("op")->totp_secret.empty());
  EXPECT_FALSE(login_as("op", password).empty());
}

TEST_F(PanelAdminTotpTest, AnOwnerRemovesTheSecondFactorOfAnAdminWhoLostItsPhone) {
  const std::string password = create("op", "read-only");
  ASSERT_TRUE(admins_->set_totp("op", "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"));
  EXPECT_TRUE(login_as("op", password).empty());
  EXPECT_TRUE(contains(get("/admins").body, "Remove second factor"));
  EXPECT_EQ(post("/admins/totp-reset", "name=op").status, 303);
  EXPECT_TRUE(admins_->find("op")->totp_secret.empty());
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  // The admin itself (read-only) cannot remove another's, nor its own from the Admins page.
  EXPECT_EQ(post_as(op, "/admins/totp-reset", "name=op").status, 403);
  // An admin without one, or no such admin: nothing to remove.
  EXPECT_EQ(header_of(post("/admins/totp-reset", "name=op"), "Location"), "/admins?done=failed");
  EXPECT_EQ(header_of(post("/admins/totp-reset", "name=nobody"), "Location"),
            "/admins?done=failed");
  // The config's owner sets its own on the server.
  EXPECT_EQ(post("/account/totp/start", "").status, 409);
}

TEST_F(PanelAdminsTest, AnEndedSessionStaysEndedThoughTheRoleComesBack) {
  const std::string password = create("op", "admin");
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  EXPECT_EQ(post("/admins/role", "name=op&role=read-only").status, 303);
  EXPECT_EQ(post("/admins/role", "name=op&role=admin").status, 303);
  EXPECT_EQ(get_as(op, "/").status, 303);  // admin again, but that cookie is gone
  const std::string again = login_as("op", password);
  ASSERT_FALSE(again.empty());
  EXPECT_TRUE(contains(get("/admins").body, "End its sessions"));
  EXPECT_EQ(post("/admins/logout", "name=op").status, 303);
  EXPECT_EQ(get_as(again, "/").status, 303);
  EXPECT_EQ(get("/").status, 200);  // the owner's own is untouched
}

TEST_F(PanelAdminsTest, CookiesOfTwoAdminsInOneRequestAreRefused) {
  const std::string op = login_as("op", create("op", "read-only"));
  ASSERT_FALSE(op.empty());
  // A planted read-only cookie beside the owner's, in either order.
  EXPECT_EQ(app_->handle(req("GET", "/", {}, {{"cookie", op + "; " + cookie_}})).status, 303);
  EXPECT_EQ(app_->handle(req("GET", "/", {}, {{"cookie", cookie_ + "; " + op}})).status, 303);
  // Two of the same admin are fine.
  EXPECT_EQ(app_->handle(req("GET", "/", {}, {{"cookie", cookie_ + "; " + cookie_}})).status, 200);
}

TEST_F(PanelAdminsTest, GuessingTheCurrentPasswordHitsTheLoginLockout) {
  const std::string password = create("op", "admin");
  const std::string op = login_as("op", password);
  ASSERT_FALSE(op.empty());
  const std::string next = "a-much-longer-passphrase";
  for (int i = 0; i < 12; ++i) {
    post_as(op, "/account/password",
            "current=guess" + std::to_string(i) + "&new=" + next + "&again=" + next);
  }
  // Locked out now: the right password is refused too, and nothing changed.
  const auto r =
      post_as(op, "/account/password", "current=" + password + "&new=" + next + "&again=" + next);
  EXPECT_EQ(header_of(r, "Location"), "/account?done=password-wrong");
  EXPECT_FALSE(admins_->find("op")->password_hash.empty());
  EXPECT_TRUE(crypto::argon2id_verify(admins_->find("op")->password_hash, password));
}

class PanelOwnerNameTest : public PanelAppTest {};

TEST_F(PanelOwnerNameTest, TheConfigsOwnerMayHaveAnyNameAndAnOtherNameIsNeverLogged) {
  PanelSettings s = settings();
  s.username = "ops team ü " + std::string(40, 'x');  // not a further admin's kind of name
  auto app = make(s);
  const auto r = app->handle(
      req("POST", "/login", "username=ops+team+%C3%BC+" + std::string(40, 'x') + "&password=secret",
          {{"content-type", "application/x-www-form-urlencoded"}}));
  ASSERT_EQ(r.status, 303);
  const std::string set = header_of(r, "Set-Cookie");
  const std::string cookie = set.substr(0, set.find(';'));
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  // A name that is no admin's (a password typed into the wrong field, say) is not logged:
  // the Logs page shows the log.
  ASSERT_TRUE(sys::configure_logging({}).ok());
  const auto before = sys::log_memory().last_seq();
  app->handle(req("POST", "/login", "username=MyS3cretPass&password=x",
                  {{"content-type", "application/x-www-form-urlencoded"}}));
  const auto lines = sys::log_memory().since(before, 50, spdlog::level::trace);
  ASSERT_FALSE(lines.empty());
  for (const auto& l : lines) EXPECT_EQ(l.text.find("MyS3cretPass"), std::string::npos) << l.text;
  EXPECT_NE(lines.back().text.find("(another name)"), std::string::npos) << lines.back().text;
}

}  // namespace
}  // namespace qeli::panel
