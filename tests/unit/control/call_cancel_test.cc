// control::call() against a server that never answers: it gives up at its deadline, and a
// stopped StopSignal ends it at once — waiting for the answer, or for room in a full backlog — so
// a stopping panel never waits out the socket's timeout. Time bounds are generous (a
// tenth of the timeout the call would otherwise wait), never tight.
#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "../config/temp_dir.h"
#include "control/control_socket.h"
#include "fakes/silent_unix_server.h"

namespace qeli::control {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

using test::SilentUnixServer;

const nlohmann::json kRequest = {{"cmd", "stats"}};

TEST(ControlCallCancel, AWaitingCallEndsAtOnce) {
  test::TempDir dir;
  const std::string path = dir.file("control.sock");
  SilentUnixServer silent(path, 8);
  ASSERT_TRUE(silent.ok());
  StopSignal cancel;
  auto pending =
      std::async(std::launch::async, [&] { return call(path, kRequest, 10000, &cancel); });
  ASSERT_TRUE(silent.someone_waits(5000));
  // The request is sent; the call now waits for an answer that never comes.
  ASSERT_EQ(pending.wait_for(milliseconds(200)), std::future_status::timeout);
  const auto t0 = Clock::now();
  cancel.stop();
  const auto r = pending.get();
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));  // not the 10 s timeout
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cancelled"), std::string::npos) << r.error();
  // Once cancelled, every later call fails without trying.
  const auto t1 = Clock::now();
  const auto again = call(path, kRequest, 10000, &cancel);
  EXPECT_FALSE(again.ok());
  EXPECT_LT(Clock::now() - t1, milliseconds(1000));
}

TEST(ControlCallCancel, AFullBacklogHoldsACallerOnlyUntilItsDeadlineOrACancel) {
  test::TempDir dir;
  const std::string path = dir.file("control.sock");
  // Backlog 0: one connection waits in it, the next connect finds it full.
  SilentUnixServer silent(path, 0);
  ASSERT_TRUE(silent.ok());
  const int filler = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  const sockaddr_un sa = SilentUnixServer::address(path);
  ASSERT_EQ(::connect(filler, reinterpret_cast<const sockaddr*>(&sa), sizeof(sa)), 0);
  const auto t0 = Clock::now();
  const auto timed_out = call(path, kRequest, 300);
  EXPECT_LT(Clock::now() - t0, milliseconds(3000));
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.error().find("backlog is full"), std::string::npos) << timed_out.error();

  StopSignal cancel;
  auto pending =
      std::async(std::launch::async, [&] { return call(path, kRequest, 10000, &cancel); });
  ASSERT_EQ(pending.wait_for(milliseconds(200)), std::future_status::timeout);
  const auto t1 = Clock::now();
  cancel.stop();
  const auto r = pending.get();
  EXPECT_LT(Clock::now() - t1, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cancelled"), std::string::npos) << r.error();
  ::close(filler);
}

TEST(ControlCallCancel, WithoutACancelASilentServerCostsTheTimeout) {
  test::TempDir dir;
  const std::string path = dir.file("control.sock");
  SilentUnixServer silent(path, 8);
  ASSERT_TRUE(silent.ok());
  const auto t0 = Clock::now();
  const auto r = call(path, kRequest, 300);
  const auto took = Clock::now() - t0;
  EXPECT_GE(took, milliseconds(250));
  EXPECT_LT(took, milliseconds(3000));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("no answer"), std::string::npos) << r.error();
  // And a SocketClient's cancel() is the same switch, for its calls.
  SocketClient client(path, 10000);
  client.cancel();
  const auto t1 = Clock::now();
  const auto refused = client.handle(GetStats{}, Caller{});
  EXPECT_LT(Clock::now() - t1, milliseconds(1000));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace qeli::control
