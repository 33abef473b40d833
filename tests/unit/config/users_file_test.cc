#include "config/users_file.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace qeli::config
