// current_netns on stand-in files (identity is device + inode, so ordinary files play the
// namespace files), and the suffix rules.
#include "sys/netns_identity.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_dir.h"

namespace qeli::sys {
namespace {

using test::spit;
using test::TempDir;

TEST(NetnsIdentity, InitialNamedAndAnonymous) {
  TempDir dir;
  spit(dir / "init", "");
  spit(dir / "other", "");
  ASSERT_EQ(::mkdir((dir / "netns").c_str(), 0755), 0);
  // The initial namespace: self is the same file as PID 1's.
  auto init = current_netns({dir / "init", dir / "init", dir / "netns"});
  ASSERT_TRUE(init.ok());
  EXPECT_TRUE(init->initial);
  EXPECT_EQ(netns_suffix(*init), "");
  // Another namespace, not named: the inode.
  auto anon = current_netns({dir / "other", dir / "init", dir / "netns"});
  ASSERT_TRUE(anon.ok());
  EXPECT_FALSE(anon->initial);
  EXPECT_TRUE(anon->name.empty());
  struct stat st {};
  ASSERT_EQ(::stat((dir / "other").c_str(), &st), 0);
  EXPECT_EQ(anon->inode, static_cast<std::uint64_t>(st.st_ino));
  EXPECT_EQ(netns_suffix(*anon), "@ns" + std::to_string(st.st_ino));
  // Named: /run/netns/<name> is the same namespace (a bind mount; a hard link here).
  ASSERT_EQ(::link((dir / "other").c_str(), (dir / "netns/blue").c_str()), 0);
  spit(dir / "netns/red", "");
  auto named = current_netns({dir / "other", dir / "init", dir / "netns"});
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->name, "blue");
  EXPECT_EQ(netns_suffix(*named), "@blue");
  // No /run/netns at all, or no self: not fatal / an error.
  EXPECT_TRUE(current_netns({dir / "other", dir / "init", dir / "none"}).ok());
  EXPECT_FALSE(current_netns({dir / "missing", dir / "init", dir / "netns"}).ok());
}

TEST(NetnsIdentity, UnsafeNamesFallBackToTheInode) {
  for (const char* bad : {"", ".hidden", "a/b", "sp ace", "new\nline"}) {
    NetnsIdentity id{false, bad, 42};
    EXPECT_EQ(netns_suffix(id), "@ns42") << bad;
  }
  EXPECT_EQ(netns_suffix({false, std::string(64, 'a'), 1}), "@" + std::string(64, 'a'));
  EXPECT_EQ(netns_suffix({false, std::string(65, 'a'), 1}), "@ns1");
  EXPECT_EQ(netns_suffix({true, "blue", 7}), "") << "the initial namespace keeps plain paths";
}

TEST(NetnsIdentity, ThisProcessHasOne) {
  auto id = current_netns();
  ASSERT_TRUE(id.ok()) << id.error().detail;
  EXPECT_NE(id->inode, 0U);
}

}  // namespace
}  // namespace qeli::sys
