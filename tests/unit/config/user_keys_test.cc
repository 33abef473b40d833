// config::set_user_keys (edit-user's file edit): the keys it sets replace their own
// lines and nothing else — comments, other keys and other users stay byte for byte —
// and a check that refuses, or a value with a line break, leaves the file untouched.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "config/users_file.h"
#include "temp_dir.h"

namespace qeli::config {
namespace {

constexpr const char* kHash =
    "$argon2id$v=19$m=19456,t=2,p=1$cWVsaXNhbHRxZWxpc2FsdA$"
    "Osd8oDq1tkVBcqiTspIFfzBiu8nQxjsRvUph715n65U";

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string kBefore = std::string("# users\n[user:alice]\n# alice's limits\n") +
                            "password_hash = " + kHash +
                            "\n"
                            "max_sessions = 2\n"
                            "route = 10.1.0.0/16\n"
                            "metadata.note = keep me\n"
                            "route = 10.2.0.0/16\n"
                            "\n"
                            "# bob next\n"
                            "[user:bob]\n"
                            "max_sessions = 7\n";

TEST(user_keys, sets_replaces_and_removes_only_the_named_keys) {
  test::TempDir tmp;
  const std::string path = tmp.write("users.conf", kBefore);
  std::string judged;
  const auto st = set_user_keys(path, "alice",
                                {{"max_sessions", {"5"}},
                                 {"route", {"192.168.0.0/24", "172.16.0.0/12 metric=5"}},
                                 {"group", {"staff"}},
                                 {"static_ip", {}}},
                                [&](const std::string& text) -> std::optional<std::string> {
                                  judged = text;
                                  return std::nullopt;
                                });
  ASSERT_TRUE(st.ok()) << st.error().detail;
  const std::string want = std::string("# users\n[user:alice]\n# alice's limits\n") +
                           "password_hash = " + kHash +
                           "\n"
                           "max_sessions = 5\n"
                           "route = 192.168.0.0/24\n"
                           "route = 172.16.0.0/12 metric=5\n"
                           "metadata.note = keep me\n"
                           "group = staff\n"
                           "\n"
                           "# bob next\n"
                           "[user:bob]\n"
                           "max_sessions = 7\n";
  EXPECT_EQ(read(path), want);
  EXPECT_EQ(judged, want);  // the check saw exactly what was written

  // No values: the key's lines go; bob's same-named key stays.
  ASSERT_TRUE(set_user_keys(path, "alice", {{"max_sessions", {}}, {"route", {}}}, {}).ok());
  EXPECT_EQ(read(path), std::string("# users\n[user:alice]\n# alice's limits\n") +
                            "password_hash = " + kHash +
                            "\n"
                            "metadata.note = keep me\n"
                            "group = staff\n"
                            "\n"
                            "# bob next\n"
                            "[user:bob]\n"
                            "max_sessions = 7\n");
}

TEST(user_keys, a_refusal_writes_nothing) {
  test::TempDir tmp;
  const std::string path = tmp.write("users.conf", kBefore);
  const auto refused =
      set_user_keys(path, "alice", {{"max_sessions", {"9"}}},
                    [](const std::string&) { return std::optional<std::string>("not today"); });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, UsersFileError::kInvalid);
  EXPECT_EQ(refused.error().detail, "not today");
  EXPECT_EQ(read(path), kBefore);

  // A line break would smuggle another key (or section) into the file.
  bool checked = false;
  const auto injected = set_user_keys(path, "alice", {{"group", {"x\n[user:eve]"}}},
                                      [&](const std::string&) -> std::optional<std::string> {
                                        checked = true;
                                        return std::nullopt;
                                      });
  ASSERT_FALSE(injected.ok());
  EXPECT_EQ(injected.error().code, UsersFileError::kInvalid);
  EXPECT_FALSE(checked);
  EXPECT_EQ(read(path), kBefore);

  const auto missing = set_user_keys(path, "nobody", {{"group", {"staff"}}}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, UsersFileError::kNotFound);
  EXPECT_EQ(read(path), kBefore);
}

}  // namespace
}  // namespace qeli::config
