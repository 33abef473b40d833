// FilesAsUser: what the server creates before its privilege drop (the usage database in
// the service user's 0750 state directory, where root without CAP_DAC_OVERRIDE may not
// write) is created as, and owned by, the service user; the ids come back afterwards.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "sys/privilege.h"

namespace qeli::sys {
namespace {

uid_t owner_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

bool create(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fclose(f);
  return true;
}

TEST(FilesAsUser, CreatesAsTheUserInItsOwnDirectoryThenComesBack) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  const passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  char tmpl[] = "/tmp/qeli-fsuid-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  // The user's own directory, closed to everyone else (as /var/lib/qeli/server is).
  ASSERT_EQ(::chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  {
    auto as = FilesAsUser::enter("nobody");
    ASSERT_TRUE(as.ok()) << as.error();
    ASSERT_TRUE(create(dir + "/db"));
    EXPECT_EQ(owner_of(dir + "/db"), nobody->pw_uid);
  }
  ASSERT_TRUE(create(dir + "/after"));
  EXPECT_EQ(owner_of(dir + "/after"), 0U) << "the filesystem ids are root's again";
  EXPECT_FALSE(FilesAsUser::enter("no-such-user-qeli").ok());
  EXPECT_FALSE(FilesAsUser::enter("root").ok()) << "nothing to switch to";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qeli::sys
