// The panel's audit log (panels.md §6.4.7): one row per admin action — every POST that
// passed the login check (an admin's form or an API call with a cookie or a token), and
// every login attempt but the lockout's repeats — with when, who (the admin, the token, or
// "(another name)" for a login under any other name: it may be a password typed into the
// wrong field), from where, what, on what, and how it ended (the HTTP status). Kept in the panel's
// state_db beside the API tokens, appended only (the newest kMaxRows stay), shown on the Audit page
// and under GET /api/v1/audit. Never a credential or a config text: the target is the user,
// address, device or token id/name the action named. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

struct AuditEntry {
  std::int64_t seq = 0;
  std::int64_t unix_secs = 0;
  std::string actor;   ///< "panel:<admin>", "token:<name>", or the name tried at a login
  std::string ip;      ///< the client's address (after trusted proxies)
  std::string action;  ///< "login", "/users/disable", "/api/v1/devices", …
  std::string target;  ///< "user=alice", "id=0a1b2c3d", … ("" when none)
  int status = 0;      ///< the HTTP status of the answer
};

class AuditLog {
 public:
  static constexpr std::int64_t kMaxRows = 100000;
  static constexpr std::int64_t kMaxFailedLogins = 10000;  ///< of kMaxRows
  static Result<std::unique_ptr<AuditLog>, std::string> open(const std::string& path);

  /// Appends `e` (its seq is assigned). Strings are cut to 256 bytes. A failure is logged,
  /// never thrown: the action itself has happened.
  void append(AuditEntry e);
  /// The newest `limit` entries (1..1000), newest first.
  std::vector<AuditEntry> newest(std::size_t limit);

 private:
  explicit AuditLog(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<server::SqliteDb> db_;
  std::mutex mu_;
  std::int64_t appended_ = 0;
};

}  // namespace qeli::panel
