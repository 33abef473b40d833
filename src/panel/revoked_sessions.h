// RevokedSessions: the panel's logouts in its state_db, so that a restarted panel still
// refuses a cookie that was logged out (AdminSessions keeps them in memory; this is its
// RevocationStore).
//
//   revoked_sessions(sid TEXT PRIMARY KEY, expires INTEGER)   one row per logout
//   session_generation(id = 1, generation INTEGER)            AdminSessions' generation
//
// Rows past their expiry are dropped at open; the table never holds more than
// AdminSessions' kMaxRevoked live rows (beyond that the generation moves on and the rows
// go). Thread-safe through AdminSessions (it calls in under its lock).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "panel/admin_sessions.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

class RevokedSessions final : public RevocationStore {
 public:
  static Result<std::unique_ptr<RevokedSessions>, std::string> open(const std::string& path);

  /// What the last process left: the generation and the revocations still live at
  /// `now_unix` (expired ones are deleted).
  std::uint64_t generation();
  std::vector<std::pair<std::string, std::int64_t>> live(std::int64_t now_unix);

  void revoked(const std::string& sid, std::int64_t expires_unix) override;
  void generation_moved(std::uint64_t generation) override;

 private:
  explicit RevokedSessions(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<server::SqliteDb> db_;
};

}  // namespace qeli::panel
