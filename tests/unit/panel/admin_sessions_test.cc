#include "panel/admin_sessions.h"

#include <gtest/gtest.h>

#include <string>

#include "base/bytes.h"

namespace qeli::panel {
namespace {

constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kTtl = 3600;

SessionKey key_of(std::uint8_t fill) {
  SessionKey k{};
  k.fill(fill);
  return k;
}

struct Parts {
  std::string sid, expires, user, mac;
};

Parts split(const std::string& cookie) {
  // "v2." sid "." expires "." hex(user) "." mac
  const auto d1 = cookie.find('.', 3);
  const auto d2 = cookie.find('.', d1 + 1);
  const auto d3 = cookie.find('.', d2 + 1);
  return {cookie.substr(3, d1 - 3), cookie.substr(d1 + 1, d2 - d1 - 1),
          cookie.substr(d2 + 1, d3 - d2 - 1), cookie.substr(d3 + 1)};
}

std::string join(const Parts& p) {
  return "v2." + p.sid + "." + p.expires + "." + p.user + "." + p.mac;
}

// Changes one hex digit (to another hex digit).
std::string flip_hex(std::string s, std::size_t at) {
  s[at] = s[at] == '0' ? '1' : '0';
  return s;
}

TEST(admin_sessions, issue_and_verify_round_trip) {
  AdminSessions s(key_of(7), kTtl);
  AdminSession issued;
  const std::string cookie = s.issue("admin", "hash-1", kNow, &issued);
  EXPECT_TRUE(cookie.starts_with("v2."));
  EXPECT_EQ(AdminSessions::cookie_user(cookie), "admin");
  EXPECT_EQ(issued.sid.size(), 32U);
  EXPECT_EQ(issued.expires_unix, kNow + kTtl);
  const Parts p = split(cookie);
  EXPECT_EQ(p.sid, issued.sid);
  EXPECT_EQ(p.expires, std::to_string(kNow + kTtl));
  EXPECT_EQ(p.mac.size(), 64U);

  const auto v = s.verify(cookie, "admin", "hash-1", kNow + 10);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->sid, issued.sid);
  EXPECT_EQ(v->expires_unix, kNow + kTtl);
  EXPECT_EQ(v->user, "admin");
  // Another instance with the same key (a restart with a persisted key) accepts it too.
  AdminSessions restarted(key_of(7), kTtl);
  EXPECT_TRUE(restarted.verify(cookie, "admin", "hash-1", kNow + 10));
  // Two sessions get different ids.
  EXPECT_NE(split(s.issue("admin", "hash-1", kNow)).sid, issued.sid);
}

TEST(admin_sessions, tampered_parts_are_refused) {
  AdminSessions s(key_of(7), kTtl);
  const std::string cookie = s.issue("admin", "hash-1", kNow);
  const Parts p = split(cookie);
  ASSERT_TRUE(s.verify(cookie, "admin", "hash-1", kNow));

  Parts mac = p;
  mac.mac = flip_hex(mac.mac, 10);
  EXPECT_FALSE(s.verify(join(mac), "admin", "hash-1", kNow));
  Parts sid = p;
  sid.sid = flip_hex(sid.sid, 0);
  EXPECT_FALSE(s.verify(join(sid), "admin", "hash-1", kNow));
  Parts exp = p;
  exp.expires = std::to_string(kNow + kTtl - 1);  // shorter: still not ours
  EXPECT_FALSE(s.verify(join(exp), "admin", "hash-1", kNow));
  exp.expires = std::to_string(kNow + kTtl + 1000);
  EXPECT_FALSE(s.verify(join(exp), "admin", "hash-1", kNow));
  // The name is under the MAC: another admin's name in the same cookie is refused, for
  // that admin as for this one.
  Parts user = p;
  user.user = to_hex(as_bytes("root!"));
  EXPECT_FALSE(s.verify(join(user), "root!", "hash-1", kNow));
  EXPECT_FALSE(s.verify(join(user), "admin", "hash-1", kNow));
  EXPECT_EQ(AdminSessions::cookie_user(join(user)), "root!");
  // Malformed shapes.
  for (const std::string& bad :
       {std::string(), std::string("v2."), "v1." + cookie.substr(3), cookie + "0",
        cookie.substr(0, cookie.size() - 1), "v2." + p.sid + "." + p.expires + "." + p.user,
        "v2." + p.sid + "." + p.expires + ".." + p.mac,
        "v2." + p.sid + "." + p.expires + "." + p.user + "0." + p.mac,
        "v2." + p.sid + "." + p.expires + "." + std::string(2 * kMaxCookieUser + 2, 'a') + "." +
            p.mac,
        "v2." + p.sid + ".." + p.user + "." + p.mac,
        "v2." + p.sid + ".x" + p.expires + "." + p.user + "." + p.mac}) {
    EXPECT_FALSE(s.verify(bad, "admin", "hash-1", kNow)) << bad;
  }
  EXPECT_FALSE(AdminSessions::cookie_user("v2." + p.sid + "." + p.expires + ".." + p.mac));
  // Upper-case hex is not what issue() writes.
  std::string upper = cookie;
  for (auto& c : upper)
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
  EXPECT_FALSE(s.verify(upper, "admin", "hash-1", kNow));
  // A cookie of another key.
  AdminSessions other(key_of(8), kTtl);
  EXPECT_FALSE(other.verify(cookie, "admin", "hash-1", kNow));
}

TEST(admin_sessions, expired_is_refused) {
  AdminSessions s(key_of(7), kTtl);
  const std::string cookie = s.issue("admin", "hash-1", kNow);
  EXPECT_TRUE(s.verify(cookie, "admin", "hash-1", kNow + kTtl - 1));
  EXPECT_FALSE(s.verify(cookie, "admin", "hash-1", kNow + kTtl));
  EXPECT_FALSE(s.verify(cookie, "admin", "hash-1", kNow + kTtl + 1));
}

TEST(admin_sessions, another_user_or_credential_is_refused) {
  AdminSessions s(key_of(7), kTtl);
  const std::string cookie = s.issue("admin", "hash-1", kNow);
  EXPECT_FALSE(s.verify(cookie, "root", "hash-1", kNow));
  EXPECT_FALSE(s.verify(cookie, "admin", "hash-2", kNow));  // the password changed
  EXPECT_TRUE(s.verify(cookie, "admin", "hash-1", kNow));
}

TEST(admin_sessions, revoked_is_refused_and_others_stay) {
  AdminSessions s(key_of(7), kTtl);
  AdminSession a, b;
  const std::string ca = s.issue("admin", "hash-1", kNow, &a);
  const std::string cb = s.issue("admin", "hash-1", kNow, &b);
  s.revoke(a, kNow + 1);
  EXPECT_FALSE(s.verify(ca, "admin", "hash-1", kNow + 2));
  EXPECT_TRUE(s.verify(cb, "admin", "hash-1", kNow + 2));
}

TEST(admin_sessions, csrf_token_is_bound_to_the_sid) {
  AdminSessions s(key_of(7), kTtl);
  AdminSession a, b;
  (void)s.issue("admin", "hash-1", kNow, &a);
  (void)s.issue("admin", "hash-1", kNow, &b);
  const std::string ta = s.csrf_token(a.sid);
  EXPECT_EQ(ta.size(), 64U);
  EXPECT_EQ(ta, s.csrf_token(a.sid));
  EXPECT_TRUE(s.csrf_ok(a.sid, ta));
  EXPECT_FALSE(s.csrf_ok(b.sid, ta));
  EXPECT_FALSE(s.csrf_ok(a.sid, ""));
  EXPECT_FALSE(s.csrf_ok(a.sid, flip_hex(ta, 3)));
  EXPECT_FALSE(s.csrf_ok(a.sid, ta.substr(0, 63)));
  EXPECT_NE(AdminSessions(key_of(8), kTtl).csrf_token(a.sid), ta);  // keyed
}

TEST(admin_sessions, a_lifetime_beyond_the_ttl_is_refused) {
  // Same key, a longer TTL (another panel sharing the key): its cookie is authentic but
  // lives longer than this panel's sessions may.
  AdminSessions long_lived(key_of(7), kTtl * 10);
  const std::string cookie = long_lived.issue("admin", "hash-1", kNow);
  EXPECT_TRUE(long_lived.verify(cookie, "admin", "hash-1", kNow));
  AdminSessions s(key_of(7), kTtl);
  EXPECT_FALSE(s.verify(cookie, "admin", "hash-1", kNow));
  // Once the remaining lifetime is within our TTL it is accepted.
  EXPECT_TRUE(s.verify(cookie, "admin", "hash-1", kNow + kTtl * 9));
}

}  // namespace
}  // namespace qeli::panel
