// AdminSessions: the panel's login sessions, carried in one cookie and checked without
// a session table.
//
//   cookie value  = "v2." sid "." expires "." hex(user) "." mac
//                   (sid: 32 hex, expires: unix s, user: the admin's name, ≤ kMaxCookieUser bytes)
//   mac           = HMAC-SHA256(key, "qeli-panel-session-v2|" gen "|" sid "|" expires "|"
//                                    user "|" SHA-256(credential))            (hex)
//   CSRF token    = HMAC-SHA256(key, "qeli-panel-csrf-v1|" sid)               (hex)
//
// The name in the cookie says which admin's credential to check it against (the panel
// has several: panel/admin_accounts.h); it is under the MAC like the rest. `credential` is
// that admin's stored password hash (and role), so a password change ends every session of
// the old password at once. Logout revokes one sid (kept until it would have
// expired anyway). `gen` is a generation counter: if the revocation list ever fills up,
// the generation moves on and every session ends — never an un-revoked cookie. With a
// RevocationStore (panel/login_state.h: the state_db) both outlive the process, so a
// restarted panel does not accept a cookie that was logged out.
// The key is 32 random bytes (config/web_session_key.h: persisted, so a restart keeps
// the admins logged in, when persist_session_key = true).
//
// Sans-I/O (time is passed in) and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/web_session_key.h"

namespace qeli::panel {

using SessionKey = config::WebSessionKey;

inline constexpr char kSessionCookie[] = "qeli_session";
inline constexpr std::size_t kMaxRevoked = 65536;

inline constexpr std::size_t kMaxAdminName = 32;  ///< bytes (panel/admin_accounts.h)
/// The longest name a cookie carries: the config's owner's `[web] username` is free-form
/// (a further admin's is at most kMaxAdminName).
inline constexpr std::size_t kMaxCookieUser = 256;
inline constexpr std::size_t kMaxCookie = 3 + 32 + 1 + 19 + 1 + 2 * kMaxCookieUser + 1 + 64;

struct AdminSession {
  std::string sid;  ///< 32 hex characters
  std::int64_t expires_unix = 0;
  std::string user;  ///< the admin it belongs to
};

/// Where revocations are kept beyond the process (called under AdminSessions' lock).
class RevocationStore {
 public:
  virtual ~RevocationStore() = default;
  virtual void revoked(const std::string& sid, std::int64_t expires_unix,
                       std::int64_t now_unix) = 0;
  /// The list filled up: every earlier session ended; the old rows may go.
  virtual void generation_moved(std::uint64_t generation) = 0;
};

class AdminSessions {
 public:
  AdminSessions(const SessionKey& key, std::int64_t ttl_secs);

  /// A new session for `user` (whose stored credential is `credential`) at `now_unix`:
  /// the cookie value to set.
  std::string issue(std::string_view user, std::string_view credential, std::int64_t now_unix,
                    AdminSession* out = nullptr);
  /// The admin a well-formed cookie names (not yet verified: look up that admin's
  /// credential, then verify()); nullopt for anything malformed.
  static std::optional<std::string> cookie_user(std::string_view cookie);
  /// The session a cookie value proves for `user`/`credential` at `now_unix`; nullopt if
  /// it is malformed, forged, expired, revoked or of another credential.
  std::optional<AdminSession> verify(std::string_view cookie, std::string_view user,
                                     std::string_view credential, std::int64_t now_unix) const;
  /// Logout: `s` is refused from now on.
  void revoke(const AdminSession& s, std::int64_t now_unix);
  /// What a store kept (revocations still live at `now_unix`, the generation), and the
  /// store to tell of every later one (null: memory only).
  void restore(std::uint64_t generation,
               const std::vector<std::pair<std::string, std::int64_t>>& revoked,
               std::int64_t now_unix, RevocationStore* store);

  std::string csrf_token(std::string_view sid) const;
  /// Constant-time comparison of `token` with csrf_token(sid).
  bool csrf_ok(std::string_view sid, std::string_view token) const;

  std::int64_t ttl_secs() const { return ttl_; }

 private:
  struct CookieParts {
    std::string_view sid, mac;
    std::int64_t expires = 0;
    std::string user;
  };
  static std::optional<CookieParts> parse(std::string_view cookie);
  std::string mac(std::uint64_t gen, std::string_view sid, std::int64_t expires,
                  std::string_view user, std::string_view credential) const;

  SessionKey key_;
  std::int64_t ttl_;
  mutable std::mutex mu_;
  std::uint64_t generation_ = 0;
  std::unordered_map<std::string, std::int64_t> revoked_;  ///< sid → its expiry
  RevocationStore* store_ = nullptr;
};

}  // namespace qeli::panel
