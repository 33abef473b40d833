// The panel's login memory outlives its process: a cookie logged out before a restart is
// refused by the next process (same state_db, same key); expired rows go; the generation
// a full list moved to is kept; so is the newest TOTP step used.
#include "panel/login_state.h"

#include <gtest/gtest.h>

#include "../config/temp_dir.h"

namespace qeli::panel {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;

SessionKey key() {
  SessionKey k{};
  k.fill(3);
  return k;
}

TEST(LoginStateStore, ALoggedOutCookieStaysRefusedAfterARestart) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  AdminSession a, b;
  std::string ca, cb;
  {
    auto store = LoginStateStore::open(db);
    ASSERT_TRUE(store.ok()) << store.error();
    AdminSessions first(key(), 3600);
    first.restore((*store)->generation(), (*store)->live(kNow), kNow, store->get());
    ca = first.issue("admin", "h", kNow, &a);
    cb = first.issue("admin", "h", kNow, &b);
    first.revoke(a, kNow + 1);
    EXPECT_FALSE(first.verify(ca, "admin", "h", kNow + 2));
  }
  // The next process: without the store the logout is forgotten; with it, refused.
  AdminSessions forgetful(key(), 3600);
  EXPECT_TRUE(forgetful.verify(ca, "admin", "h", kNow + 3));
  auto store = LoginStateStore::open(db);
  ASSERT_TRUE(store.ok());
  AdminSessions second(key(), 3600);
  second.restore((*store)->generation(), (*store)->live(kNow + 3), kNow + 3, store->get());
  EXPECT_FALSE(second.verify(ca, "admin", "h", kNow + 4));
  EXPECT_TRUE(second.verify(cb, "admin", "h", kNow + 4));
  // Past its expiry the row is dropped (the cookie is refused as expired anyway).
  EXPECT_EQ((*store)->live(kNow + 3).size(), 1U);
  EXPECT_TRUE((*store)->live(a.expires_unix).empty());
}

TEST(LoginStateStore, TheGenerationIsKeptAndEndsEveryEarlierCookie) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  AdminSessions before(key(), 3600);
  const std::string c = before.issue("admin", "h", kNow);
  {
    auto store = LoginStateStore::open(db);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->generation(), 0U);
    (*store)->revoked("0123456789abcdef0123456789abcdef", kNow + 100, kNow);
    (*store)->generation_moved(5);  // as when the list fills up
    EXPECT_TRUE((*store)->live(kNow).empty());
  }
  auto store = LoginStateStore::open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->generation(), 5U);
  AdminSessions after(key(), 3600);
  after.restore((*store)->generation(), (*store)->live(kNow), kNow, store->get());
  EXPECT_FALSE(after.verify(c, "admin", "h", kNow + 1));  // issued under generation 0
  EXPECT_TRUE(after.verify(after.issue("admin", "h", kNow), "admin", "h", kNow + 1));
}

TEST(LoginStateStore, TheUsedTotpStepOnlyMovesForward) {
  test::TempDir dir;
  const std::string db = dir.path() + "/panel.db";
  {
    auto store = LoginStateStore::open(db);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->totp_step(), 0U);
    (*store)->totp_step_used(60'000'000);
    (*store)->totp_step_used(59'999'999);  // an older step never moves it back
  }
  auto store = LoginStateStore::open(db);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->totp_step(), 60'000'000U);
}

}  // namespace
}  // namespace qeli::panel
