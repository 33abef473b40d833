// The accept loop's answer to EMFILE: a growing wait (never a spin) and a rate-limited log.
#include "server/accept_backoff.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace qeli::server {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(AcceptBackoff, WaitsLongerPerFailureUpToOneSecondAndResetsOnSuccess) {
  AcceptBackoff b;
  const Instant t0{};
  EXPECT_EQ(b.on_failure(EMFILE, t0).wait, milliseconds(10));
  EXPECT_EQ(b.on_failure(EMFILE, t0).wait, milliseconds(20));
  Duration w{};
  for (int i = 0; i < 20; ++i) w = b.on_failure(ENFILE, t0).wait;
  EXPECT_EQ(w, milliseconds(1000));
  b.on_success();
  EXPECT_EQ(b.on_failure(EMFILE, t0).wait, milliseconds(10));
  EXPECT_EQ(b.failures(), 23U);
}

TEST(AcceptBackoff, LogsAtMostEveryTenSecondsWithTheCount) {
  AcceptBackoff b;
  const Instant t0{};
  auto first = b.on_failure(EMFILE, t0);
  ASSERT_TRUE(first.log);
  EXPECT_NE(first.log->find("Too many open files"), std::string::npos) << *first.log;
  for (int i = 1; i < 100; ++i) EXPECT_FALSE(b.on_failure(EMFILE, t0 + milliseconds(i * 50)).log);
  auto later = b.on_failure(EMFILE, t0 + seconds(10));
  ASSERT_TRUE(later.log);
  EXPECT_NE(later.log->find("(100 failure(s)"), std::string::npos) << *later.log;
}

TEST(AcceptBackoff, OnlyResourceErrors) {
  EXPECT_TRUE(AcceptBackoff::is_resource_error(EMFILE));
  EXPECT_TRUE(AcceptBackoff::is_resource_error(ENFILE));
  EXPECT_TRUE(AcceptBackoff::is_resource_error(ENOBUFS));
  EXPECT_FALSE(AcceptBackoff::is_resource_error(ECONNABORTED));
  EXPECT_FALSE(AcceptBackoff::is_resource_error(EAGAIN));
}

}  // namespace
}  // namespace qeli::server
