// Which live sessions a reload ends: users gone, disabled, with a new password, or no
// longer allowed on the profile; the rest stay.
#include "server/reload_verdict.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

config::UserConfig user(const std::string& hash, bool enabled = true) {
  config::UserConfig u;
  u.name = "alice";
  u.password_hash = hash;
  u.enabled = enabled;
  return u;
}

TEST(ReloadVerdict, EndsWhatTheNewConfigNoLongerAccepts) {
  const auto old = user("$argon2id$old");
  auto gone = reload_verdict(&old, nullptr, "main");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->close, wire::CloseReason::kCredentialsChanged);
  EXPECT_EQ(gone->why, "removed from the config");

  const auto disabled = user("$argon2id$old", false);
  auto d = reload_verdict(&old, &disabled, "main");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->close, wire::CloseReason::kDisabled);

  const auto rehashed = user("$argon2id$new");
  auto p = reload_verdict(&old, &rehashed, "main");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->close, wire::CloseReason::kCredentialsChanged);
  EXPECT_EQ(p->why, "password changed");

  auto moved = user("$argon2id$old");
  moved.profiles = {"other"};
  auto m = reload_verdict(&old, &moved, "main");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->close, wire::CloseReason::kDisabled);
  EXPECT_FALSE(reload_verdict(&old, &moved, "other"));
}

TEST(ReloadVerdict, OtherChangesKeepTheSession) {
  const auto old = user("$argon2id$old");
  auto changed = user("$argon2id$old");
  changed.max_sessions = 3;
  changed.bandwidth_limit_mbps = 5;
  changed.profiles = {"main"};
  EXPECT_FALSE(reload_verdict(&old, &changed, "main"));
  EXPECT_FALSE(reload_verdict(nullptr, &changed, "main")) << "added meanwhile: nothing to compare";
}

}  // namespace
}  // namespace qeli::server

namespace qeli::server {
namespace {

TEST(ReloadVerdict, ADeviceSessionFollowsItsDeviceNotThePassword) {
  auto old = user("$argon2id$old");
  old.devices = {{"0a0b0c0d", "phone", "$argon2id$p"}, {"deadbeef", "laptop", "$argon2id$l"}};
  auto revoked = old;
  revoked.devices.erase(revoked.devices.begin());
  auto v = reload_verdict(&old, &revoked, "main", "0a0b0c0d");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->close, wire::CloseReason::kDisabled);
  EXPECT_EQ(v->why, "device revoked");
  EXPECT_FALSE(reload_verdict(&old, &revoked, "main", "deadbeef")) << "the other device stays";
  EXPECT_FALSE(reload_verdict(&old, &revoked, "main")) << "password sessions stay";

  auto repassworded = old;
  repassworded.password_hash = "$argon2id$new";
  EXPECT_FALSE(reload_verdict(&old, &repassworded, "main", "deadbeef"));
  EXPECT_TRUE(reload_verdict(&old, &repassworded, "main"));

  auto disabled = old;
  disabled.enabled = false;
  EXPECT_TRUE(reload_verdict(&old, &disabled, "main", "deadbeef")) << "the user still rules";
}

}  // namespace
}  // namespace qeli::server
