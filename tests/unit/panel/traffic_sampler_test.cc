// The traffic sampler's thread stops at once: between samples its wait is woken (not
// waited out: the interval is 30 s), and during a sample a control call to a server that
// hangs is ended by cancelling the socket client (not waited out: its timeout is 10 s).
// So the panel exits within a moment of SIGTERM. Bounds are generous (1 s against 10 or
// 30 s), never tight.
#include "panel/traffic_sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "../config/temp_dir.h"
#include "control/control_socket.h"
#include "fakes/silent_unix_server.h"

namespace qeli::panel {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Waits up to 5 s for `done()`.
template <class F>
bool eventually(F done) {
  for (const auto end = Clock::now() + std::chrono::seconds(5); Clock::now() < end;) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return done();
}

TEST(TrafficSampler, SamplesAtOnceThenStopWakesTheWait) {
  std::atomic<int> steps{0};
  TrafficSampler sampler([&] { ++steps; }, std::chrono::seconds(kSampleSecs));
  ASSERT_TRUE(eventually([&] { return steps.load() == 1; }));
  const auto t0 = Clock::now();
  sampler.stop();
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));
  EXPECT_EQ(steps.load(), 1);
  sampler.stop();  // a second stop is nothing
}

// A server that answers its stats and alice's usage, with down counters the test moves.
class MovingCounters : public control::ControlService {
 public:
  Result<control::Response, control::ControlError> handle(const control::Request& r,
                                                          const control::Caller&) override {
    if (std::holds_alternative<control::GetUsage>(r)) {
      control::UsageList u;
      u.users.push_back({"alice", alice_down.load(), 3, std::nullopt, 0, false});
      return control::Response{u};
    }
    if (!std::holds_alternative<control::GetStats>(r)) {
      return fail(control::ControlError{control::ErrorCode::kUnknownCommand, "not faked"});
    }
    ++asked;
    control::StatsSnapshot s;
    control::ProfileStats p;
    p.traffic = {{"tx_bytes", down.load()}, {"rx_bytes", 10}};
    s.profiles = {p};
    return control::Response{s};
  }
  std::atomic<std::uint64_t> down{1000}, alice_down{700};
  std::atomic<int> asked{0};
};

TEST(TrafficSampler, SamplesEveryIntervalIntoTheHistory) {
  test::TempDir dir;
  auto history = TrafficHistory::open(dir.file("panel.db"));
  ASSERT_TRUE(history.ok());
  MovingCounters server;
  const std::int64_t now = 1'800'000'000;
  TrafficSampler sampler(traffic_step(server, **history, [&] { return now; }), milliseconds(20));
  // The first sample is the baseline; the counters then move by 500 down, alice's by 300
  // of them.
  ASSERT_TRUE(eventually([&] { return server.asked.load() >= 2; }));
  server.alice_down = 1000;
  server.down = 1500;
  ASSERT_TRUE(eventually([&] {
    const auto pts = (*history)->user_range("alice", now - 3600, now + 1);
    return !pts.empty() && pts.back().down_bytes == 300;
  }));
  sampler.stop();
  const auto pts = (*history)->range(now - 3600, now + 1);
  ASSERT_EQ(pts.size(), 1U);
  EXPECT_EQ(pts[0].down_bytes, 500U);
  EXPECT_EQ(pts[0].up_bytes, 0U);
  const auto alice = (*history)->user_range("alice", now - 3600, now + 1);
  ASSERT_EQ(alice.size(), 1U);
  EXPECT_EQ(alice[0].down_bytes, 300U);
  EXPECT_EQ(alice[0].up_bytes, 0U);
}

TEST(TrafficSampler, AServerThatHangsDelaysNoStopOnceTheClientIsCancelled) {
  test::TempDir dir;
  const std::string path = dir.file("control.sock");
  test::SilentUnixServer silent(path, 8);
  ASSERT_TRUE(silent.ok());
  auto history = TrafficHistory::open(dir.file("panel.db"));
  ASSERT_TRUE(history.ok());
  control::SocketClient client(path, 10000);
  TrafficSampler sampler(traffic_step(client, **history, [] { return std::int64_t{0}; }),
                         std::chrono::seconds(kSampleSecs));
  // The first sample's request is in the hung server's backlog: the thread waits for an
  // answer. What panel_run does on SIGTERM:
  ASSERT_TRUE(silent.someone_waits(5000));
  std::this_thread::sleep_for(milliseconds(100));
  const auto t0 = Clock::now();
  client.cancel();
  sampler.stop();
  EXPECT_LT(Clock::now() - t0, milliseconds(1000));
}

}  // namespace
}  // namespace qeli::panel
