// Traffic over time for the dashboard and each user's page (issue 17: "traffic over time",
// usage history in SQLite). The panel asks the server for its counters every kSampleSecs
// (panel/traffic_sampler.h: a thread of its own, so history accrues while no one looks),
// and adds what moved since the last sample to a kBucketSecs bucket of the state_db; the
// pages draw the last day, GET /api/v1/traffic[?user=NAME] answers up to kRetentionSecs.
//
//   server-wide: down = the sessions' tx_bytes (server → clients), up = rx_bytes (clients
//   → server), summed over every profile: monotonic from the server's start.
//   per user: the user's lifetime totals (control usage: every session and device of the
//   user, kept across session ends, and across restarts by the server's usage_db).
//
// TrafficMeter and UserTrafficMeter are the sans-I/O part (totals in, deltas out);
// TrafficHistory the SQLite tables. Thread-safe (the store); the meters belong to the
// sampling thread.
//
// Cost: a user's bucket is a row (user, start) of a WITHOUT ROWID table, so one user's
// range is one primary-key range scan, and a second index on start lets the retention
// drop the oldest buckets without a scan: 1000 users × 8640 buckets (30 days) stay a
// lookup of 288 or 8640 rows. Only users whose totals moved get a row.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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

struct UserTrafficDelta {
  std::string user;
  TrafficDelta moved;
};

/// What moved per user between two samples of the users' lifetime totals (a GetUsage
/// answer), given what the whole server moved in the same interval (TrafficMeter's delta
/// of the same sample; nullopt: no interval yet, so this sample is a baseline too):
///   * the first sample is the baseline (when its bytes moved is unknown);
///   * a total that grew: the growth;
///   * a user not in the last sample, or a total that went down — `qeli usage --reset`, a
///     server restarted without its usage_db, or one that lost its last unsaved seconds —
///     counts from zero (never a negative delta), but no more than the whole server moved
///     meanwhile: a total read again after a crash never reads as a user's lifetime moving
///     at once.
/// Users whose totals did not move are left out.
class UserTrafficMeter {
 public:
  std::vector<UserTrafficDelta> observe(const control::UsageList& usage,
                                        const std::optional<TrafficDelta>& server);
  /// Forgets the last sample: the next one is a baseline (the server's usage answer failed).
  void reset() { last_.reset(); }

 private:
  struct Totals {
    std::uint64_t down_bytes = 0, up_bytes = 0;
  };
  std::optional<std::unordered_map<std::string, Totals>> last_;
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

  /// Adds each user's delta to its bucket of `now_unix` (one transaction) and drops every
  /// user's buckets older than kRetentionSecs (also when `deltas` is empty).
  bool add_users(std::int64_t now_unix, const std::vector<UserTrafficDelta>& deltas);
  /// One user's buckets that start in [from_unix, to_unix), oldest first.
  std::vector<TrafficPoint> user_range(std::string_view user, std::int64_t from_unix,
                                       std::int64_t to_unix);

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
