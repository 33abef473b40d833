// TrafficSampler: the panel's thread that asks the server for its traffic counters (the
// server's and each user's) every kSampleSecs and adds what moved to the state_db
// (panel/traffic_history.h), so history accrues while no one looks at a page.
//
// Stopping never waits out a timer: the wait between steps is on a condition variable
// that stop() signals, and a control call in flight is ended by cancelling the caller's
// control::SocketClient first (panel_run does both on SIGTERM), so the panel exits at
// once instead of after up to the interval or the socket's 10 s timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "control/api.h"
#include "panel/traffic_history.h"

namespace qeli::panel {

class TrafficSampler {
 public:
  using Step = std::function<void()>;
  /// Starts the thread: `step` at once, then every `every` until stop().
  TrafficSampler(Step step, std::chrono::milliseconds every);
  ~TrafficSampler();
  TrafficSampler(const TrafficSampler&) = delete;
  TrafficSampler& operator=(const TrafficSampler&) = delete;

  /// Wakes the thread and joins it: returns as soon as a step in progress has returned
  /// (at once between steps). Idempotent.
  void stop();

 private:
  void run(const Step& step, std::chrono::milliseconds every);

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  ///< guarded by mu_
  std::thread thread_;
};

/// One sample at `unix_now()` into `history`: the server's counters (control GetStats) and
/// every user's totals (GetUsage), through a TrafficMeter and a UserTrafficMeter. A server
/// that does not answer is skipped (the next sample's delta covers the gap); without a
/// usage answer the users' next sample is a baseline.
TrafficSampler::Step traffic_step(control::ControlService& server, TrafficHistory& history,
                                  std::function<std::int64_t()> unix_now);

}  // namespace qeli::panel
