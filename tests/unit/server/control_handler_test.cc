// The control socket's commands against real parts (users, guard; no profile is
// running, so nothing is kicked): list-blocked / unblock / unblock-all, disable-user /
// enable-user, and the refusals a malformed request gets.
#include "server/control_handler.h"

#include "../config/temp_dir.h"
#include "control/api_json.h"

#include <gtest/gtest.h>

namespace qeli::server {
namespace {

// A lockout key for an IPv4 address (host order).
SourceKey v4key(std::uint32_t ip) { return source_key(transport::SockAddr::ipv4(ip, 0)); }

using json = nlohmann::json;

struct Fixture {
  Fixture()
      : users(make_users()),
        guard({true, 2, std::chrono::seconds(300), std::chrono::seconds(900), 20, true}) {}
  static UserSnapshot make_users() {
    UserSnapshot s;
    config::UserConfig alice;
    alice.name = "alice";
    config::UserConfig off;
    off.name = "off";
    off.enabled = false;
    s.users = {alice, off};
    return s;
  }
  // The request as the socket would deliver it: decoded, handled, encoded.
  json call(const json& req) {
    auto r = control::decode_request(req);
    if (!r.ok()) return control::encode_error(r.error());
    ControlHandler h(
        ControlTargets{
            .profiles = &profiles, .users = &users, .guard = &guard, .accounts = &accounts},
        [this] { return now; });
    auto a = h.handle(*r, control::Caller{0, 0, 0, control::kAllPermissions});
    return a.ok() ? control::encode_reply(*a) : control::encode_error(a.error());
  }

  std::vector<std::unique_ptr<ProfileRuntime>> profiles;
  UserDirectory users;
  AuthGuard guard;
  TrafficAccounts accounts{nullptr, make_users()};
  Instant now{std::chrono::seconds(1000)};
};

TEST(ControlHandler, SetBandwidthUsageAndResetUsage) {
  Fixture f;
  json r = f.call({{"cmd", "set-bandwidth"}, {"username", "alice"}, {"mbps", 5}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(f.accounts.account("alice")->rate(), 625'000U);
  (void)f.accounts.account("alice")->on_send(1234, f.now);
  r = f.call({{"cmd", "usage"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  bool seen = false;
  for (const auto& u : r["users"]) {
    if (u["username"] != "alice") continue;
    seen = true;
    EXPECT_EQ(u["down_bytes"], 1234);
    EXPECT_EQ(u["limit_mbps"], 5.0);
    EXPECT_TRUE(u["limit_live"].get<bool>());
  }
  EXPECT_TRUE(seen);
  EXPECT_TRUE(f.call({{"cmd", "reset-usage"}, {"username", "alice"}})["ok"].get<bool>());
  EXPECT_EQ(f.accounts.account("alice")->down_total(), 0U);
  r = f.call({{"cmd", "set-bandwidth"}, {"username", "nobody"}, {"mbps", 5}});
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["code"], "not_found");
  EXPECT_FALSE(f.call({{"cmd", "reset-usage"}, {"username", "nobody"}})["ok"].get<bool>());
}

TEST(ControlHandler, ListBlockedShowsAddressesAndTimeLeft) {
  Fixture f;
  EXPECT_EQ(f.call({{"cmd", "list-blocked"}})["blocked"].size(), 0U);
  f.guard.record_failure(v4key(0xc0a80105), "bob", f.now - std::chrono::seconds(10));
  f.guard.record_failure(v4key(0xc0a80105), "bob", f.now - std::chrono::seconds(10));
  const json r = f.call({{"cmd", "list-blocked"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  ASSERT_EQ(r["blocked"].size(), 1U);
  EXPECT_EQ(r["blocked"][0]["ip"], "192.168.1.5");
  EXPECT_EQ(r["blocked"][0]["seconds_left"], 890);
  EXPECT_EQ(r["blocked"][0]["failures"], 2);
  EXPECT_EQ(r["blocked_ips"], 1);
}

TEST(ControlHandler, UnblockOneOrAll) {
  Fixture f;
  for (std::uint32_t ip : {0x0a000001U, 0x0a000001U, 0x0a000002U, 0x0a000002U}) {
    f.guard.record_failure(v4key(ip), "bob", f.now);
  }
  EXPECT_FALSE(f.call({{"cmd", "unblock"}, {"ip", "10.0.0.9"}})["ok"].get<bool>());
  EXPECT_FALSE(f.call({{"cmd", "unblock"}, {"ip", "not-an-ip"}})["ok"].get<bool>());
  EXPECT_FALSE(f.call({{"cmd", "unblock"}})["ok"].get<bool>());
  json r = f.call({{"cmd", "unblock"}, {"ip", "999.1.1.1"}});
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"], "999.1.1.1 is not an IPv4 address, an IPv6 address or an IPv6 /64");
  // JSON "\u0000" after the address: refused (it used to pass and lift the lockout), and
  // the NUL is shown quoted, never raw.
  r = f.call(json::parse(R"({"cmd":"unblock","ip":"10.0.0.1\u0000"})"));
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"],
            R"("10.0.0.1\u0000" is not an IPv4 address, an IPv6 address or an IPv6 /64)");
  EXPECT_FALSE(f.call({{"cmd", "unblock"}, {"ip", "10.0.0.1 x"}})["ok"].get<bool>());
  EXPECT_TRUE(f.guard.locked_out(v4key(0x0a000001), f.now));
  EXPECT_TRUE(f.call({{"cmd", "unblock"}, {"ip", "10.0.0.1"}})["ok"].get<bool>());
  EXPECT_FALSE(f.guard.locked_out(v4key(0x0a000001), f.now));
  EXPECT_TRUE(f.guard.locked_out(v4key(0x0a000002), f.now));
  EXPECT_TRUE(f.call({{"cmd", "unblock-all"}})["ok"].get<bool>());
  EXPECT_FALSE(f.guard.locked_out(v4key(0x0a000002), f.now));
}

// An IPv6 source is locked as its /64; list-blocked shows the prefix, and unblock takes any
// address inside it (also bracketed, as list-clients prints peers) and names the prefix.
TEST(ControlHandler, Ipv6LockoutsAreSlash64s) {
  Fixture f;
  const SourceKey k = source_key(*transport::SockAddr::parse_ip("2001:db8:1:2::7", 5000));
  for (int i = 0; i < 2; ++i) f.guard.record_failure(k, "bob", f.now);
  json r = f.call({{"cmd", "list-blocked"}});
  ASSERT_FALSE(r["blocked"].empty()) << r.dump();
  EXPECT_EQ(r["blocked"][0]["ip"], "2001:db8:1:2::/64");
  r = f.call({{"cmd", "unblock"}, {"ip", "[2001:db8:1:2:ffff::1]"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["ip"], "2001:db8:1:2::/64");
  EXPECT_FALSE(f.guard.locked_out(k, f.now));
}

TEST(ControlHandler, DisableAndEnableUser) {
  Fixture f;
  EXPECT_FALSE(f.call({{"cmd", "disable-user"}, {"username", "nobody"}})["ok"].get<bool>());
  json r = f.call({{"cmd", "disable-user"}, {"username", "alice"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_EQ(r["kicked"], 0);
  EXPECT_FALSE(r["was_disabled"].get<bool>());
  EXPECT_TRUE(f.users.disabled("alice"));
  EXPECT_TRUE(f.call({{"cmd", "disable-user"}, {"username", "alice"}})["was_disabled"].get<bool>());
  // It survives a reload of the users.
  f.users.replace(Fixture::make_users());
  EXPECT_TRUE(f.users.disabled("alice"));
  r = f.call({{"cmd", "enable-user"}, {"username", "alice"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_TRUE(r["was_disabled"].get<bool>());
  EXPECT_EQ(r["warning"], "");
  EXPECT_FALSE(f.users.disabled("alice"));
  // The config still disables "off": enable-user says so.
  r = f.call({{"cmd", "enable-user"}, {"username", "off"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_NE(r["warning"], "");
  // A known user who was not disabled: fine; an unknown one: refused like disable-user.
  r = f.call({{"cmd", "enable-user"}, {"username", "alice"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_FALSE(r["was_disabled"].get<bool>());
  r = f.call({{"cmd", "enable-user"}, {"username", "nobody"}});
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"], "no user 'nobody'");
}

TEST(ControlHandler, MalformedRequestsAreRefusedWithAReason) {
  Fixture f;
  for (const json& req :
       {json::array(), json{{"nocmd", 1}}, json{{"cmd", 7}}, json{{"cmd", "kick"}},
        json{{"cmd", "kick"}, {"username", 3}}, json{{"cmd", "enable-user"}, {"username", ""}},
        json{{"cmd", "no-such-command"}}}) {
    const json r = f.call(req);
    EXPECT_FALSE(r["ok"].get<bool>()) << req.dump();
    EXPECT_TRUE(r["error"].is_string()) << req.dump();
  }
  // A known user without a live session: nothing to kick, not an error.
  json r = f.call({{"cmd", "kick"}, {"username", "alice"}});
  EXPECT_TRUE(r["ok"].get<bool>());
  EXPECT_EQ(r["kicked"], 0);
  r = f.call({{"cmd", "kick"}, {"username", "nobody"}});
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"], "no user 'nobody'");
}

// A config saved through the control API is reloaded; when the reload refuses (the
// server keeps its running config), the answer says saved, not reloaded, and why.
TEST(ControlHandler, SaveConfigSaysWhetherTheReloadHappenedAndWhyNot) {
  test::TempDir dir;
  const std::string path = dir.write(
      "server.conf", "[auth]\nusers_file = users.conf\n[profile:main]\nbind.port = 4433\n");
  dir.write("users.conf", "");
  ConfigStore store(path);
  control::ValidationResult reload_answer{true, {}, 0};
  int reloads = 0;
  ControlHandler h(ControlTargets{.config = &store, .reload = [&] {
                                    ++reloads;
                                    return reload_answer;
                                  }});
  const control::Caller root{0, 0, 0, control::kAllPermissions};
  auto save = [&](const std::string& port) {
    auto text = store.read();
    EXPECT_TRUE(text.ok());
    const std::string edited =
        "[auth]\nusers_file = users.conf\n[profile:main]\nbind.port = " + port + "\n";
    auto r = h.handle(control::SaveConfig{edited, text->sha256, "panel:boss"}, root);
    EXPECT_TRUE(r.ok());
    return std::get<control::ConfigSaved>(*r);
  };
  auto saved = save("4434");
  EXPECT_EQ(reloads, 1);
  EXPECT_TRUE(saved.reloaded);
  EXPECT_FALSE(saved.history_id.empty());
  EXPECT_EQ(saved.reload_error, "");
  // The reload refuses (say the users file it names has an error): saved, not reloaded.
  const control::ConfigFinding warning{
      "warning", "server.conf", "", "", 1, "w", "server.conf:1: a warning"};
  const control::ConfigFinding error{
      "error", "users.conf", "user:x", "", 3, "bad line", "users.conf:3: [user:x] bad line"};
  reload_answer = {false, {warning, error}, 0};
  saved = save("4435");
  EXPECT_EQ(reloads, 2);
  EXPECT_FALSE(saved.reloaded);
  EXPECT_EQ(saved.reload_error, "users.conf:3: [user:x] bad line");
  // The same text again: nothing saved, nothing to reload, no error.
  saved = save("4435");
  EXPECT_EQ(reloads, 2);
  EXPECT_TRUE(saved.history_id.empty());
  EXPECT_EQ(saved.reload_error, "");
  // The field crosses the JSON API.
  const json j = control::encode_reply(control::Response{
      control::ConfigSaved{"s", "v", false, {}, "users.conf:3: [user:x] bad line"}});
  EXPECT_EQ(j.at("reload_error"), "users.conf:3: [user:x] bad line");
}

}  // namespace
}  // namespace qeli::server
