// The qeli command, run in-process on temporary directories (no root needed):
// version, check-config, show-identity, rotate-identity, add-client (+ link + QR), help.
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/link.h"
#include "config/server_config.h"
#include "config/users_file.h"
#include "crypto/argon2id.h"
#include "crypto/random.h"
#include "temp_dir.h"

namespace qeli::cli {
namespace {

struct Run {
  int rc;
  std::string out;
  std::string err;
};

// The text after `marker` in `s` up to the next whitespace ("" if absent). Plain string
// search rather than std::regex, which trips a GCC 12 -Wmaybe-uninitialized false
// positive in sanitizer builds.
std::string word_after(const std::string& s, const std::string& marker, std::size_t from = 0) {
  const auto at = s.find(marker, from);
  if (at == std::string::npos) return "";
  const auto start = at + marker.size();
  const auto end = s.find_first_of(" \t\r\n", start);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string find_link(const std::string& out) {
  const std::string rest = word_after(out, "qeli://");
  return rest.empty() ? "" : "qeli://" + rest;
}

Run run(std::vector<std::string> args, const std::string& stdin_text = "") {
  std::ostringstream out, err;
  std::istringstream in(stdin_text);
  Context ctx{out, err, in, crypto::system_rng()};
  const int rc = run_cli(args, ctx);
  return {rc, out.str(), err.str()};
}

// A server config with two profiles in a temporary directory, users in users.conf.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    conf_ =
        tmp_.write("server.conf",
                   "[auth]\nusers_file = users.conf\n"
                   "[profile:main]\nbind.port = 443\ntun.name = q0\n"
                   "obf.tls.server_name = www.example.org\n"
                   "[profile:udp]\nbind.transport = udp\nbind.port = 4443\ntun.name = q1\n"
                   "pool.cidr = 10.10.0.0/24\ntun.address = 10.10.0.1\nobf.quic.enabled = true\n"
                   "obf.awg.enabled = true\nobf.awg.jc = 3\n");
    tmp_.write("users.conf", "");
    ids_ = tmp_.file("identity");
  }
  std::vector<std::string> with_conf(std::vector<std::string> args) {
    args.insert(args.end(), {"-c", conf_, "--identity-dir", ids_});
    return args;
  }
  std::string public_key(const std::string& profile) {
    const auto r = run(with_conf({"show-identity"}));
    const auto section = r.out.find("[profile:" + profile + "]");
    EXPECT_NE(section, std::string::npos) << r.out << r.err;
    const std::string key = word_after(r.out, "public key: ", section);
    EXPECT_EQ(key.size(), 64U) << r.out;
    EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;
    return key;
  }

  test::TempDir tmp_;
  std::string conf_, ids_;
};

TEST(cli, version) {
  const auto r = run({"version"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_TRUE(r.out.starts_with("qeli " QELI_TEST_VERSION)) << r.out;
}

TEST(cli, version_flag_and_build_details) {
  for (const char* flag : {"--version", "-V"}) {
    const auto r = run({flag});
    EXPECT_EQ(r.rc, 0);
    EXPECT_TRUE(r.out.starts_with("qeli " QELI_TEST_VERSION " (")) << r.out;
    EXPECT_NE(r.out.find("protocol: qeli 0.7.16"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("build: "), std::string::npos) << r.out;
  }
  const auto j = run({"version", "--json"});
  EXPECT_EQ(j.rc, 0);
  EXPECT_NE(j.out.find("\"git_revision\""), std::string::npos) << j.out;
  // Every extension this build negotiates is listed, the newest too.
  for (const char* ext :
       {"gso-super-packets", "aes-256-gcm", "udp-roaming", "ipv6-inside", "tcp-resume"}) {
    EXPECT_NE(j.out.find(ext), std::string::npos) << ext << ": " << j.out;
  }
}

TEST(cli, status_without_clients_says_so) {
  const auto r = run({"status", "--socket", "/nonexistent/qeli-status.sock"});
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.out.find("not running"), std::string::npos) << r.out;
}

TEST(cli, help_on_every_command) {
  for (const char* cmd :
       {"version", "check-config", "show-identity", "rotate-identity", "add-client"}) {
    SCOPED_TRACE(cmd);
    const auto r = run({cmd, "--help"});
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
  }
  const auto top = run({"--help"});
  EXPECT_EQ(top.rc, 0);
  EXPECT_NE(top.out.find("add-client"), std::string::npos);
}

// The trial: `qeli help` and a mistyped command answered "A subcommand is required".
TEST(cli, help_command_and_did_you_mean) {
  const auto help = run({"help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("add-client"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("show-identity"), std::string::npos) << help.out;
  const auto one = run({"help", "client"});
  EXPECT_EQ(one.rc, 0);
  EXPECT_NE(one.out.find("--cleanup"), std::string::npos) << one.out;
  const auto typo = run({"sever", "-c", "x.conf"});
  EXPECT_EQ(typo.rc, kExitUsage);
  EXPECT_NE(typo.err.find("'sever' is not a qeli command. Did you mean 'server'?"),
            std::string::npos)
      << typo.err;
  EXPECT_EQ(typo.err.find("A subcommand is required"), std::string::npos);
  const auto far = run({"frobnicate"});
  EXPECT_EQ(far.rc, kExitUsage);
  EXPECT_NE(far.err.find("check-config"), std::string::npos) << "lists the commands: " << far.err;
  const auto none = run({});
  EXPECT_EQ(none.rc, kExitUsage);
  EXPECT_NE(none.err.find("add-client"), std::string::npos) << none.err;
  EXPECT_EQ(run({"help", "clinet"}).rc, kExitUsage);
  EXPECT_NE(run({"help", "clinet"}).err.find("did you mean 'client'?"), std::string::npos);
}

TEST(cli, usage_errors_exit_2) {
  EXPECT_EQ(run({}).rc, kExitUsage);
  EXPECT_EQ(run({"no-such-command"}).rc, kExitUsage);
  EXPECT_EQ(run({"check-config", "a.conf", "-c", "b.conf"}).rc, kExitUsage);
  EXPECT_EQ(run({"add-client", "bob", "--host", "h"}).rc, kExitUsage);  // --host needs --link
  EXPECT_EQ(run({"add-client", "bob", "-p", "x", "--password-stdin"}).rc, kExitUsage);
}

// 0.7.16's update check: refused in words and exit 1, the version still printed.
TEST(cli, version_check_says_it_does_not_call_out) {
  const auto r = run({"version", "--check"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("qeli "), std::string::npos);
  EXPECT_NE(r.err.find("does not contact the network"), std::string::npos) << r.err;
}

// No file: the default config, as 0.7.16 checks it (whatever this host has there).
TEST(cli, check_config_defaults_to_the_installed_config) {
  EXPECT_NE(run({"check-config"}).out.find("/etc/qeli/server.conf: "), std::string::npos);
  EXPECT_NE(run({"check-config", "--client"}).out.find("/etc/qeli/client.conf: "),
            std::string::npos);
}

TEST_F(CliTest, check_config_ok_and_broken) {
  auto r = run({"check-config", conf_});
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(": OK"), std::string::npos);
  r = run({"check-config", "-c", conf_});  // as `qeli server -c` takes it
  EXPECT_EQ(r.rc, 0) << r.out;

  const auto bad = tmp_.write("bad.conf", "[profile:p]\ntun.mtu = 99999\ntun.mtuu = 1\n");
  r = run({"check-config", bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find(bad + ":2: error: [profile:p] tun.mtu:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(bad + ":3: unknown key: [profile:p] tun.mtuu:"), std::string::npos);

  // Unknown keys alone also fail the check (a typo silently falling back to a default
  // is what check-config exists to catch).
  const auto typo = tmp_.write("typo.conf",
                               "[auth]\nusers_file = users.conf\n[profile:p]\n"
                               "tun.mtuu = 1\n");
  EXPECT_EQ(run({"check-config", typo}).rc, 1);

  const auto client = tmp_.write("c.conf", "[qeli]\nserver = h:1\n");
  EXPECT_EQ(run({"check-config", "--client", client}).rc, 0);
  const auto client_bad = tmp_.write("cb.conf", "[qeli]\nserver = h:1\nmtu = 10\n");
  r = run({"check-config", "--client", client_bad});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("[qeli] mtu:"), std::string::npos) << r.out;
  EXPECT_EQ(run({"check-config", tmp_.file("missing.conf")}).rc, 1);
}

TEST_F(CliTest, show_and_rotate_identity) {
  // With --identity-dir (which may be mistyped) show-identity only reads: before the
  // server (or rotate-identity) made a key, it says so and creates nothing.
  const auto none = run(with_conf({"show-identity"}));
  EXPECT_EQ(none.rc, 1);
  EXPECT_NE(none.out.find("none yet"), std::string::npos) << none.out;
  EXPECT_FALSE(std::filesystem::exists(ids_));
  ASSERT_EQ(run(with_conf({"rotate-identity", "main"})).rc, 0);
  ASSERT_EQ(run(with_conf({"rotate-identity", "udp"})).rc, 0);
  EXPECT_EQ(run(with_conf({"show-identity"})).out.find("created now"), std::string::npos);
  const std::string k1 = public_key("main");
  ASSERT_EQ(k1.size(), 64U);
  EXPECT_EQ(public_key("main"), k1);  // stable across runs
  EXPECT_NE(public_key("udp"), k1);
  EXPECT_TRUE(std::filesystem::exists(ids_ + "/main.key"));

  const auto r = run(with_conf({"rotate-identity", "main"}));
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string k2 = public_key("main");
  EXPECT_EQ(run(with_conf({"show-identity"})).rc, 0) << "every profile has a key now";
  EXPECT_NE(k2, k1);
  EXPECT_NE(r.out.find(k2), std::string::npos);
  EXPECT_EQ(run(with_conf({"rotate-identity", "ghost"})).rc, 1);
}

// The trial: without --identity-dir, show-identity made new keys in /etc/qeli/identity
// that the server did not use. Every command now takes the directory from the config
// (auth.identity_dir, relative to the config file), as the server does.
TEST_F(CliTest, identity_dir_comes_from_the_config) {
  const std::string conf = tmp_.write(
      "with_dir.conf",
      "[auth]\nusers_file = users.conf\nidentity_dir = keys\n"
      "[profile:main]\nbind.port = 443\ntun.name = q0\nobf.tls.server_name = www.example.org\n");
  const auto first = run({"show-identity", "-c", conf});
  EXPECT_EQ(first.rc, 0) << first.err;
  EXPECT_NE(first.out.find(tmp_.file("keys") + "/main.key (created now)"), std::string::npos)
      << first.out;
  EXPECT_TRUE(std::filesystem::exists(tmp_.file("keys") + "/main.key"));
  const auto made = run({"rotate-identity", "main", "-c", conf});
  ASSERT_EQ(made.rc, 0) << made.err;
  const auto shown = run({"show-identity", "-c", conf});
  EXPECT_EQ(shown.rc, 0) << shown.err;
  EXPECT_NE(made.out.find(word_after(shown.out, "public key: ")), std::string::npos);
  // --identity-dir still wins, read-only: nothing there yet, nothing made.
  EXPECT_EQ(run({"show-identity", "-c", conf, "--identity-dir", ids_}).rc, 1);
  EXPECT_FALSE(std::filesystem::exists(ids_));
  // A disabled profile's key is not made either (the server does not start it).
  const std::string off =
      tmp_.write("disabled.conf",
                 "[auth]\nusers_file = users.conf\nidentity_dir = keys2\n"
                 "[profile:main]\nenabled = false\nbind.port = 443\ntun.name = q0\n"
                 "obf.tls.server_name = www.example.org\n");
  EXPECT_EQ(run({"show-identity", "-c", off}).rc, 1);
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("keys2") + "/main.key"));
}

// share-link re-sends a working link without cutting the user off (0.7.16's meaning): a
// device credential, the password hash untouched; --reset gives a new password instead.
TEST_F(CliTest, share_link_issues_a_device_credential_unless_reset) {
  ASSERT_EQ(run(with_conf({"add-client", "erin", "-p", "erin-pass"})).rc, 0);
  ASSERT_EQ(run(with_conf({"rotate-identity", "main"})).rc, 0);  // the key the link pins
  const std::string users = tmp_.file("users.conf");
  const auto hash_of = [&] { return word_after(read_file(users), "password_hash = "); };
  const std::string hash = hash_of();
  ASSERT_FALSE(hash.empty());
  auto r = run(with_conf({"share-link", "erin", "--no-qr", "--socket", tmp_.file("none.sock")}));
  EXPECT_EQ(r.rc, kExitFailure);
  EXPECT_NE(r.err.find("no host for the link"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(users).find("link-1"), std::string::npos) << "refused: no device added";
  r = run(with_conf({"share-link", "erin", "--host", "vpn.example.com", "--profile", "main",
                     "--no-qr", "--socket", tmp_.file("none.sock")}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("keep working"), std::string::npos) << r.out;
  const std::string link = find_link(r.out);
  EXPECT_NE(link.find("qeli://erin:qd1."), std::string::npos) << link;
  EXPECT_EQ(hash_of(), hash) << "the password stays";
  EXPECT_NE(read_file(users).find("link-1"), std::string::npos) << read_file(users);
  r = run(with_conf({"share-link", "erin", "--host", "vpn.example.com", "--reset", "--no-qr",
                     "--socket", tmp_.file("none.sock")}));
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("stop working"), std::string::npos) << r.out;
  EXPECT_NE(hash_of(), hash) << "--reset: a new password";
}

TEST_F(CliTest, add_client_with_stdin_password_link_and_qr) {
  const auto r =
      run(with_conf({"add-client", "bob", "--password-stdin", "--profiles", "udp", "--static-ip",
                     "10.10.0.9", "--max-sessions", "2", "--link", "--host", "vpn.example.com"}),
          "s3cret pass\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.find("Password (shown once)"), std::string::npos);

  config::Findings f;
  const auto users = config::read_users_file(tmp_.file("users.conf"), f);
  ASSERT_EQ(users.size(), 1U);
  EXPECT_EQ(users[0].name, "bob");
  EXPECT_TRUE(crypto::argon2id_verify(users[0].password_hash, "s3cret pass"));
  EXPECT_FALSE(crypto::argon2id_verify(users[0].password_hash, "s3cret pass\n"));
  EXPECT_EQ(users[0].profiles, (std::vector<std::string>{"udp"}));
  EXPECT_EQ(users[0].static_ip->to_string(), "10.10.0.9");
  EXPECT_EQ(users[0].max_sessions, 2U);

  // The printed link round-trips and carries the profile's settings and pinned key.
  const std::string printed = find_link(r.out);
  ASSERT_FALSE(printed.empty()) << r.out;
  const auto link = config::parse_link(printed);
  ASSERT_TRUE(link.ok()) << link.error();
  EXPECT_EQ(link->user, "bob");
  EXPECT_EQ(link->pass, "s3cret pass");
  EXPECT_EQ(link->host, "vpn.example.com");
  EXPECT_EQ(link->port, 4443);
  EXPECT_EQ(link->proto, config::Transport::kUdp);
  EXPECT_EQ(link->mode, config::ClientMode::kFakeTls);
  EXPECT_TRUE(link->quic);
  EXPECT_TRUE(link->awg);
  EXPECT_EQ(link->jc, 3U);
  EXPECT_EQ(link->label, "bob@udp");
  EXPECT_EQ(link->server_key, public_key("udp"));
  EXPECT_TRUE(config::validate_link(*link).empty());
  EXPECT_EQ(config::emit_link(*link), printed);
  EXPECT_NE(r.out.find("\u2588"), std::string::npos);  // the QR code

  // The config with the new user still validates, and the same name is refused.
  EXPECT_EQ(run({"check-config", conf_}).rc, 0);
  const auto dup = run(with_conf({"add-client", "bob", "--password-stdin"}), "x\n");
  EXPECT_EQ(dup.rc, 1);
  EXPECT_NE(dup.err.find("already exists"), std::string::npos);
}

TEST_F(CliTest, add_client_creates_a_missing_users_file_0600_and_nothing_else_does) {
  std::filesystem::remove(tmp_.file("users.conf"));
  // Reading commands still refuse the config: only add-client creates the file.
  EXPECT_EQ(run({"check-config", conf_}).rc, 1);
  EXPECT_EQ(run(with_conf({"show-identity"})).rc, 1);
  EXPECT_FALSE(std::filesystem::exists(tmp_.file("users.conf")));

  const auto r = run(with_conf({"add-client", "dave", "--password-stdin"}), "pw\n");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("created the empty users file"), std::string::npos) << r.err;
  const auto perms = std::filesystem::status(tmp_.file("users.conf")).permissions();
  EXPECT_EQ(perms & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  config::Findings f;
  const auto users = config::read_users_file(tmp_.file("users.conf"), f);
  ASSERT_EQ(users.size(), 1U);
  EXPECT_EQ(users[0].name, "dave");
  EXPECT_EQ(run({"check-config", conf_}).rc, 0);
}

TEST_F(CliTest, add_client_generates_a_password_once) {
  const auto r = run(with_conf({"add-client", "carol", "--link", "--host", "1.2.3.4:8443",
                                "--no-qr", "--label", "Carol's phone"}));
  ASSERT_EQ(r.rc, 0) << r.err;
  const std::string password = word_after(r.out, "Password (shown once): ");
  EXPECT_EQ(password.size(), 20U);
  config::Findings f;
  const auto users = config::read_users_file(tmp_.file("users.conf"), f);
  ASSERT_EQ(users.size(), 1U);
  EXPECT_TRUE(crypto::argon2id_verify(users[0].password_hash, password));
  EXPECT_TRUE(users[0].profiles.empty());
  const auto link = config::parse_link(find_link(r.out));
  ASSERT_TRUE(link.ok());
  EXPECT_EQ(link->port, 8443);
  EXPECT_EQ(link->pass, password);
  EXPECT_EQ(link->label, "Carol's phone");
  EXPECT_EQ(link->sni, "www.example.org");
  EXPECT_EQ(r.out.find("\u2588"), std::string::npos);  // --no-qr
}

TEST_F(CliTest, add_client_links_an_ipv6_server) {
  const std::pair<const char*, const char*> rows[] = {{"[2001:db8::1]:8443", "erin"},
                                                      {"[2001:db8::1]", "frank"}};
  for (const auto& [host, user] : rows) {
    SCOPED_TRACE(host);
    const auto r = run(with_conf({"add-client", user, "--link", "--host", host, "--no-qr"}));
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto link = config::parse_link(find_link(r.out));
    ASSERT_TRUE(link.ok());
    EXPECT_EQ(link->host, "2001:db8::1");
    EXPECT_NE(find_link(r.out).find("@[2001:db8::1]:"), std::string::npos) << find_link(r.out);
  }
}

TEST_F(CliTest, add_client_refusals_leave_the_users_file_alone) {
  struct Row {
    std::vector<std::string> args;
    const char* why;
  };
  const Row rows[] = {
      {{"add-client", "bad name"}, "user names"},
      {{"add-client", "dave", "--profiles", "ghost"}, "no [profile:ghost]"},
      {{"add-client", "dave", "--static-ip", "10.99.0.5"}, "not a free host"},
      {{"add-client", "dave", "--static-ip", "10.9.0.1"}, "not a free host"},
      {{"add-client", "dave", "--static-ip", "banana"}, "not an IPv4"},
      {{"add-client", "dave", "--link"}, "pass --host HOST[:PORT] or set [web] public_host"},
      {{"add-client", "dave", "--link", "--host", "[vpn.example.com]:443"}, "[IPv6]"},
      {{"add-client", "dave", "--link", "--host", "vpn example.com"}, "not a valid host"},
      {{"add-client", "dave", "--profiles", "main", "--link", "--host", "h", "--link-profile",
        "udp"},
       "is not a profile dave may use"},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.why);
    const auto r = run(with_conf(row.args));
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find(row.why), std::string::npos) << r.err;
  }
  EXPECT_EQ(run(with_conf({"add-client", "dave", "--password-stdin"}), "").rc, 1);
  EXPECT_EQ(std::filesystem::file_size(tmp_.file("users.conf")), 0U);
}

TEST_F(CliTest, provisioning_refuses_a_broken_config) {
  const auto bad = tmp_.write("bad.conf", "[profile:p]\ntun.mtu = 1\n");
  const auto r = run({"add-client", "x", "-c", bad, "--identity-dir", ids_});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("tun.mtu"), std::string::npos);
  EXPECT_EQ(run({"show-identity", "-c", bad, "--identity-dir", ids_}).rc, 1);
}

}  // namespace
}  // namespace qeli::cli
