// TrafficAccounts: the server's per-user engine::TrafficAccount objects (one per user,
// shared by all of that user's sessions on every profile), their limits from the users
// and groups (bandwidth.limit_mbps / burst_mbps, the group's bandwidth_limit_mbps,
// data_limit_gb), live `qeli set-bandwidth` overrides, and the lifetime totals kept in a
// UsageStore. Thread-safe; never called per packet (sessions hold their account).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/traffic_account.h"
#include "server/usage_store.h"
#include "server/user_directory.h"

namespace qeli::server {

/// What one user may use, in bytes.
struct UserLimits {
  std::uint64_t rate = 0;   ///< bytes/s each direction; 0 = unlimited
  std::uint64_t burst = 0;  ///< bucket size in bytes (meaningful when rate > 0)
  std::uint64_t quota = engine::TrafficAccount::kNoQuota;  ///< download bytes, lifetime

  /// 1 Mbit/s = 125 000 bytes/s; burst_mbps > 0: one second at that rate, else an
  /// eighth of a second at the limit (at least 64 KiB, one GSO super-packet);
  /// data_limit_gb: 10^9 bytes per GB. The user's limit_mbps wins; 0 falls back to the
  /// group's bandwidth_limit_mbps.
  static UserLimits of(const config::UserConfig& u, const config::GroupConfig* g);
  static std::uint64_t rate_of(double mbps);
  static std::uint64_t burst_of(double burst_mbps, std::uint64_t rate);
};

struct UsageRow {
  std::string user;
  std::uint64_t down_bytes = 0, up_bytes = 0;
  std::uint64_t quota = engine::TrafficAccount::kNoQuota;
  std::uint64_t rate = 0;  ///< bytes/s now (override included)
  bool rate_overridden = false;
};

class TrafficAccounts {
 public:
  /// `store` may be null (totals then live only as long as the process). Loads the
  /// stored totals; the flusher thread saves every `flush_every` and at destruction.
  TrafficAccounts(std::unique_ptr<UsageStore> store, const UserSnapshot& users,
                  std::chrono::seconds flush_every = std::chrono::seconds(5));
  ~TrafficAccounts();
  TrafficAccounts(const TrafficAccounts&) = delete;
  TrafficAccounts& operator=(const TrafficAccounts&) = delete;

  /// The user's account, created on first use with its stored totals and `limits`.
  std::shared_ptr<engine::TrafficAccount> account(const std::string& user);
  /// Reload: new limits for every known account (a set-bandwidth override stays).
  void apply(const UserSnapshot& users);
  /// `qeli set-bandwidth USER MBPS` (0 = unlimited): live for the user's sessions now and
  /// later, until the server restarts. False when the user is unknown.
  bool set_bandwidth(const std::string& user, double mbps);
  /// `qeli usage`: every user with an account or a stored total, sorted by name.
  std::vector<UsageRow> usage() const;
  /// `qeli usage --reset USER`: totals back to 0 (live and stored). False when unknown.
  bool reset(const std::string& user);
  /// Writes the live totals to the store now.
  void flush();

 private:
  void apply_locked(const std::string& user, engine::TrafficAccount& a) const;
  void flusher();

  std::unique_ptr<UsageStore> store_;
  mutable std::mutex mu_;
  std::shared_ptr<const UserSnapshot> users_;
  std::map<std::string, std::shared_ptr<engine::TrafficAccount>> accounts_;
  std::map<std::string, UsageRecord> stored_;  ///< totals of users without an account yet
  std::map<std::string, double> overrides_;    ///< set-bandwidth, Mbit/s
  std::mutex flush_mu_;                        ///< one save at a time
  std::condition_variable cv_;
  bool stopping_ = false;
  std::chrono::seconds flush_every_;
  std::thread flusher_;
};

}  // namespace qeli::server
