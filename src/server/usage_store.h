// Where per-user traffic totals survive a restart (data_limit_gb is a lifetime quota,
// `qeli usage` reports them). An interface, so a shared database can replace the
// embedded SQLite file later; the server calls it from its control-plane threads only
// (never from the data path: server/traffic_accounts.h batches the totals).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace qeli::server {

struct UsageRecord {
  std::string user;
  std::uint64_t down_bytes = 0;   ///< server → client (the user's download)
  std::uint64_t up_bytes = 0;     ///< client → server
  std::int64_t updated_unix = 0;  ///< when these totals were last written (unix seconds)
};

class UsageStore {
 public:
  virtual ~UsageStore() = default;
  /// Every stored user's totals.
  virtual Result<std::vector<UsageRecord>, std::string> load() = 0;
  /// Writes the given totals (absolute values, one transaction; other users untouched).
  virtual Status<std::string> save(const std::vector<UsageRecord>& records) = 0;
  /// Forgets one user's totals (`qeli usage --reset USER`).
  virtual Status<std::string> reset(const std::string& user) = 0;
};

/// The embedded default: one SQLite file (created 0600 with its table on first use; WAL
/// journal, so a crash loses at most the totals since the last save).
Result<std::unique_ptr<UsageStore>, std::string> open_sqlite_usage_store(const std::string& path);

}  // namespace qeli::server
