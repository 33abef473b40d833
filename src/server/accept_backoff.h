// AcceptBackoff: what the TCP accept loop does when accept() fails for lack of resources
// (EMFILE / ENFILE: no free file descriptor; ENOBUFS / ENOMEM). The pending connection
// stays in the listen queue, so the listener stays readable and a loop that simply polls
// again spins at a whole core (the trial) while accepting nothing. Instead:
//
//   * wait before the next accept: 10 ms, doubling per consecutive failure up to 1 s
//     (the stop signal still ends the wait); one success resets it;
//   * log at most once per 10 s, with how many failures there were since the last line.
//
// Sessions already running are not touched (they have their descriptors). Pure: time is
// passed in; errors other than those above are not resource exhaustion (the caller keeps
// its usual handling: ECONNABORTED and friends just mean "try the next one").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "base/clock.h"

namespace qeli::server {

class AcceptBackoff {
 public:
  static constexpr auto kFirstWait = std::chrono::milliseconds(10);
  static constexpr auto kMaxWait = std::chrono::milliseconds(1000);
  static constexpr auto kLogEvery = std::chrono::seconds(10);

  /// True for the errno values this class handles.
  static bool is_resource_error(int err);

  struct Decision {
    Duration wait;                   ///< before trying accept() again
    std::optional<std::string> log;  ///< a line to log now (rate-limited), or nothing
  };
  /// accept() failed with the resource error `err` at `now`.
  Decision on_failure(int err, Instant now);
  /// accept() succeeded: the next failure starts from kFirstWait again.
  void on_success() { wait_ = Duration::zero(); }

  std::uint64_t failures() const { return total_; }

 private:
  Duration wait_ = Duration::zero();
  std::optional<Instant> last_log_;
  std::uint64_t total_ = 0;
  std::uint64_t since_log_ = 0;
};

}  // namespace qeli::server
