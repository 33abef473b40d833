// UserDirectory: the once-per-run latch of the `user.expired` webhook event.
#include "server/user_directory.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

TEST(UserDirectory, ExpiredEventOncePerUserAndRun) {
  UserDirectory users{UserSnapshot{}};
  EXPECT_TRUE(users.claim_expired_event("alice"));
  EXPECT_FALSE(users.claim_expired_event("alice"));  // a second login, another profile
  EXPECT_TRUE(users.claim_expired_event("bob"));
  users.replace(UserSnapshot{});  // a reload does not re-arm it
  EXPECT_FALSE(users.claim_expired_event("alice"));
}

}  // namespace
}  // namespace qeli::server
