// UserAdmin (the control API's add-user, remove-user, edit-user, add-device, revoke-device)
// against a
// real config and users file: what lands in the file, what the answer carries (the
// credential, a link that pins the running profile's key), the reload after each change,
// and each refusal with its error code — with the file untouched.
#include "server/user_admin.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../config/temp_dir.h"
#include "base/bytes.h"
#include "config/link.h"
#include "crypto/argon2id.h"
#include "crypto/x25519.h"

namespace qeli::server {
namespace {

using control::ErrorCode;

constexpr char kConfig[] =
    "[auth]\n"
    "users_file = users.conf\n"
    "[profile:main]\n"
    "bind.port = 4433\n"
    "obf.mode = plain\n"
    "[profile:spare]\n"
    "bind.port = 4434\n"
    "obf.mode = plain\n"
    "tun.name = vpn1\n"
    "tun.address = 10.10.0.1\n"
    "pool.cidr = 10.10.0.0/24\n"
    "[user:inline]\n"
    "password_hash = $argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$"
    "ZmFrZWhhc2hmYWtlaGFzaGZha2VoYXNoZmFrZWg\n";

struct Fixture {
  Fixture() {
    path = dir.write("server.conf", kConfig);
    users_path = dir.write("users.conf", "# users\n");
    auto load = config::load_server_config(path);
    for (const auto& x : load.findings.all()) {
      if (x.severity == config::Severity::kError) ADD_FAILURE() << x.to_string();
    }
    EXPECT_TRUE(load.ok());
    crypto::DeterministicRng key_rng(7);
    auto kp = crypto::x25519_generate(key_rng);
    key_hex = to_hex(kp.public_key);
    // Only "main" runs ("spare" stands for a profile added since the start).
    profiles.push_back(std::make_unique<ProfileRuntime>(
        *load.config.find_profile("main"), load.config.auth, std::move(kp), users, guard));
  }
  std::string users_text() const {
    std::ifstream f(users_path);
    return {std::istreambuf_iterator<char>(f), {}};
  }
  UserAdmin admin() {
    return UserAdmin(
        path, &profiles,
        [this] {
          ++reloads;
          return control::ValidationResult{true, {}, 3};
        },
        rng);
  }
  test::TempDir dir;
  std::string path, users_path, key_hex;
  UserDirectory users{UserSnapshot{}};
  AuthGuard guard{BruteForcePolicy{}};
  std::vector<std::unique_ptr<ProfileRuntime>> profiles;
  crypto::DeterministicRng rng{42};
  int reloads = 0;
};

TEST(UserAdmin, AddUserWritesAHashNobodyKnowsAndReloads) {
  Fixture f;
  auto a = f.admin();
  auto r = a.add_user({"carol", {"main"}, 2, "panel:boss"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->users_file, f.users_path);
  EXPECT_TRUE(r->reloaded);
  EXPECT_EQ(f.reloads, 1);
  const std::string text = f.users_text();
  EXPECT_NE(text.find("[user:carol]"), std::string::npos) << text;
  EXPECT_NE(text.find("password_hash = $argon2id$"), std::string::npos);
  EXPECT_NE(text.find("max_sessions = 2"), std::string::npos);
  EXPECT_EQ(text.rfind("# users\n", 0), 0U);  // what was there stays
  // Refusals: each with its code, the file and the reload count unchanged.
  const auto code = [&](const control::AddUser& u) { return a.add_user(u).error().code; };
  EXPECT_EQ(code({"carol", {}, 0, ""}), ErrorCode::kConflict);
  EXPECT_EQ(code({"inline", {}, 0, ""}), ErrorCode::kConflict);
  EXPECT_EQ(code({"bad name", {}, 0, ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"", {}, 0, ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"dave", {"nope"}, 0, ""}), ErrorCode::kInvalid);
  EXPECT_EQ(f.users_text(), text);
  EXPECT_EQ(f.reloads, 1);
}

TEST(UserAdmin, AddDeviceAnswersTheCredentialAndALinkPinningTheRunningKey) {
  Fixture f;
  auto a = f.admin();
  ASSERT_TRUE(a.add_user({"carol", {}, 0, ""}).ok());
  auto d = a.add_device({"carol", "laptop", "vpn.example.com:443", "main", "panel:boss"});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->name, "laptop");
  EXPECT_EQ(d->id.size(), 8U);
  EXPECT_EQ(d->credential.rfind("qd1." + d->id + ".", 0), 0U);
  EXPECT_EQ(d->profile, "main");
  const auto link = config::parse_link(d->link);
  ASSERT_TRUE(link.ok()) << d->link;
  EXPECT_EQ(link->user, "carol");
  EXPECT_EQ(link->pass, d->credential);
  EXPECT_EQ(link->host, "vpn.example.com");
  EXPECT_EQ(link->port, 443);
  EXPECT_EQ(link->server_key, f.key_hex);
  // The file keeps only the hash, and it verifies the credential.
  const std::string text = f.users_text();
  EXPECT_EQ(text.find(d->credential), std::string::npos);
  const std::string line = "device." + d->id + " = laptop ";
  const auto at = text.find(line);
  ASSERT_NE(at, std::string::npos) << text;
  const auto from = at + line.size();
  const std::string phc = text.substr(from, text.find('\n', from) - from);
  EXPECT_TRUE(crypto::argon2id_verify(phc, d->credential)) << phc;
  EXPECT_EQ(f.reloads, 2);

  // Without a host: the credential alone. A second device of the same name: kConflict.
  auto bare = a.add_device({"carol", "phone", "", "", ""});
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->link.empty());
  EXPECT_NE(bare->id, d->id);
  const auto code = [&](const control::AddDevice& r) { return a.add_device(r).error().code; };
  EXPECT_EQ(code({"carol", "laptop", "", "", ""}), ErrorCode::kConflict);
  EXPECT_EQ(code({"carol", "a b", "", "", ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"nobody", "x", "", "", ""}), ErrorCode::kNotFound);
  EXPECT_EQ(code({"inline", "x", "", "", ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"carol", "x", "bad host!", "", ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"carol", "x", "vpn.example.com", "spare", ""}), ErrorCode::kInvalid);
  EXPECT_EQ(code({"carol", "x", "", "main", ""}), ErrorCode::kBadRequest);
  EXPECT_EQ(f.reloads, 3);
}

TEST(UserAdmin, RevokeAndRemoveEditTheFileAndReportTheReload) {
  Fixture f;
  auto a = f.admin();
  ASSERT_TRUE(a.add_user({"carol", {}, 0, ""}).ok());
  auto d1 = a.add_device({"carol", "laptop", "", "", ""});
  auto d2 = a.add_device({"carol", "phone", "", "", ""});
  ASSERT_TRUE(d1.ok() && d2.ok());
  auto r = a.revoke_device({"carol", d1->id, ""});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->sessions_ended, 3U);  // what the reload reported
  std::string text = f.users_text();
  EXPECT_EQ(text.find("device." + d1->id), std::string::npos);
  EXPECT_NE(text.find("device." + d2->id), std::string::npos);  // the other one stays
  EXPECT_EQ(a.revoke_device({"carol", d1->id, ""}).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(a.remove_user({"inline", ""}).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(a.remove_user({"nobody", ""}).error().code, ErrorCode::kNotFound);
  ASSERT_TRUE(a.remove_user({"carol", ""}).ok());
  text = f.users_text();
  EXPECT_EQ(text.find("carol"), std::string::npos) << text;
}

// edit-user: what the loader then reads is what was asked; what it refuses is refused
// with its own words, the file and the reload count unchanged.
TEST(UserAdmin, EditUserSetsWhatStartUpReadsBack) {
  Fixture f;
  auto a = f.admin();
  ASSERT_TRUE(a.add_user({"carol", {}, 0, ""}).ok());
  const std::string hash_line = f.users_text().substr(f.users_text().find("password_hash"));
  control::EditUser e;
  e.username = "carol";
  e.actor = "panel:boss";
  e.max_sessions = 4;
  e.bandwidth_limit_mbps = 12.5;
  e.data_limit_gb = 50;
  e.expire_at = 1'900'000'000;
  e.static_ip = "10.9.0.50";
  e.routes = {{"192.168.7.0/24", "172.16.0.0/12 metric=5"}};
  e.allowed_networks = {{"10.9.0.0/24", "192.168.7.0/24"}};
  e.profiles = {{"main"}};
  e.enabled = false;
  auto r = a.edit_user(e);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->users_file, f.users_path);
  EXPECT_EQ(f.reloads, 2);
  auto load = config::load_server_config(f.path);
  ASSERT_TRUE(load.ok());
  const auto* u = load.config.find_user("carol");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->max_sessions, 4U);
  EXPECT_EQ(u->bandwidth_limit_mbps, 12.5);
  EXPECT_EQ(u->data_limit_gb, 50);
  EXPECT_EQ(u->expire_at, 1'900'000'000U);
  EXPECT_EQ(u->static_ip->to_string(), "10.9.0.50");
  ASSERT_EQ(u->routes.size(), 2U);
  EXPECT_EQ(u->routes[1].to_string(), "172.16.0.0/12 metric=5");
  ASSERT_EQ(u->allowed_networks.size(), 2U);
  EXPECT_EQ(u->allowed_networks[1].to_string(), "192.168.7.0/24");
  EXPECT_EQ(u->profiles, std::vector<std::string>{"main"});
  EXPECT_FALSE(u->enabled);
  EXPECT_NE(f.users_text().find(hash_line), std::string::npos);  // the password stays

  // Defaults clear: the keys go, and the loader reads the defaults again.
  control::EditUser clear;
  clear.username = "carol";
  clear.expire_at = 0;
  clear.static_ip = "";
  clear.routes = std::vector<std::string>{};
  clear.bandwidth_limit_mbps = 0;
  clear.enabled = true;
  ASSERT_TRUE(a.edit_user(clear).ok());
  const std::string text = f.users_text();
  for (const char* gone : {"expire_at", "static_ip", "route", "bandwidth", "enabled"}) {
    EXPECT_EQ(text.find(gone), std::string::npos) << gone << " in\n" << text;
  }
  EXPECT_NE(text.find("max_sessions = 4"), std::string::npos) << text;  // not asked: kept
  load = config::load_server_config(f.path);
  ASSERT_TRUE(load.ok());
  EXPECT_FALSE(load.config.find_user("carol")->expire_at.has_value());
  EXPECT_TRUE(load.config.find_user("carol")->enabled);
}

TEST(UserAdmin, EditUserRefusesWhatStartUpWouldRefuseAndWritesNothing) {
  Fixture f;
  auto a = f.admin();
  ASSERT_TRUE(a.add_user({"carol", {}, 3, ""}).ok());
  const std::string before = f.users_text();
  const auto refused = [&](auto set) {
    control::EditUser e;
    e.username = "carol";
    set(e);
    return a.edit_user(e);
  };
  // Outside both of carol's pools (10.9.0.0/24 and 10.10.0.0/24).
  auto r = refused([](auto& e) { e.static_ip = "10.99.0.5"; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find(f.users_path), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("10.99.0.5 is not a free host of any of the user's pools"),
            std::string::npos)
      << r.error().message;
  r = refused([](auto& e) { e.routes = {{"10.0.0.0/33"}}; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("route"), std::string::npos) << r.error().message;
  r = refused([](auto& e) { e.allowed_networks = {{"10.0.0.0/8", "not-a-net"}}; });
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  r = refused([](auto& e) { e.max_sessions = 1'000'001; });  // the loader's range: 0..1000000
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  r = refused([](auto& e) { e.group = "nogroup"; });
  EXPECT_NE(r.error().message.find("no [group:nogroup] section"), std::string::npos)
      << r.error().message;
  r = refused([](auto& e) { e.profiles = {{"nope"}}; });
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  r = refused([](auto& e) { e.bandwidth_limit_mbps = -1; });
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  r = refused([](auto& e) { e.group = "staff\n[user:eve]"; });
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(f.users_text(), before);
  EXPECT_EQ(f.reloads, 1);

  control::EditUser e;
  e.max_sessions = 1;
  e.username = "inline";
  EXPECT_EQ(a.edit_user(e).error().code, ErrorCode::kInvalid);
  e.username = "nobody";
  EXPECT_EQ(a.edit_user(e).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(f.users_text(), before);
  EXPECT_EQ(f.reloads, 1);
}

TEST(UserAdmin, AConfigWithErrorsRefusesEveryChange) {
  Fixture f;
  f.dir.write("server.conf", std::string(kConfig) + "[profile:main]\n");  // a duplicate
  auto a = f.admin();
  const auto r = a.add_user({"carol", {}, 0, ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("fix it first"), std::string::npos) << r.error().message;
  EXPECT_EQ(f.users_text(), "# users\n");
  EXPECT_EQ(f.reloads, 0);
}

}  // namespace
}  // namespace qeli::server
