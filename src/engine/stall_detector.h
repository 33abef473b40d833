// StallDetector: did this process just not run for longer than a session can survive?
//
// A UDP client that is suspended with its machine, or stopped (SIGSTOP, a debugger, a
// frozen VM), for longer than the liveness deadline has lost its session: the server
// gave up on it meanwhile. The steady clock does not advance during a system suspend, and
// datagrams the server sent before it gave up wait in the socket's receive queue; read
// on resume, they look like fresh proof of life and refresh the liveness timer — the
// client then sat a whole liveness interval (≥ 30 s) on a dead session (the trial).
//
// The session loop wakes at least once a second and reports CLOCK_BOOTTIME (which counts
// suspend and stopped time alike); a gap longer than `limit` between two reports means
// the process did not run for that long, and the session should be ended (and redialed)
// at once instead. Sans-I/O: times are passed in.
#pragma once

#include "base/clock.h"

namespace qeli::engine {

class StallDetector {
 public:
  /// `limit`: the longest gap a session survives (its liveness deadline); zero = never.
  explicit StallDetector(Duration limit) : limit_(limit) {}
  /// `boot_now`: boottime_now() at this wake-up. True if the gap since the previous call
  /// exceeded the limit.
  bool stalled(Duration boot_now);
  /// The last gap that was seen as a stall (for the log).
  Duration last_gap() const { return gap_; }

 private:
  Duration limit_;
  Duration last_{};
  bool started_ = false;
  Duration gap_{};
};

/// CLOCK_BOOTTIME as a duration since boot.
Duration boottime_now();

}  // namespace qeli::engine
