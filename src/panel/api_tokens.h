// API tokens for the panel's JSON API and its /metrics (panels.md §6.3): a script, a
// billing bot or Prometheus authenticates with `Authorization: Bearer <token>` instead of
// an admin's cookie. A token:
//
//   qeli_pat_<43 base62 characters: 32 random bytes><6 base62 characters: CRC-32 of the rest>
//
// (prefixed and checksummed so that secret scanners recognise a leaked one) is shown once
// when it is made; the panel's database keeps its SHA-256 only (a 256-bit random secret
// needs no slow hash), its name, scopes, expiry (mandatory, at most a year) and when and
// from where it was last used. Scopes:
//
//   read           every GET under /api/v1/, and config/validate
//   sessions:kick  POST sessions/kick
//   users:write    POST users, users/remove, users/disable|enable, devices, devices/revoke
//   metrics        GET /metrics
//   admin          all of these and POST config (the config editor's save)
//
// State lives in SQLite (`[web] state_db`, the panel's own file, 0600). Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "crypto/random.h"
#include "server/sqlite_db.h"

namespace qeli::panel {

enum class TokenScope : std::uint8_t {
  kRead = 1,
  kSessionsKick = 2,
  kUsersWrite = 4,
  kMetrics = 8,
  kAdmin = 16,
};
using TokenScopes = std::uint8_t;

/// "read", "sessions:kick", "users:write", "metrics", "admin".
std::string_view scope_name(TokenScope s);
std::optional<TokenScope> parse_scope(std::string_view name);
/// "read,metrics" for a set (in the order above).
std::string scope_list(TokenScopes set);
inline constexpr TokenScope kAllScopes[] = {TokenScope::kRead, TokenScope::kSessionsKick,
                                            TokenScope::kUsersWrite, TokenScope::kMetrics,
                                            TokenScope::kAdmin};

inline constexpr std::string_view kTokenPrefix = "qeli_pat_";
inline constexpr std::int64_t kMaxTokenDays = 365;

struct TokenInfo {
  std::string id;  ///< 8 hex digits, for lists and revocation (not a secret)
  std::string name;
  TokenScopes scopes = 0;
  std::int64_t created_unix = 0, expires_unix = 0, last_used_unix = 0;
  std::string last_ip;
  /// `admin` allows everything.
  bool allows(TokenScope s) const {
    return (scopes &
            (static_cast<TokenScopes>(s) | static_cast<TokenScopes>(TokenScope::kAdmin))) != 0;
  }
};

struct NewToken {
  TokenInfo info;
  std::string token;  ///< shown once
};

/// What create() refuses in a request, before anything is stored: a name that is not 1..64
/// printable characters, no scope (or an unknown bit), days outside 1..kMaxTokenDays.
/// The panel's form says each in the page's language; create() in English.
enum class TokenRequestFault { kName, kScopes, kDays };
std::optional<TokenRequestFault> token_request_fault(std::string_view name, TokenScopes scopes,
                                                     std::int64_t days);

/// True when `token` has the form above and its checksum matches (a typo or a truncated
/// copy is told apart from a revoked token).
bool token_well_formed(std::string_view token);

class ApiTokens {
 public:
  static Result<std::unique_ptr<ApiTokens>, std::string> open(const std::string& path);

  /// A new token. Error: an empty or over-long name (1..64 printable characters), no
  /// scope, days outside 1..kMaxTokenDays, the database's error.
  Result<NewToken, std::string> create(const std::string& name, TokenScopes scopes,
                                       std::int64_t days, std::int64_t now_unix, crypto::Rng& rng);
  /// The token's record when it is known and not expired; records the use (time, ip).
  std::optional<TokenInfo> verify(std::string_view token, std::int64_t now_unix,
                                  const std::string& ip);
  /// Every token, newest first (expired ones too, until revoked).
  std::vector<TokenInfo> list();
  /// False: no such id.
  bool revoke(const std::string& id);

 private:
  explicit ApiTokens(std::unique_ptr<server::SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<server::SqliteDb> db_;
  std::mutex mu_;
};

}  // namespace qeli::panel
