// server::user_key_lines (edit-user's request as users-file lines): a field equal to the
// user's value yields no line, a default removes its key, lists and numbers are written
// so that the loader reads them back, and what cannot be a list element is refused.
#include "server/user_edit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace qeli::server {
namespace {

control::UserInfo carol() {
  control::UserInfo u;
  u.name = "carol";
  u.group = "staff";
  u.max_sessions = 2;
  u.profiles = {"main"};
  u.routes = {"10.1.0.0/16"};
  u.bandwidth_limit_mbps = 5;
  u.expire_at = 1'800'000'000;
  return u;
}

TEST(user_key_lines, only_changed_fields_become_lines) {
  control::EditUser e;
  e.username = "carol";
  // As the form sends them: every field, most unchanged.
  e.group = " staff ";
  e.static_ip = "";
  e.max_sessions = 2;
  e.profiles = {{"main"}};
  e.routes = {{"10.1.0.0/16", "10.2.0.0/16 metric=3"}};
  e.allowed_networks = std::vector<std::string>{};
  e.bandwidth_limit_mbps = 12.5;
  e.data_limit_gb = 0;
  e.expire_at = 1'800'000'000;
  e.enabled = true;
  auto lines = user_key_lines(e, carol());
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->size(), 2U);
  EXPECT_EQ((*lines)[0].key, "route");
  EXPECT_EQ((*lines)[0].values, (std::vector<std::string>{"10.1.0.0/16", "10.2.0.0/16 metric=3"}));
  EXPECT_EQ((*lines)[1].key, "bandwidth.limit_mbps");
  EXPECT_EQ((*lines)[1].values, std::vector<std::string>{"12.5"});
}

TEST(user_key_lines, defaults_remove_their_keys) {
  control::EditUser e;
  e.group = "";
  e.max_sessions = 0;
  e.profiles = std::vector<std::string>{};
  e.bandwidth_limit_mbps = 0;
  e.expire_at = 0;
  e.enabled = false;  // not a default: written
  auto lines = user_key_lines(e, carol());
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 6U);
  for (std::size_t i = 0; i + 1 < lines->size(); ++i) {
    EXPECT_TRUE((*lines)[i].values.empty()) << (*lines)[i].key;
  }
  EXPECT_EQ(lines->back().key, "enabled");
  EXPECT_EQ(lines->back().values, std::vector<std::string>{"false"});
}

TEST(user_key_lines, lists_join_and_bad_elements_are_refused) {
  control::EditUser e;
  e.allowed_networks = {{" 10.0.0.0/8", "fd00::/8 "}};
  e.profiles = {{"main", "spare"}};
  auto lines = user_key_lines(e, carol());
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 2U);
  EXPECT_EQ((*lines)[0].key, "profiles");
  EXPECT_EQ((*lines)[0].values, std::vector<std::string>{"main, spare"});
  EXPECT_EQ((*lines)[1].key, "allowed_networks");
  EXPECT_EQ((*lines)[1].values, std::vector<std::string>{"10.0.0.0/8, fd00::/8"});

  for (const auto& bad : {std::vector<std::string>{"main,spare"}, std::vector<std::string>{" "}}) {
    control::EditUser b;
    b.profiles = bad;
    const auto r = user_key_lines(b, carol());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, control::ErrorCode::kInvalid);
  }
  control::EditUser inf;
  inf.data_limit_gb = INFINITY;
  EXPECT_FALSE(user_key_lines(inf, carol()).ok());
}

}  // namespace
}  // namespace qeli::server
