// The audit log: rows in the state file, newest first, bounded strings; and what the panel
// records — every POST of an admin or a token with its target and status, refused ones
// too, logins with the name tried — never a password, credential or config text.
#include "panel/audit_log.h"

#include <gtest/gtest.h>

#include "../config/temp_dir.h"
#include "panel/api_tokens.h"
#include "panel_fixture.h"

namespace qeli::panel {
namespace {

using namespace qeli::panel::panel_test;

TEST(AuditLog, KeepsRowsNewestFirstAcrossAReopen) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  {
    auto log = AuditLog::open(db);
    ASSERT_TRUE(log.ok()) << log.error();
    (*log)->append({0, 100, "panel:boss", "127.0.0.1", "/users/disable", "user=alice", 303});
    (*log)->append({0, 101, std::string(1000, 'x'), "127.0.0.1", "login", "", 401});
  }
  auto log = AuditLog::open(db);
  ASSERT_TRUE(log.ok());
  const auto rows = (*log)->newest(10);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].action, "login");
  EXPECT_EQ(rows[0].actor.size(), 256U);
  EXPECT_EQ(rows[1].target, "user=alice");
  EXPECT_EQ(rows[1].status, 303);
  EXPECT_GT(rows[0].seq, rows[1].seq);
  EXPECT_EQ((*log)->newest(1).size(), 1U);
}

class PanelAuditTest : public PanelAppTest {
 protected:
  void SetUp() override {
    auto a = AuditLog::open(dir_.path() + "/panel.db");
    auto t = ApiTokens::open(dir_.path() + "/panel.db");
    ASSERT_TRUE(a.ok() && t.ok());
    audit_ = std::move(*a);
    tokens_ = std::move(*t);
    app_ = make(settings());
    app_->set_audit(audit_.get());
    app_->set_tokens(tokens_.get());
  }
  test::TempDir dir_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<ApiTokens> tokens_;
  std::unique_ptr<PanelApp> app_;
};

TEST_F(PanelAuditTest, RecordsEveryActionWithItsTargetAndNoSecret) {
  // A failed login, then the right one: the name tried, never the password.
  EXPECT_EQ(app_->handle(req("POST", "/login", "username=mallory&password=hunter2")).status, 401);
  const std::string cookie = login(*app_);
  const std::string csrf = csrf_of(*app_, cookie);
  // Refused (no CSRF token) and done.
  EXPECT_EQ(app_->handle(req("POST", "/users/disable", "user=alice", {{"cookie", cookie}})).status,
            403);
  EXPECT_EQ(app_->handle(req("POST", "/users/disable", "csrf=" + csrf + "&user=alice",
                             {{"cookie", cookie}}))
                .status,
            303);
  EXPECT_EQ(app_->handle(req("POST", "/devices/add",
                             "csrf=" + csrf + "&user=alice&name=phone&host=vpn.example.com",
                             {{"cookie", cookie}}))
                .status,
            200);
  crypto::DeterministicRng rng(3);
  const auto token = tokens_->create("bot", 4, 1, now_unix_, rng)->token;  // users:write
  EXPECT_EQ(app_->handle(req("POST", "/api/v1/users/disable", R"({"user":"alice"})",
                             {{"authorization", "Bearer " + token}}))
                .status,
            200);
  const auto rows = audit_->newest(100);
  ASSERT_EQ(rows.size(), 6U);
  EXPECT_EQ(rows[5].action, "login");
  EXPECT_EQ(rows[5].actor, "(another name)");  // maybe a password in the wrong field
  EXPECT_EQ(rows[5].status, 401);
  EXPECT_EQ(rows[4].actor, "admin");
  EXPECT_EQ(rows[4].status, 303);
  EXPECT_EQ(rows[3].action, "/users/disable");
  EXPECT_EQ(rows[3].status, 403);
  EXPECT_EQ(rows[2].target, "user=alice");
  EXPECT_EQ(rows[2].actor, "panel:admin");
  EXPECT_EQ(rows[1].action, "/devices/add");
  EXPECT_EQ(rows[1].target, "user=alice name=phone");
  EXPECT_EQ(rows[0].actor, "token:bot");
  EXPECT_EQ(rows[0].action, "/api/v1/users/disable");
  for (const auto& r : rows) {
    for (const auto& field : {r.actor, r.target, r.action}) {
      EXPECT_EQ(field.find("hunter2"), std::string::npos);
      EXPECT_EQ(field.find("secret"), std::string::npos);
      EXPECT_EQ(field.find(kCredential), std::string::npos);
      EXPECT_EQ(field.find(csrf), std::string::npos);
    }
  }
  // The page and the API show them; the evil name of the fixture stays text.
  const auto page = app_->handle(req("GET", "/audit", {}, {{"cookie", cookie}}));
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("token:bot"), std::string::npos);
  const auto api = app_->handle(req("GET", "/api/v1/audit?limit=2", {}, {{"cookie", cookie}}));
  ASSERT_EQ(api.status, 200);
  EXPECT_EQ(json::parse(api.body)["entries"].size(), 2U);
}

}  // namespace
}  // namespace qeli::panel
