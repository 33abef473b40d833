// Re-resolving the server's name within a time bound (no network needed: numeric hosts
// and "localhost" from /etc/hosts).
#include "client/bounded_resolve.h"

#include <gtest/gtest.h>

namespace qeli::client {
namespace {

TEST(BoundedResolve, AnswersAndRefusals) {
  std::string why;
  auto a = resolve_within({"127.0.0.7", 443}, std::chrono::milliseconds(2000), &why);
  ASSERT_TRUE(a) << why;
  ASSERT_EQ(a->size(), 1U);
  EXPECT_EQ((*a)[0].to_string(), "127.0.0.7:443");
  auto bad = resolve_within({"no-such-host.invalid", 443}, std::chrono::milliseconds(5000), &why);
  EXPECT_FALSE(bad);
  EXPECT_FALSE(why.empty());
}

TEST(BoundedResolve, GivesUpAtTheLimit) {
  // A zero limit: the lookup cannot have answered yet (it runs on another thread).
  std::string why;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = resolve_within({"localhost", 443}, std::chrono::milliseconds(0), &why);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  if (!r) {
    EXPECT_NE(why.find("no answer within 0 ms"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace qeli::client
