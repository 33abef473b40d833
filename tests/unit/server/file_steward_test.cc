// The file steward's decisions (steward_apply) against real files: what it writes for the
// dropped server, and what it refuses whatever the server asks — a hook in the config, a
// non-user section in the users file, any other path. And ConfigStore routing its writes
// through a FileReplacer.
#include "server/file_steward.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "../config/temp_dir.h"
#include "server/config_store.h"

namespace qeli::server {
namespace {

constexpr char kConfig[] =
    "[auth]\n"
    "users_file = users.conf\n"
    "[profile:main]\n"
    "bind.port = 4433\n"
    "obf.mode = plain\n";
constexpr char kUser[] =
    "[user:alice]\n"
    "password_hash = $argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$"
    "ZmFrZWhhc2hmYWtlaGFzaGZha2VoYXNoZmFrZWg\n";

std::string read(const std::string& path) {
  std::ifstream f(path);
  return {std::istreambuf_iterator<char>(f), {}};
}

struct Fixture {
  Fixture() {
    scope.config_path = dir.write("server.conf", kConfig);
    scope.users_path = dir.write("users.conf", "");
    ::chmod(scope.config_path.c_str(), 0640);
    scope.history_dir = dir.path() + "/history";
  }
  test::TempDir dir;
  StewardScope scope;
};

TEST(FileSteward, ReplacesTheConfigOnlyWhenCheckConfigAndThePrivilegedKeyRuleAgree) {
  Fixture f;
  const std::string edited = std::string(kConfig) + "# a comment\n";
  ASSERT_TRUE(steward_apply(f.scope, kStewardReplace, f.scope.config_path, edited).ok());
  EXPECT_EQ(read(f.scope.config_path), edited);
  struct stat st {};
  ::stat(f.scope.config_path.c_str(), &st);
  EXPECT_EQ(st.st_mode & 07777, 0640U);  // kept
  // A hook may not come in this way, nor a config check-config refuses.
  auto r = steward_apply(f.scope, kStewardReplace, f.scope.config_path,
                         edited + "routing.post_up = /tmp/x.sh\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("the config was not saved"), std::string::npos) << r.error();
  EXPECT_FALSE(steward_apply(f.scope, kStewardReplace, f.scope.config_path, "[nonsense\n").ok());
  EXPECT_EQ(read(f.scope.config_path), edited);
}

TEST(FileSteward, NeverWritesTheHiddenSecretPlaceholder) {
  Fixture f;
  const std::string with_secret =
      std::string(kConfig) + "[web]\ntotp_secret = GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n";
  ASSERT_EQ(f.dir.write("server.conf", with_secret), f.scope.config_path);
  // What the control API shows; validate() alone would put the secret back and pass it.
  std::string placeholder = with_secret;
  placeholder.replace(placeholder.find("GEZD"), 32, "(hidden)");
  const auto r = steward_apply(f.scope, kStewardReplace, f.scope.config_path, placeholder);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("placeholder"), std::string::npos) << r.error();
  EXPECT_EQ(read(f.scope.config_path), with_secret);
}

TEST(FileSteward, NeverWritesThroughALinkOrIntoADirectoryOthersMayWrite) {
  Fixture f;
  // users.conf as a symbolic link to another file: refused, the target untouched.
  const std::string victim = f.dir.write("victim", "precious\n");
  ::unlink(f.scope.users_path.c_str());
  ASSERT_EQ(::symlink(victim.c_str(), f.scope.users_path.c_str()), 0);
  EXPECT_FALSE(steward_apply(f.scope, kStewardReplace, f.scope.users_path, kUser).ok());
  EXPECT_EQ(read(victim), "precious\n");
  // A group-writable directory: refused too.
  ::unlink(f.scope.users_path.c_str());
  f.dir.write("users.conf", "");
  ::chmod(f.dir.path().c_str(), 0770);
  const auto r = steward_apply(f.scope, kStewardReplace, f.scope.users_path, kUser);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("only root may write"), std::string::npos) << r.error();
  ::chmod(f.dir.path().c_str(), 0700);
  EXPECT_TRUE(steward_apply(f.scope, kStewardReplace, f.scope.users_path, kUser).ok());
}

TEST(FileSteward, ReplacesTheUsersFileWithUserSectionsOnly) {
  Fixture f;
  ASSERT_TRUE(steward_apply(f.scope, kStewardReplace, f.scope.users_path, kUser).ok());
  EXPECT_EQ(read(f.scope.users_path), kUser);
  const auto r = steward_apply(f.scope, kStewardReplace, f.scope.users_path,
                               std::string(kUser) + "[profile:x]\nrouting.post_up = /bin/sh\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("only [user:NAME] sections"), std::string::npos) << r.error();
  EXPECT_EQ(read(f.scope.users_path), kUser);
}

TEST(FileSteward, WritesAndRemovesHistoryVersionsAndNothingElse) {
  Fixture f;
  const std::string v = f.scope.history_dir + "/20261207T010203Z-0123abcd.conf";
  // A version is the config as it is now, a description a small JSON object: nothing else
  // (the dropped server cannot fill root's disk through the history).
  EXPECT_FALSE(steward_apply(f.scope, kStewardReplace, v, "anything").ok());
  EXPECT_FALSE(steward_apply(f.scope, kStewardReplace,
                             f.scope.history_dir + "/20261207T010203Z-0123abcd.json",
                             std::string(5000, '{'))
                   .ok());
  ASSERT_TRUE(steward_apply(f.scope, kStewardReplace, v, kConfig).ok());
  EXPECT_EQ(read(v), kConfig);
  struct stat st {};
  ::stat(f.scope.history_dir.c_str(), &st);
  EXPECT_EQ(st.st_mode & 07777, 0750U);
  // A directory left 0700 by an older version is made readable for the server's group.
  ::chmod(f.scope.history_dir.c_str(), 0700);
  ASSERT_TRUE(steward_apply(f.scope, kStewardReplace,
                            f.scope.history_dir + "/20261207T010203Z-0123abcd.json", "{}")
                  .ok());
  ::stat(f.scope.history_dir.c_str(), &st);
  EXPECT_EQ(st.st_mode & 07777, 0750U);
  ASSERT_TRUE(steward_apply(f.scope, kStewardRemove, v, "").ok());
  EXPECT_NE(::access(v.c_str(), F_OK), 0);
  for (const std::string& path :
       {f.dir.path() + "/other.conf", f.scope.history_dir + "/../server.conf",
        f.scope.history_dir + "/20261207T010203Z-0123abcd.sh", std::string("/etc/passwd"),
        f.scope.history_dir + "/x/20261207T010203Z-0123abcd.conf"}) {
    SCOPED_TRACE(path);
    EXPECT_FALSE(steward_apply(f.scope, kStewardReplace, path, "x").ok());
  }
  // Only history versions may be removed.
  EXPECT_FALSE(steward_apply(f.scope, kStewardRemove, f.scope.users_path, "").ok());
  EXPECT_FALSE(steward_apply(f.scope, 7, f.scope.users_path, "").ok());
  EXPECT_FALSE(steward_apply(f.scope, kStewardReplace, f.scope.users_path,
                             std::string(4 * 1024 * 1024 + 1, '#'))
                   .ok());
}

// ConfigStore hands every write to its replacer (the dropped server's path).
class Recorder : public config::FileReplacer {
 public:
  Status<std::string> replace(const std::string& path, std::string_view content) override {
    replaced.emplace_back(path, std::string(content));
    return {};
  }
  Status<std::string> remove(const std::string& path) override {
    removed.push_back(path);
    return {};
  }
  std::vector<std::pair<std::string, std::string>> replaced;
  std::vector<std::string> removed;
};

TEST(FileSteward, ConfigStoreSavesThroughItsReplacer) {
  Fixture f;
  Recorder rec;
  ConfigStore store(f.scope.config_path, f.scope.history_dir, &rec);
  const auto cur = store.read();
  ASSERT_TRUE(cur.ok());
  const std::string text = std::string(kConfig) + "# edited\n";
  const auto saved = store.save({text, cur->sha256, "panel:boss"});
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  ASSERT_EQ(rec.replaced.size(), 3U);
  EXPECT_EQ(rec.replaced[0].first, f.scope.history_dir + "/" + saved->history_id + ".conf");
  EXPECT_EQ(rec.replaced[0].second, kConfig);
  EXPECT_EQ(rec.replaced[1].first, f.scope.history_dir + "/" + saved->history_id + ".json");
  EXPECT_EQ(rec.replaced[2].first, f.scope.config_path);
  EXPECT_EQ(rec.replaced[2].second, text);
  EXPECT_EQ(read(f.scope.config_path), kConfig);  // the store wrote nothing itself
}

}  // namespace
}  // namespace qeli::server
