#include "panel/admin_sessions.h"

#include <charconv>

#include "base/bytes.h"
#include "crypto/ct.h"
#include "crypto/random.h"
#include "crypto/sha256.h"

namespace qeli::panel {
namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string hmac_hex(const SessionKey& key, std::string_view msg) {
  const auto d = crypto::hmac_sha256(key, bytes_of(msg));
  return to_hex(d);
}

bool is_lower_hex(std::string_view s) {
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool equal_ct(std::string_view a, std::string_view b) {
  return a.size() == b.size() && crypto::ct_equal(bytes_of(a), bytes_of(b));
}

}  // namespace

AdminSessions::AdminSessions(const SessionKey& key, std::int64_t ttl_secs)
    : key_(key), ttl_(ttl_secs) {}

std::string AdminSessions::mac(std::uint64_t gen, std::string_view sid, std::int64_t expires,
                               std::string_view user, std::string_view credential) const {
  const auto cred = crypto::sha256(bytes_of(credential));
  std::string msg = "qeli-panel-session-v2|";
  msg += std::to_string(gen);
  msg += '|';
  msg += sid;
  msg += '|';
  msg += std::to_string(expires);
  msg += '|';
  msg += user;
  msg += '|';
  msg += to_hex(cred);
  return hmac_hex(key_, msg);
}

std::string AdminSessions::issue(std::string_view user, std::string_view credential,
                                 std::int64_t now_unix, AdminSession* out) {
  std::array<std::uint8_t, 16> raw{};
  crypto::random_bytes(raw);
  AdminSession s{to_hex(raw), now_unix + ttl_, std::string(user)};
  std::uint64_t gen;
  {
    std::lock_guard lock(mu_);
    gen = generation_;
  }
  std::string v = "v2." + s.sid + "." + std::to_string(s.expires_unix) + "." +
                  to_hex(as_bytes(user)) + "." + mac(gen, s.sid, s.expires_unix, user, credential);
  if (out != nullptr) *out = std::move(s);
  return v;
}

std::optional<AdminSessions::CookieParts> AdminSessions::parse(std::string_view cookie) {
  // "v2." + 32 hex + "." + digits + "." + hex(user) + "." + 64 hex
  if (cookie.size() > kMaxCookie || !cookie.starts_with("v2.")) return std::nullopt;
  cookie.remove_prefix(3);
  std::string_view field[4];
  for (int i = 0; i < 3; ++i) {
    const std::size_t dot = cookie.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    field[i] = cookie.substr(0, dot);
    cookie.remove_prefix(dot + 1);
  }
  field[3] = cookie;
  const auto [sid, exp_text, user_hex, given] = field;
  if (sid.size() != 32 || !is_lower_hex(sid)) return std::nullopt;
  if (exp_text.empty() || exp_text.size() > 19) return std::nullopt;
  if (user_hex.empty() || user_hex.size() % 2 != 0 || user_hex.size() > 2 * kMaxCookieUser ||
      !is_lower_hex(user_hex)) {
    return std::nullopt;
  }
  if (given.size() != 64 || !is_lower_hex(given)) return std::nullopt;
  CookieParts out;
  const auto [p, ec] =
      std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), out.expires);
  if (ec != std::errc{} || p != exp_text.data() + exp_text.size()) return std::nullopt;
  // One spelling per session: "0180…" would carry the same MAC as "180…".
  if (exp_text != std::to_string(out.expires)) return std::nullopt;
  const auto user = from_hex(user_hex);
  if (!user) return std::nullopt;
  out.sid = sid;
  out.user.assign(user->begin(), user->end());
  out.mac = given;
  return out;
}

std::optional<std::string> AdminSessions::cookie_user(std::string_view cookie) {
  auto parts = parse(cookie);
  if (!parts) return std::nullopt;
  return std::move(parts->user);
}

std::optional<AdminSession> AdminSessions::verify(std::string_view cookie, std::string_view user,
                                                  std::string_view credential,
                                                  std::int64_t now_unix) const {
  const auto c = parse(cookie);
  if (!c || !equal_ct(c->user, user)) return std::nullopt;
  std::uint64_t gen;
  {
    std::lock_guard lock(mu_);
    gen = generation_;
    if (revoked_.contains(std::string(c->sid))) return std::nullopt;
  }
  if (!equal_ct(c->mac, mac(gen, c->sid, c->expires, user, credential))) return std::nullopt;
  // Checked after the MAC: an expiry is only meaningful once it is known to be ours. A
  // lifetime beyond the TTL cannot come from issue() (a key shared with another panel).
  if (c->expires <= now_unix || c->expires - now_unix > ttl_) return std::nullopt;
  return AdminSession{std::string(c->sid), c->expires, std::string(user)};
}

void AdminSessions::revoke(const AdminSession& s, std::int64_t now_unix) {
  std::lock_guard lock(mu_);
  if (revoked_.size() >= kMaxRevoked) {
    std::erase_if(revoked_, [&](const auto& kv) { return kv.second <= now_unix; });
  }
  if (revoked_.size() >= kMaxRevoked) {
    // Full of live revocations: end every session instead of forgetting one.
    ++generation_;
    revoked_.clear();
    if (store_ != nullptr) store_->generation_moved(generation_);
    return;
  }
  revoked_.emplace(s.sid, s.expires_unix);
  if (store_ != nullptr) store_->revoked(s.sid, s.expires_unix, now_unix);
}

void AdminSessions::restore(std::uint64_t generation,
                            const std::vector<std::pair<std::string, std::int64_t>>& revoked,
                            std::int64_t now_unix, RevocationStore* store) {
  std::lock_guard lock(mu_);
  generation_ = generation;
  revoked_.clear();
  for (const auto& [sid, expires] : revoked) {
    if (expires <= now_unix) continue;
    if (revoked_.size() >= kMaxRevoked) {  // a store fuller than ours: end them all
      ++generation_;
      revoked_.clear();
      if (store != nullptr) store->generation_moved(generation_);
      break;
    }
    revoked_.emplace(sid, expires);
  }
  store_ = store;
}

std::string AdminSessions::csrf_token(std::string_view sid) const {
  return hmac_hex(key_, std::string("qeli-panel-csrf-v1|") + std::string(sid));
}

bool AdminSessions::csrf_ok(std::string_view sid, std::string_view token) const {
  return equal_ct(token, csrf_token(sid));
}

}  // namespace qeli::panel
