#include "config/users_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "crypto/argon2id.h"
#include "temp_dir.h"

namespace qeli::config {
namespace {

constexpr const char* kHash =
    "$argon2id$v=19$m=19456,t=2,p=1$cWVsaXNhbHRxZWxpc2FsdA$"
    "Osd8oDq1tkVBcqiTspIFfzBiu8nQxjsRvUph715n65U";

TEST(users_file, append_creates_0600_and_reads_back) {
  test::TempDir tmp;
  const std::string path = tmp.file("users.conf");
  NewUser u{"bob", kHash, {"main", "plain"}, Ipv4Addr::parse("10.9.0.7"), 2, {"0a0b0c0d"}};
  ASSERT_TRUE(append_user(path, u).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600U);
  ASSERT_TRUE(append_user(path, NewUser{"carol", kHash, {}, std::nullopt, 0, {}}).ok());

  Findings f;
  const auto users = read_users_file(path, f);
  EXPECT_FALSE(f.has_errors());
  ASSERT_EQ(users.size(), 2U);
  EXPECT_EQ(users[0].name, "bob");
  EXPECT_EQ(users[0].password_hash, kHash);
  EXPECT_EQ(users[0].profiles, (std::vector<std::string>{"main", "plain"}));
  EXPECT_EQ(users[0].static_ip->to_string(), "10.9.0.7");
  EXPECT_EQ(users[0].max_sessions, 2U);
  EXPECT_EQ(users[0].reality_short_ids, (std::vector<std::string>{"0a0b0c0d"}));
  EXPECT_EQ(users[1].name, "carol");
  EXPECT_TRUE(users[1].profiles.empty());
  EXPECT_TRUE(crypto::argon2id_verify(users[0].password_hash, "demo-password"));
}

TEST(users_file, refuses_duplicates_bad_names_and_hashes) {
  test::TempDir tmp;
  const std::string path = tmp.file("users.conf");
  ASSERT_TRUE(append_user(path, NewUser{"bob", kHash, {}, std::nullopt, 0, {}}).ok());
  const auto dup = append_user(path, NewUser{"bob", kHash, {}, std::nullopt, 0, {}});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, UsersFileError::kExists);
  EXPECT_EQ(append_user(path, NewUser{"a b", kHash, {}, std::nullopt, 0, {}}).error().code,
            UsersFileError::kBadName);
  EXPECT_EQ(append_user(path, NewUser{"x]\n[user:y", kHash, {}, std::nullopt, 0, {}}).error().code,
            UsersFileError::kBadName);
  EXPECT_EQ(append_user(path, NewUser{"eve", "plaintext", {}, std::nullopt, 0, {}}).error().code,
            UsersFileError::kBadHash);
  EXPECT_EQ(append_user(tmp.file("nodir/users.conf"), NewUser{"z", kHash, {}, std::nullopt, 0, {}})
                .error()
                .code,
            UsersFileError::kIo);
}

TEST(users_file, appends_after_a_file_without_trailing_newline) {
  test::TempDir tmp;
  const std::string path = tmp.write(
      "users.conf", std::string("[user:a]\npassword_hash = ") + kHash);  // no final newline
  ASSERT_TRUE(append_user(path, NewUser{"b", kHash, {}, std::nullopt, 0, {}}).ok());
  Findings f;
  const auto users = read_users_file(path, f);
  EXPECT_FALSE(f.has_errors());
  ASSERT_EQ(users.size(), 2U);
  EXPECT_EQ(users[0].password_hash, kHash);
}

TEST(users_file, concurrent_appends_are_serialised) {
  test::TempDir tmp;
  const std::string path = tmp.file("users.conf");
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      EXPECT_TRUE(
          append_user(path, NewUser{"u" + std::to_string(i), kHash, {}, std::nullopt, 0, {}}).ok());
    });
  }
  for (auto& t : threads) t.join();
  Findings f;
  EXPECT_EQ(read_users_file(path, f).size(), 8U);
  EXPECT_FALSE(f.has_errors());
}

// remove-user / passwd: edits keep comments and the other sections byte for byte, write
// atomically (a new inode renamed over the old), keep the mode, and refuse unknown users.
const std::string kUsersText = std::string(
                                   "# managed by hand and by qeli\n"
                                   "[user:alice]\n"
                                   "password_hash = OLD\n"
                                   "password_enc = stale-reversible-copy\n"
                                   "bandwidth.limit_mbps = 5\n"
                                   "\n"
                                   "[user:bob]\n"
                                   "# bob's note\n"
                                   "password_hash = ") +
                               kHash + "\n";

TEST(users_file, remove_user_keeps_everything_else) {
  test::TempDir tmp;
  const std::string path = tmp.write("users.conf", kUsersText);
  ::chmod(path.c_str(), 0640);
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  ASSERT_TRUE(remove_user(path, "alice").ok());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, std::string("# managed by hand and by qeli\n[user:bob]\n# bob's note\n"
                              "password_hash = ") +
                      kHash + "\n");
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_NE(after.st_ino, before.st_ino);  // replaced by rename, never rewritten in place
  EXPECT_EQ(after.st_mode & 0777, 0640U);
  const auto st = remove_user(path, "alice");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, UsersFileError::kNotFound);
}

// A comment or a value that mentions "[user:bob]" is not bob's header: removing bob
// removes bob's section, not the tail of the one that mentions him.
TEST(users_file, only_a_header_line_starts_a_section) {
  test::TempDir tmp;
  const std::string text =
      std::string("[user:alice]\n# see also [user:bob]\nmetadata.note = [user:bob]\n") +
      "password_hash = " + kHash + "\n\n[user:bob]\npassword_hash = " + kHash + "\n";
  const std::string path = tmp.write("users.conf", text);
  ASSERT_TRUE(remove_user(path, "bob").ok());
  std::ifstream in(path);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after,
            std::string("[user:alice]\n# see also [user:bob]\nmetadata.note = [user:bob]\n") +
                "password_hash = " + kHash + "\n");
}

TEST(users_file, set_password_replaces_the_hash_and_drops_password_enc) {
  test::TempDir tmp;
  const std::string path = tmp.write("users.conf", kUsersText);
  ASSERT_TRUE(set_user_password(path, "alice", kHash).ok());
  Findings f;
  const auto users = read_users_file(path, f);
  ASSERT_FALSE(f.has_errors());
  ASSERT_EQ(users.size(), 2U);
  EXPECT_EQ(users[0].password_hash, kHash);
  EXPECT_TRUE(users[0].password_enc.empty());
  EXPECT_EQ(users[0].bandwidth_limit_mbps, 5);
  EXPECT_EQ(users[1].password_hash, kHash);
  EXPECT_FALSE(set_user_password(path, "nobody", kHash).ok());
  EXPECT_FALSE(set_user_password(path, "bob", "not-a-phc").ok());
}

TEST(users_file, an_append_waiting_on_the_lock_follows_a_rename) {
  test::TempDir tmp;
  const std::string path = tmp.write("users.conf", kUsersText);
  // Interleave removals and appends from two threads: every append must land in the
  // file the path names at the end (none into a renamed-away inode).
  std::thread t([&] {
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(
          append_user(path, NewUser{"u" + std::to_string(i), kHash, {}, std::nullopt, 0, {}}).ok());
    }
  });
  for (int i = 0; i < 20; ++i) (void)set_user_password(path, "bob", kHash);
  t.join();
  Findings f;
  EXPECT_EQ(read_users_file(path, f).size(), 22U);
}

}  // namespace
}  // namespace qeli::config

namespace qeli::config {
namespace {

TEST(users_file, devices_are_added_read_back_and_revoked_alone) {
  test::TempDir tmp;
  const std::string path = tmp.file("users.conf");
  ASSERT_TRUE(append_user(path, NewUser{"bob", kHash, {}, std::nullopt, 0, {}}).ok());
  ASSERT_TRUE(append_user(path, NewUser{"carol", kHash, {}, std::nullopt, 0, {}}).ok());
  ASSERT_TRUE(add_device(path, "bob", {"0a0b0c0d", "phone", kHash}).ok());
  ASSERT_TRUE(add_device(path, "bob", {"deadbeef", "laptop", kHash}).ok());
  EXPECT_EQ(add_device(path, "bob", {"0a0b0c0d", "again", kHash}).error().code,
            UsersFileError::kExists);
  EXPECT_EQ(add_device(path, "nobody", {"11111111", "x", kHash}).error().code,
            UsersFileError::kNotFound);
  EXPECT_EQ(add_device(path, "bob", {"1234", "x", kHash}).error().code, UsersFileError::kBadName);
  EXPECT_EQ(add_device(path, "bob", {"12345678", "x", "plain"}).error().code,
            UsersFileError::kBadHash);
  Findings f;
  auto users = read_users_file(path, f);
  ASSERT_FALSE(f.has_errors());
  ASSERT_EQ(users[0].devices.size(), 2U);
  EXPECT_EQ(users[0].devices[0], (DeviceCredential{"0a0b0c0d", "phone", kHash}));
  EXPECT_EQ(users[0].find_device("deadbeef")->name, "laptop");
  EXPECT_TRUE(users[1].devices.empty());

  ASSERT_TRUE(remove_device(path, "bob", "0a0b0c0d").ok());
  EXPECT_EQ(remove_device(path, "bob", "0a0b0c0d").error().code, UsersFileError::kNotFound);
  users = read_users_file(path, f);
  ASSERT_EQ(users[0].devices.size(), 1U);
  EXPECT_EQ(users[0].devices[0].id, "deadbeef");
  EXPECT_EQ(users[0].password_hash, kHash);  // the user's own password untouched
}

TEST(users_file, malformed_device_lines_are_errors) {
  test::TempDir tmp;
  for (const std::string& line : std::vector<std::string>{
           "device.xyz = phone " + std::string(kHash), std::string("device.0a0b0c0d = phone"),
           "device.0a0b0c0d = " + std::string(kHash),
           "device.0a0b0c0d = bad/name " + std::string(kHash),
           std::string("device.0a0b0c0d = phone   ")}) {
    const std::string path = tmp.write(
        "u.conf", "[user:bob]\npassword_hash = " + std::string(kHash) + "\n" + line + "\n");
    Findings f;
    (void)read_users_file(path, f);
    EXPECT_TRUE(f.has_errors()) << line;
  }
}

TEST(device_credential, form) {
  crypto::DeterministicRng rng(5);
  const std::string id = new_device_id(rng);
  EXPECT_TRUE(is_device_id(id));
  const std::string c = new_device_secret(id, rng);
  EXPECT_EQ(c.size(), 4U + 8U + 1U + 32U);
  EXPECT_EQ(device_id_of(c), id);
  for (const char* other :
       {"", "hunter2", "qd1.", "qd1.0a0b0c0d", "qd1.0A0B0C0D.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "qd1.0a0b0c0d.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",  // 31
        "qd1.0a0b0c0d.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=",
        "qd2.0a0b0c0d.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}) {
    EXPECT_FALSE(device_id_of(other)) << other;  // checked as the user's own password
  }
  EXPECT_EQ(device_id_of("qd1.0a0b0c0d.aaaaaaaaaaaaaaa-_aaaaaaaaaaaaaaa"), "0a0b0c0d");
}

}  // namespace
}  // namespace qeli::config

namespace qeli::config {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

TEST(users_file, set_web_password_edits_only_the_web_section) {
  test::TempDir tmp;
  const std::string h = kHash;
  // No [web] yet: the section is created before the first section, enabled on request.
  const std::string path = tmp.write(
      "server.conf", "# qeli server\n[auth]\nusers_file = users.conf\n\n[profile:p]\nport = 443\n");
  ::chmod(path.c_str(), 0640);
  ASSERT_TRUE(set_web_password(path, "root", h, true).ok());
  EXPECT_EQ(read_text(path), "# qeli server\n[web]\nusername = root\npassword_hash = " + h +
                                 "\nenabled = true\n\n[auth]\nusers_file = users.conf\n\n"
                                 "[profile:p]\nport = 443\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640U);

  // An existing [web]: its keys are replaced in place, missing ones go after its last key
  // (not after the blank line that ends it), everything else stays; enable = false leaves
  // `enabled` as it was.
  const std::string path2 = tmp.write("server2.conf",
                                      "[web]\nenabled = false\n# the admin\nusername = admin\n"
                                      "port = 9090\n\n[webhooks]\nusername = not-this-one\n");
  ASSERT_TRUE(set_web_password(path2, "ops", h, false).ok());
  EXPECT_EQ(read_text(path2),
            "[web]\nenabled = false\n# the admin\nusername = ops\nport = 9090\n"
            "password_hash = " +
                h + "\n\n[webhooks]\nusername = not-this-one\n");
  ASSERT_TRUE(set_web_password(path2, "ops", h, true).ok());
  EXPECT_EQ(read_text(path2),
            "[web]\nenabled = true\n# the admin\nusername = ops\nport = 9090\n"
            "password_hash = " +
                h + "\n\n[webhooks]\nusername = not-this-one\n");

  // Not a PHC string: refused, the file untouched.
  const std::string before = read_text(path2);
  const auto bad = set_web_password(path2, "ops", "hunter2", true);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, UsersFileError::kBadHash);
  EXPECT_EQ(read_text(path2), before);
  EXPECT_EQ(set_web_password(tmp.file("missing.conf"), "ops", h, true).error().code,
            UsersFileError::kIo);
}

TEST(users_file, set_web_totp_sets_replaces_and_removes_only_its_key) {
  test::TempDir tmp;
  const std::string path = tmp.write("server.conf",
                                     "[web]\nenabled = true\nusername = ops\n\n[profile:p]\n"
                                     "port = 443\n");
  ASSERT_TRUE(set_web_totp(path, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").ok());
  EXPECT_EQ(read_text(path),
            "[web]\nenabled = true\nusername = ops\ntotp_secret = "
            "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n\n[profile:p]\nport = 443\n");
  ASSERT_TRUE(set_web_totp(path, "MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U").ok());
  EXPECT_EQ(read_text(path),
            "[web]\nenabled = true\nusername = ops\ntotp_secret = "
            "MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U\n\n[profile:p]\nport = 443\n");
  // Removing it also removes a repeated line, and keeps the keys after it.
  const std::string path2 = tmp.write(
      "s2.conf", "[web]\ntotp_secret = A\nport = 1\ntotp_secret = B\nbind = ::1\n[x]\ny = 1\n");
  ASSERT_TRUE(set_web_totp(path2, "").ok());
  EXPECT_EQ(read_text(path2), "[web]\nport = 1\nbind = ::1\n[x]\ny = 1\n");
}

}  // namespace
}  // namespace qeli::config
