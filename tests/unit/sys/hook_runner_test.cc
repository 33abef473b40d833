// sys::run_hook: the environment reaches the hook, output is captured (and bounded), the
// exit status is reported, a hook that outlives its timeout is killed with everything it
// started, and a password command's stderr stays out of its output.
#include "sys/hook_runner.h"

#include <gtest/gtest.h>

#include <chrono>

namespace qeli::sys {
namespace {

using std::chrono::milliseconds;

TEST(HookRunner, PassesTheEnvironmentAndCapturesOutput) {
  const auto r = run_hook("echo \"$QELI_PROFILE on $QELI_TUN\"; echo oops >&2",
                          {{"QELI_PROFILE", "main"}, {"QELI_TUN", "vpn0"}}, milliseconds(5000));
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.output, "main on vpn0\noops\n");
}

TEST(HookRunner, ReportsTheExitStatus) {
  const auto r = run_hook("exit 3", {}, milliseconds(5000));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.describe(), "exit 3");
}

TEST(HookRunner, KillsAHookAndItsChildrenAtTheTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_hook("sleep 30 & sleep 30; echo never", {}, milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output.find("never"), std::string::npos);
  EXPECT_LT(took, std::chrono::seconds(5));  // the background sleep did not hold the pipe
}

TEST(HookRunner, KeepsStderrApartWhenAsked) {
  const auto r = run_hook("echo secret; echo noise >&2", {}, milliseconds(5000), true);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "secret\n");
}

TEST(HookRunner, BoundsTheCapturedOutput) {
  const auto r = run_hook("head -c 200000 /dev/zero | tr '\\0' x", {}, milliseconds(10000));
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.output.size(), kHookOutputMax);
}

}  // namespace
}  // namespace qeli::sys
