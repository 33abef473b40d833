// The panel's admins and their roles (issue 17, panels.md §4: scoped admins).
//
//   owner      everything: the config editor, API tokens, the admins themselves
//   admin      runs the VPN: users and devices, kicks, lockouts — not the config, not
//              tokens, not admins (so an admin cannot make itself an owner, write hooks
//              or file paths through the config, or mint a token that outlives it)
//   read-only  every page and GET, nothing that changes anything but its own password
//
// The first owner is the config's `[web] username` / `password_hash` (created from the
// command line with `qeli set-web-password`, never from the web: no first-visitor
// account). Every further admin lives here, in the panel's SQLite state_db: made by an
// owner in the panel with a random password shown once (the database keeps its Argon2id
// hash), then changed by that admin on its own account page. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "panel/admin_sessions.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

/// Ordered: a role can do everything the roles below it can.
enum class AdminRole : std::uint8_t { kReadOnly = 0, kAdmin = 1, kOwner = 2 };

/// "read-only", "admin", "owner".
std::string_view role_name(AdminRole r);
std::optional<AdminRole> parse_role(std::string_view name);
inline constexpr AdminRole kAllRoles[] = {AdminRole::kOwner, AdminRole::kAdmin,
                                          AdminRole::kReadOnly};

/// The role a request needs: `post` for a state-changing one; `path` without base_path
/// ("/users/add", "/api/v1/sessions/kick"). Anything not named is an owner's (a route added
/// later is closed until someone decides who may use it).
AdminRole role_needed(bool post, std::string_view path);

/// 1..32 bytes of [A-Za-z0-9._@-] (no spaces, nothing to escape in a log line).
bool admin_name_valid(std::string_view name);

struct AdminAccount {
  std::string name;
  AdminRole role = AdminRole::kReadOnly;
  std::string password_hash;  ///< Argon2id PHC
  std::int64_t created_unix = 0;
  std::string created_by;   ///< the owner who made it
  std::string totp_secret;  ///< Base32 (RFC 6238 second factor); empty = none
  /// Moves on with every change of role, password or second factor and with "end its
  /// sessions": part of what its cookies are bound to, so an earlier cookie never returns
  /// (a role changed and changed back included).
  std::uint64_t generation = 0;
};

/// What the sessions of a stored admin are bound to (panel/admin_sessions.h): its password
/// hash, its role, its second factor and its generation, so that changing any ends them.
std::string session_credential(const AdminAccount& a);

class AdminAccounts {
 public:
  static Result<std::unique_ptr<AdminAccounts>, std::string> open(const std::string& path);

  /// Error: an invalid name, a name that exists, the database's error.
  Result<AdminAccount, std::string> create(const std::string& name, AdminRole role,
                                           const std::string& password_hash, std::int64_t now_unix,
                                           const std::string& by);
  std::optional<AdminAccount> find(std::string_view name);
  /// By name.
  std::vector<AdminAccount> list();
  /// False: no such admin.
  bool remove(std::string_view name);
  bool set_role(std::string_view name, AdminRole role);
  bool set_password(std::string_view name, const std::string& password_hash);
  /// A new second factor (Base32; empty removes it); the used-step memory starts again.
  bool set_totp(std::string_view name, const std::string& secret);
  /// Records that a code of `step` was accepted; false if a code of this step or a later
  /// one was accepted before (RFC 6238 §5.2: each code once) — atomically, so two logins
  /// racing with one code get one success.
  bool use_totp_step(std::string_view name, std::uint64_t step);
  /// Ends every session of the admin (its generation moves on).
  bool end_sessions(std::string_view name);
  /// Whether any stored admin has a second factor (the login form then asks for a code).
  bool any_totp();

 private:
  explicit AdminAccounts(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  /// One row's statement: ?1 = name, ?2 = value (if any); false: no such row.
  bool change(const char* sql, std::string_view name,
              std::optional<std::string_view> value = std::nullopt);
  std::unique_ptr<server::SqliteDb> db_;
  std::mutex mu_;
};

}  // namespace qeli::panel
