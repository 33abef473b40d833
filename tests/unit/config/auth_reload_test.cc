// config/auth_reload.h: which changed [auth] keys a reload cannot apply (the server warns
// with their names, "needs a restart").
#include "config/auth_reload.h"

#include <gtest/gtest.h>

namespace qeli::config {
namespace {

using Keys = std::vector<std::string>;

TEST(AuthReload, NamesEveryChangedKeyButUsersFile) {
  const AuthConfig running;
  EXPECT_EQ(auth_keys_needing_restart(running, running), Keys{});

  AuthConfig next = running;
  next.users_file = "/elsewhere/users.conf";  // a reload reads the users from it
  EXPECT_EQ(auth_keys_needing_restart(running, next), Keys{});

  next.brute_force.max_attempts = 9;
  next.brute_force.per_address_only = true;
  next.require_client_key_proof = true;
  EXPECT_EQ(
      auth_keys_needing_restart(running, next),
      (Keys{"require_client_key_proof", "brute_force.max_attempts", "brute_force.lockout_key"}));

  next = running;
  next.identity_dir = "/var/lib/qeli/id";
  next.bind_static_to_session = false;
  next.brute_force.enabled = false;
  next.brute_force.window = std::chrono::seconds{1};
  next.brute_force.lockout = std::chrono::seconds{2};
  next.brute_force.address_max_attempts = 1;
  EXPECT_EQ(auth_keys_needing_restart(running, next),
            (Keys{"identity_dir", "bind_static_to_session", "brute_force.enabled",
                  "brute_force.window_secs", "brute_force.lockout_secs",
                  "brute_force.address_max_attempts"}));
}

}  // namespace
}  // namespace qeli::config
