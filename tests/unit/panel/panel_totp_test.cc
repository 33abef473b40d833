// The panel's second factor ([web] totp_secret, RFC 6238): the login needs a current code
// after the right password, each code works once, a wrong one counts toward the lockout,
// and a new or removed secret ends the sessions made under the old one.
#include <gtest/gtest.h>

#include "../config/temp_dir.h"
#include "crypto/base32.h"
#include "crypto/totp.h"
#include "panel/login_state.h"
#include "panel/panel_app.h"
#include "panel_fixture.h"

namespace qeli::panel::panel_test {
namespace {

const std::string kSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";  // "12345678901234567890"

class PanelTotpTest : public PanelAppTest {
 protected:
  PanelSettings with_totp() const {
    PanelSettings s = settings();
    s.totp_secret = kSecret;
    s.brute_force.max_attempts = 3;
    return s;
  }
  std::string code_at(std::int64_t unix_secs) const {
    const auto key = crypto::base32_decode(kSecret);
    return crypto::totp_code(*key, crypto::totp_step(unix_secs));
  }
  HttpResponse try_login(PanelApp& app, const std::string& code, const std::string& pw = "secret") {
    return app.handle(req("POST", "/login", "username=admin&password=" + pw + "&code=" + code,
                          {{"content-type", "application/x-www-form-urlencoded"}}));
  }
};

TEST_F(PanelTotpTest, TheLoginPageAsksForTheCode) {
  auto plain_app = make(settings());
  EXPECT_FALSE(contains(plain_app->handle(req("GET", "/login")).body, "name=\"code\""));
  auto app = make(with_totp());
  const auto page = app->handle(req("GET", "/login"));
  EXPECT_TRUE(contains(page.body, "name=\"code\""));
  EXPECT_TRUE(contains(page.body, "autocomplete=\"one-time-code\""));
}

TEST_F(PanelTotpTest, PasswordAloneIsRefusedTheCurrentCodeWorksOnce) {
  auto app = make(with_totp());
  EXPECT_EQ(login(*app), "");  // the fixture's login sends no code
  const auto missing = try_login(*app, "");
  EXPECT_EQ(missing.status, 401);
  EXPECT_TRUE(contains(missing.body, "Wrong user name, password or code."));

  const std::string code = code_at(now_unix_);
  const auto ok = try_login(*app, code);
  ASSERT_EQ(ok.status, 303) << ok.body;
  const std::string cookie =
      header_of(ok, "Set-Cookie").substr(0, header_of(ok, "Set-Cookie").find(';'));
  EXPECT_EQ(app->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  // The same code again (someone who watched it typed): refused, also a step back.
  EXPECT_EQ(try_login(*app, code).status, 401);
  EXPECT_EQ(try_login(*app, code_at(now_unix_ - 30)).status, 401);
  // The next step's code (a clock 30 s ahead) is accepted once.
  EXPECT_EQ(try_login(*app, code_at(now_unix_ + 30)).status, 303);
}

TEST_F(PanelTotpTest, WrongCodesCountTowardTheLockoutAndNeverUseUpAStep) {
  auto app = make(with_totp());
  const std::string code = code_at(now_unix_);
  // A wrong password with the right code does not spend the code.
  EXPECT_EQ(try_login(*app, code, "wrong").status, 401);
  EXPECT_EQ(try_login(*app, code).status, 303);
  // Guessing codes with the right password: locked out after max_attempts (3), even
  // with a right code afterwards.
  auto app2 = make(with_totp());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(try_login(*app2, "000000").status, 401);
  EXPECT_EQ(try_login(*app2, code_at(now_unix_ + 30)).status, 429);
}

TEST_F(PanelTotpTest, ANewOrRemovedSecretEndsTheSessions) {
  auto app = make(with_totp());
  const auto ok = try_login(*app, code_at(now_unix_));
  ASSERT_EQ(ok.status, 303);
  const std::string cookie =
      header_of(ok, "Set-Cookie").substr(0, header_of(ok, "Set-Cookie").find(';'));
  // The same key, the same password: only the TOTP secret differs.
  PanelSettings other = with_totp();
  other.totp_secret = "MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U";
  EXPECT_NE(make(other)->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  EXPECT_NE(make(settings())->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
  EXPECT_EQ(make(with_totp())->handle(req("GET", "/", {}, {{"cookie", cookie}})).status, 200);
}

TEST_F(PanelTotpTest, AUsedCodeStaysUsedAcrossARestart) {
  test::TempDir dir;
  auto store = LoginStateStore::open(dir.path() + "/panel.db");
  ASSERT_TRUE(store.ok()) << store.error();
  const std::string code = code_at(now_unix_);
  {
    auto first = make(with_totp());
    first->keep_login_state(**store);
    EXPECT_EQ(try_login(*first, code).status, 303);
  }
  auto again = LoginStateStore::open(dir.path() + "/panel.db");
  ASSERT_TRUE(again.ok());
  auto second = make(with_totp());
  second->keep_login_state(**again);
  EXPECT_EQ(try_login(*second, code).status, 401);
  EXPECT_EQ(try_login(*second, code_at(now_unix_ + 30)).status, 303);
}

TEST_F(PanelTotpTest, ASecretThatDoesNotDecodeRefusesEveryLogin) {
  PanelSettings s = with_totp();
  s.totp_secret = "not base32!";
  auto app = make(s);
  EXPECT_EQ(try_login(*app, code_at(now_unix_)).status, 401);
  EXPECT_EQ(login(*app), "");
}

}  // namespace
}  // namespace qeli::panel::panel_test
