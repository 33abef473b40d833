// API tokens: their form and checksum, the store (hash only, expiry, last use, revoke),
// and the panel's Bearer path — scopes per route, no CSRF, /metrics, and that a token
// cannot make tokens.
#include "panel/api_tokens.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../config/temp_dir.h"
#include "crypto/random.h"
#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

constexpr TokenScopes kRead = static_cast<TokenScopes>(TokenScope::kRead);
constexpr TokenScopes kMetrics = static_cast<TokenScopes>(TokenScope::kMetrics);
constexpr TokenScopes kKick = static_cast<TokenScopes>(TokenScope::kSessionsKick);

TEST(ApiTokens, AreChecksummedShownOnceAndStoredAsAHash) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  auto store = ApiTokens::open(db);
  ASSERT_TRUE(store.ok()) << store.error();
  crypto::DeterministicRng rng(1);
  auto made = (*store)->create("prom", kRead | kMetrics, 30, 1000, rng);
  ASSERT_TRUE(made.ok()) << made.error();
  const std::string& token = made->token;
  EXPECT_EQ(token.size(), 58U);
  EXPECT_EQ(token.rfind("qeli_pat_", 0), 0U);
  EXPECT_TRUE(token_well_formed(token));
  std::string typo = token;
  typo[20] = typo[20] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(token_well_formed(typo));  // the checksum catches it
  EXPECT_FALSE(token_well_formed(token.substr(0, 57)));
  // Only a hash on disk.
  std::ifstream f(db, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(f), {}};
  EXPECT_EQ(bytes.find(token.substr(9)), std::string::npos);

  const auto ok = (*store)->verify(token, 2000, "192.0.2.1");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->name, "prom");
  EXPECT_TRUE(ok->allows(TokenScope::kMetrics));
  EXPECT_FALSE(ok->allows(TokenScope::kSessionsKick));
  EXPECT_FALSE((*store)->verify(typo, 2000, "x"));
  EXPECT_FALSE((*store)->verify(token, 1000 + 30 * 86400, "x"));  // expired
  const auto list = (*store)->list();
  ASSERT_EQ(list.size(), 1U);
  EXPECT_EQ(list[0].last_ip, "192.0.2.1");
  EXPECT_EQ(list[0].last_used_unix, 2000);
  EXPECT_TRUE((*store)->revoke(list[0].id));
  EXPECT_FALSE((*store)->revoke(list[0].id));
  EXPECT_FALSE((*store)->verify(token, 2000, "x"));
}

TEST(ApiTokens, RefuseBadRequestsAndSurviveAReopen) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  crypto::DeterministicRng rng(2);
  std::string token;
  {
    auto store = ApiTokens::open(db);
    ASSERT_TRUE(store.ok());
    EXPECT_FALSE((*store)->create("", kRead, 30, 0, rng).ok());
    EXPECT_FALSE((*store)->create("x", 0, 30, 0, rng).ok());
    EXPECT_FALSE((*store)->create("x", kRead, 0, 0, rng).ok());
    EXPECT_FALSE((*store)->create("x", kRead, 366, 0, rng).ok());
    EXPECT_FALSE((*store)->create("bad\nname", kRead, 30, 0, rng).ok());
    token = (*store)->create("ci", kKick, 365, 0, rng)->token;
  }
  auto again = ApiTokens::open(db);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)->verify(token, 10, "x"));
  EXPECT_EQ(scope_list(kRead | kMetrics | static_cast<TokenScopes>(TokenScope::kAdmin)),
            "read,metrics,admin");
  EXPECT_EQ(parse_scope("users:write"), TokenScope::kUsersWrite);
  EXPECT_FALSE(parse_scope("root"));
}

class PanelTokensTest : public PanelAppTest {
 protected:
  void SetUp() override {
    auto store = ApiTokens::open(dir_.path() + "/panel.db");
    ASSERT_TRUE(store.ok());
    tokens_ = std::move(*store);
    app_ = make(settings());
    app_->set_tokens(tokens_.get());
  }
  std::string make_token(TokenScopes scopes) {
    crypto::DeterministicRng rng(scopes);
    return tokens_->create("t", scopes, 1, now_unix_, rng)->token;
  }
  HttpResponse call(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& body = "{}") {
    return app_->handle(req(method, path, body, {{"authorization", "Bearer " + token}}));
  }
  test::TempDir dir_;
  std::unique_ptr<ApiTokens> tokens_;
  std::unique_ptr<PanelApp> app_;
};

TEST_F(PanelTokensTest, EachRouteNeedsItsScopeAndNoCsrf) {
  const std::string read = make_token(kRead);
  EXPECT_EQ(call("GET", "/api/v1/sessions", read).status, 200);
  EXPECT_EQ(call("POST", "/api/v1/config/validate", read, R"({"text":"x"})").status, 200);
  const auto kick = call("POST", "/api/v1/sessions/kick", read, R"({"user":"alice"})");
  EXPECT_EQ(kick.status, 403);
  EXPECT_NE(kick.body.find("sessions:kick"), std::string::npos);
  EXPECT_TRUE(server_.seen<control::Kick>().empty());
  EXPECT_EQ(call("GET", "/metrics", read).status, 403);
  // The config text holds password hashes: admin only, even to read.
  EXPECT_EQ(call("GET", "/api/v1/config", read).status, 403);
  EXPECT_EQ(call("GET", "/api/v1/config/history", read).status, 403);
  EXPECT_EQ(call("GET", "/api/v1/audit", read).status, 503);  // allowed; no audit log here

  const std::string kicker = make_token(kKick);
  EXPECT_EQ(call("POST", "/api/v1/sessions/kick", kicker, R"({"user":"alice"})").status, 200);
  ASSERT_EQ(server_.seen<control::Kick>().size(), 1U);
  EXPECT_EQ(call("POST", "/api/v1/users", kicker, R"({"user":"carol"})").status, 403);
  EXPECT_EQ(call("POST", "/api/v1/config", kicker, R"({"text":"x"})").status, 403);

  const std::string metrics = make_token(kMetrics);
  const auto m = call("GET", "/metrics", metrics);
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.content_type.find("version=0.0.4"), std::string::npos);
  EXPECT_NE(m.body.find("qeli_build_info"), std::string::npos);

  const std::string admin = make_token(static_cast<TokenScopes>(TokenScope::kAdmin));
  EXPECT_EQ(call("POST", "/api/v1/config", admin, R"({"text":"x","base_sha256":"y"})").status, 200);
  EXPECT_EQ(server_.seen<control::SaveConfig>().back().actor, "token:t");
  EXPECT_EQ(call("GET", "/api/v1/session", admin).body, R"({"token":"token:t"})");
}

TEST_F(PanelTokensTest, TokensNeverReachPagesOrMakeTokens) {
  const std::string admin = make_token(static_cast<TokenScopes>(TokenScope::kAdmin));
  // Pages and forms are the cookie's: a Bearer header does not log anyone in there.
  EXPECT_EQ(call("GET", "/", admin).status, 303);
  EXPECT_EQ(call("POST", "/tokens/create", admin, "name=x&scope=admin&days=1").status, 403);
  EXPECT_EQ(tokens_->list().size(), 1U);
  EXPECT_EQ(call("GET", "/api/v1/sessions", "qeli_pat_nonsense").status, 401);
  EXPECT_EQ(
      app_->handle(req("GET", "/api/v1/sessions", {}, {{"authorization", "Basic eDp5"}})).status,
      401);
  EXPECT_EQ(app_->handle(req("GET", "/metrics")).status, 401);
  // Without a store: 503, naming why.
  app_->set_tokens(nullptr, "[web] state_db is empty");
  const auto off = call("GET", "/api/v1/sessions", admin);
  EXPECT_EQ(off.status, 503);
  EXPECT_NE(off.body.find("state_db"), std::string::npos);
}

TEST_F(PanelTokensTest, TheTokensPageMakesAndRevokes) {
  const std::string cookie = login(*app_);
  const std::string csrf = csrf_of(*app_, cookie);
  const auto page = app_->handle(req("GET", "/tokens", {}, {{"cookie", cookie}}));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("action=\"/tokens/create\""), std::string::npos);
  const auto made = app_->handle(
      req("POST", "/tokens/create",
          "csrf=" + csrf + "&name=ci&scope=read&scope=users%3Awrite&days=7", {{"cookie", cookie}}));
  ASSERT_EQ(made.status, 200) << made.body;
  const auto at = made.body.find("qeli_pat_");
  ASSERT_NE(at, std::string::npos);
  const std::string token = made.body.substr(at, 58);
  EXPECT_TRUE(token_well_formed(token));
  EXPECT_EQ(call("POST", "/api/v1/users", token, R"({"user":"carol"})").status, 200);
  const auto bad =
      app_->handle(req("POST", "/tokens/create", "csrf=" + csrf + "&name=x&scope=root&days=7",
                       {{"cookie", cookie}}));
  EXPECT_EQ(bad.status, 400);
  const auto id = tokens_->list().at(0).id;
  const auto gone = app_->handle(
      req("POST", "/tokens/revoke", "csrf=" + csrf + "&id=" + id, {{"cookie", cookie}}));
  EXPECT_EQ(header_of(gone, "Location"), "/tokens?done=token-revoked");
  EXPECT_EQ(call("GET", "/api/v1/sessions", token).status, 401);
}

}  // namespace
}  // namespace qeli::panel
