// Traffic over time for the dashboard (issue 17: "traffic over time", usage history in
// SQLite). The panel asks the server for its counters every kSampleSecs (a thread of its
// own in panel_run, so history accrues while no one looks), and adds what moved since the
// last sample to a kBucketSecs bucket of the state_db; the dashboard draws the last day,
// GET /api/v1/traffic answers up to kRetentionSecs.
//
//   down = the sessions' tx_bytes (server → clients), up = rx_bytes (clients → server),
//   summed over every profile: the counters are monotonic from the server's start.
//
// TrafficMeter is the sans-I/O part (totals and time in, a delta out); TrafficHistory the
// SQLite table. Thread-safe (the store); the meter belongs to the sampling thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "control/api.h"
#include "panel/i18n.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

inline constexpr std::int64_t kSampleSecs = 30;
inline constexpr std::int64_t kBucketSecs = 300;
inline constexpr std::int64_t kRetentionSecs = 30 * 86400;

/// The start of the bucket `unix_secs` falls in (floor to kBucketSecs, negative times too).
std::int64_t traffic_bucket_of(std::int64_t unix_secs);

struct TrafficTotals {
  std::int64_t server_started_unix = 0;  ///< tells a restarted server (counters from 0)
  std::uint64_t down_bytes = 0, up_bytes = 0;
};
/// The totals of a GetStats answer.
TrafficTotals totals_of(const control::StatsSnapshot& stats);

struct TrafficDelta {
  std::uint64_t down_bytes = 0, up_bytes = 0;
};

/// What moved between two samples. The first sample only sets the baseline (when its bytes
/// moved is unknown); after a server restart (another start time, or a counter that went
/// back) the new totals are what moved since.
class TrafficMeter {
 public:
  std::optional<TrafficDelta> observe(const TrafficTotals& now);

 private:
  std::optional<TrafficTotals> last_;
};

struct TrafficPoint {
  std::int64_t start_unix = 0;  ///< the bucket's start (a multiple of kBucketSecs)
  std::uint64_t down_bytes = 0, up_bytes = 0;
};

class TrafficHistory {
 public:
  static Result<std::unique_ptr<TrafficHistory>, std::string> open(const std::string& path);

  /// Adds `d` to the bucket of `now_unix`; drops buckets older than kRetentionSecs.
  bool add(std::int64_t now_unix, const TrafficDelta& d);
  /// The buckets that start in [from_unix, to_unix), oldest first (empty ones absent).
  std::vector<TrafficPoint> range(std::int64_t from_unix, std::int64_t to_unix);

 private:
  explicit TrafficHistory(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<server::SqliteDb> db_;
  std::mutex mu_;
};

/// An inline SVG chart (no script, no external resource: the CSP allows it) of `points`
/// as rates over [from_unix, to_unix): down and up in Mbit/s, time on the x axis.
std::string traffic_chart_svg(Lang lang, const std::vector<TrafficPoint>& points,
                              std::int64_t from_unix, std::int64_t to_unix);

}  // namespace qeli::panel
