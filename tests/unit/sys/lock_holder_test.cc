#include "sys/lock_holder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace qeli::sys {
namespace {

constexpr char kLocks[] =
    "1: POSIX  ADVISORY  WRITE 700 08:01:99 0 EOF\n"
    "2: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF\n"
    "2: -> FLOCK  ADVISORY  WRITE 5151 fd:01:1234567 0 EOF\n"
    "3: OFDLCK ADVISORY  READ  -1 00:05:1234567 0 EOF\n";

TEST(lock_holder, finds_the_holder_by_device_and_inode) {
  EXPECT_EQ(find_lock_holder(kLocks, 0xfd, 0x01, 1234567), 4242);
  EXPECT_EQ(find_lock_holder(kLocks, 8, 1, 99), 700);
}

TEST(lock_holder, no_match_and_broken_lines_give_nothing) {
  EXPECT_EQ(find_lock_holder(kLocks, 0xfd, 0x02, 1234567), std::nullopt);  // other device
  EXPECT_EQ(find_lock_holder(kLocks, 0, 5, 1234567), std::nullopt);        // pid -1
  EXPECT_EQ(find_lock_holder("", 0xfd, 1, 1), std::nullopt);
  EXPECT_EQ(find_lock_holder("1: FLOCK ADVISORY WRITE x fd:01:7 0 EOF\n2: FLOCK\n", 0xfd, 1, 7),
            std::nullopt);
}

TEST(lock_holder, names_a_real_flock_holder) {
  test::TempDir dir;
  const std::string path = dir.path() + "/journal";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  const auto holder = lock_holder(path);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(*holder, child);
}

}  // namespace
}  // namespace qeli::sys
