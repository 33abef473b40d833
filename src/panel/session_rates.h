// SessionRates: each live session's current rate (bytes per second each way), from two
// successive samples of its byte counters (control::SessionInfo rx_bytes / tx_bytes) taken
// when a page lists the sessions. The server keeps no rates; the panel computes them.
//
//   * a session is keyed by (profile, session id): ids are unique within a profile for
//     the server's life;
//   * its first sample has no rate (the page shows "–");
//   * a sample less than kMinSpan after the kept one does not replace it (two page loads
//     a moment apart would divide by almost nothing): the rate computed last is repeated;
//   * counters that went backwards (a restarted server reusing an id) start over: no rate;
//   * a session missing from a list is forgotten, so the table holds at most the live
//     sessions of the last list.
//
// Thread-safe: one mutex around the table (the listener answers from several threads).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "control/api.h"

namespace qeli::panel {

/// Bytes per second: rx = from the client (the server receives), tx = toward it.
struct SessionRate {
  double rx_bytes_per_sec = 0;
  double tx_bytes_per_sec = 0;
};

class SessionRates {
 public:
  static constexpr auto kMinSpan = std::chrono::seconds(1);

  /// Takes a sample of every session of `list` at `now`; the rate of each, in the list's
  /// order (nullopt: no earlier sample yet). Forgets the sessions `list` lacks.
  std::vector<std::optional<SessionRate>> observe(const control::SessionList& list, Instant now);

  /// How many sessions are remembered (for tests).
  std::size_t size() const;

 private:
  struct Sample {
    Instant at;
    std::uint64_t rx_bytes = 0, tx_bytes = 0;
    std::optional<SessionRate> rate;  ///< the last one computed
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::uint64_t>, Sample> samples_;  ///< guarded by mu_
};

}  // namespace qeli::panel
