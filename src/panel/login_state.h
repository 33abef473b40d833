// LoginStateStore: what the panel's logins must remember beyond the process, in its
// state_db — so that a restarted panel (any [web] change restarts it, a save from its own
// editor too) neither accepts a cookie that was logged out nor a one-time code that was
// used already.
//
//   revoked_sessions(sid TEXT PRIMARY KEY, expires INTEGER)  one row per logout (until
//                                                             the cookie would expire)
//   login_state(id = 1, generation INTEGER, totp_step INTEGER) AdminSessions' generation;
//                                                             the newest TOTP step used
//
// It is AdminSessions' RevocationStore and the panel's TOTP step keeper, called from the
// listener's threads: one mutex here serialises every use of the connection.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "panel/admin_sessions.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

class LoginStateStore final : public RevocationStore {
 public:
  static Result<std::unique_ptr<LoginStateStore>, std::string> open(const std::string& path);

  /// What the last process left: the generation, the revocations still live at
  /// `now_unix` (expired ones are deleted), the newest TOTP step a code was accepted for.
  std::uint64_t generation();
  std::vector<std::pair<std::string, std::int64_t>> live(std::int64_t now_unix);
  std::uint64_t totp_step();

  void revoked(const std::string& sid, std::int64_t expires_unix, std::int64_t now_unix) override;
  void generation_moved(std::uint64_t generation) override;
  /// A code of `step` was accepted: no code of it or an earlier step is, ever again.
  void totp_step_used(std::uint64_t step);

 private:
  explicit LoginStateStore(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  std::uint64_t column(const char* name);
  std::mutex mu_;
  std::unique_ptr<server::SqliteDb> db_;
};

}  // namespace qeli::panel
