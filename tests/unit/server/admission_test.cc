// Admission: every way a login is refused, the order of the gates (a lockout before any
// Argon2id, the quota after the credentials), device credentials, and what an admitted
// session carries. Real Argon2id, AuthGuard, UserDirectory, SessionTable, EventLog.
#include "server/admission.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "config/device_credential.h"
#include "crypto/argon2id.h"
#include "crypto/random.h"

namespace qeli::server {
namespace {

constexpr std::uint32_t kNet = 0x0a4d0000;  // 10.77.0.0/24, server 10.77.0.1

config::UserConfig user(std::string name, const std::string& password) {
  config::UserConfig u;
  u.name = std::move(name);
  u.password_hash = crypto::argon2id_hash(password).value();
  return u;
}

config::ProfileConfig named_profile() {
  config::ProfileConfig p;
  p.name = "p1";
  return p;
}

struct Fixture {
  explicit Fixture(std::vector<config::UserConfig> us, std::size_t max_clients = 0)
      : profile(named_profile()),
        guard(policy()),
        users(UserSnapshot{std::move(us), {}}),
        sessions(IpPool(kNet, 24, kNet + 1), max_clients,
                 engine::SessionInbox::Geometry{8, 1500, 0, 0}),
        events(profile.name, guard, users) {
    events.set_log(&log);
  }
  static BruteForcePolicy policy() {
    BruteForcePolicy p;
    p.max_attempts = 3;
    p.address_max_attempts = 10;
    return p;
  }
  Admission admission(bool key_proof = false, TrafficAccounts* accounts = nullptr) {
    return Admission(
        {&profile, key_proof, &guard, &users, &sessions, accounts, &events, &counters});
  }
  AuthContext login(const std::string& name, const std::string& password,
                    std::uint32_t from = 0xc0000201) {
    AuthContext ctx;
    ctx.req.user = name;
    ctx.req.password = password;
    ctx.req.key_proof_ok = true;
    ctx.peer = transport::SockAddr::ipv4(from, 40000);
    return ctx;
  }
  std::vector<std::string> event_types() const {
    std::vector<std::string> out;
    for (const auto& e : log.since(0, 100).events) out.push_back(e.type);
    return out;
  }

  config::ProfileConfig profile;
  AuthGuard guard;
  UserDirectory users;
  SessionTable sessions;
  EventLog log;
  ProfileEvents events;
  ProfileCounters counters;
};

TEST(Admission, RightPasswordGetsASessionFromThePool) {
  Fixture f({user("alice", "pw")});
  auto a = f.admission();
  auto ctx = f.login("alice", "pw");
  ASSERT_TRUE(a.admit(ctx)) << ctx.reason;
  ASSERT_NE(ctx.session, nullptr);
  EXPECT_EQ(ctx.session->user, "alice");
  EXPECT_EQ(ctx.session->tunnel_ip >> 8, kNet >> 8);
  EXPECT_NE(ctx.session->tunnel_ip, kNet + 1);  // never the server's own address
  ASSERT_NE(ctx.user, nullptr);
  EXPECT_EQ(ctx.user->name, "alice");
  EXPECT_TRUE(ctx.device.empty());
  EXPECT_EQ(f.sessions.size(), 1U);
}

TEST(Admission, EachRefusalSaysWhyAndAdmitsNothing) {
  config::UserConfig disabled = user("dora", "pw");
  disabled.enabled = false;
  config::UserConfig elsewhere = user("eve", "pw");
  elsewhere.profiles = {"other-profile"};
  config::UserConfig expired = user("old", "pw");
  expired.expire_at = 1;  // 1970
  Fixture f({user("alice", "pw"), disabled, elsewhere, expired});
  auto a = f.admission();
  const struct {
    const char* user;
    const char* password;
    const char* reason;
  } cases[] = {
      {"alice", "wrong", "wrong password"},
      {"nobody", "pw", "unknown user"},
      {"dora", "pw", "user disabled"},
      {"eve", "pw", "user not allowed on this profile"},
      {"old", "pw", "account expired"},
      {"alice", "qd1.0000abcd.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
       "unknown or revoked device 0000abcd"},
  };
  std::uint32_t from = 0xc0000210;
  for (const auto& c : cases) {
    auto ctx = f.login(c.user, c.password, from++);  // one address each: no lockout here
    EXPECT_FALSE(a.admit(ctx)) << c.user;
    EXPECT_EQ(ctx.reason, c.reason) << c.user;
    EXPECT_EQ(ctx.session, nullptr);
  }
  EXPECT_EQ(f.sessions.size(), 0U);
  const auto types = f.event_types();
  EXPECT_EQ(std::count(types.begin(), types.end(), "user.expired"), 1);
}

TEST(Admission, OperatorDisabledUserIsRefused) {
  Fixture f({user("alice", "pw")});
  f.users.disable("alice");
  auto a = f.admission();
  auto ctx = f.login("alice", "pw");
  EXPECT_FALSE(a.admit(ctx));
  EXPECT_EQ(ctx.reason, "user disabled by the operator (qeli enable-user)");
}

TEST(Admission, RepeatedFailuresLockThePairOutBeforeAnyPasswordCheck) {
  Fixture f({user("alice", "pw")});
  auto a = f.admission();
  for (int i = 0; i < 3; ++i) {
    auto ctx = f.login("alice", "wrong");
    EXPECT_FALSE(a.admit(ctx));
  }
  // Now even the right password is refused from that address, and cheaply.
  auto ctx = f.login("alice", "pw");
  EXPECT_FALSE(a.admit(ctx));
  // The lockout's reason (not "wrong password"): refused at gate 2, before the Argon2id.
  EXPECT_EQ(ctx.reason, "user locked out at this address after failed logins");
  EXPECT_EQ(f.counters.locked_out.load(), 1U);
  const auto types = f.event_types();
  EXPECT_EQ(std::count(types.begin(), types.end(), "auth.lockout"), 1);
  // Another address is not locked out.
  auto other = f.login("alice", "pw", 0xc0000299);
  EXPECT_TRUE(a.admit(other)) << other.reason;
}

TEST(Admission, MissingClientKeyProofIsRefusedWhenRequired) {
  Fixture f({user("alice", "pw")});
  auto a = f.admission(/*key_proof=*/true);
  auto ctx = f.login("alice", "pw");
  ctx.req.key_proof_ok = false;
  EXPECT_FALSE(a.admit(ctx));
  EXPECT_EQ(ctx.reason, "client key proof missing or invalid");
  auto good = f.login("alice", "pw");
  EXPECT_TRUE(f.admission(true).admit(good)) << good.reason;
}

TEST(Admission, DeviceCredentialLogsInAsThatDeviceAndNotWithTheUsersPassword) {
  crypto::Rng& rng = crypto::system_rng();
  const std::string id = config::new_device_id(rng);
  const std::string secret = config::new_device_secret(id, rng);
  config::UserConfig alice = user("alice", "pw");
  alice.devices.push_back({id, "phone", crypto::argon2id_hash(secret).value()});
  Fixture f({alice});
  auto a = f.admission();
  auto ctx = f.login("alice", secret);
  ASSERT_TRUE(a.admit(ctx)) << ctx.reason;
  EXPECT_EQ(ctx.device, id);
  EXPECT_EQ(ctx.session->credential(), id);
  // The credential of one user does not open another's account.
  Fixture g({user("bob", "pw")});
  auto b = g.admission();
  auto stolen = g.login("bob", secret);
  EXPECT_FALSE(b.admit(stolen));
  EXPECT_EQ(stolen.reason, "unknown or revoked device " + id);
}

TEST(Admission, StaticIpAndTheGroupsMaxSessions) {
  config::UserConfig alice = user("alice", "pw");
  alice.static_ip = config::Ipv4Addr::parse("10.77.0.42").value();
  config::UserConfig bob = user("bob", "pw");
  bob.group = "family";
  config::GroupConfig family;
  family.name = "family";
  family.max_sessions = 1;
  Fixture f({alice, bob});
  f.users.replace(UserSnapshot{{alice, bob}, {family}});
  auto a = f.admission();
  auto ctx = f.login("alice", "pw");
  ASSERT_TRUE(a.admit(ctx)) << ctx.reason;
  EXPECT_EQ(ctx.session->tunnel_ip, kNet + 42);
  auto first = f.login("bob", "pw");
  first.req.device_id = handshake::DeviceId{};
  (*first.req.device_id)[0] = 1;
  ASSERT_TRUE(a.admit(first)) << first.reason;
  auto second = f.login("bob", "pw");
  second.req.device_id = handshake::DeviceId{};
  (*second.req.device_id)[0] = 2;
  // The group's max_sessions = 1: the newer device wins, the older session is evicted.
  ASSERT_TRUE(a.admit(second)) << second.reason;
  EXPECT_TRUE(first.session->stop.stopped());
  EXPECT_EQ(first.session->close_reason(), wire::CloseReason::kEvicted);
  EXPECT_FALSE(second.session->stop.stopped());
}

}  // namespace
}  // namespace qeli::server
