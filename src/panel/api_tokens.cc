#include "panel/api_tokens.h"

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <array>

#include "base/bytes.h"
#include "crypto/sha256.h"

namespace qeli::panel {
namespace {

constexpr char kBase62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Big-endian base-62 of `bytes`, left-padded with '0' to `width`.
std::string base62(std::span<const std::uint8_t> bytes, std::size_t width) {
  std::vector<std::uint8_t> n(bytes.begin(), bytes.end());
  std::string out;
  bool nonzero = true;
  while (nonzero) {
    nonzero = false;
    std::uint32_t rem = 0;
    for (auto& d : n) {
      const std::uint32_t cur = (rem << 8) | d;
      d = static_cast<std::uint8_t>(cur / 62);
      rem = cur % 62;
      nonzero = nonzero || d != 0;
    }
    out.push_back(kBase62[rem]);
  }
  while (out.size() < width) out.push_back('0');
  return {out.rbegin(), out.rend()};
}

std::string checksum(std::string_view body) {
  const auto crc = static_cast<std::uint32_t>(
      ::crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
  const std::array<std::uint8_t, 4> b{
      static_cast<std::uint8_t>(crc >> 24), static_cast<std::uint8_t>(crc >> 16),
      static_cast<std::uint8_t>(crc >> 8), static_cast<std::uint8_t>(crc)};
  return base62(b, 6);
}

std::string hash_of(std::string_view token) {
  return to_hex(
      crypto::sha256(std::span(reinterpret_cast<const std::uint8_t*>(token.data()), token.size())));
}

TokenInfo row(server::Statement& st) {
  TokenInfo t;
  t.id = st.column_text(0);
  t.name = st.column_text(1);
  t.scopes = static_cast<TokenScopes>(sqlite3_column_int(st.get(), 2));
  t.created_unix = sqlite3_column_int64(st.get(), 3);
  t.expires_unix = sqlite3_column_int64(st.get(), 4);
  t.last_used_unix = sqlite3_column_int64(st.get(), 5);
  t.last_ip = st.column_text(6);
  return t;
}

constexpr std::size_t kSecretChars = 43;  // 32 bytes in base 62
constexpr std::size_t kTokenSize = kTokenPrefix.size() + kSecretChars + 6;

}  // namespace

std::string_view scope_name(TokenScope s) {
  switch (s) {
    case TokenScope::kRead: return "read";
    case TokenScope::kSessionsKick: return "sessions:kick";
    case TokenScope::kUsersWrite: return "users:write";
    case TokenScope::kMetrics: return "metrics";
    case TokenScope::kAdmin: return "admin";
  }
  return "?";
}

std::optional<TokenScope> parse_scope(std::string_view name) {
  for (const auto s : kAllScopes) {
    if (scope_name(s) == name) return s;
  }
  return std::nullopt;
}

std::string scope_list(TokenScopes set) {
  std::string out;
  for (const auto s : kAllScopes) {
    if ((set & static_cast<TokenScopes>(s)) != 0) {
      out += (out.empty() ? "" : ",") + std::string(scope_name(s));
    }
  }
  return out;
}

bool token_well_formed(std::string_view token) {
  if (token.size() != kTokenSize || !token.starts_with(kTokenPrefix)) return false;
  for (const char c : token.substr(kTokenPrefix.size())) {
    if (std::string_view(kBase62).find(c) == std::string_view::npos) return false;
  }
  return checksum(token.substr(0, kTokenSize - 6)) == token.substr(kTokenSize - 6);
}

Result<std::unique_ptr<ApiTokens>, std::string> ApiTokens::open(const std::string& path) {
  auto db = server::SqliteDb::open(
      path,
      "CREATE TABLE IF NOT EXISTS api_tokens ("
      " id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,"
      " scopes INTEGER NOT NULL, created INTEGER NOT NULL, expires INTEGER NOT NULL,"
      " last_used INTEGER NOT NULL DEFAULT 0, last_ip TEXT NOT NULL DEFAULT '');");
  if (!db.ok()) return fail(db.error());
  return std::unique_ptr<ApiTokens>(new ApiTokens(std::move(*db)));
}

std::optional<TokenRequestFault> token_request_fault(std::string_view name, TokenScopes scopes,
                                                     std::int64_t days) {
  const bool printable = std::all_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  if (name.empty() || name.size() > 64 || !printable) return TokenRequestFault::kName;
  if (scopes == 0 || (scopes & ~TokenScopes{31}) != 0) return TokenRequestFault::kScopes;
  if (days < 1 || days > kMaxTokenDays) return TokenRequestFault::kDays;
  return std::nullopt;
}

Result<NewToken, std::string> ApiTokens::create(const std::string& name, TokenScopes scopes,
                                                std::int64_t days, std::int64_t now_unix,
                                                crypto::Rng& rng) {
  if (const auto fault = token_request_fault(name, scopes, days)) {
    switch (*fault) {
      case TokenRequestFault::kName:
        return fail(std::string("a token needs a name of 1..64 printable characters"));
      case TokenRequestFault::kScopes: return fail(std::string("a token needs at least one scope"));
      case TokenRequestFault::kDays:
        return fail("a token expires within 1.." + std::to_string(kMaxTokenDays) + " days");
    }
  }
  std::array<std::uint8_t, 32> secret{};
  rng.fill(secret);
  std::array<std::uint8_t, 4> idb{};
  rng.fill(idb);
  NewToken out;
  const std::string body = std::string(kTokenPrefix) + base62(secret, kSecretChars);
  out.token = body + checksum(body);
  out.info = {to_hex(idb), name, scopes, now_unix, now_unix + days * 86400, 0, {}};
  std::lock_guard lock(mu_);
  server::Statement st(*db_,
                       "INSERT INTO api_tokens (id, name, hash, scopes, created, expires)"
                       " VALUES (?, ?, ?, ?, ?, ?)");
  if (!st.ok()) return fail(db_->error("prepare"));
  st.bind_text(1, out.info.id);
  st.bind_text(2, name);
  st.bind_text(3, hash_of(out.token));
  sqlite3_bind_int(st.get(), 4, scopes);
  sqlite3_bind_int64(st.get(), 5, out.info.created_unix);
  sqlite3_bind_int64(st.get(), 6, out.info.expires_unix);
  if (sqlite3_step(st.get()) != SQLITE_DONE) return fail(db_->error("insert"));
  return out;
}

std::optional<TokenInfo> ApiTokens::verify(std::string_view token, std::int64_t now_unix,
                                           const std::string& ip) {
  if (!token_well_formed(token)) return std::nullopt;
  const std::string hash = hash_of(token);
  std::lock_guard lock(mu_);
  std::optional<TokenInfo> found;
  {
    server::Statement st(*db_,
                         "SELECT id, name, scopes, created, expires, last_used, last_ip"
                         " FROM api_tokens WHERE hash = ?");
    if (!st.ok()) return std::nullopt;
    st.bind_text(1, hash);
    if (sqlite3_step(st.get()) == SQLITE_ROW) found = row(st);
  }
  if (!found || found->expires_unix <= now_unix) return std::nullopt;
  server::Statement up(*db_, "UPDATE api_tokens SET last_used = ?, last_ip = ? WHERE id = ?");
  if (up.ok()) {
    sqlite3_bind_int64(up.get(), 1, now_unix);
    up.bind_text(2, ip);
    up.bind_text(3, found->id);
    (void)sqlite3_step(up.get());
  }
  found->last_used_unix = now_unix;
  found->last_ip = ip;
  return found;
}

std::vector<TokenInfo> ApiTokens::list() {
  std::lock_guard lock(mu_);
  std::vector<TokenInfo> out;
  server::Statement st(*db_,
                       "SELECT id, name, scopes, created, expires, last_used, last_ip"
                       " FROM api_tokens ORDER BY created DESC, id");
  if (!st.ok()) return out;
  while (sqlite3_step(st.get()) == SQLITE_ROW) out.push_back(row(st));
  return out;
}

bool ApiTokens::revoke(const std::string& id) {
  std::lock_guard lock(mu_);
  server::Statement st(*db_, "DELETE FROM api_tokens WHERE id = ?");
  if (!st.ok()) return false;
  st.bind_text(1, id);
  return sqlite3_step(st.get()) == SQLITE_DONE && sqlite3_changes(db_->get()) > 0;
}

}  // namespace qeli::panel
